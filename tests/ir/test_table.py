"""The primitive table is complete: each primitive has every part, a test of its evaluation,
and, where differentiable, a VJP checked against finite differences."""
import numpy as np
import pytest
import torch

from gradjit.ir import PRIMITIVES
from gradjit.ir.primitive import evaluate
from tests.ir import test_primitives as evaluation_tests

rng = np.random.default_rng(1)

EVALUATED = set(evaluation_tests.UNARY) | set(evaluation_tests.BINARY) | {
    "logical_and", "logical_or", "logical_not", "where", "cast", "broadcast_to", "reshape",
    "transpose", "reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "matmul", "slice",
    "pad", "gather",
    "scatter_add", "concatenate", "iota", "full", "constant", "guard", "check_index",
    "fmod", "trunc_div",
    "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "argsort",
    "solve", "triangular_solve", "cholesky", "det", "slogdet", "eigh", "svd", "qr", "lu_factor",
    "conj", "real", "imag", "complex", "fft", "rfft", "irfft", "eig"}

POSITIVE = (0.5, 2.0)
# name -> (operands, params); operands are float64 so central differences are accurate.
GRADIENT_CASES = {
    **{n: ([(3, 4)], {}) for n in ["neg", "abs", "exp", "expm1", "sin", "cos", "tanh",
                                    "sigmoid", "erf", "erfc"]},
    **{n: ([("+", (3, 4))], {}) for n in ["log", "log1p", "sqrt", "rsqrt", "tan"]},
    **{n: ([(3, 4), (3, 4)], {}) for n in ["add", "sub", "mul", "maximum", "minimum",
                                             "atan2", "logaddexp"]},
    "div": ([(3, 4), ("+", (3, 4))], {}),
    "fmod": ([(3, 4), ("+", (3, 4))], {}),
    "pow": ([("+", (3, 4)), (3, 4)], {}),
    "where": ([("bool", (3, 4)), (3, 4), (3, 4)], {}),
    "cast": ([(3,)], {"dtype": "f64"}),
    "broadcast_to": ([(3, 1)], {"shape": (2, 3, 4)}),
    "reshape": ([(3, 4)], {"shape": (2, 6)}),
    "transpose": ([(2, 3, 4)], {"perm": (2, 0, 1)}),
    "reduce_sum": ([(3, 4)], {"axes": (1,), "keepdims": False}),
    "reduce_max": ([(3, 4)], {"axes": (0,), "keepdims": True}),
    "reduce_min": ([(3, 4)], {"axes": (0, 1), "keepdims": False}),
    "reduce_prod": ([(3, 4)], {"axes": (1,), "keepdims": True}),
    "matmul": ([(2, 3, 4), (2, 4, 5)], {}),
    "slice": ([(5, 7)], {"start": (1, 0), "stop": (5, 7), "step": (2, 3)}),
    "pad": ([(2, 3)], {"low": (1, 0), "high": (0, 2), "interior": (1, 2), "value": 0.0}),
    "gather": ([(5, 5, 2), ("idx", (2, 3)), ("idx", (2, 3))], {"axis": 0}),
    "scatter_add": ([(5, 3), ("idx", (3,)), (3, 3)], {"axis": 0}),
    "concatenate": ([(2, 3), (1, 3)], {"axis": 0}),
    "solve": ([("spd", (2, 3, 3)), (2, 3, 2)], {}),
    "triangular_solve": ([("spd", (3, 3)), (3, 2)], {"lower": False, "unit": False}),
    "cholesky": ([("spd", (2, 3, 3))], {}),
    "slogdet": ([("spd", (2, 3, 3))], {}),
    "det": ([(2, 3, 3)], {}),
    "eigh": ([(2, 3, 3)], {"upper": False}),
    "svd": ([(2, 4, 3)], {"full_matrices": False}),
    "qr": ([(2, 4, 3)], {"complete": False}),
    "lu_factor": ([(2, 3, 3)], {}),
    **{n: ([("complex", (3, 4))], {}) for n in ["conj", "real", "imag"]},
    "complex": ([(3, 4), (3, 4)], {}),
    "fft": ([("complex", (3, 4, 2))], {"axes": (0, 2), "inverse": False}),
    "rfft": ([(3, 5)], {"axis": 1}),
    "irfft": ([("complex", (4, 3))], {"axis": 0, "n": 6}),
    "eig": ([(2, 3, 3)], {}),
}
# Eigenvectors are defined up to a phase that LAPACK fixes by its own rule: gradients hold for
# functions that do not depend on it, which tests/complex/test_eig.py checks by differences.
PHASE_DEPENDENT = {"eig"}


def _operand(spec):
    kind, shape = spec if isinstance(spec[0], str) else ("real", spec)
    if kind == "bool":
        return rng.random(shape) > 0.5
    if kind == "idx":
        return rng.integers(-5, 5, shape)
    if kind == "complex":
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    if kind == "spd":  # symmetric positive definite, well conditioned
        x = rng.standard_normal(shape)
        return x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])
    return rng.uniform(*POSITIVE, shape) if kind == "+" else rng.standard_normal(shape)


def test_every_primitive_has_all_parts():
    for name, prim in PRIMITIVES.items():
        assert prim.name == name and callable(prim.shape_rule) and callable(prim.evaluate), name
        assert callable(prim.vjp), f"{name} has no VJP rule"
        if prim.kind == "elementwise" and prim.differentiable:
            assert prim.sympy is not None, f"{name} has no sympy scalar form"


def test_every_primitive_has_an_evaluation_test():
    assert set(PRIMITIVES) - EVALUATED == set()


def test_every_differentiable_primitive_has_a_gradient_check():
    differentiable = {n for n, p in PRIMITIVES.items() if p.differentiable}
    assert differentiable - set(GRADIENT_CASES) == set()


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_vjp_matches_central_differences(name):
    if name in PHASE_DEPENDENT:
        pytest.skip("checked on phase-independent functions in tests/complex/test_eig.py")
    prim = PRIMITIVES[name]
    specs, params = GRADIENT_CASES[name]
    args = [_operand(s) for s in specs]
    out = evaluate(prim, args, params)
    g = _operand(("complex" if out.dtype.kind == "c" else "real", out.shape))
    cotangents = prim.vjp(g, out, *args, **params)
    assert len(cotangents) == len(args)
    for i, (arg, cot) in enumerate(zip(args, cotangents)):
        if arg.dtype.kind not in "fc":
            assert cot is None, f"{name}: integer/bool operand {i} got a gradient"
            continue
        numeric = np.zeros_like(arg)
        eps = 1e-6
        # complex operands follow JAX: Re(sum(ct dz)) is the change of Re(sum(g dout)), so a
        # step along 1 reads Re(ct) and a step along i reads -Im(ct)
        for step, part in [(1, 1), (1j, -1j)][:1 + (arg.dtype.kind == "c")]:
            for idx in np.ndindex(arg.shape):
                plus = [a.copy() for a in args]
                minus = [a.copy() for a in args]
                plus[i][idx] += eps * step
                minus[i][idx] -= eps * step
                change = np.sum(g * (evaluate(prim, plus, params)
                                     - evaluate(prim, minus, params))) / (2 * eps)
                numeric[idx] += part * np.real(change)
        np.testing.assert_allclose(np.asarray(cot), numeric, rtol=1e-5, atol=1e-7,
                                   err_msg=f"{name}, operand {i}")


def test_where_gradient_of_an_untaken_infinite_branch_is_nan_as_torch():
    """The zero cotangent where `where` took the other branch meets sqrt's infinite
    derivative at 0: 0 * inf is NaN, as in PyTorch's and JAX's rules (no masking)."""
    x = np.array([0.0, 4.0])
    y = np.sqrt(x)
    take = x > 0
    select = PRIMITIVES["where"]
    g_branch = select.vjp(np.ones(2), None, take, y, np.zeros(2))[1]
    (g_x,) = PRIMITIVES["sqrt"].vjp(g_branch, y, x)
    t = torch.tensor(x, requires_grad=True)
    torch.where(t > 0, t.sqrt(), 0.0).sum().backward()
    np.testing.assert_array_equal(g_x, t.grad.numpy())
    assert np.isnan(g_x[0])
