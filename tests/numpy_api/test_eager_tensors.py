"""numpy functions called on eager Tensors give numpy's values and dtypes (the functions whose
arguments' dtypes are read: extra elements cast, initial= kept in the result's dtype), and
ufunc methods on Tensors keep autograd."""
import numpy as np
import pytest

import gradjit
from tests.e2e.checks import central_differences
from tests.numpy_api.check import check_eager

rng = np.random.default_rng(12)
X = rng.standard_normal((4, 3))

CASES = {
    "ediff1d": lambda a: np.ediff1d(a, to_begin=[1.0], to_end=2.0),
    "trapezoid": lambda a: np.trapezoid(a, dx=0.5, axis=0),
    "prod-initial": lambda a: np.prod(a, axis=0, initial=2.0),
    "nansum-initial": lambda a: np.nansum(a, initial=1.0),
    "nanprod-initial": lambda a: np.nanprod(a, 1, initial=3.0),
    "cumulative_sum-initial": lambda a: np.cumulative_sum(a, axis=1, include_initial=True),
    "cumulative_prod-initial": lambda a: np.cumulative_prod(a[0], include_initial=True),
    "average-returned": lambda a: np.average(a, returned=True),
}


@pytest.mark.parametrize("name", CASES)
def test_numpy_functions_on_eager_tensors(name):
    check_eager(CASES[name], X)


def _ufunc_methods(x):
    a = x * 1.0
    np.add.at(a, [0, 0], x[1])
    return (np.logaddexp.reduce(x, axis=1).sum() + np.maximum.accumulate(x, axis=1).sum()
            + np.multiply.outer(x[0], x[1]).sum() + a.sum())


def test_ufunc_methods_on_eager_tensors_keep_autograd():
    x = gradjit.tensor(X, requires_grad=True)
    _ufunc_methods(x).backward()
    want = central_differences(_ufunc_methods, (X,), 0, 1e-6)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("call", [lambda a: np.mean(a), lambda a: np.average(a),
                                  lambda a: np.mean(a, where=np.array([True, False, True])),
                                  lambda a: np.mean(a, axis=0, keepdims=True)])
def test_numpy_averages_integer_tensors_in_float64(call):
    """numpy's mean of integers is a float64 mean; torch's Tensor.mean refuses integers, but a
    numpy function given a Tensor follows numpy."""
    values = np.array([1, 2, 4])
    got = call(gradjit.tensor(values))
    assert isinstance(got, gradjit.Tensor) and str(got.dtype) == "torch.float64"
    np.testing.assert_allclose(got.numpy(), call(values), rtol=1e-15)
    with pytest.raises(RuntimeError, match="could not infer output dtype"):
        gradjit.tensor(values).mean()
