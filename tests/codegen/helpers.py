"""Compile a function and compare it with the reference interpreter."""
import numpy as np

from gradjit.codegen import compile_function
from gradjit.ir import PRIMITIVES, Builder, TensorType, interpret
from gradjit.ir import dtype as resolve

rng = np.random.default_rng(0)


def data(shape, dt, low=-3.0, high=3.0):
    dt = resolve(dt)
    if dt.is_bool:
        return rng.random(shape) > 0.5
    if dt.is_int:
        return rng.integers(-5, 6, shape).astype(dt.numpy)
    if dt.is_complex:
        return (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(
            dt.numpy)
    return rng.uniform(low, high, shape).astype(dt.numpy)


def one_op(name, arrays, **params):
    """A function applying primitive `name` to parameters typed like `arrays`."""
    with Builder(name) as b:
        args = [b.param(TensorType(a.shape, resolve(a.dtype)), f"a{i}")
                for i, a in enumerate(arrays)]
        out = PRIMITIVES[name](*args, **params)
    return b.build([out] if out is not None else [])


def many_ops(name, cases):
    """One function applying `name` to every case's arrays (one compile for all of them)."""
    with Builder(name) as b:
        results = []
        for arrays, params in cases:
            args = [b.param(TensorType(a.shape, resolve(a.dtype))) for a in arrays]
            out = PRIMITIVES[name](*args, **params)
            if out is not None:
                results.append(out)
    return b.build(results), [a for arrays, _ in cases for a in arrays]


def assert_same(got, want, ulps=4, eps=None):
    """`eps`: the rounding unit the results carry (a float64 result computed in float32 and
    cast carries float32's); by default each result's own dtype's."""
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
        assert g.flags.owndata or g.base is None or g.base.flags.owndata
        if g.dtype.kind == "f":
            eps = max(eps or 0.0, np.finfo(g.dtype).eps)
            scale = max(float(np.max(np.abs(w[np.isfinite(w)]), initial=0.0)), 1.0)
            np.testing.assert_allclose(g, w, rtol=ulps * eps, atol=ulps * eps * scale,
                                       equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)


def check(fn, *arrays, ulps=4):
    """Compiled and interpreted results agree; returns the compiled program."""
    program = compile_function(fn)
    assert_same(program(*arrays), interpret(fn, *arrays), ulps, _coarsest_eps(fn))
    return program


def _coarsest_eps(fn) -> float:
    """The largest rounding unit of any float value fn computes."""
    types = [p.type for p in fn.params] + [op.out.type for op in fn.ops if op.out is not None]
    return max((float(np.finfo(t.dtype.numpy).eps) for t in types if t.dtype.is_float),
               default=0.0)
