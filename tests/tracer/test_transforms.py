"""grad / value_and_grad / jit: argument kinds and structures in, the same out; argnums,
has_aux, static arguments, decorators, and composition."""
import numpy as np
import pytest

import gradjit

rng = np.random.default_rng(0)


def test_numpy_in_numpy_out_float_in_float_out():
    f = gradjit.grad(lambda x: np.sum(np.sin(x)))
    x = rng.normal(size=4)
    g = f(x)
    assert isinstance(g, np.ndarray) and g.dtype == np.float64
    np.testing.assert_allclose(g, np.cos(x))
    h = gradjit.grad(lambda s: s * s * 3.0)
    assert type(h(2.0)) is float and h(2.0) == 12.0
    assert type(h(np.float64(2.0))) is np.float64
    g32 = gradjit.grad(lambda x: np.sum(x * x))(np.ones(3, np.float32))
    assert g32.dtype == np.float32


def test_argnums_and_nested_structures():
    def loss(params, x, scale):
        h = np.tanh(x @ params["w"] + params["b"])
        return np.sum(h * params["extra"][0]) * scale
    params = {"w": rng.normal(size=(3, 2)), "b": rng.normal(size=2),
              "extra": [rng.normal(size=2)]}
    x = rng.normal(size=(4, 3))
    g = gradjit.grad(loss)(params, x, 2.0)
    assert set(g) == {"w", "b", "extra"} and isinstance(g["extra"], list)
    assert g["w"].shape == (3, 2)
    gp, gs = gradjit.grad(loss, argnums=(0, 2))(params, x, 2.0)
    np.testing.assert_allclose(gp["b"], g["b"])
    assert isinstance(gs, float)
    assert gs == pytest.approx(loss(params, x, 1.0))


def test_value_and_grad_and_has_aux():
    def f(x):
        y = x * 2
        return np.sum(y * y), {"y": y, "tag": "aux"}
    x = np.arange(3.0)
    (value, aux), g = gradjit.value_and_grad(f, has_aux=True)(x)
    assert value == pytest.approx(20.0) and aux["tag"] == "aux"
    np.testing.assert_allclose(aux["y"], 2 * x)
    np.testing.assert_allclose(g, 8 * x)
    g2, aux2 = gradjit.grad(f, has_aux=True)(x)
    np.testing.assert_allclose(g2, g)


def test_decorator_forms():
    @gradjit.grad(argnums=1)
    def f(a, b):
        return np.sum(a * b)

    @gradjit.jit
    def g(a):
        return a + 1

    np.testing.assert_allclose(f(np.ones(2), np.ones(2) * 3), [1, 1])
    np.testing.assert_allclose(g(np.zeros(2)), [1, 1])


def test_jit_outputs_and_static_arguments():
    @gradjit.jit(static_argnums=(1,))
    def f(x, mode):
        out = x * 2 if mode == "double" else x + 1
        return {"out": out, "mode": mode, "n": 3}
    r = f(np.ones(2), "double")
    np.testing.assert_allclose(r["out"], [2, 2])
    assert r["mode"] == "double" and r["n"] == 3
    np.testing.assert_allclose(f(np.ones(2), "plus")["out"], [2, 2])
    assert f.cache_info().traces == 2
    assert np.isscalar(gradjit.jit(lambda x: np.sum(x))(np.ones(3)))


def test_second_derivatives():
    d2 = gradjit.grad(gradjit.grad(lambda x: x ** 3 + np.sin(x)))
    assert d2(0.7) == pytest.approx(6 * 0.7 - np.sin(0.7))
    hvp = gradjit.grad(lambda x, v: np.sum(gradjit.grad(lambda y: np.sum(np.exp(y) * y))(x) * v))
    x, v = rng.normal(size=3), rng.normal(size=3)
    np.testing.assert_allclose(hvp(x, v), np.exp(x) * (x + 2) * v)


def test_jit_of_grad_and_grad_through_jit():
    jg = gradjit.jit(gradjit.grad(lambda x: np.sum(np.tanh(x))))
    x = rng.normal(size=5)
    np.testing.assert_allclose(jg(x), 1 - np.tanh(x) ** 2)
    inner = gradjit.jit(lambda x: np.exp(x) * 2)
    outer = gradjit.grad(lambda x: np.sum(inner(x) * x))
    np.testing.assert_allclose(outer(x), 2 * np.exp(x) * (x + 1))
    # a jit called with constants inside a trace, and one closing over the outer value
    outer2 = gradjit.grad(lambda x: np.sum(gradjit.jit(lambda c: c * x)(np.ones(5)) ** 2))
    np.testing.assert_allclose(outer2(x), 2 * x)


def test_nested_grad_closing_over_outer_value():
    # d/dx [d/dy (x*y^2)](y=1) = d/dx 2x = 2, not confused with the inner derivative
    f = gradjit.grad(lambda x: gradjit.grad(lambda y: x * y * y)(1.0))
    assert f(3.0) == pytest.approx(2.0)


def test_stop_gradient_detaches():
    g = gradjit.grad(lambda x: np.sum(gradjit.stop_gradient(x * x) * x))(np.array([1.0, 2.0]))
    np.testing.assert_allclose(g, [1.0, 4.0])


def test_methods_can_be_decorated():
    class Model:
        scale = 3.0

        @gradjit.grad(argnums=1)
        def loss(self, x):
            return np.sum(x * x) * self.scale
    np.testing.assert_allclose(Model().loss(np.ones(2)), [6, 6])


def test_interpreter_backend_is_selectable_and_unknown_backends_are_refused():
    f = gradjit.grad(lambda x: np.sum(x * x), backend="interpreter")
    np.testing.assert_allclose(f(np.ones(2)), [2, 2])
    with pytest.raises(ValueError, match="unknown backend 'gpu9'"):
        gradjit.grad(lambda x: np.sum(x), backend="gpu9")(np.ones(2))
