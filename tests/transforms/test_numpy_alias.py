"""gradjit.numpy, HIPS autograd's `autograd.numpy` under gradjit's name: numpy's own names,
whose functions also take Python lists holding traced values."""
import numpy
import pytest

import gradjit
import gradjit.numpy as np


@pytest.mark.parametrize("fn, x, expected", [
    (lambda x: np.mean([x, x + 2]), 0.0, 1.0),
    (lambda x: np.var([x, x + 2]), 0.0, 0.0),
    (lambda x: np.std([x, 3 * x + 2]), 1.0, 1.0),
    (lambda x: np.linalg.norm([x, x + 2]), 0.0, 1.0),
    (lambda x: np.sum(np.array([[x, 1.0], [2.0, x * x]]) @ np.ones(2)), 3.0, 7.0),
    (lambda x: np.concatenate([np.ones(2) * x, np.ones(3) * x ** 2]).sum(), 2.0, 14.0),
])
def test_lists_of_traced_values_are_arrays(fn, x, expected):
    eps = 1e-6
    numeric = (fn(x + eps) - fn(x - eps)) / (2 * eps)
    assert gradjit.grad(fn)(x) == pytest.approx(numeric, abs=1e-7)
    assert gradjit.grad(fn)(x) == pytest.approx(expected, abs=1e-7)


def test_names_are_numpys_and_wrappers_are_stable():
    assert np.ndarray is numpy.ndarray and np.sin is numpy.sin
    # the scalar types cast traced values, and are numpy's in every comparison
    assert np.float64 == numpy.float64 and np.dtype(np.float64) == numpy.float64
    assert np.mean is np.mean and np.linalg.norm is np.linalg.norm
    assert np.mean([1.0, 3.0]) == 2.0  # outside a trace: numpy's own call
