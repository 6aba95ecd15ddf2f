"""Every differentiable primitive has a JVP rule next to its VJP, and the two are transposes:
<vjp(u), v> == <u, jvp(v)> on random float64 vectors; the JVP also matches central
differences along v."""
import numpy as np
import pytest

from gradjit.ir import PRIMITIVES, interpret
from gradjit.ir.core import Builder
from gradjit.ir.primitive import evaluate
from gradjit.ir.types import type_of
from tests.ir.test_table import GRADIENT_CASES, PHASE_DEPENDENT, _operand

rng = np.random.default_rng(7)


def test_every_differentiable_primitive_has_a_jvp():
    missing = {n for n, p in PRIMITIVES.items() if p.differentiable and not callable(p.jvp)}
    assert missing == set()
    assert {n for n, p in PRIMITIVES.items() if p.differentiable} <= set(GRADIENT_CASES)


def _jvp(prim, args, tangents, params):
    """The JVP rule emitted as IR (some rules only build IR) and interpreted."""
    builder = Builder("jvp")
    primal = [builder.param(type_of(a)) for a in args]
    tangent = [None if t is None else builder.param(type_of(t)) for t in tangents]
    with builder:
        out = prim(*primal, **params)
        result = prim.jvp(tangent, out, *primal, **params)
    fn = builder.build([result])
    return interpret(fn, *args, *[t for t in tangents if t is not None])[0]


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_jvp_is_the_transpose_of_vjp_and_matches_differences(name):
    prim = PRIMITIVES[name]
    specs, params = GRADIENT_CASES[name]
    args = [_operand(s) for s in specs]
    tangents = [_operand(("complex" if a.dtype.kind == "c" else "real", a.shape))
                if a.dtype.kind in "fc" else None for a in args]
    out = evaluate(prim, args, params)
    u = _operand(("complex" if out.dtype.kind == "c" else "real", out.shape))
    jvp = np.asarray(_jvp(prim, args, tangents, params))
    assert jvp.shape == out.shape
    cotangents = prim.vjp(u, out, *args, **params)
    # transposes under JAX's pairing of complex values, Re(sum(a b))
    lhs = sum(np.sum(np.asarray(c) * t) for c, t in zip(cotangents, tangents) if t is not None)
    np.testing.assert_allclose(np.real(np.sum(u * jvp)), np.real(lhs), rtol=1e-9, atol=1e-9,
                               err_msg=name)
    if name in PHASE_DEPENDENT:
        return  # differences follow LAPACK's choice of phase: tests/complex/test_eig.py
    eps = 1e-6
    plus = [a if t is None else a + eps * t for a, t in zip(args, tangents)]
    minus = [a if t is None else a - eps * t for a, t in zip(args, tangents)]
    numeric = (evaluate(prim, plus, params) - evaluate(prim, minus, params)) / (2 * eps)
    np.testing.assert_allclose(jvp, numeric, rtol=1e-5, atol=1e-6, err_msg=name)


def test_each_operand_alone():
    """A missing (zero) tangent on one operand: the rules fill zeros or skip the term."""
    for name in ["matmul", "concatenate", "scatter_add", "where", "pow", "solve"]:
        prim = PRIMITIVES[name]
        specs, params = GRADIENT_CASES[name]
        args = [_operand(s) for s in specs]
        floats = [i for i, a in enumerate(args) if a.dtype.kind == "f"]
        out = evaluate(prim, args, params)
        for keep in floats:
            tangents = [rng.standard_normal(a.shape) if i == keep else None
                        for i, a in enumerate(args)]
            jvp = np.asarray(_jvp(prim, args, tangents, params))
            eps = 1e-6
            plus = [a + eps * t if t is not None else a for a, t in zip(args, tangents)]
            minus = [a - eps * t if t is not None else a for a, t in zip(args, tangents)]
            numeric = (evaluate(prim, plus, params) - evaluate(prim, minus, params)) / (2 * eps)
            np.testing.assert_allclose(jvp, numeric, rtol=1e-5, atol=1e-6,
                                       err_msg=f"{name}, operand {keep}")
            assert out.shape == jvp.shape
