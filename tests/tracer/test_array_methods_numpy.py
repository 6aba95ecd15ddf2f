"""ndarray methods and attributes on traced values as numpy has them: reshape/flatten/ravel in
'F' order, fill and put (written in place), conj, real/imag, mT, itemsize/nbytes."""
import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import check_grad, check_values

X = np.random.default_rng(16).standard_normal((3, 4))


def _filled(value):
    def fn(a):
        b = a * 1.0
        b.fill(value(a))
        return b
    return fn


def _put(a):
    b = a * 1.0
    b.put([0, -1, 5], a[1, :3])
    return b


METHODS = {
    "reshape-F": lambda a: a.reshape(4, 3, order="F"),
    "reshape-tuple-F": lambda a: a.reshape((2, 6), order="F"),
    "reshape-int": lambda a: a.reshape(-1),
    "flatten-F": lambda a: a.flatten("F"),
    "ravel-F": lambda a: a.ravel("F"),
    "fill": _filled(lambda a: 2.0),
    "fill-traced": _filled(lambda a: a[0, 1]),
    "put": _put,
    "conj": lambda a: a.conj() + a.conjugate(),
    "real-imag": lambda a: a.real + a.imag,
    "mT": lambda a: a[None].mT,
    "sizes": lambda a: a * (a.itemsize + a.nbytes),
}


@pytest.mark.parametrize("name", METHODS)
def test_methods_as_numpy(name):
    check_values(METHODS[name], X)
    check_grad(METHODS[name], X, backends=("cpu",))


def test_fill_casts_to_the_arrays_dtype():
    check_values(lambda a: _filled(lambda a: 2.7)((a * 3).astype(np.int64)), X)


def test_reshape_order_is_checked_as_numpy_checks_it():
    with pytest.raises(ValueError, match="order must be one of"):
        gradjit.jit(lambda a: a.reshape(12, order="X"))(X)
