"""gradjit.debug_nans names the first primitive that produced a NaN, in the forward pass or in
the gradient, with the user's source line."""
import threading

import numpy as np
import pytest

import gradjit
from gradjit import NanError, debug_nans


def log_of_sum(x):
    y = np.sum(x)
    return np.log(y)  # the NaN: log of a negative number


def test_a_nan_in_the_forward_pass_names_the_primitive_and_the_line():
    f = gradjit.value_and_grad(log_of_sum)
    value, _ = f(np.array([-1.0, -2.0]))  # without debug_nans, NaN is returned quietly
    assert np.isnan(value)
    with debug_nans(), pytest.raises(NanError) as caught:
        f(np.array([-1.0, -2.0]))
    message = str(caught.value)
    assert "NaN first produced by log(f64[])" in message and "forward pass" in message
    line = log_of_sum.__code__.co_firstlineno + 2
    assert f"test_debug_nans.py:{line}: return np.log(y)" in message


def root_of_abs(x):
    return np.sum(np.abs(x) ** 0.5)  # finite at 0, but its derivative there is inf * 0


def test_a_nan_in_the_gradient_names_the_vjp_and_the_forward_line():
    f = gradjit.grad(root_of_abs)
    with debug_nans(), pytest.raises(NanError) as caught:
        f(np.array([0.0, 4.0]))
    message = str(caught.value)
    assert "NaN first produced by mul(f64[2], f64[2]) in the gradient" in message
    line = root_of_abs.__code__.co_firstlineno + 1
    assert f"test_debug_nans.py:{line}: return np.sum(np.abs(x) ** 0.5)" in message


def test_nan_arguments_are_named():
    f = gradjit.jit(lambda x, y: x * 2 + y)
    with debug_nans(), pytest.raises(NanError, match=r"from the argument\(s\) %y"):
        f(np.ones(2), np.array([1.0, np.nan]))


def test_calls_without_nan_are_unchanged_and_the_flag_is_scoped():
    f = gradjit.grad(lambda x: np.sum(np.tanh(x)))
    x = np.array([0.5, -1.0])
    with debug_nans():
        inside = f(x)
        with debug_nans(False):
            assert np.isnan(gradjit.jit(np.log)(np.array([-1.0]))).all()
    np.testing.assert_array_equal(inside, f(x))
    assert f.cache_info().traces == 1
    assert np.isnan(gradjit.jit(np.log)(np.array([-1.0]))).all()


def test_the_flag_belongs_to_the_thread_that_set_it():
    f = gradjit.jit(lambda x: np.log(x))
    seen = []
    with debug_nans():
        other = threading.Thread(target=lambda: seen.append(f(np.array([-1.0]))))
        other.start()
        other.join()
        with pytest.raises(NanError):
            f(np.array([-1.0]))
    assert np.isnan(seen[0]).all()


@debug_nans()
def test_debug_nans_decorates_a_function():
    with pytest.raises(NanError, match="sqrt"):
        gradjit.jit(lambda x: np.sqrt(x - 1))(np.zeros(3))
