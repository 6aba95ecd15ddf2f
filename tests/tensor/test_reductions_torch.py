"""Eager reductions and scans against PyTorch itself: values, dtypes, grad_fn names and
gradients (prod, cumsum, cumprod, cummax/cummin, logcumsumexp, diff, nansum, nanmean,
var/std, var_mean, std_mean, aminmax, count_nonzero, take_along_dim, all/any)."""
import numpy as np
import pytest

import gradjit

torch = pytest.importorskip("torch")

rng = np.random.default_rng(3)
BASE = rng.standard_normal((3, 5))
ZEROS = BASE.copy()
ZEROS[0, 2] = ZEROS[1, 1] = ZEROS[1, 3] = 0.0  # one zero in row 0, two in row 1
TIES = np.array([[1.0, 3.0, 3.0, 2.0, 3.0], [2.0, 2.0, -1.0, -1.0, 0.5],
                 [0.0, 1.0, 1.0, 1.0, 0.0]])
NANS = np.where(np.eye(3, 5, 1) > 0, np.nan, TIES)
INTS = rng.integers(-3, 4, (3, 5))

CASES = {
    "prod": lambda t, x: x.prod(),
    "prod-dim": lambda t, x: t.prod(x, 1, keepdim=True),
    "cumsum": lambda t, x: x.cumsum(1),
    "cumsum-dtype": lambda t, x: x.cumsum(0, dtype=t.float32),
    "cumsum-0d": lambda t, x: x[0, 1].cumsum(0),
    "cummax-0d": lambda t, x: tuple(x[1, 0].cummax(-1)),
    "cumprod": lambda t, x: t.cumprod(x, 0),
    "cumprod-row": lambda t, x: x.cumprod(-1),
    "cummax": lambda t, x: tuple(x.cummax(1)),
    "cummin": lambda t, x: tuple(t.cummin(x, 0)),
    "logcumsumexp": lambda t, x: x.logcumsumexp(1),
    "diff": lambda t, x: x.diff(),
    "diff-prepend": lambda t, x: t.diff(x, n=2, dim=0, prepend=x[:1], append=x[-1:]),
    "nansum": lambda t, x: x.nansum(1),
    "nanmean": lambda t, x: t.nanmean(x, 0, keepdim=True),
    "var": lambda t, x: x.var(1),
    "std": lambda t, x: t.std(x, correction=0),
    "var_mean": lambda t, x: t.var_mean(x, 1),
    "std_mean": lambda t, x: t.std_mean(x, dim=0, correction=0, keepdim=True),
    "aminmax-dim": lambda t, x: tuple(x.aminmax(dim=1)),
    "aminmax": lambda t, x: tuple(t.aminmax(x)),
    "count_nonzero": lambda t, x: x.count_nonzero(1),
    "count_nonzero-all": lambda t, x: t.count_nonzero(x),
    "take_along_dim": lambda t, x: x.take_along_dim(t.tensor([[0, 4, 4], [1, 1, 0],
                                                              [2, 3, 3]]), 1),
    "take_along_dim-flat": lambda t, x: t.take_along_dim(x, t.tensor([0, 14, 14])),
    "argmax": lambda t, x: x.argmax(1),
    "argmin": lambda t, x: t.argmin(x),
    "max-dim": lambda t, x: tuple(x.max(1)),
    "min-dim": lambda t, x: tuple(t.min(x, 0, keepdim=True)),
    "all": lambda t, x: (x > 0).all(1),
    "any": lambda t, x: t.any(x > 0, dim=0),
}
FLOAT_ONLY = {"logcumsumexp", "nanmean", "var", "std", "var_mean", "std_mean"}


def _run(lib, fn, data, grad):
    x = lib.tensor(data, requires_grad=grad)
    out = fn(lib, x)
    outs = out if isinstance(out, tuple) else (out,)
    names = [o.grad_fn.name() if o.grad_fn is not None else None for o in outs]
    floats = [o for o in outs if o.dtype.is_floating_point]
    if grad and floats:
        sum((o * (k + 1.5)).sum() for k, o in enumerate(floats)).backward()
    values = [np.asarray(o.detach().numpy()) for o in outs]
    return values, names, x.grad.numpy() if grad and x.grad is not None else None


def _same(got, want):
    for g, w in zip(got[0], want[0]):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    assert got[1] == want[1]
    if want[2] is not None:
        np.testing.assert_allclose(got[2], want[2], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("data", [BASE, ZEROS, TIES], ids=["normal", "zeros", "ties"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_float_values_grad_fn_names_and_gradients_match_torch(case, data):
    _same(_run(gradjit, CASES[case], data, True), _run(torch, CASES[case], data, True))


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_with_nan_match_torch(case):
    """NaN propagates (cummax/cummin move to each new NaN); gradients through NaN are not
    compared: PyTorch's are NaN in places where gradjit's are 0."""
    _same(_run(gradjit, CASES[case], NANS, False), _run(torch, CASES[case], NANS, False))


@pytest.mark.parametrize("case", sorted(set(CASES) - FLOAT_ONLY))
def test_integer_values_and_dtypes_match_torch(case):
    _same(_run(gradjit, CASES[case], INTS, False), _run(torch, CASES[case], INTS, False))


def test_nanmean_of_integers_raises_as_torch_does():
    with pytest.raises(RuntimeError, match="nanmean"):
        gradjit.tensor([1, 2]).nanmean()


def test_std_at_zero_spread_has_a_zero_gradient_as_in_torch():
    for lib in (gradjit, torch):
        x = lib.tensor([2.5, 2.5, 2.5], requires_grad=True)
        x.std().backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.zeros(3))


def test_all_of_an_empty_dimension_is_true():
    np.testing.assert_array_equal(gradjit.zeros(0, 3).all(0).numpy(), np.ones(3, bool))
    np.testing.assert_array_equal(gradjit.zeros(0, 3).any(0).numpy(), np.zeros(3, bool))
