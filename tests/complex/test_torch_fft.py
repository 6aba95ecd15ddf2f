"""torch.fft on eager tensors against PyTorch: values, dtypes, grad_fn names and gradients of
every transform (real and complex inputs, n/s, dim, norm), and PyTorch's errors."""
import numpy as np
import pytest
import torch as T

import gradjit as torch
from tests.torch_reference import same_error

rng = np.random.default_rng(0)
X = rng.standard_normal((4, 6))
Z = X + 1j * rng.standard_normal((4, 6))
X1 = rng.standard_normal(7)

EXPRESSIONS = [
    "F.fft(x)", "F.fft(z)", "F.ifft(x)", "F.ifft(z, n=8, norm='ortho')", "F.fft(x, n=3, dim=0)",
    "F.fft2(z)", "F.fft2(x)", "F.ifft2(x, s=(3, 5))", "F.fftn(x)", "F.fftn(x1)",
    "F.ifftn(z, dim=(0,))", "F.fftn(z, s=(3,))", "F.rfft(x)", "F.rfft(x, n=3)", "F.irfft(z)",
    "F.irfft(z, n=3, norm='forward')", "F.irfft(z, n=1)", "F.rfft2(x)", "F.irfft2(z)",
    "F.rfftn(x, s=(3,))", "F.irfftn(z, s=(5, 6))", "F.hfft(z)", "F.hfft(z, n=5, norm='ortho')",
    "F.hfft(x)", "F.ihfft(x)", "F.ihfft(x1, norm='forward')", "F.hfft2(z)", "F.ihfft2(x)",
    "F.hfftn(z, norm='ortho')", "F.ihfftn(x)", "F.ihfftn(x1)", "F.fftshift(x)",
    "F.ifftshift(z, dim=1)", "F.fftshift(x1, dim=0)", "F.fft(x.float())",
    "F.rfft(x.float(), norm='ortho')", "F.irfft(z.to(t.complex64))",
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_transform_values_gradients_and_grad_fn_as_torch(expr):
    results = []
    for t in (torch, T):
        x, z = t.tensor(X, requires_grad=True), t.tensor(Z, requires_grad=True)
        x1 = t.tensor(X1, requires_grad=True)
        v = eval(expr, {"F": t.fft, "t": t, "x": x, "z": z, "x1": x1})
        weights = t.tensor(np.linspace(0.5, 1.5, v.numel()).reshape(tuple(v.shape)))
        ((v.abs() if v.dtype.is_complex else v) * weights).pow(2).sum().backward()
        grads = [None if a.grad is None else a.grad.resolve_conj().numpy() for a in (x, z, x1)]
        results.append((v.detach().resolve_conj().numpy(), str(v.dtype), v.grad_fn.name(),
                        grads))
    (value, dtype, name, grads), (t_value, t_dtype, t_name, t_grads) = results
    assert (dtype, name) == (t_dtype, t_name)
    tol = 1e-5 if "float()" in expr or "complex64" in expr else 1e-10
    np.testing.assert_allclose(value, t_value, rtol=tol, atol=tol)
    for g, t_g in zip(grads, t_grads):
        assert (g is None) == (t_g is None)
        if g is not None:
            np.testing.assert_allclose(g, t_g, rtol=tol, atol=tol)


@pytest.mark.parametrize("expr", [
    "F.fft(t.arange(4))", "F.fftfreq(5)", "F.rfftfreq(6, 0.1)",
    "F.fftfreq(4, 0.5, dtype=t.float64)", "F.fft(t.tensor([1.0, 2.0, 4.0], dtype=t.float64))",
])
def test_dtypes_and_reprs_as_torch(expr):
    got, want = (eval(expr, {"F": t.fft, "t": t}) for t in (torch, T))
    assert repr(got) == repr(want)


@pytest.mark.parametrize("expr", [
    "F.fft(x, norm='bad')", "F.rfft(z)", "F.rfft2(z)", "F.ihfft(z)", "F.ihfftn(z)",
    "F.fft(x, dim=5)", "F.fft(x, n=0)", "F.irfft(z, n=0)", "F.fft(t.ones(0))",
    "F.fftn(x, s=(2,), dim=(0, 1))", "F.fftn(x, dim=(0, 0))", "F.fftshift(x, dim=3)",
])
def test_errors_as_torch(expr):
    def run(t):
        return eval(expr, {"F": t.fft, "t": t, "x": t.tensor(X), "z": t.tensor(Z)})
    same_error(lambda: run(torch), lambda: run(T))


def test_out_writes_into_the_given_tensor():
    out = torch.zeros(4, 6, dtype=torch.complex128)
    result = torch.fft.fft(torch.tensor(Z), out=out)
    assert result is out
    np.testing.assert_allclose(out.numpy(), np.fft.fft(Z), rtol=1e-12)


def test_traced_tensors_run_torch_fft_compiled():
    """torch.func.grad of a function of Tensors traces torch.fft as it traces numpy.fft."""
    def loss(x):
        return (torch.fft.rfft(x, norm="ortho").abs() ** 2).sum()
    got = torch.func.grad(loss)(torch.tensor(X))
    t_x = T.tensor(X, requires_grad=True)
    (T.fft.rfft(t_x, norm="ortho").abs() ** 2).sum().backward()
    np.testing.assert_allclose(got.numpy(), t_x.grad.numpy(), rtol=1e-10)
