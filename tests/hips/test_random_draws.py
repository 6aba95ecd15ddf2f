"""Draws from gradjit.numpy.random (autograd.numpy.random) in a traced function are made at
each run of the compiled function, from the same generator, as autograd draws at each call:
the stochastic objectives of HIPS's variational examples get fresh samples at every step."""
import numpy
import pytest

import gradjit
import gradjit.numpy as np
import gradjit.numpy.random as npr
from gradjit.dump.stages import ir_text


def test_grad_draws_fresh_samples_at_each_call_from_the_generators_stream():
    rs = npr.RandomState(0)
    gradient = gradjit.grad(lambda x: np.sum(x * rs.randn(3)))
    got = [gradient(np.ones(3)), rs.randn(1), gradient(np.ones(3))]
    reference = numpy.random.RandomState(0)
    for value, want in zip(got, [reference.randn(3), reference.randn(1), reference.randn(3)]):
        numpy.testing.assert_array_equal(value, want)
    assert isinstance(rs, numpy.random.RandomState)


def test_the_global_generator_under_jit_and_keyword_draws():
    step = gradjit.jit(lambda x: x + npr.normal(1.0, scale=2.0, size=2) + npr.rand())
    npr.seed(3)
    got = [step(np.zeros(2)), step(np.zeros(2))]
    numpy.random.seed(3)
    for value in got:
        normal = numpy.random.normal(1.0, scale=2.0, size=2)
        numpy.testing.assert_array_equal(value, normal + numpy.random.rand())


def test_nested_grad_draws_at_each_run():
    rs = npr.RandomState(1)
    f = gradjit.grad(lambda x: np.sum(gradjit.grad(lambda y: np.sum(y ** 2 * rs.randn(3)))(x)))
    first, second = f(np.ones(3)), f(np.ones(3))
    reference = numpy.random.RandomState(1)
    numpy.testing.assert_allclose(first, 2 * reference.randn(3))
    numpy.testing.assert_allclose(second, 2 * reference.randn(3))


def test_a_draw_is_neither_folded_nor_a_trace_constant():
    rs = npr.RandomState(0)
    gradient = gradjit.grad(lambda x: np.sum(x * rs.uniform(size=3)))
    text = ir_text(gradient.ir(np.ones(3)))
    assert "numpy_random_uniform" in text and "constant()" not in text


@pytest.mark.parametrize("draw", ["randn", "standard_normal", "random", "randint"])
def test_outside_a_trace_draws_are_numpys(draw):
    args = (5,) if draw != "randint" else (0, 10, 5)
    rs, reference = npr.RandomState(2), numpy.random.RandomState(2)
    numpy.testing.assert_array_equal(getattr(rs, draw)(*args), getattr(reference, draw)(*args))
