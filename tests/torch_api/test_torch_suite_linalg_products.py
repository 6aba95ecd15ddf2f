"""PyTorch's linalg suite, its products and older names side by side with torch: outer/ger,
addr, addmv, addmm, addbmm, baddbmm (alpha, beta, out=), matmul broadcasting, dot/vdot, inner,
kron, tensordot, einsum, trace, chain_matmul and torch.symeig's removal."""
import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

RNG = np.random.default_rng(11)
V3, V4 = RNG.standard_normal(3), RNG.standard_normal(4)
M34, M43 = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 3))
M33 = RNG.standard_normal((3, 3))
B234, B243 = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4, 3))
ZV = V3 + 1j * RNG.standard_normal(3)
INTS = np.arange(12).reshape(3, 4) - 5
SCENARIOS = scenario = Scenarios()


def t(lib, a, dtype=None):
    return lib.tensor(a, dtype=dtype)


def grads(lib, fn, *arrays):
    """fn's result on leaves of the arrays and the leaves' gradients of its weighted sum."""
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = fn(*xs)
    w = lib.arange(1.0, out.numel() + 1, dtype=out.real.dtype).reshape(out.shape)
    (out.abs() * w if out.is_complex() else out * w).sum().backward()
    return [out] + [x.grad for x in xs]


# --- outer products ------------------------------------------------------------------------

@scenario
def outer_ger_dtypes(lib):
    outs = [lib.outer(t(lib, V3), t(lib, V4)), lib.ger(t(lib, V3), t(lib, V4)),
            t(lib, V3).outer(t(lib, V4)), lib.outer(t(lib, INTS[0]), t(lib, V3, lib.float32)),
            lib.outer(t(lib, ZV), t(lib, V4)), lib.outer(t(lib, [True, False]), t(lib, [True])),
            lib.outer(t(lib, V3)[:1].expand(3), t(lib, V4))]
    out = lib.empty(3, 4, dtype=lib.float64)
    lib.outer(t(lib, V3), t(lib, V4), out=out)
    return outs + [out, grads(lib, lib.outer, V3, V4)]


@scenario
def outer_matrix_raises(lib):
    return lib.outer(t(lib, M33), t(lib, V3))


@scenario
def addr_alpha_beta(lib):
    m, a, b = t(lib, M34), t(lib, V3), t(lib, V4)
    out = lib.empty(3, 4, dtype=lib.float64)
    lib.addr(m, a, b, beta=0.5, alpha=2, out=out)
    return (lib.addr(m, a, b), lib.addr(m, a, b, beta=0, alpha=-1.5), out,
            lib.addr(t(lib, V4), a, b), m.addr(a, b, alpha=3), m.clone().addr_(a, b, beta=2),
            lib.addr(t(lib, INTS), t(lib, INTS[:, 0]), t(lib, INTS[0]), beta=2, alpha=3),
            lib.addr(t(lib, [[True, False]]), t(lib, [True]), t(lib, [False, True])),
            grads(lib, lambda m, a, b: lib.addr(m, a, b, beta=0.5, alpha=2), M34, V3, V4))


@scenario
def addr_beta_nan_ignored_when_zero(lib):
    return lib.addr(lib.full((3, 4), float("nan"), dtype=lib.float64), t(lib, V3), t(lib, V4),
                    beta=0)


@scenario
def addr_float_alpha_on_ints_raises(lib):
    return lib.addr(t(lib, INTS), t(lib, INTS[:, 0]), t(lib, INTS[0]), alpha=0.5)


@scenario
def addr_bool_beta_raises(lib):
    return lib.addr(t(lib, [[True, False]]), t(lib, [True]), t(lib, [False, True]), beta=2)


# --- matrix-vector and matrix-matrix with accumulation ------------------------------------

@scenario
def addmv_variants(lib):
    m, v, b = t(lib, M34), t(lib, V4), t(lib, V3)
    out = lib.empty(3, dtype=lib.float64)
    lib.addmv(b, m, v, beta=2, alpha=0.5, out=out)
    return (lib.addmv(b, m, v), lib.addmv(t(lib, V3[:1]), m, v, beta=0.5), out,
            lib.addmv(lib.full((3,), float("nan"), dtype=lib.float64), m, v, beta=0),
            lib.mv(m, v), lib.addmv(lib.zeros(0), lib.zeros(0, 2), lib.zeros(2)),
            grads(lib, lambda b, m, v: lib.addmv(b, m, v, beta=2, alpha=0.5), V3, M34, V4))


@scenario
def addmv_shape_raises(lib):
    return lib.addmv(t(lib, V3), t(lib, M34), t(lib, V3))


@scenario
def addmv_dtype_mismatch_raises(lib):
    return lib.addmv(t(lib, V3, lib.float32), t(lib, M34), t(lib, V4))


@scenario
def mv_dtype_mismatch_raises(lib):
    return lib.mv(t(lib, M34), t(lib, V4, lib.float32))


@scenario
def addmm_variants(lib):
    i, a, b = t(lib, M33), t(lib, M34), t(lib, M43)
    out = lib.empty(3, 3, dtype=lib.float64)
    lib.addmm(i, a, b, beta=0.25, alpha=3, out=out)
    return (lib.addmm(i, a, b), lib.addmm(t(lib, V3), a, b, alpha=2), out,
            lib.addmm(lib.full((3, 3), float("nan"), dtype=lib.float64), a, b, beta=0),
            lib.addmm(t(lib, INTS[:, :3]), t(lib, INTS), t(lib, INTS.T), beta=2),
            lib.addmm(lib.zeros(3, 3), lib.zeros(3, 0), lib.zeros(0, 3)), i.clone().addmm_(a, b),
            lib.addmm(t(lib, M33, lib.complex128), a.to(lib.complex128), t(lib, M43 * 1j)),
            grads(lib, lambda i, a, b: lib.addmm(i, a, b, beta=0.25, alpha=3), M33, M34, M43))


@scenario
def addmm_shape_raises(lib):
    return lib.addmm(t(lib, M33), t(lib, M34), t(lib, M34))


@scenario
def mm_dtype_mismatch_raises(lib):
    return lib.mm(t(lib, M34), t(lib, M43, lib.float32))


@scenario
def mm_vector_raises(lib):
    return lib.mm(t(lib, M34), t(lib, V4))


@scenario
def baddbmm_addbmm_bmm(lib):
    i3, a, b = t(lib, RNG.standard_normal((2, 3, 3)) * 0 + M33), t(lib, B234), t(lib, B243)
    out = lib.empty(2, 3, 3, dtype=lib.float64)
    lib.baddbmm(i3, a, b, beta=0.5, alpha=-1, out=out)
    return (lib.baddbmm(i3, a, b), lib.baddbmm(t(lib, M33), a, b, beta=2), out,
            lib.addbmm(t(lib, M33), a, b), lib.addbmm(t(lib, V3), a, b, beta=0.5, alpha=2),
            lib.bmm(a, b), lib.baddbmm(lib.full((2, 3, 3), float("nan"), dtype=lib.float64),
                                       a, b, beta=0),
            lib.bmm(lib.zeros(0, 3, 4), lib.zeros(0, 4, 2)), lib.addbmm(
                lib.ones(3, 3), lib.zeros(0, 3, 4), lib.zeros(0, 4, 3)),
            grads(lib, lambda i, a, b: lib.baddbmm(i, a, b, beta=0.5, alpha=2), M33, B234, B243),
            grads(lib, lambda i, a, b: lib.addbmm(i, a, b, alpha=2), M33, B234, B243))


@scenario
def bmm_batch_mismatch_raises(lib):
    return lib.bmm(t(lib, B234), t(lib, B243[:1].repeat(3, 0)))


@scenario
def bmm_2d_raises(lib):
    return lib.bmm(t(lib, M34), t(lib, M43))


# --- matmul --------------------------------------------------------------------------------

@scenario
def matmul_broadcasting(lib):
    shapes = [((3,), (3,)), ((3,), (3, 4)), ((4, 3), (3,)), ((2, 1, 3, 4), (5, 4, 2)),
              ((4,), (2, 4, 3)), ((2, 3, 4), (4,)), ((0, 3), (3, 2)), ((2, 0), (0, 3)),
              ((1, 2, 3), (3, 3))]
    return [lib.matmul(lib.arange(float(np.prod(a))).reshape(a),
                       lib.arange(float(np.prod(b))).reshape(b)) for a, b in shapes]


@scenario
def matmul_out_and_grad(lib):
    out = lib.empty(2, 3, 3, dtype=lib.float64)
    lib.matmul(t(lib, B234), t(lib, M43), out=out)
    return (out, grads(lib, lib.matmul, B234, M43), grads(lib, lib.matmul, V4, B243),
            grads(lib, lib.matmul, V3, V3), t(lib, B234) @ t(lib, V4),
            lib.matmul(t(lib, INTS), t(lib, INTS.T)))


@scenario
def matmul_scalar_raises(lib):
    return lib.matmul(lib.tensor(2.0), t(lib, V3))


@scenario
def matmul_shape_raises(lib):
    return lib.matmul(t(lib, B234), t(lib, M34))


@scenario
def matmul_dtype_mismatch_raises(lib):
    return lib.matmul(t(lib, M34), t(lib, M43, lib.float32))


# --- dot, vdot, inner, kron, tensordot, einsum, trace ---------------------------------------

@scenario
def dot_vdot(lib):
    out = lib.empty((), dtype=lib.float64)
    lib.dot(t(lib, V3), t(lib, V3[::-1].copy()), out=out)
    return (lib.dot(t(lib, V3), t(lib, V3)), lib.vdot(t(lib, ZV), t(lib, ZV * 2j)),
            lib.dot(t(lib, ZV), t(lib, ZV * 2j)), lib.dot(t(lib, INTS[0]), t(lib, INTS[1])),
            lib.dot(lib.zeros(0), lib.zeros(0)), out, t(lib, V3).dot(t(lib, V3)),
            lib.dot(t(lib, M34)[:, 1], t(lib, V3)), grads(lib, lib.dot, V3, V3[::-1].copy()),
            grads(lib, lib.vdot, ZV, ZV * 1j))


@scenario
def dot_2d_raises(lib):
    return lib.dot(t(lib, M33), t(lib, M33))


@scenario
def dot_size_mismatch_raises(lib):
    return lib.dot(t(lib, V3), t(lib, V4))


@scenario
def dot_dtype_mismatch_raises(lib):
    return lib.dot(t(lib, V3), t(lib, V3, lib.float32))


@scenario
def inner_shapes(lib):
    pairs = [((), ()), ((), (3,)), ((2,), (2,)), ((2,), (3, 1, 2)), ((1, 2), (3, 2)),
             ((2, 1, 3, 2), (1, 3, 2, 2)), ((0,), (2, 0)), ((2,), (3, 0, 2))]
    outs = [lib.inner(lib.arange(1.0, np.prod(a) + 1).reshape(a),
                      lib.arange(2.0, np.prod(b) + 2).reshape(b)) for a, b in pairs]
    out = lib.empty(3, dtype=lib.float64)
    lib.inner(t(lib, M34), t(lib, V4), out=out)
    return outs + [out, grads(lib, lib.inner, M34, M43.T.copy())]


@scenario
def inner_mismatch_raises(lib):
    return t(lib, M34).inner(t(lib, M33))


@scenario
def kron_shapes(lib):
    return (lib.kron(t(lib, M33), t(lib, V3)), lib.kron(t(lib, B234), t(lib, M33)),
            lib.kron(t(lib, INTS), t(lib, [[1, -1]])), lib.kron(t(lib, ZV), t(lib, V4)),
            lib.kron(lib.zeros(0, 2), lib.ones(2, 2)), grads(lib, lib.kron, M33, M34))


@scenario
def tensordot_forms(lib):
    a, b = t(lib, B234), t(lib, B243)
    out = lib.empty(2, 2, dtype=lib.float64)
    lib.tensordot(a, b, dims=([1, 2], [2, 1]), out=out)
    return (lib.tensordot(a, t(lib, B234.transpose(1, 2, 0))), lib.tensordot(a, b, dims=0).shape,
            lib.tensordot(a, t(lib, M43), dims=1),
            lib.tensordot(a, b, dims=([1, 2], [2, 1])), lib.tensordot(a, b, dims=[[0], [0]]),
            lib.tensordot(a, b, dims=lib.tensor([[2], [1]])), out,
            grads(lib, lambda x, y: lib.tensordot(x, y, dims=([1, 2], [2, 1])), B234, B243))


@scenario
def tensordot_mismatch_raises(lib):
    return lib.tensordot(t(lib, B234), t(lib, B234), dims=([1], [1, 2]))


@scenario
def tensordot_size_mismatch_raises(lib):
    return lib.tensordot(t(lib, B234), t(lib, B234), dims=([1], [2]))


@scenario
def einsum_forms(lib):
    a, b, v = t(lib, B234), t(lib, B243), t(lib, V4)
    return (lib.einsum("bij,bjk->bik", a, b), lib.einsum("bij,j", a, v), lib.einsum("ii", t(
        lib, M33)), lib.einsum("ii->i", t(lib, M33)), lib.einsum("...j,j->...", a, v),
        lib.einsum("i,j->ij", v, v), lib.einsum("bij->", a), lib.einsum("bij->jib", a),
        lib.einsum(a, [0, 1, 2], b, [0, 2, 3], [0, 1, 3]), lib.einsum("i j , j k", t(lib, M34),
                                                                       t(lib, M43)),
        lib.einsum("bij,bjk->bik", [a, b]), lib.einsum("ij,jk", t(lib, INTS), t(lib, INTS.T)),
        grads(lib, lambda x, y: lib.einsum("bij,bjk->ik", x, y), B234, B243))


@scenario
def einsum_operand_count_raises(lib):
    return lib.einsum("ij,jk->ik", t(lib, M34))


@scenario
def einsum_size_mismatch_raises(lib):
    return lib.einsum("ij,jk->ik", t(lib, M34), t(lib, M34))


@scenario
def einsum_bad_output_raises(lib):
    return lib.einsum("ij->k", t(lib, M34))


@scenario
def trace_dtypes(lib):
    return (lib.trace(t(lib, M34)), lib.trace(t(lib, INTS)), lib.trace(t(lib, INTS, lib.int8)),
            lib.trace(lib.zeros(0, 3)),
            t(lib, M33).T.trace(), lib.trace(t(lib, M33 + 1j * M33)),
            grads(lib, lib.trace, M34))


@scenario
def trace_bool_raises(lib):
    return lib.trace(t(lib, [[True, True], [False, True]]))


@scenario
def trace_3d_raises(lib):
    return lib.trace(t(lib, B234))


@scenario
def chain_matmul_forms(lib):
    return (lib.chain_matmul(t(lib, M34), t(lib, M43), t(lib, M33)),
            lib.chain_matmul(t(lib, M34)), grads(lib, lib.chain_matmul, M34, M43))


@scenario
def chain_matmul_empty_raises(lib):
    return lib.chain_matmul()


@scenario
def legacy_inverses(lib):
    spd = t(lib, M33 @ M33.T + np.eye(3))
    return (lib.det(t(lib, M33)), lib.logdet(spd), lib.inverse(t(lib, M33)),
            t(lib, M33).inverse(), lib.pinverse(t(lib, M34)), t(lib, M34).pinverse(rcond=0.5),
            lib.slogdet(t(lib, M33)), t(lib, M33).det(), lib.cholesky_inverse(
                lib.linalg.cholesky(spd)), lib.lu_unpack(*lib.linalg.lu_factor(t(lib, M33))),
            lib.lu_unpack(*lib.linalg.lu_factor(t(lib, M33)), unpack_data=False)[0],
            lib.lu_unpack(*lib.linalg.lu_factor(t(lib, M34)))[2])


@scenario
def legacy_out_arguments(lib):
    a = t(lib, M33)
    lu, piv = lib.linalg.lu_factor(a)
    outs = [lib.empty(0, dtype=lib.float64) for _ in range(6)]
    lib.chain_matmul(a, a, a, out=outs[0])
    lib.lu_solve(t(lib, M34), lu, piv, out=outs[1])
    lib.lu_unpack(lu, piv, out=tuple(outs[2:5]))
    pair = (lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.int32))
    returned = lib.lu(a, out=pair)
    a, tau = lib.geqrf(t(lib, M43))
    lib.ormqr(a, tau, t(lib, M43), out=outs[5])
    spd = t(lib, M33 @ M33.T + np.eye(3))
    more = [lib.empty(0, dtype=lib.float64) for _ in range(5)]
    for (name, args), out in zip((("inverse", (spd,)), ("cholesky", (spd,)), ("cholesky_inverse",
                                  (spd,)), ("cholesky_solve", (spd, spd)),
                                  ("vdot", (spd[0], spd[1]))), more):
        getattr(lib, name)(*args, out=out)
    qr, svd, tri = ([lib.empty(0, dtype=lib.float64) for _ in range(n)] for n in (2, 3, 2))
    lib.qr(spd, out=qr)
    lib.svd(spd, out=svd)
    lib.triangular_solve(spd, spd.triu(), out=tri)
    return outs + more + [pair, returned[0] is pair[0], [x.abs() for x in qr + svd], tri]


@scenario
def symeig_removed_raises(lib):
    return lib.symeig(t(lib, M33))


@scenario
def tensor_symeig_removed_raises(lib):
    return t(lib, M33).symeig()


@scenario
def matrix_rank_removed_raises(lib):
    return lib.matrix_rank(t(lib, M33))


@scenario
def legacy_lstsq_removed_raises(lib):
    return lib.lstsq(t(lib, M33), t(lib, M33))


@scenario
def legacy_eig_removed_raises(lib):
    return lib.eig(t(lib, M33))


DIFFERENCES = {}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_linalg_product_scenario_matches_torch(name):
    check(SCENARIOS[name], rtol=1e-6)
