"""make_jaxpr, eval_shape/ShapeDtypeStruct, disable_jit, block_until_ready, device_put and
devices, against JAX's where JAX computes the same thing."""
import numpy as np
import pytest

import gradjit
from gradjit import lax

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _program(n):
    return lambda x, y: {"a": n.sin(x) @ y, "b": (x.sum(), x.at[0].set(2.0))}


_f = _program(np)


def test_make_jaxpr_prints_the_trace_stage_of_the_dump_tool():
    args = (np.ones((2, 3)), np.ones(3))
    program = gradjit.make_jaxpr(_f)(*args)
    assert str(program) == gradjit.dump(gradjit.jit(_f), *args, stage="trace")
    assert "sin(%x) : f64[2,3]" in str(program)
    assert program.jaxpr is program
    expected = jax.make_jaxpr(_program(jnp))(*args)
    assert [(a.shape, a.dtype) for a in program.in_avals] == \
        [(a.shape, a.dtype) for a in expected.in_avals]
    assert [(a.shape, a.dtype) for a in program.out_avals] == \
        [(a.shape, a.dtype) for a in expected.out_avals]


def test_make_jaxpr_with_static_arguments_and_control_flow():
    f = lambda x, n: lax.fori_loop(0, n, lambda i, c: c * x, x)
    program = gradjit.make_jaxpr(f, static_argnums=1)(np.ones(2), 3)
    assert str(program).count("mul(") == 3


def test_eval_shape_like_jax():
    f = lambda x, y: {"m": x @ y.T, "s": (x.sum(0), x.astype(np.float32))}
    x = gradjit.ShapeDtypeStruct((4, 3), np.float64)
    y = np.ones((5, 3))
    got = gradjit.eval_shape(f, x, y)
    want = jax.eval_shape(f, jax.ShapeDtypeStruct((4, 3), jnp.float64), y)
    assert jax.tree.structure(got) == jax.tree.structure(
        want, is_leaf=lambda v: isinstance(v, jax.ShapeDtypeStruct))
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
        assert (g.shape, g.dtype) == (w.shape, w.dtype)
    assert repr(got["m"]) == "ShapeDtypeStruct(shape=(4, 5), dtype=float64)"
    assert got["m"].ndim == 2 and got["m"].size == 20


def test_disable_jit_runs_the_python_function_on_numpy():
    seen = []

    @gradjit.jit
    def f(x):
        seen.append(type(x))
        return x * 2

    f(np.ones(2))
    with gradjit.disable_jit():
        np.testing.assert_array_equal(f(np.ones(2)), [2.0, 2.0])
        np.testing.assert_array_equal(gradjit.grad(lambda x: f(x).sum())(np.ones(2)), [2, 2])
    f(np.ones(2))
    assert seen[1] is np.ndarray and seen[0] is not np.ndarray
    assert len(seen) == 3 and seen[2] is not np.ndarray  # inlined into grad's trace, once


def test_block_until_ready_device_put_and_devices():
    x = {"a": np.arange(3.0)}
    assert gradjit.block_until_ready(x) is x
    assert gradjit.device_put(x["a"]) is x["a"]
    assert gradjit.device_put(x["a"], gradjit.devices()[0]) is x["a"]
    assert gradjit.devices()[0] == gradjit.device("cpu")
    assert gradjit.devices("cuda") == ([gradjit.device("cuda", 0)]
                                       if gradjit.cuda.is_available() else [])
