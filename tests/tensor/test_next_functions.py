"""grad_fn names and next_functions, walked to the leaves, as PyTorch 2.13 builds them for every
arithmetic operator: numbers and tensors on either side, reflected and in-place forms."""
import numpy as np
import pytest

import gradjit

torch = pytest.importorskip("torch")

EXPRESSIONS = [
    "b + c", "b + 2", "2 + b", "b + 2.5", "b + t0", "t0 + b",
    "b - c", "b - 2", "1 - b", "2.0 - b", "t0 - b",
    "b * c", "b * 2", "2 * b", "b * True", "t0 * b",
    "b / c", "b / 2", "1 / b", "2.5 / b", "t0 / b",
    "b ** c", "b ** 2", "2 ** b", "b ** 2.5", "b ** 0", "b ** 1", "1.5 ** b", "t0 ** b",
    "P(2, b)", "P(b, 2)", "P(b, c)",
    "m @ m", "m @ b", "b @ m", "b @ c", "-b",
    "b.add(c, alpha=2)", "b.add(2)", "b.sub(c, alpha=2)", "b.sub(2)", "b.mul(2)", "b.mul(c)",
    "b.div(2)", "b.div(c)", "b.pow(2)", "b.pow(c)", "b.square()", "b.reciprocal()",
    "b.remainder(2)", "b % 2", "b.fmod(2)",
    "L(b.clone(), '__iadd__', c)", "L(b.clone(), '__iadd__', 2)", "L(b.clone(), '__isub__', c)",
    "L(b.clone(), '__isub__', 2)", "L(b.clone(), '__imul__', c)", "L(b.clone(), '__imul__', 2)",
    "L(b.clone(), '__itruediv__', c)", "L(b.clone(), '__itruediv__', 2)",
    "L(b.clone(), '__ipow__', 2)", "L(b.clone(), '__ipow__', c)",
    "L(b.clone(), 'add_', c, alpha=3)", "L(b.clone(), 'mul_', 2)", "L(b.clone(), 'pow_', 2)",
]


def _chain(fn):
    """A grad_fn as (name, children): the whole graph down to the leaves, in order."""
    if fn is None:
        return None
    return fn.name(), tuple(_chain(nxt) for nxt, _ in fn.next_functions)


def _evaluate(lib, expression):
    b = lib.tensor([1.5, 2.0], requires_grad=True)
    c = lib.tensor([0.5, 3.0], requires_grad=True)
    m = lib.tensor([[1.5, 2.0], [1.0, 2.0]], requires_grad=True)
    t0 = lib.tensor(2.0)

    def L(t, method, *args, **kwargs):
        return getattr(t, method)(*args, **kwargs)
    env = {"b": b, "c": c, "m": m, "t0": t0, "L": L, "P": lib.pow}
    out = eval(expression, env)
    return out, b, c, m


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_grad_fn_graph_matches_torch(expression):
    ours, expected = _evaluate(gradjit, expression), _evaluate(torch, expression)
    assert _chain(ours[0].grad_fn) == _chain(expected[0].grad_fn)
    ours[0].sum().backward()
    expected[0].sum().backward()
    for mine, theirs in zip(ours[1:], expected[1:]):
        assert (mine.grad is None) == (theirs.grad is None)
        if theirs.grad is not None:
            np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-6)
