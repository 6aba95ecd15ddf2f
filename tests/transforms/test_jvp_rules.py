"""The hand-written JVP rules of the extrema, the product and the linear-algebra primitives,
on the cases the table's one case per primitive leaves out (ties, zeros, each triangle,
unit diagonals, tall, wide and full factorizations, singular matrices): each rule is the
transpose of its VJP (<u, jvp(v)> == <vjp(u), v>), matches central differences, and
gradjit.jvp of the torch.linalg functions on Tensors matches torch.func.jvp."""
import numpy as np
import pytest
import torch

import gradjit
from gradjit.ir import PRIMITIVES
from gradjit.ir.linalg import svd_shapes
from gradjit.ir.linalg_qr import qr_shapes
from gradjit.ir.primitive import evaluate
from tests.transforms.test_jvp_table import _jvp

rng = np.random.default_rng(5)


def _spd(*shape):
    a = rng.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def _triangular(n, lower):
    a = rng.standard_normal((n, n)) + 3 * np.eye(n)
    return np.tril(a) if lower else np.triu(a)


TIES = np.array([[1.0, 3.0, 3.0, -2.0], [0.5, 0.5, 0.5, 0.5], [-1.0, 2.0, -4.0, 2.0]])
ZEROS = np.array([[0.0, 2.0, -1.5, 3.0], [0.0, 0.0, 1.0, 2.0], [1.5, -2.0, 0.5, 3.0]])

CASES = {
    "max with ties": ("reduce_max", [TIES], {"axes": (1,), "keepdims": False}),
    "min over all": ("reduce_min", [TIES], {"axes": (0, 1), "keepdims": True}),
    "max of one term": ("reduce_max", [TIES], {"axes": (), "keepdims": False}),
    "prod with zeros": ("reduce_prod", [ZEROS], {"axes": (1,), "keepdims": False}),
    "prod over columns": ("reduce_prod", [ZEROS], {"axes": (0,), "keepdims": True}),
    "solve, one rhs column": ("solve", [_spd(3, 3), rng.standard_normal((3, 1))], {}),
    **{f"triangular_solve lower={lower} unit={unit}": (
        "triangular_solve", [_triangular(4, lower) + rng.standard_normal((4, 4)) * 0.1,
                             rng.standard_normal((4, 2))], {"lower": lower, "unit": unit})
       for lower in (True, False) for unit in (True, False)},
    "cholesky of one matrix": ("cholesky", [_spd(4, 4)], {}),
    "det of a stack": ("det", [rng.standard_normal((3, 4, 4))], {}),
    "det of a singular matrix": ("det", [np.outer([1.0, 2.0, -1.0], [0.5, 1.0, 3.0])], {}),
    "slogdet, negative det": ("slogdet", [np.diag([-2.0, 1.0, 3.0]) + 0.1], {}),
    **{f"eigh upper={upper}": ("eigh", [rng.standard_normal((2, 4, 4))], {"upper": upper})
       for upper in (True, False)},
    **{f"svd {m}x{n} full={full}": ("svd", [rng.standard_normal((2, m, n))],
                                    {"full_matrices": full})
       for m, n in [(3, 3), (4, 2), (2, 5)] for full in (False, True)},
    **{f"qr {m}x{n} complete={complete}": ("qr", [rng.standard_normal((m, n))],
                                           {"complete": complete})
       for m, n, complete in [(3, 3, False), (5, 3, False), (3, 5, False), (3, 5, True),
                              (4, 4, True)]},
}


def _unique_part(name, params, shape, value):
    """The part of a packed result that is a function of the operand: the columns that
    complete U and Vh of a full SVD are not (any orthonormal completion will do)."""
    if name != "svd" or not params["full_matrices"]:
        return value
    m, n = shape[-2:]
    k = min(m, n)
    batch = value.shape[:-1]
    parts, start = [], 0
    for s in svd_shapes(m, n, True):
        size = int(np.prod(s))
        parts.append(value[..., start:start + size].reshape(batch + s))
        start += size
    u, s, vh = parts
    return np.concatenate([u[..., :k].reshape(batch + (-1,)), s,
                           vh[..., :k, :].reshape(batch + (-1,))], axis=-1)


@pytest.mark.parametrize("case", sorted(CASES))
def test_jvp_rule_is_the_vjp_transposed_and_matches_differences(case):
    name, args, params = CASES[case]
    prim = PRIMITIVES[name]
    tangents = [rng.standard_normal(a.shape) for a in args]
    out = evaluate(prim, args, params)
    jvp = np.asarray(_jvp(prim, args, tangents, params))
    assert jvp.shape == out.shape
    u = rng.standard_normal(out.shape)
    pulled = prim.vjp(u, out, *args, **params)
    lhs = sum(np.sum(np.asarray(c) * t) for c, t in zip(pulled, tangents) if c is not None)
    np.testing.assert_allclose(np.sum(u * jvp), lhs, rtol=1e-9, atol=1e-9)
    eps = 1e-6
    plus = evaluate(prim, [a + eps * t for a, t in zip(args, tangents)], params)
    minus = evaluate(prim, [a - eps * t for a, t in zip(args, tangents)], params)
    if name in ("reduce_max", "reduce_min"):
        # at a tie the extremum has no derivative: the rule averages the one-sided ones
        return
    shape = args[0].shape
    numeric = (_unique_part(name, params, shape, plus) -
               _unique_part(name, params, shape, minus)) / (2 * eps)
    np.testing.assert_allclose(_unique_part(name, params, shape, jvp), numeric, rtol=1e-5,
                               atol=1e-6)


def test_qr_complete_of_a_tall_matrix_refuses_forward_mode_as_reverse():
    a = rng.standard_normal((4, 2))
    with pytest.raises(ValueError, match="not unique"):
        gradjit.jvp(lambda x: np.linalg.qr(x, mode="complete")[0], (a,), (a,))
    assert qr_shapes(4, 2, True) == ((4, 4), (4, 2))


def _sign_free_svd(linalg):
    def f(a):
        u, s, vh = linalg.svd(a, full_matrices=False)
        return s, (u * s[..., None, :] ** 2) @ u.mT, vh.mT @ (s[..., :, None] * vh)
    return f


def _sign_free_eigh(linalg):
    def f(a):
        # symmetric: PyTorch's rule takes the whole tangent, where the function reads one
        # triangle (the table test checks gradjit's against differences of that function)
        w, v = linalg.eigh(a + a.mT)
        return w, (v * w[..., None, :] ** 3) @ v.mT
    return f


TORCH_CASES = {
    "solve": (lambda lib: lambda a, b: lib.linalg.solve(a, b), [(2, 3, 3), (2, 3, 2)]),
    "solve_triangular": (lambda lib: lambda a, b: lib.linalg.solve_triangular(
        a, b, upper=True, unitriangular=False), [(3, 3), (3, 2)]),
    "cholesky": (lambda lib: lambda a: lib.linalg.cholesky(a @ a.mT + 4 * lib.eye(
        3, dtype=a.dtype)), [(3, 3)]),
    "det": (lambda lib: lambda a: lib.linalg.det(a), [(2, 3, 3)]),
    "slogdet": (lambda lib: lambda a: lib.linalg.slogdet(a)[1], [(3, 3)]),
    "eigh": (lambda lib: _sign_free_eigh(lib.linalg), [(2, 3, 3)]),
    "svd tall": (lambda lib: _sign_free_svd(lib.linalg), [(4, 3)]),
    "svd wide": (lambda lib: _sign_free_svd(lib.linalg), [(2, 3, 5)]),
    "qr": (lambda lib: lambda a: lib.linalg.qr(a), [(5, 3)]),
    "amax with ties": (lambda lib: lambda a: lib.amax(a.round(), dim=1) * a.sum(), [(4, 6)]),
    "prod with a zero": (lambda lib: lambda a: lib.prod(lib.where(a > 1.0, 0.0, a), dim=0),
                         [(3, 5)]),
}


@pytest.mark.parametrize("case", sorted(TORCH_CASES))
def test_against_torch_func_jvp(case):
    make, shapes = TORCH_CASES[case]
    primals = [rng.standard_normal(s) * 1.5 for s in shapes]
    tangents = [rng.standard_normal(s) for s in shapes]
    out, tangent = gradjit.jvp(make(gradjit), tuple(map(gradjit.tensor, primals)),
                               tuple(map(gradjit.tensor, tangents)))
    expected_out, expected = torch.func.jvp(make(torch), tuple(map(torch.tensor, primals)),
                                            tuple(map(torch.tensor, tangents)))
    got = [out, tangent]
    want = [expected_out, expected]
    for g, w in zip(got, want):
        g_leaves = list(g) if isinstance(g, tuple) else [g]
        w_leaves = list(w) if isinstance(w, tuple) else [w]
        assert len(g_leaves) == len(w_leaves)
        for a, b in zip(g_leaves, w_leaves):
            assert isinstance(a, gradjit.Tensor)
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-10)
