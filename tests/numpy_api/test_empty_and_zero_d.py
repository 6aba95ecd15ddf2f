"""Reductions over empty axes and 0-d arrays on traced values: numpy's identities, errors
(ValueError for the extrema and argmax of nothing, IndexError and AxisError on 0-d arrays)
and its RuntimeWarnings for a mean or variance of nothing."""
import warnings

import numpy as np
import pytest

import gradjit

BACKENDS = ("interpreter", "cpu")
EMPTY = np.zeros((0, 3))

REDUCTIONS = {
    "max": lambda a: np.max(a), "max0": lambda a: np.max(a, axis=0),
    "max1": lambda a: np.max(a, axis=1), "min_initial": lambda a: np.min(a, initial=5.0),
    "sum": lambda a: np.sum(a), "sum0": lambda a: np.sum(a, 0), "prod": lambda a: np.prod(a),
    "prod1": lambda a: np.prod(a, 1), "mean": lambda a: np.mean(a),
    "mean0": lambda a: np.mean(a, 0), "mean1": lambda a: np.mean(a, 1),
    "var": lambda a: np.var(a), "std0": lambda a: np.std(a, 0), "std1": lambda a: np.std(a, 1),
    "argmax": lambda a: np.argmax(a), "argmax0": lambda a: np.argmax(a, 0),
    "argmax1": lambda a: np.argmax(a, 1), "argmin": lambda a: np.argmin(a),
    "ptp": lambda a: np.ptp(a), "median": lambda a: np.median(a),
    "average": lambda a: np.average(a), "nanmean": lambda a: np.nanmean(a),
    "nanvar": lambda a: np.nanvar(a), "nanmedian": lambda a: np.nanmedian(a),
    "nanmax": lambda a: np.nanmax(a), "all": lambda a: np.all(a), "any": lambda a: np.any(a),
    "cumsum": lambda a: np.cumsum(a), "nansum": lambda a: np.nansum(a),
    "percentile": lambda a: np.percentile(a, 50), "maximum.reduce": np.maximum.reduce,
    "minimum.reduce1": lambda a: np.minimum.reduce(a, axis=1), "add.reduce": np.add.reduce,
}
EMPTY_CALLS = {
    "sort": lambda a: np.sort(a), "argsort": lambda a: np.argsort(a, axis=0),
    "cumprod": lambda a: np.cumprod(a, 0), "concatenate": lambda a: np.concatenate([a, a]),
    "gram": lambda a: a.T @ a, "outer-gram": lambda a: a @ a.T,
    "einsum": lambda a: np.einsum("ij->j", a), "norm": lambda a: np.linalg.norm(a),
    "take-nothing": lambda a: np.take(a, [], axis=0), "take-2d": lambda a: np.take(a, [[]], 1),
    "nanargmax": lambda a: np.nanargmax(a), "quantile1": lambda a: np.quantile(a, 0.5, axis=1),
    "median0": lambda a: np.median(a, 0), "std-ddof": lambda a: np.std(a, 0, ddof=1),
    "fft0": lambda a: np.fft.fft(a, axis=0), "lexsort": lambda a: np.lexsort(a.T),
}
ZERO_D = {
    "index0": lambda a: a[0], "ellipsis": lambda a: a[...], "newaxis": lambda a: a[None],
    "empty-tuple": lambda a: a[()], "slice": lambda a: a[:], "true": lambda a: a[True],
    "item": lambda a: a.item(), "len": lambda a: len(a), "iter": lambda a: list(a),
    "argmax": lambda a: np.argmax(a), "max": lambda a: np.max(a),
    "sum0": lambda a: np.sum(a, 0), "sum1": lambda a: np.sum(a, 1),
    "mean": lambda a: np.mean(a), "sort": lambda a: np.sort(a), "cumsum": lambda a: np.cumsum(a),
    "flip": lambda a: np.flip(a), "expand": lambda a: np.expand_dims(a, 1),
    "squeeze0": lambda a: np.squeeze(a, 0), "squeeze-1": lambda a: np.squeeze(a, -1),
    "squeeze-tuple": lambda a: np.squeeze(a, (0,)), "take": lambda a: np.take(a, 0),
    "index-1": lambda a: a[-1], "index-array": lambda a: a[np.array([0])],
    "bool-array": lambda a: a[np.array(True)], "diff": lambda a: np.diff(a),
    "atleast_1d": lambda a: np.atleast_1d(a),
}


def _outcome(call, *args):
    """call's result (dtype, shape, values) or error type, and the warning types it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call(*args)
            got = (np.asarray(result).dtype, np.shape(result), np.asarray(result).tolist())
        except Exception as error:
            got = type(error)
    return got, sorted({w.category.__name__ for w in caught
                        if w.category is not DeprecationWarning})


def _same_as_numpy(call, x):
    want, warned = _outcome(call, x)
    for backend in BACKENDS:
        got, got_warned = _outcome(gradjit.jit(call, backend=backend), x)
        assert got_warned == warned
        if isinstance(want, type):  # an error: numpy's class or a subclass of it
            assert isinstance(got, type) and issubclass(got, want), (got, want)
        else:
            assert str(got) == str(want), (got, want)  # str: NaNs compare equal


@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions_over_empty_axes_as_numpy(name):
    _same_as_numpy(REDUCTIONS[name], EMPTY)


@pytest.mark.parametrize("name", EMPTY_CALLS)
def test_other_functions_of_empty_arrays_as_numpy(name):
    _same_as_numpy(EMPTY_CALLS[name], EMPTY)


@pytest.mark.parametrize("name", ZERO_D)
def test_zero_d_arrays_as_numpy(name):
    _same_as_numpy(ZERO_D[name], np.array(2.0))


def test_a_mean_of_nothing_warns_with_numpys_message():
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        gradjit.jit(lambda a: np.mean(a, 0))(EMPTY)
    with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0 for slice"):
        gradjit.jit(lambda a: np.var(a, ddof=2))(np.ones(2))
