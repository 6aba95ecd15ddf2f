"""Random well-typed IR functions for property tests, drawn with hypothesis."""
import numpy as np
from hypothesis import strategies as st

from gradjit.ir import Builder, TensorType
from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.types import dtype as resolve

UNARY = [E.neg, E.abs_, E.exp, E.sin, E.cos, E.tanh, E.sigmoid, E.floor, E.expm1]
BINARY = [E.add, E.sub, E.mul, E.maximum, E.minimum]
COMPARE = [E.lt, E.ge, E.eq]


@st.composite
def functions(draw, max_ops=8):
    """A function of 1-3 float parameters built from random elementwise, reduction and
    structural ops; every op's operands are values already defined."""
    dt = draw(st.sampled_from(["f32", "f64"]))
    shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
    with Builder("random") as b:
        values = [b.param(TensorType(shape, resolve(dt)), f"x{i}")
                  for i in range(draw(st.integers(1, 3)))]
        for _ in range(draw(st.integers(1, max_ops))):
            values.append(_random_op(draw, values, shape, dt))
    results = draw(st.lists(st.sampled_from(values[len(b.params):] or values), min_size=1,
                            max_size=2))
    return b.build(results)


def _random_op(draw, values, shape, dt):
    same = [v for v in values if v.type.shape == shape and v.type.dtype.name == dt]
    kind = draw(st.sampled_from(["unary", "binary", "where", "reduce", "scalar", "transpose"]))
    x = draw(st.sampled_from(same))
    if kind == "unary":
        return draw(st.sampled_from(UNARY))(x)
    if kind == "binary":
        return draw(st.sampled_from(BINARY))(x, draw(st.sampled_from(same)))
    if kind == "where":
        cond = draw(st.sampled_from(COMPARE))(x, draw(st.sampled_from(same)))
        return E.where(cond, x, draw(st.sampled_from(same)))
    if kind == "scalar":
        c = draw(st.sampled_from([0.5, -2.0, 3.0, 1e-3]))
        return E.mul(x, c)
    if kind == "transpose" and len(shape) >= 2:
        perm = tuple(reversed(range(len(shape))))
        if shape[perm[0]] == shape[0]:
            return S.transpose(x, perm=perm)
    if not shape:
        return E.neg(x)
    axes = tuple(sorted(set(draw(st.lists(st.integers(0, len(shape) - 1), max_size=2)))))
    reduced = S.reduce_sum(x, axes=axes, keepdims=True)
    return S.broadcast_to(reduced, shape=shape)


def random_inputs(fn, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-2, 2, p.type.shape).astype(p.type.dtype.numpy) for p in fn.params]
