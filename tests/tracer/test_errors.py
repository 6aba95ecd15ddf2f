"""Misuse gets a clear message naming the problem and, where it comes from user code, the
line."""
import numpy as np
import pytest

import gradjit
from gradjit.ir import ShapeError
from gradjit.tracer import TraceError, TracerArrayConversionError


def test_grad_of_a_non_scalar_output():
    with pytest.raises(TypeError, match=r"must return a float scalar, not an array of shape "
                                        r"\(3,\).*\.sum\(\)"):
        gradjit.grad(lambda x: x * 2)(np.ones(3))


def test_grad_of_an_integer_argument():
    with pytest.raises(TypeError, match="argument 0 has dtype int64.*float and complex inputs"):
        gradjit.grad(lambda x: np.sum(x * 1.0))(np.arange(3))
    with pytest.raises(TypeError, match="argument 0 has dtype int64"):
        gradjit.grad(lambda k: k * 2.0)(2)


def test_grad_of_a_function_returning_a_non_array():
    with pytest.raises(TypeError, match="not a tuple"):
        gradjit.grad(lambda x: (np.sum(x), np.sum(x)))(np.ones(2))
    with pytest.raises(TypeError, match=r"not a float \(float\(\)/int\(\)/item\(\) cut it off"):
        gradjit.grad(lambda x: float(np.sum(x)))(np.ones(2))
    with pytest.raises(TypeError, match="has_aux=True, so it must return"):
        gradjit.grad(lambda x: np.sum(x), has_aux=True)(np.ones(2))


def test_writing_a_traced_value_into_a_numpy_array_names_the_line_and_the_fix():
    y = np.zeros(2)  # a numpy array from outside the function

    def f(x):
        y[:] = x  # the offending line
        return np.sum(y)
    with pytest.raises(TracerArrayConversionError) as info:
        gradjit.grad(f)(np.ones(2))
    message = str(info.value)
    assert "test_errors.py:" in message and "y[:] = x" in message
    assert "Keep it a traced array" in message


def test_shape_errors_name_the_user_line():
    def f(x, y):
        return np.sum(x + y)  # shapes (3,) and (4,)
    with pytest.raises(ShapeError) as info:
        gradjit.grad(f)(np.ones(3), np.ones(4))
    assert "could not be broadcast" in str(info.value)
    assert "test_errors.py:" in str(info.value) and "return np.sum(x + y)" in str(info.value)
    with pytest.raises(ShapeError, match=r"(?s)cannot be multiplied.*test_errors.py:\d+: .*x @ y"):
        gradjit.jit(lambda x, y: x @ y)(np.ones((2, 3)), np.ones((2, 3)))


def test_bad_arguments():
    with pytest.raises(TypeError, match="argnums 3 is out of range"):
        gradjit.grad(lambda x: np.sum(x), argnums=3)(np.ones(2))
    with pytest.raises(TypeError, match="holds a value that is not an array"):
        gradjit.grad(lambda d: np.sum(d["x"]))({"x": np.ones(2), "name": "n"})
    with pytest.raises(TypeError, match="neither an array nor a hashable static"):
        gradjit.jit(lambda x, s: x)(np.ones(2), {1, 2})


def test_ambiguous_truth_values():
    with pytest.raises(ValueError, match=r"shape \(2,\) is ambiguous"):
        gradjit.jit(lambda x: x if x > 0 else -x)(np.ones(2))


def test_escaped_traced_values_are_refused():
    leaked = []
    gradjit.jit(lambda x: leaked.append(x) or x)(np.ones(2))
    with pytest.raises(TraceError, match="escaped|after its function returned"):
        gradjit.jit(lambda y: y + leaked[0])(np.ones(2))


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix, on purpose
@pytest.mark.parametrize("make,message", [
    (lambda: np.ma.masked_array([1.0, 2.0], mask=[0, 1]), "masked arrays"),
    (lambda: np.matrix([[1.0, 2.0]]), "np.matrix"),
    (lambda: np.array([1.0, None]), "not object"),
    (lambda: np.array(["a", "b"]), "not <U1"),
])
def test_data_a_plain_array_would_misrepresent_is_refused(make, message):
    argument = make()
    with pytest.raises(TypeError, match=message):
        gradjit.grad(lambda x: np.sum(x * x))(argument)
    with pytest.raises(TypeError, match=f"{message}|has no dtype"):
        gradjit.jit(lambda x: x * argument)(np.ones(2))
