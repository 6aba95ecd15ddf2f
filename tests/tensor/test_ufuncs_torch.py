"""The eager floating-point math of gradjit.tensor.ufuncs and gradjit.special against PyTorch
itself: values, dtypes, gradients and grad_fn names."""
import math

import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")
rng = np.random.default_rng(5)
INF, NAN = math.inf, math.nan

# name -> domain of the random inputs (gradients are compared there)
UNARY = {
    "asin": (-0.95, 0.95), "arcsin": (-0.95, 0.95), "acos": (-0.95, 0.95),
    "arccos": (-0.95, 0.95), "atan": (-5, 5), "arctan": (-5, 5), "sinh": (-5, 5),
    "cosh": (-5, 5), "asinh": (-5, 5), "arcsinh": (-5, 5), "acosh": (1.1, 5),
    "arccosh": (1.1, 5), "atanh": (-0.95, 0.95), "arctanh": (-0.95, 0.95), "exp2": (-5, 5),
    "log2": (0.1, 5), "log10": (0.1, 5), "sinc": (-3, 3), "deg2rad": (-360, 360),
    "rad2deg": (-7, 7), "erf": (-3, 3), "erfc": (-3, 3), "erfinv": (-0.99, 0.99),
    "lgamma": (-4.5, 6), "digamma": (0.1, 6), "logit": (0.05, 0.95), "nan_to_num": (-3, 3),
}
BINARY = ["atan2", "arctan2", "logaddexp", "logaddexp2", "hypot", "copysign", "fmax", "fmin",
          "xlogy"]
SPECIAL = {"erf": (-3, 3), "erfc": (-3, 3), "expit": (-5, 5), "logit": (0.05, 0.95),
           "ndtr": (-3, 3), "log_ndtr": (-40, 5), "gammaln": (0.2, 6), "digamma": (0.2, 6),
           "psi": (0.2, 6), "erfinv": (-0.99, 0.99), "sinc": (-3, 3), "exp2": (-3, 3),
           "expm1": (-3, 3), "log1p": (0, 3)}
EDGES = [0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, 0.5]


def _pair(data, dtype):
    data = np.asarray(data)  # (gradjit.tensor rounds Python floats to float32 first)
    return (gradjit.tensor(data, dtype=getattr(gradjit, dtype), requires_grad=True),
            torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=True))


def _same_values(got, want, rtol):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=rtol,
                               atol=rtol * 1e-3)


def _check(ours, theirs, inputs, dtype, grad_fn=True):
    rtol = 2e-6 if dtype == "float32" else 1e-11
    _same_values(ours, theirs, rtol)
    if grad_fn:
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    weights = rng.uniform(0.5, 1.5, tuple(theirs.shape))
    (ours * gradjit.tensor(weights, dtype=ours.dtype)).sum().backward()
    (theirs * torch.tensor(weights, dtype=theirs.dtype)).sum().backward()
    for a, b in inputs:
        # no gradient reaches copysign's sign operand: PyTorch gives it zeros, gradjit None
        ours = np.zeros(b.grad.shape) if a.grad is None else a.grad.numpy()
        np.testing.assert_allclose(ours, b.grad.numpy(), rtol=rtol * 10, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values_grads_and_grad_fn(name, dtype):
    data = rng.uniform(*UNARY[name], 9)
    ours, theirs = _pair(data, dtype)
    _check(getattr(gradjit, name)(ours), getattr(torch, name)(theirs), [(ours, theirs)], dtype)
    method = getattr(ours.detach(), name)()  # the Tensor method too
    _same_values(method, getattr(theirs.detach(), name)(), 2e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_values_grads_and_grad_fn(name, dtype):
    a, b = rng.uniform(-3, 3, (2, 5)), rng.uniform(0.2, 3, (5,))
    (a1, a2), (b1, b2) = _pair(a, dtype), _pair(b, dtype)
    _check(getattr(gradjit, name)(a1, b1), getattr(torch, name)(a2, b2), [(a1, a2), (b1, b2)],
           dtype)


@pytest.mark.parametrize("name", sorted(UNARY) + ["isinf", "signbit", "isnan"])
def test_special_values_as_torch(name):
    if name in ("nan_to_num",):
        pytest.skip("covered by test_nan_to_num_and_logit_keywords")
    ours, theirs = gradjit.tensor(EDGES), torch.tensor(EDGES)
    got, want = getattr(ours, name)(), getattr(theirs, name)()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-6)
    number = ~np.isnan(want.numpy())  # PyTorch's NaNs carry either sign
    assert (np.signbit(got.numpy()) == np.signbit(want.numpy()))[number].all()


def test_binary_special_values_as_torch():
    grid = np.array(EDGES + [3.0, -7.5], np.float32)
    a, b = (v.ravel() for v in np.meshgrid(grid, grid))
    for name in ["atan2", "logaddexp", "logaddexp2", "hypot", "copysign", "fmax", "fmin",
                 "xlogy", "heaviside"]:
        got = getattr(gradjit, name)(gradjit.tensor(a), gradjit.tensor(b)).numpy()
        want = getattr(torch, name)(torch.tensor(a), torch.tensor(b)).numpy()
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-8, err_msg=name)
        equal = got == want
        if name in ("fmax", "fmin"):  # ties of 0.0 and -0.0 give the second, as numpy's loops
            equal &= got != 0
        assert (np.signbit(got[equal]) == np.signbit(want[equal])).all(), name


def test_integer_inputs_promote_as_torch():
    i = [1, 2, -3]
    for name in ["asin", "sinh", "exp2", "log10", "deg2rad", "erf", "lgamma", "isinf"]:
        got, want = getattr(gradjit, name)(gradjit.tensor(i)), getattr(torch, name)(
            torch.tensor(i))
        assert str(got.dtype) == str(want.dtype), name
    got = gradjit.atan2(gradjit.tensor(i), gradjit.tensor(i))
    assert str(got.dtype) == str(torch.atan2(torch.tensor(i), torch.tensor(i)).dtype)


def test_nan_to_num_and_logit_keywords():
    x = [NAN, INF, -INF, 0.5]
    for kwargs in [{}, {"nan": 1.0}, {"posinf": 2.0, "neginf": -2.0}]:
        got = gradjit.nan_to_num(gradjit.tensor(x), **kwargs)
        want = torch.nan_to_num(torch.tensor(x), **kwargs)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    p = [0.0, 0.05, 0.5, 0.97, 1.0]
    for eps in [None, 0.1]:
        ours, theirs = _pair(p, "float64")
        _check(gradjit.logit(ours, eps), torch.logit(theirs, eps), [(ours, theirs)], "float64")


def test_copysign_with_a_number_is_named_as_torch():
    ours, theirs = _pair([0.5, -2.0, 3.0], "float32")
    _check(ours.copysign(-1.0), theirs.copysign(-1.0), [(ours, theirs)], "float32")


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_torch_special(name):
    data = rng.uniform(*SPECIAL[name], 7)
    ours, theirs = _pair(data, "float64")
    # torch.special.ndtr's grad_fn is an internal product (MulBackward1); gradjit names it
    _check(getattr(gradjit.special, name)(ours), getattr(torch.special, name)(theirs),
           [(ours, theirs)], "float64", grad_fn=name != "ndtr")
    (a1, a2), (b1, b2) = _pair(data, "float64"), _pair(data[::-1].copy() + 0.5, "float64")
    _check(gradjit.special.xlog1py(a1, b1), torch.special.xlog1py(a2, b2), [(a1, a2), (b1, b2)],
           "float64")


def test_gradients_at_the_edges_against_torch_where_torch_is_finite():
    """Where PyTorch's gradient is finite, gradjit's is the same; hypot at (0, 0) and
    logaddexp at (-inf, -inf) are PyTorch's NaN too (its formulas' 0/0)."""
    cases = [("asin", [-1.0, 1.0, 0.0]), ("acos", [-1.0, 1.0]), ("sinc", [0.0]),
             ("atanh", [0.0]), ("asinh", [0.0, -0.0, 1e30]), ("sinh", [0.0, 700.0])]
    for name, data in cases:
        ours, theirs = _pair(data, "float64")
        getattr(gradjit, name)(ours).sum().backward()
        getattr(torch, name)(theirs).sum().backward()
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)
    grads = []
    for lib in (gradjit, torch):
        x = lib.tensor([0.0, -INF], dtype=lib.float64, requires_grad=True)
        (lib.hypot(x[:1], x[:1]) + lib.logaddexp(x[1:], x[1:])).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(*grads)


@pytest.mark.parametrize("name", ["asin", "atan2", "lgamma", "logit", "nan_to_num", "xlogy",
                                  "copysign"])
def test_in_place_forms(name):
    data = rng.uniform(0.1, 0.9, 4)
    args = [] if name in ("asin", "lgamma", "logit", "nan_to_num") else [np.flip(data).copy()]
    (a1, a2) = _pair(data, "float64")
    ours, theirs = a1.detach().clone(), a2.detach().clone()
    got = getattr(ours, name + "_")(*(gradjit.tensor(a) for a in args))
    want = getattr(theirs, name + "_")(*(torch.tensor(a) for a in args))
    assert got is ours
    np.testing.assert_allclose(ours.numpy(), want.numpy(), rtol=1e-12)
    leaf, ref = _pair(data, "float64")
    out, expected = leaf * 1.0, ref * 1.0
    getattr(out, name + "_")(*(gradjit.tensor(a) for a in args))
    getattr(expected, name + "_")(*(torch.tensor(a) for a in args))
    assert type(out.grad_fn).__name__ == type(expected.grad_fn).__name__
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), ref.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("call", [
    lambda L, x: x.clamp(-1, 1), lambda L, x: x.clamp(min=0.0), lambda L, x: L.clamp(x, max=1),
    lambda L, x: x.clip(L.tensor(-1.0, dtype=L.float64), L.tensor(1.0, dtype=L.float64))])
def test_clamp_keeps_nan_and_gives_it_no_gradient(call):
    def run(L):
        x = L.tensor([float("nan"), 0.5, 2.0, -3.0, 1.0], dtype=L.float64, requires_grad=True)
        y = call(L, x)
        y.sum().backward()
        return y.detach().numpy(), x.grad.numpy()
    for ours, theirs in zip(run(gradjit), run(torch)):
        np.testing.assert_array_equal(ours, theirs)


def test_traced_clip_gives_a_nan_no_gradient():
    grad = gradjit.grad(lambda x: np.sum(np.clip(x, -1.0, 1.0)))
    np.testing.assert_array_equal(grad(np.array([np.nan, 0.5, 3.0, -1.0])), [0, 1, 0, 1])


@pytest.mark.parametrize("expr", ["x + 10**40", "10**30 * x", "x.add(10**20)", "x ** 10**20",
                                  "x.clamp(max=10**20)", "x - 2**64", "x.sub(-(2**63) - 1)"])
def test_an_integer_beyond_64_bits_is_refused_as_torch_refuses_it(expr):
    same_error(lambda: eval(expr, {"x": gradjit.ones(2)}), lambda: eval(expr, {"x": torch.ones(2)}))


@pytest.mark.parametrize("expr", ["x + 2**63", "x - (-2**63)", "x * (2**64 - 1)"])
def test_integers_within_64_bits_still_work(expr):
    ours, theirs = eval(expr, {"x": gradjit.ones(2)}), eval(expr, {"x": torch.ones(2)})
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_xlogy_gradients_at_zeros_and_edges_as_torch():
    """PyTorch's xlogy derivatives: log y in x (0 where x is 0 and y is not positive), x / y
    in y, NaN where both are 0; with broadcasting and a second derivative."""
    grid = np.array(EDGES + [3.0], np.float64)
    def run(lib):
        x = lib.tensor(grid, requires_grad=True)
        y = lib.tensor(grid[:, None], requires_grad=True)
        gx, gy = lib.autograd.grad(lib.xlogy(x, y).sum(), [x, y], create_graph=True)
        (gyy,) = lib.autograd.grad(gy.sum(), [y])
        return gx.detach().numpy(), gy.detach().numpy(), gyy.numpy()
    for ours, theirs in zip(run(gradjit), run(torch)):
        np.testing.assert_array_equal(ours, theirs)
