"""Arrays a compiled function reads from outside its arguments are trace-time constants:
explain lists them (name, type, source line), check_captures and debug_captures raise
CapturedArrayChanged, naming the variable and line, once one has changed since tracing."""
import numpy as np
import pytest

import gradjit

WEIGHTS = np.arange(6.0).reshape(2, 3)


class Layer:
    def __init__(self):
        self.bias = np.ones(3)


def _model():
    layer, scale = Layer(), np.full(3, 2.0)

    def f(x):
        return np.sum((x @ WEIGHTS + layer.bias) * scale + np.array([1.0, 2.0, 3.0]))
    return f, layer, scale


def test_explain_lists_each_captured_array_with_its_type_and_line():
    f, _, _ = _model()
    g = gradjit.grad(f)
    g(np.ones((1, 2)))
    text = str(gradjit.explain(g))
    assert "captured arrays (trace-time constants):" in text
    for name, type_ in [("WEIGHTS", "f64[2,3]"), ("layer.bias", "f64[3]"), ("scale", "f64[3]")]:
        assert f"{name}: {type_} at tests/tracer/test_captures.py:21" in text
    assert "np.sum((x @ WEIGHTS" in text  # the source line
    assert text.count(" at tests/tracer") == 3  # the temporary np.array(...) is not one


def test_an_unchanged_capture_passes_and_a_changed_one_is_named():
    f, layer, scale = _model()
    g = gradjit.jit(f)
    x = np.ones((1, 2))
    before = g(x)
    gradjit.check_captures(g)
    layer.bias[1] = 5.0  # the compiled code still adds the old bias
    assert g(x) == before
    with pytest.raises(gradjit.CapturedArrayChanged,
                       match=r"the array layer\.bias \(f64\[3\]\) captured at "
                             r"tests/tracer/test_captures.py:21 changed"):
        gradjit.check_captures(g)


def test_debug_captures_checks_every_call():
    f, _, scale = _model()
    g = gradjit.value_and_grad(f)
    x = np.ones((1, 2))
    with gradjit.debug_captures():
        g(x)
        g(x)
        scale *= 3
        with pytest.raises(gradjit.CapturedArrayChanged, match="the array scale"):
            g(x)
    g(x)  # outside the block nothing is checked
    with gradjit.debug_nans(), gradjit.debug_captures():  # the two compose
        with pytest.raises(gradjit.CapturedArrayChanged):
            g(x)


def test_a_function_without_captures_and_a_wrong_argument():
    g = gradjit.jit(lambda x: x * 2.0)
    g(np.ones(3))
    assert "captured" not in str(gradjit.explain(g))
    gradjit.check_captures(g)
    with pytest.raises(TypeError, match="check_captures"):
        gradjit.check_captures(lambda x: x)


class Lazy:
    """An object whose attribute lookup raises: scanning for captures must not call it."""

    def __getattr__(self, name):
        raise RuntimeError("looked up")


LAZY, LABELS = Lazy(), np.array(["a", "b"])


def test_strange_globals_do_not_disturb_tracing():
    g = gradjit.jit(lambda x: x * WEIGHTS[0])
    np.testing.assert_array_equal(g(np.ones(3)), WEIGHTS[0])
    assert "WEIGHTS: f64[2,3]" in str(gradjit.explain(g))


SCALES = np.array([1.0, -2.0, 0.5])


def test_an_array_that_is_an_operand_itself_is_listed():
    g = gradjit.grad(lambda x: np.sum(SCALES * x ** 2))
    g(np.ones(3))
    assert "SCALES: f64[3] at tests/tracer/test_captures.py" in str(gradjit.explain(g))
