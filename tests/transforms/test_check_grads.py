"""HIPS autograd's check_grads and `autograd.numpy` under gradjit's names: right derivatives
pass at every order asked, a wrong rule is caught, and gradjit.numpy is numpy."""
import numpy
import pytest

import gradjit
import gradjit.numpy as np
import gradjit.numpy.random as npr
from gradjit.test_util import check_grads, combo_check

X = numpy.random.default_rng(0).standard_normal((3, 4))


@pytest.mark.parametrize("fun, args, options", [
    (np.tanh, (X,), {}),
    (lambda a, b: np.sum(np.sin(a) * b, axis=0), (X, X[0]), {"modes": ["rev"], "order": 3}),
    (lambda a, b: a @ b, (X, X.T), {"argnum": (0, 1)}),
    (lambda a, b: a @ b, (X, X.T), {"argnum": 1, "modes": ["fwd"]}),
    (lambda a: {"s": np.sum(a ** 3), "t": (a[0], np.exp(a))}, (X,), {}),
    (lambda a: np.linalg.inv(a @ a.T + np.eye(3)), (X,), {}),
    (lambda s: s ** 3 + np.sin(s), (0.7,), {"order": 3}),
])
def test_right_derivatives_pass(fun, args, options):
    check_grads(fun, **options)(*args)


def _wrong_sin():
    @gradjit.primitive
    def wrong(a):
        return np.sin(a)
    return wrong


def test_a_wrong_rule_is_caught_in_either_mode():
    wrong = _wrong_sin()
    gradjit.defvjp(wrong, lambda ans, a: lambda g: g * np.sin(a))
    with pytest.raises(AssertionError, match=r"\(VJP\) check of wrong failed"):
        check_grads(wrong, modes=["rev"])(X)
    wrong = _wrong_sin()
    gradjit.defjvp(wrong, lambda g, ans, a: g * np.sin(a))
    with pytest.raises(AssertionError, match=r"\(JVP\) check of wrong failed"):
        check_grads(wrong, modes=["fwd"])(X)


def test_a_wrong_second_derivative_is_caught_at_order_two():
    """sum(a**3) whose gradient 3a^2 is right but held constant (stop_gradient), so its second
    derivative is 0: order 1 passes, order 2 sees it."""
    def cube(a):
        stop = gradjit.stop_gradient
        return np.sum(stop(a ** 3) + (a - stop(a)) * stop(3 * a ** 2))
    check_grads(cube, order=1)(X)
    for mode, name in (("fwd", "JVP\\) check of jvp_cube"), ("rev", "VJP\\) check of vjp_cube")):
        with pytest.raises(AssertionError, match=name):
            check_grads(cube, modes=[mode], order=2)(X)


def test_unknown_modes_are_refused():
    with pytest.raises(ValueError, match="modes are 'fwd' and 'rev'"):
        check_grads(np.sin, modes=["reverse"])


def test_gradjit_numpy_is_numpy():
    assert np.ndarray is numpy.ndarray and np.sin is numpy.sin and np.pi == numpy.pi
    assert np.linalg.inv.__wrapped__ is numpy.linalg.inv  # lifts lists of traced values
    assert np.fft.rfft.__wrapped__ is numpy.fft.rfft
    assert issubclass(npr.RandomState, numpy.random.RandomState)  # draws at each run
    assert npr.seed is numpy.random.seed
    assert gradjit.test_util.check_grads is check_grads


def test_a_wrong_rule_inside_a_vjp_is_caught_through_the_direction():
    """foo's rule is right at first order, but the primitive it calls on the cotangent has a
    wrong rule: only differentiating the VJP with respect to its direction, as HIPS autograd's
    check does, sees it."""
    @gradjit.primitive
    def bar(x):
        return x
    gradjit.defvjp(bar, lambda ans, x: lambda g: g * 1.001)

    @gradjit.primitive
    def foo(x):
        return x * 2.0
    gradjit.defvjp(foo, lambda ans, x: lambda g: bar(g) * 2)
    check_grads(foo, modes=["rev"], order=1)(1.0)
    with pytest.raises(AssertionError, match=r"\(VJP\) check of vjp_foo failed"):
        check_grads(foo, modes=["rev"])(1.0)


def test_combo_check_visits_every_combination():
    seen = []

    def fun(a, b, *, power):
        seen.append((float(numpy.asarray(a).ravel()[0]), float(b), power))
        return np.sum(a ** power) * b

    combo_check(fun, argnum=0, order=1, modes=["rev"])([X, X + 1.0], [0.5], power=[2, 3])
    combos = {(a, p) for a, _, p in seen}
    assert combos >= {(X[0, 0], 2), (X[0, 0], 3), (X[0, 0] + 1.0, 2), (X[0, 0] + 1.0, 3)}


def test_combo_check_reports_a_wrong_rule():
    wrong = _wrong_sin()
    gradjit.defvjp(wrong, lambda ans, a: lambda g: g * np.sin(a))
    with pytest.raises(AssertionError, match="check of wrong failed"):
        combo_check(wrong, modes=["rev"], order=1)([X])
