"""Random programs (hypothesis), written with gradjit.ops so one definition runs on numpy,
traced, and on eager Tensors: compiled value == numpy value, compiled gradient == eager
Tensor autograd == central differences (where the program is smooth at the point)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gradjit
from gradjit import ops as G
from tests.e2e.checks import central_differences

UNARY = {
    "tanh": G.tanh, "sin": G.sin, "square": lambda v: v * v, "sigmoid": G.sigmoid,
    "softplus": lambda v: G.log(G.exp(v * 0.5) + 1.0), "neg": lambda v: -v,
    "relu": G.relu, "leaky": lambda v: G.where(G.gt(v, 0), v, v * 0.1),
    "center": lambda v: v - G.mean(v, 0, keepdims=True),
    "row_max": lambda v: v - G.amax(v, 1, keepdims=True),
    "flip": lambda v: G.flip(v, 0), "logsumexp": lambda v: v + G.logsumexp(v, 1, keepdims=True),
    "normalize": lambda v: v / (G.norm(v) + 1.0),
}
BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "max": G.maximum, "div": lambda a, b: a / (b * b + 1.0),
    "matmul": lambda a, b: G.matmul(a, G.transpose(b)) @ a * 0.3,
    "concat": lambda a, b: G.concatenate([a[:1], b[1:]], 0),
}


@st.composite
def programs(draw):
    steps = []
    for i in range(draw(st.integers(1, 6))):
        count = 2 + i
        if draw(st.booleans()):
            steps.append((draw(st.sampled_from(sorted(UNARY))), draw(st.integers(0, count - 1))))
        else:
            steps.append((draw(st.sampled_from(sorted(BINARY))), draw(st.integers(0, count - 1)),
                          draw(st.integers(0, count - 1))))
    return steps


def run(steps, x, y):
    values = [x, y]
    for name, *operands in steps:
        fn = UNARY.get(name) or BINARY[name]
        values.append(fn(*(values[i] for i in operands)))
    return G.sum_(values[-1] * values[-1]) + G.sum_(values[-1])


def check(steps, seed, shape):
    rng = np.random.default_rng(seed)
    x, y = rng.normal(size=shape), rng.normal(size=shape)
    f = lambda a, b: run(steps, a, b)  # noqa: E731
    value, grads = gradjit.value_and_grad(f, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(value, f(x, y), rtol=1e-9, atol=1e-9)
    tx, ty = (gradjit.from_numpy(a.copy()).requires_grad_() for a in (x, y))
    f(tx, ty).backward()
    eager_grads = [np.zeros(shape) if t.grad is None else t.grad.numpy() for t in (tx, ty)]
    for got, eager in zip(grads, eager_grads):
        np.testing.assert_allclose(got, eager, rtol=1e-9, atol=1e-9)
    coarse = central_differences(f, (x, y), (0, 1), 1e-5)
    fine = central_differences(f, (x, y), (0, 1), 1e-6)
    for got, c, d in zip(grads, coarse, fine):
        smooth = np.isclose(c, d, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(got[smooth], d[smooth], rtol=1e-4, atol=1e-5)


ARGUMENTS = (programs(), st.integers(0, 2**16), st.sampled_from([(3, 3), (2, 2)]))


@settings(max_examples=12, deadline=None)
@given(*ARGUMENTS)
def test_random_programs_compiled_vs_eager_vs_finite_differences(steps, seed, shape):
    check(steps, seed, shape)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(*ARGUMENTS)
def test_many_random_programs(steps, seed, shape):
    check(steps, seed, shape)
