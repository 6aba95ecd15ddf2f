"""ufunc methods on traced values: outer for every supported binary ufunc, reduce and
accumulate (numpy's functions where they equal them, else numpy's left-to-right fold), at
(in place, repeated indices applied in turn); unsupported names raise an error that names them
in full, suggests near names and points at the user's line."""
import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import check_grad, check_values
from tests.torch_reference import message

X = np.random.default_rng(2).uniform(0.5, 2.0, (2, 3))


@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.true_divide,
                                   np.maximum, np.power, np.less])
def test_outer(ufunc):
    check_values(lambda x: ufunc.outer(x[0], x), X, backends=("cpu",))


def test_outer_gradient():
    check_grad(lambda x: np.multiply.outer(x[0], x[1]) + np.subtract.outer(x, x[1]), X,
               backends=("cpu",))


@pytest.mark.parametrize("ufunc,axis", [(np.add, 0), (np.add, None), (np.multiply, 1),
                                        (np.maximum, -1), (np.minimum, (0, 1))])
def test_reduce(ufunc, axis):
    check_values(lambda x: ufunc.reduce(x, axis=axis), X, backends=("cpu",))


@pytest.mark.parametrize("ufunc", [np.add, np.multiply])
def test_accumulate(ufunc):
    check_values(lambda x: (ufunc.accumulate(x), ufunc.accumulate(x, axis=1)), X,
                 backends=("cpu",))
    check_grad(lambda x: ufunc.accumulate(x, axis=1), X, backends=("cpu",))


def test_logical_reduce():
    check_values(lambda x: (np.logical_and.reduce(x > 1), np.logical_or.reduce(x > 1, axis=1)),
                 X, backends=("cpu",))


def test_unsupported_names_are_named_in_full_with_near_names_and_the_line():
    def f(x):
        return np.array2string(x)  # the offending line
    with pytest.raises(TypeError, match=r"np\.array2string is not supported") as info:
        gradjit.jit(f)(np.eye(2))
    assert "the offending line" in str(info.value) and "test_ufunc_methods.py:" in str(info.value)
    with pytest.raises(TypeError, match=r"np\.isnat is not supported.*did you mean np\.isnan"):
        gradjit.jit(np.isnat)(X)


FOLDS = {
    "logaddexp-reduce": lambda x: np.logaddexp.reduce(x, axis=0),
    "logaddexp-reduce-all": lambda x: np.logaddexp.reduce(x, axis=None),
    "logaddexp-reduce-initial": lambda x: np.logaddexp.reduce(x, axis=1, initial=0.0),
    "logaddexp-reduce-empty": lambda x: np.logaddexp.reduce(x[:0], axis=0),
    "subtract-reduce": lambda x: np.subtract.reduce(x, axis=1, keepdims=True),
    "divide-reduce": lambda x: np.true_divide.reduce(x),
    "power-reduce": lambda x: np.power.reduce(x, axis=0),
    "hypot-reduce-axes": lambda x: np.hypot.reduce(x, axis=(0, 1)),
    "fmax-reduce-float32": lambda x: np.fmax.reduce(x, axis=1, dtype=np.float32),
    "maximum-accumulate": lambda x: np.maximum.accumulate(x, axis=1),
    "minimum-accumulate": lambda x: np.minimum.accumulate(x),
    "logaddexp-accumulate": lambda x: np.logaddexp.accumulate(x, axis=1),
    "subtract-accumulate": lambda x: np.subtract.accumulate(x, axis=1),
    "arctan2-accumulate": lambda x: np.arctan2.accumulate(x),
}


@pytest.mark.parametrize("name", FOLDS)
def test_reduce_and_accumulate_of_any_binary_ufunc(name):
    check_values(FOLDS[name], X, rtol=1e-6 if "float32" in name else 1e-12)
    if "empty" not in name and "float32" not in name:
        check_grad(FOLDS[name], X, backends=("cpu",))


@pytest.mark.parametrize("call, error", [
    (lambda x: np.subtract.reduce(x, axis=(0, 1)), ValueError),
    (lambda x: np.subtract.reduce(x[:0], axis=0), ValueError),
    (lambda x: np.negative.reduce(x), ValueError),
    (lambda x: np.negative.accumulate(x), ValueError),
], ids=["not-reorderable", "no-identity", "unary-reduce", "unary-accumulate"])
def test_fold_errors_as_numpy(call, error):
    with pytest.raises(error) as want:
        call(X)
    with pytest.raises(error) as got:
        gradjit.jit(call)(X)
    assert message(got.value) == str(want.value)


def _at_known(x):
    a = x * 1.0
    np.add.at(a, np.array([0, 0, 1]), x[0])  # row 0 twice
    np.multiply.at(a, (np.array([1, 1]), np.array([2, 2])), 3.0)  # one element twice
    np.negative.at(a, [1, 1, 0])
    np.maximum.at(a, (slice(None), 0), [1.5, 0.1])
    return a


def _at_run_time(x, i):
    a = x * 1.0
    np.add.at(a, i, x[1])
    np.subtract.at(a, (i, i), 2.0 * x[0, :3])
    return a


def test_ufunc_at_with_known_indices():
    check_values(_at_known, X)
    check_grad(_at_known, X, backends=("cpu",))


def test_ufunc_at_with_indices_computed_at_run_time():
    indices = np.array([0, 1, -2])  # -2 is 0 again
    check_values(_at_run_time, X, indices)
    check_grad(lambda x: _at_run_time(x, indices), X, backends=("cpu",))
    with pytest.raises(TypeError, match="np.multiply.at with indices computed at run time"):
        gradjit.jit(lambda x, i: np.multiply.at(x * 1.0, i, 2.0))(X, indices)
    with pytest.raises(TypeError, match="one integer index array, or one per axis"):
        gradjit.jit(lambda x, i: np.add.at(x * 1.0, (i, slice(None)), 2.0))(X, indices)


def test_folds_write_out_and_skip_where_masked():
    def folds(x, o):
        np.logaddexp.reduce(x, out=o)
        return o, np.maximum.accumulate(x, 1, out=np.zeros_like(x)), np.logaddexp.accumulate(x)
    check_values(folds, X, np.zeros(X.shape[1:]))
    check_values(lambda x: np.logaddexp.reduce(x, where=x > 1), X)


LINSPACES = {
    "default": lambda a, b: np.linspace(a, b, 5), "open": lambda a, b: np.linspace(a, b, 4, False),
    "one": lambda a, b: np.linspace(a, b, 1), "none": lambda a, b: np.linspace(a, b, 0),
    "step": lambda a, b: np.linspace(a, b, 3, retstep=True),
    "arrays": lambda a, b: np.linspace(a * np.ones(2), b * np.arange(1.0, 3.0), 4, axis=1),
    "dtype": lambda a, b: np.linspace(a, b, 3, dtype=np.float32),
}


@pytest.mark.parametrize("name", LINSPACES)
def test_linspace_with_traced_ends(name):
    check_values(LINSPACES[name], np.float64(0.5), np.float64(2.0), backends=("cpu",),
                 rtol=0, atol=0)


def test_linspace_gradient():
    check_grad(lambda a: np.linspace(a, 3.0 * a, 6), np.array(0.7), backends=("cpu",))


def test_real_number_names():
    x = np.array([-1.0, 2.0, -0.0, 0.0])
    check_values(lambda v: (np.angle(v), np.angle(v, deg=True), np.real_if_close(v),
                            np.swapaxes(v[None], axis1=0, axis2=1)), x, backends=("cpu",))


def test_linspace_refuses_a_negative_count_as_numpy_does():
    with pytest.raises(ValueError, match="Number of samples, -1, must be non-negative"):
        gradjit.jit(lambda a: np.linspace(a, 1.0, -1))(np.float64(0.0))
