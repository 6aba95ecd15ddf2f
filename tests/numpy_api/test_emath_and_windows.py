"""np.emath (complex results for real inputs outside the real domain, decided on the values)
and np.lib.stride_tricks.sliding_window_view on traced values and Tensors, against numpy;
complex arcsin and arccos on their cuts."""
import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import gradjit
from tests.numpy_api.check import check_eager, check_grad, check_values

BACKENDS = ("interpreter", "cpu")
EMATH = {"sqrt": np.emath.sqrt, "log": np.emath.log, "log10": np.emath.log10,
         "log2": np.emath.log2, "logn": lambda a: np.emath.logn(3, a),
         "power": lambda a: np.emath.power(a, 0.5), "power-int": lambda a: np.emath.power(a, -2),
         "arccos": np.emath.arccos, "arcsin": np.emath.arcsin, "arctanh": np.emath.arctanh}
INPUTS = {"some-outside": np.array([1.5, -2.0, 0.5]), "inside": np.array([0.25, 0.5]),
          "float32": np.array([1.5, -2.0, 0.5], np.float32), "int8": np.array([-3, 4], np.int8),
          "0-d": np.array(-4.0)}


@pytest.mark.parametrize("inputs", INPUTS)
@pytest.mark.parametrize("name", EMATH)
def test_emath_as_numpy(name, inputs):
    x = INPUTS[inputs]
    with np.errstate(all="ignore"):
        check_values(EMATH[name], x, backends=BACKENDS, rtol=1e-5, atol=1e-6)
        check_eager(EMATH[name], x, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["sqrt", "log", "arcsin", "arctanh"])
def test_emath_gradients(name):
    x = np.array([1.5, -2.0, 0.5, 0.25])
    check_grad(lambda a: np.real(EMATH[name](a)) + 2 * np.imag(EMATH[name](a)), x,
               backends=BACKENDS)


def test_complex_arcsin_and_arccos_on_their_cuts():
    z = np.array([1.5 + 0j, complex(1.5, -0.0), -2 + 0j, complex(-2, -0.0), 0.3 + 0.2j])
    for fn in (np.arcsin, np.arccos):
        check_values(fn, z, backends=BACKENDS)


@pytest.mark.parametrize("args", [(2, 1), ((2, 2), (1, 2)), ((1, 2, 3),), (2, -1),
                                  ((2, 1), (2, 2)), ((1, 2, 2),)])
def test_sliding_window_view_as_numpy(args):
    x = np.arange(24.0).reshape(2, 3, 4)
    check_values(lambda a: sliding_window_view(a, *args), x, backends=BACKENDS)
    check_eager(lambda a: sliding_window_view(a, *args), x)
    check_grad(lambda a: sliding_window_view(a, *args) ** 2, x, backends=BACKENDS)


@pytest.mark.parametrize("args", [(5,), ((2, 2),), (-1,), (2, 3)])
def test_sliding_window_view_errors_are_numpys(args):
    x = np.arange(24.0).reshape(2, 3, 4)
    with pytest.raises(Exception) as want:
        sliding_window_view(x, *args)
    with pytest.raises(type(want.value)):
        gradjit.jit(lambda a: sliding_window_view(a, *args))(x)
