"""numpy's reductions, scans and order statistics over the inputs JAX's reducer tests sweep
(bool, int32, float32/64, complex64, NaNs, 0-d, empty; axes, keepdims, where=, initial=,
dtype=, ddof=): eager, compiled and differentiated against numpy."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import arg, case, check_eager, check_grad, check_jit

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _with_nans(x):
    x = x.copy()
    x.reshape(-1)[::5] = np.nan
    return x


def _every_third_out(a):
    return np.arange(np.size(a)).reshape(np.shape(a)) % 3 > 0


INPUTS = {
    "f8": arg((3, 4)), "f4": arg((2, 3, 4), "f4"), "i4": arg((3, 4), "i4"),
    "bool": arg((3, 4), "bool"), "c8": arg((3, 4), "c8"), "nan": _with_nans(arg((3, 4))),
    "0d": arg(()), "empty": arg((0, 3)),
}

# name -> reduction; each is run on every input
REDUCERS = {
    "sum": lambda a: np.sum(a), "sum0": lambda a: np.sum(a, axis=0),
    "sum-keep": lambda a: np.sum(a, axis=-1, keepdims=True),
    "sum-dtype": lambda a: np.sum(a, axis=0, dtype=np.float32),
    "sum-where": lambda a: np.sum(a, axis=-1, where=_every_third_out(a)),
    "sum-initial": lambda a: np.sum(a, initial=3),
    "prod": lambda a: np.prod(a, axis=-1), "prod-keep": lambda a: np.prod(a, keepdims=True),
    "max": lambda a: np.max(a, axis=0), "min": lambda a: np.min(a, axis=-1, keepdims=True),
    "max-initial": lambda a: np.max(a, initial=0.5), "amin-all": lambda a: np.amin(a),
    "max-where": lambda a: np.max(a, axis=-1, initial=-9, where=a != 0),
    "mean": lambda a: np.mean(a, axis=0), "mean-all": lambda a: np.mean(a),
    "mean-dtype": lambda a: np.mean(a, axis=-1, dtype=np.float64),
    "mean-where": lambda a: np.mean(a, axis=-1, where=a != 0),
    "var": lambda a: np.var(a, axis=0), "var-ddof": lambda a: np.var(a, ddof=1),
    "std": lambda a: np.std(a, axis=-1, keepdims=True),
    "std-where": lambda a: np.std(a, where=a != 0),
    "ptp": lambda a: np.ptp(a, axis=0), "all": lambda a: np.all(a, axis=0),
    "any": lambda a: np.any(a, axis=-1, keepdims=True),
    "all-where": lambda a: np.all(a, where=a != 1),
    "argmax": lambda a: np.argmax(a, axis=0), "argmin": lambda a: np.argmin(a),
    "argmax-keep": lambda a: np.argmax(a, axis=-1, keepdims=True),
    "count_nonzero": lambda a: np.count_nonzero(a, axis=0),
    "nansum": lambda a: np.nansum(a, axis=0), "nanprod": lambda a: np.nanprod(a, axis=-1),
    "nanmax": lambda a: np.nanmax(a, axis=-1), "nanmin": lambda a: np.nanmin(a),
    "nanmean": lambda a: np.nanmean(a, axis=0), "nanvar": lambda a: np.nanvar(a, axis=-1, ddof=1),
    "nanstd": lambda a: np.nanstd(a), "nanargmax": lambda a: np.nanargmax(a, axis=-1),
    "nanargmin": lambda a: np.nanargmin(a),
    "cumsum": lambda a: np.cumsum(a, axis=-1), "cumsum-flat": lambda a: np.cumsum(a),
    "cumprod": lambda a: np.cumprod(a, axis=0), "cumsum-dtype": lambda a: np.cumsum(a, dtype="f4"),
    "nancumsum": lambda a: np.nancumsum(a, axis=0), "nancumprod": lambda a: np.nancumprod(a),
    "cumulative_sum": lambda a: np.cumulative_sum(np.atleast_1d(a), axis=0, include_initial=True),
    "median": lambda a: np.median(a, axis=0), "median-all": lambda a: np.median(a),
    "nanmedian": lambda a: np.nanmedian(a, axis=-1),
    "quantile": lambda a: np.quantile(a, 0.3, axis=0),
    "quantile-many": lambda a: np.quantile(a, [0.1, 0.9], axis=-1, keepdims=True),
    "quantile-lower": lambda a: np.quantile(a, 0.4, method="lower"),
    "quantile-nearest": lambda a: np.quantile(a, 0.6, axis=0, method="nearest"),
    "quantile-midpoint": lambda a: np.quantile(a, 0.45, method="midpoint"),
    "percentile": lambda a: np.percentile(a, [25, 50], axis=-1),
    "nanpercentile": lambda a: np.nanpercentile(a, 75, axis=0),
    "nanquantile": lambda a: np.nanquantile(a, 0.2),
    "average": lambda a: np.average(a, axis=0),
    "average-weights": lambda a: np.average(a, axis=-1, weights=np.arange(1, a.shape[-1] + 1)),
    "average-returned": lambda a: np.average(a, returned=True),
    "array_equal": lambda a: np.array_equal(a, a), "array_equiv": lambda a: np.array_equiv(a, 1),
    "allclose": lambda a: np.allclose(a, a + 1e-9),
}
# a NaN makes finite differences NaN: only the nan-functions are differentiated there
CASES = [case(f"{name}-{kind}", fn, x,
              grad=() if kind == "nan" and not name.startswith("nan") else None)
         for name, fn in REDUCERS.items() for kind, x in INPUTS.items()]
GRAD_CASES = [c for c in CASES if c.grad]
# numpy's float64 from float32 (or complex64) values and int64 weights: on a Tensor the values
# and the weights promote as PyTorch's do, keeping float32
TORCH_PROMOTION = {"average-weights-f4", "average-weights-c8"}


@pytest.mark.parametrize("c", [c for c in CASES if c.name not in TORCH_PROMOTION],
                         ids=lambda c: c.id)
def test_eager(c):
    check_eager(c)


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)


@pytest.mark.parametrize("c", GRAD_CASES, ids=lambda c: c.id)
def test_grad(c):
    check_grad(c)
