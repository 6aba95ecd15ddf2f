"""Complex tensors against PyTorch: factories and seeded draws, repr, parts as views,
gradients in PyTorch's convention (df/dx + i df/dy for a real loss), grad_fn names, and the
errors PyTorch raises for orders on complex numbers."""
import numpy as np
import pytest
import torch as T
from scipy import stats

import gradjit as torch
from tests.torch_reference import same_error

rng = np.random.default_rng(0)
Z = rng.standard_normal(4) + 1j * rng.standard_normal(4)
W = rng.standard_normal(4) + 1j * rng.standard_normal(4)
X = rng.standard_normal(4)


@pytest.mark.parametrize("make", [
    lambda t: t.tensor([1 + 2j, 3.5 - 1j]), lambda t: t.tensor(2 - 3j),
    lambda t: t.tensor([[1e-5 + 2j, 3.5 - 1j], [0j, -1 - 1e5j]], dtype=t.complex128),
    lambda t: t.tensor([float("nan") + 1j, 1 - float("inf") * 1j]),
    lambda t: t.tensor([1j] * 2000), lambda t: t.zeros(2, 3, dtype=t.cfloat),
    lambda t: t.ones(2, dtype=t.cdouble), lambda t: t.full((2,), 1j),
    lambda t: t.complex(t.tensor([1.0, 2.0]), t.tensor([3.0, -4.0])),
    lambda t: t.polar(t.tensor([1.0, 2.0], dtype=t.float64), t.tensor([0.5, -3.0],
                                                                       dtype=t.float64)),
    lambda t: t.tensor([1.0, 2.0]) * 1j, lambda t: t.tensor([1, 2]) * 1j,
    lambda t: t.tensor([1.0, 2.0], dtype=t.float64) + t.tensor(1j),
    lambda t: t.view_as_complex(t.tensor([[1.0, 2.0], [3.0, 4.0]])),
    lambda t: t.view_as_real(t.tensor([1 + 2j, 3 - 4j])),
    lambda t: t.tensor([1 + 2j, -3 + 0.5j]).angle(), lambda t: t.tensor([3 + 4j]).abs(),
    lambda t: t.tensor([3 + 4j, 0j]).sgn(), lambda t: t.tensor([1 + 2j]).conj(),
    lambda t: t.tensor([1 + 2j, 3 - 1j]).real, lambda t: t.tensor([1 + 2j, 3 - 1j]).imag,
    lambda t: t.tensor([1 + 2j, 3 - 1j]).to(t.float64),
    lambda t: t.tensor([1 + 2j, 3 - 1j]).norm(), lambda t: t.tensor([1 + 2j, 3]).isreal(),
])
def test_values_dtypes_and_repr_as_torch(make):
    got, want = make(torch), make(T)
    assert repr(got) == repr(want)
    assert got.dtype.is_complex == want.dtype.is_complex == got.is_complex()


def test_default_complex_follows_the_default_float():
    try:
        for t in (torch, T):
            t.set_default_dtype(t.float64)
        assert repr(torch.tensor([1j])) == repr(T.tensor([1j]))
        assert torch.tensor([1j]).dtype is torch.complex128
        assert torch.full((1,), 1j).dtype is torch.complex128
        assert (torch.tensor([1, 2]) * 1j).dtype is torch.complex128
        assert (torch.tensor([1, 2]) * 1.5).dtype is torch.float64
    finally:
        for t in (torch, T):
            t.set_default_dtype(t.float32)


@pytest.mark.parametrize("dtype", ["cfloat", "cdouble"])
@pytest.mark.parametrize("n", [3, 7, 100])
def test_seeded_draws(dtype, n):
    """rand equals torch's draws; randn takes PyTorch's normal_ on the real view with std
    1/sqrt(2), equal where gradjit's normal_ is (below 16 values, in double) and otherwise
    within the rounding of its scaling."""
    for t in (torch, T):
        t.manual_seed(5)
    np.testing.assert_array_equal(torch.rand(n, dtype=getattr(torch, dtype)).numpy(),
                                  T.rand(n, dtype=getattr(T, dtype)).numpy())
    got, want = torch.randn(n, dtype=getattr(torch, dtype)), T.randn(n, dtype=getattr(T, dtype))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-6, atol=2e-6)
    assert np.array_equal(torch.randn(2).numpy(), T.randn(2).numpy())  # same place in stream


def test_complex_normal_law():
    torch.manual_seed(0)
    z = torch.randn(20000, dtype=torch.cdouble).numpy()
    assert abs(np.mean(np.abs(z) ** 2) - 1) < 0.03
    for part in (z.real, z.imag):
        assert stats.kstest(part, "norm", args=(0, np.sqrt(0.5))).pvalue > 1e-3
    assert abs(np.corrcoef(z.real, z.imag)[0, 1]) < 0.03


LOSSES = {
    "abs2": lambda t, z, w, x: (z.abs() ** 2).sum(),
    "realdot": lambda t, z, w, x: (z * w.conj()).real.sum(),
    "imag": lambda t, z, w, x: (z.exp() / w).imag.sum(),
    "angle": lambda t, z, w, x: (z * w).angle().sum(),
    "mixed": lambda t, z, w, x: ((z * x).abs() + (x * 1j + z).real * 2).sum(),
    "complex": lambda t, z, w, x: t.complex(x, x * 2).mul(z).abs().sum(),
    "polar": lambda t, z, w, x: t.polar(x.abs(), x).mul(w).real.sum(),
    "sqrtlog": lambda t, z, w, x: (z.sqrt() + z.log() * w).abs().sum(),
    "mean": lambda t, z, w, x: (z * w).mean().abs(),
    "matmul": lambda t, z, w, x: (z @ w).abs(),
    "view_as_real": lambda t, z, w, x: t.view_as_real(z * w).pow(2).sum(),
    "view_as_complex": lambda t, z, w, x: t.view_as_complex(t.stack([x, x * x], -1)).mul(
        z).imag.sum(),
    "sgn": lambda t, z, w, x: (z.sgn() * w).real.sum(),
    "to": lambda t, z, w, x: (x.to(t.complex128) * z).abs().sum(),
    "pow": lambda t, z, w, x: (z ** 2 + z.pow(w)).abs().sum(),
    "trig": lambda t, z, w, x: (z.reciprocal() * z.sin() + z.cos().tanh()).abs().sum(),
    "norm": lambda t, z, w, x: (z * w).norm() + t.linalg.vector_norm(z, 1),
    "prod": lambda t, z, w, x: (z * w).prod().real,
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_gradients_and_grad_fns_as_torch(name):
    results = []
    for t in (torch, T):
        z, w = t.tensor(Z, requires_grad=True), t.tensor(W, requires_grad=True)
        x = t.tensor(X, requires_grad=True)
        loss = LOSSES[name](t, z, w, x)
        loss.backward()
        grads = [np.zeros(4) if v.grad is None else v.grad.resolve_conj().numpy()
                 for v in (z, w, x)]
        results.append((loss.item(), grads, loss.grad_fn.name()))
    (value, grads, fn_name), (t_value, t_grads, t_fn_name) = results
    assert fn_name == t_fn_name
    np.testing.assert_allclose(value, t_value, rtol=1e-12)
    for g, t_g in zip(grads, t_grads):
        assert g.dtype == t_g.dtype
        np.testing.assert_allclose(g, t_g, rtol=1e-10, atol=1e-12)


def test_gradient_is_conjugate_wirtinger_times_two():
    """For L = |z|^2 the gradient is 2z (2 dL/dz-bar); central differences along the real and
    imaginary directions give its parts."""
    z = torch.tensor(Z, requires_grad=True)
    (z.abs() ** 2).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), 2 * Z, rtol=1e-12)
    loss = lambda v: float(np.sum(np.abs(np.exp(v) * W)))
    z = torch.tensor(Z, requires_grad=True)
    (z.exp() * torch.tensor(W)).abs().sum().backward()
    eps = 1e-6
    for i in range(4):
        step = np.zeros(4)
        step[i] = eps
        d_re = (loss(Z + step) - loss(Z - step)) / (2 * eps)
        d_im = (loss(Z + 1j * step) - loss(Z - 1j * step)) / (2 * eps)
        np.testing.assert_allclose(z.grad.numpy()[i], d_re + 1j * d_im, rtol=1e-6)


@pytest.mark.parametrize("op", ["exp", "abs", "conj", "real", "imag", "angle", "sgn", "mul",
                                "view_as_real", "sum", "complex", "polar", "to"])
def test_grad_fn_names(op):
    make = {
        "exp": lambda t, z, x: z.exp(), "abs": lambda t, z, x: z.abs(),
        "conj": lambda t, z, x: z.conj(), "real": lambda t, z, x: z.real,
        "imag": lambda t, z, x: z.imag, "angle": lambda t, z, x: z.angle(),
        "sgn": lambda t, z, x: z.sgn(), "mul": lambda t, z, x: z * 1j,
        "view_as_real": lambda t, z, x: t.view_as_real(z), "sum": lambda t, z, x: z.sum(),
        "complex": lambda t, z, x: t.complex(x, x), "polar": lambda t, z, x: t.polar(x, x),
        "to": lambda t, z, x: x.to(t.complex64),
    }[op]
    names = [make(t, t.tensor(Z, requires_grad=True), t.tensor(X, requires_grad=True))
             .grad_fn.name() for t in (torch, T)]
    assert names[0] == names[1]


def test_real_and_imag_are_views():
    for t in (torch, T):
        z = t.tensor([1 + 2j, 3 - 1j])
        z.real[0] = 5.0
        z.imag.mul_(2)
        assert z.tolist() == [5 + 4j, 3 - 2j]
    x = torch.tensor([1.0, 2.0])
    assert x.real is x
    same_error(lambda: torch.tensor([1.0]).imag, lambda: T.tensor([1.0]).imag)


def test_conj_resolves_to_itself_and_is_never_lazy():
    z = torch.tensor([1 + 2j])
    assert not z.conj().is_conj()
    assert z.conj().resolve_conj().tolist() == [1 - 2j]


@pytest.mark.parametrize("expr", [
    "z < z", "z > 1", "z <= z", "z >= z", "z.max()", "z.min()", "z.amax()", "z.amin()",
    "z.max(0)", "z.argmax()", "z.argmin()", "z.sort()", "t.maximum(z, z)", "t.minimum(z, z)",
    "z.clamp(0, 1)", "z.clamp(min=0)", "z.sign()", "z.floor()", "z.ceil()", "z.round()",
    "z.trunc()", "z.cummax(0)", "z.topk(1)", "z.median()", "z.msort()", "t.sort(z)",
    "t.lt(z, 1)", "1 < z", "t.view_as_real(t.ones(2))", "t.view_as_complex(t.ones(2, 3))",
    "t.view_as_complex(t.ones(2, 2, dtype=t.int64))", "t.complex(t.ones(2), t.ones(2).double())",
    "t.complex(t.ones(2, dtype=t.int64), t.ones(2, dtype=t.int64))",
    "t.tensor([1, 2]).requires_grad_()",
])
def test_errors_as_torch(expr):
    def run(t):
        z = t.tensor([1 + 2j, 3 - 1j])
        return eval(expr, {"t": t, "z": z})
    same_error(lambda: run(torch), lambda: run(T))


@pytest.mark.parametrize("call", [lambda t, z: (z * 2).backward(),
                                  lambda t, z: t.autograd.grad(z * 2, z)])
def test_an_implicit_gradient_needs_a_real_output(call):
    same_error(lambda: call(torch, torch.tensor(1 + 2j, requires_grad=True)),
               lambda: call(T, T.tensor(1 + 2j, requires_grad=True)))


def test_a_given_complex_output_gradient_is_taken_as_torch_takes_it():
    results = []
    for t in (torch, T):
        z = t.tensor(Z, requires_grad=True)
        (z * z).backward(t.tensor(W))
        results.append(z.grad.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


@pytest.mark.parametrize("lib_call", [
    lambda L, z: z.conj_physical_(), lambda L, z: L.conj_physical_(z),
    lambda L, z: L.view_as_real_copy(z), lambda L, z: L.view_as_complex_copy(
        L.view_as_real_copy(z).detach() * 2)])
def test_in_place_conjugate_and_the_copy_views_match_pytorch(lib_call):
    results = []
    for L in (torch, T):
        z = L.tensor(Z, requires_grad=True)
        w = z * 1  # a non-leaf, which in-place operations may write
        out = lib_call(L, w)
        weights = L.tensor(np.linspace(0.5, 2.0, out.numel()).reshape(tuple(out.shape)))
        if out.requires_grad:
            (out * weights).real.sum().backward() if out.is_complex() else \
                (out * weights).sum().backward()
        results.append((out.detach().numpy(), type(out.grad_fn).__name__ if out.grad_fn else
                        None, None if z.grad is None else z.grad.numpy(), w is out))
    np.testing.assert_allclose(results[0][0], results[1][0])
    assert results[0][1] == results[1][1] and results[0][3] == results[1][3]
    if results[1][2] is not None:
        np.testing.assert_allclose(results[0][2], results[1][2])


def test_view_as_complex_copy_refuses_autodiff_as_pytorch():
    same_error(lambda: torch.view_as_complex_copy(torch.ones(2, 2, requires_grad=True)),
               lambda: T.view_as_complex_copy(T.ones(2, 2, requires_grad=True)))
