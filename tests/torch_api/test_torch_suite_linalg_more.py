"""PyTorch's linalg suite, its edge cases side by side with torch: complex and float32 inputs
with gradients, broadcast batches, zero-size matrices for every factorization, the LU family's
checks and the errors of the triangular and structured solvers."""
import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

RNG = np.random.default_rng(5)
M = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
Z = M + 1j * RNG.standard_normal((3, 3))
ZB = RNG.standard_normal((2, 3, 3)) + 1j * RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
ZW = RNG.standard_normal((3, 5)) + 1j * RNG.standard_normal((3, 5))
HPD = ZB @ ZB.conj().transpose(0, 2, 1) + np.eye(3)
RHS = RNG.standard_normal((4, 1, 3, 2))
VEC = RNG.standard_normal((2, 3))
SCENARIOS = scenario = Scenarios()


def t(lib, a, dtype=None):
    return lib.tensor(a, dtype=dtype)


def grad_of(lib, fn, a, dtype=None):
    """fn's result on a leaf of a and the leaf's gradient of the result's weighted real sum."""
    x = lib.tensor(a, dtype=dtype, requires_grad=True)
    out = fn(x)
    w = lib.arange(1.0, out.numel() + 1, dtype=out.real.dtype).reshape(out.shape)
    (out.abs() * w if out.is_complex() else out * w).sum().backward()
    return out, x.grad


# --- complex values and gradients ----------------------------------------------------------

@scenario
def complex_inverse_solve_det(lib):
    return (grad_of(lib, lib.linalg.inv, ZB), grad_of(lib, lib.linalg.det, ZB),
            grad_of(lib, lambda a: lib.linalg.slogdet(a)[1], ZB),
            grad_of(lib, lambda a: lib.linalg.slogdet(a)[0], ZB),
            grad_of(lib, lambda a: lib.linalg.solve(a, lib.tensor(Z)), ZB))


@scenario
def complex_hermitian(lib):
    return (grad_of(lib, lambda a: lib.linalg.eigvalsh(a @ a.mH), ZB),
            grad_of(lib, lambda a: lib.linalg.cholesky(a @ a.mH + lib.eye(3)), ZB),
            grad_of(lib, lambda a: lib.linalg.matrix_norm(a, "nuc"), ZB),
            grad_of(lib, lib.linalg.svdvals, ZW),
            lib.linalg.pinv(t(lib, HPD), hermitian=True),
            lib.linalg.matrix_rank(t(lib, HPD), hermitian=True))


@scenario
def complex_qr_svd_identities(lib):
    q, r = lib.linalg.qr(t(lib, ZW))
    u, s, vh = lib.linalg.svd(t(lib, ZW), full_matrices=False)
    return (q @ r, (q.mH @ q).real, r.abs(), u @ lib.diag_embed(s).to(u.dtype) @ vh, s,
            grad_of(lib, lambda a: lib.linalg.qr(a)[1].diagonal().abs(), ZW.T.copy()))


@scenario
def complex_norms_and_products(lib):
    z = t(lib, ZB)
    return (lib.linalg.vector_norm(z, 3), lib.linalg.matrix_norm(z, 1), lib.linalg.norm(z),
            lib.linalg.cond(z), lib.linalg.matrix_power(z, -2), lib.linalg.matrix_exp(z / 4),
            grad_of(lib, lambda a: lib.linalg.vector_norm(a, 3, dim=-1), ZB),
            grad_of(lib, lambda a: lib.linalg.matrix_exp(a / 4), ZB),
            grad_of(lib, lambda a: lib.linalg.vecdot(a, a.flip(-1)), ZB))


@scenario
def complex_lu_family(lib):
    p, lo, u = lib.linalg.lu(t(lib, ZB))
    lu, piv = lib.linalg.lu_factor(t(lib, ZB))
    return (p, lo, u, lu, piv, lib.linalg.lu_solve(lu, piv, t(lib, ZB[0])),
            lib.linalg.lu_solve(lu, piv, t(lib, ZB[0]), adjoint=True),
            lib.linalg.lu_solve(lu, piv, t(lib, ZW.T[:3]), left=False).resolve_conj(),
            lib.linalg.lu_solve(lu, piv, t(lib, ZW.T[:3]), left=False,
                                adjoint=True).resolve_conj(),
            lib.lu_unpack(lu, piv), lib.linalg.lu_factor_ex(t(lib, ZB) * 0).info,
            grad_of(lib, lambda a: lib.linalg.lu(a)[2], ZB),
            grad_of(lib, lambda a: lib.linalg.lu(a)[1], ZW), grad_of(lib, lambda a: lib.linalg.lu(
                a)[2], ZW.T.copy()),
            grad_of(lib, lambda a: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), lib.tensor(Z),
                                                       adjoint=True), ZB))


@scenario
def complex_eig_gradient(lib):
    return grad_of(lib, lambda a: lib.linalg.eigvals(a).abs().sort().values, ZB)


@scenario
def more_gradients(lib):
    b = lib.tensor(RHS[0, 0], requires_grad=True)
    out, ga = grad_of(lib, lambda a: lib.linalg.lstsq(a, b).solution, M)
    return (out, ga, b.grad, grad_of(lib, lambda a: lib.linalg.pinv(a @ a.mH, hermitian=True), ZW),
            grad_of(lib, lambda a: lib.linalg.svd(a, full_matrices=False)[2].abs(), ZW),
            grad_of(lib, lambda a: lib.linalg.eig(a)[1].abs(), M),
            grad_of(lib, lambda a: lib.linalg.eigh(a @ a.mH)[1].abs(), ZB),
            grad_of(lib, lambda a: lib.linalg.matrix_power(a, 3), ZB),
            grad_of(lib, lambda a: lib.linalg.multi_dot([a[0], a[1], a[0]]), ZB),
            grad_of(lib, lambda a: lib.linalg.cross(a, a.roll(1, 0)), ZB),
            grad_of(lib, lambda a: lib.linalg.vander(a[0]), Z),
            grad_of(lib, lambda a: lib.linalg.tensorsolve(a.reshape(3, 3), a[0]), M),
            grad_of(lib, lambda a: lib.linalg.tensorinv(a.reshape(3, 3, 1), ind=2), M),
            grad_of(lib, lambda a: lib.linalg.cond(a, "nuc"), M),
            grad_of(lib, lambda a: lib.linalg.householder_product(a, a[:2, 0]), ZW.T.copy()),
            grad_of(lib, lambda a: lib.linalg.solve_triangular(a, a.mH, upper=False, left=False),
                    ZB), grad_of(lib, lambda a: lib.cholesky_solve(a.mH, a.tril()), HPD),
            grad_of(lib, lambda a: lib.linalg.matrix_norm(a, -2), ZB),
            grad_of(lib, lambda a: lib.linalg.det(a), np.stack([M, np.ones((3, 3))])))


@scenario
def cholesky_inverse_reads_one_triangle(lib):
    real_diagonal = ZB - 1j * np.eye(3) * ZB.imag  # as a complex Cholesky factor's
    return [grad_of(lib, lambda a, u=u: lib.cholesky_inverse(a, upper=u), x)
            for u in (False, True) for x in (real_diagonal, ZB.real.copy())]


@scenario
def out_arguments(lib):
    """Each function's result written into out= tensors (resized from empty ones)."""
    a, b = t(lib, M), t(lib, RHS[0, 0])
    calls = [("det", (a,)), ("inv", (a,)), ("solve", (a, b)), ("cholesky", (a @ a.mT,)),
             ("svdvals", (a,)), ("eigvalsh", (a + a.mT,)), ("matrix_norm", (a,)),
             ("vector_norm", (a,)), ("norm", (a,)), ("cond", (a,)), ("matrix_power", (a, 3)),
             ("pinv", (a,)), ("matrix_rank", (a,)), ("multi_dot", ([a, a],)),
             ("vecdot", (a, a)), ("cross", (a, a.flip(0))), ("tensorinv", (a, 1)),
             ("solve_triangular", (a, b), {"upper": True}), ("eigvals", (a,)),
             ("householder_product", (a, a[0]))]
    outs = []
    for name, args, *kwargs in calls:
        dtype = lib.complex128 if name == "eigvals" else lib.int64 if name == "matrix_rank" \
            else lib.float64
        out = lib.empty(0, dtype=dtype)
        returned = getattr(lib.linalg, name)(*args, out=out, **(kwargs[0] if kwargs else {}))
        outs += [out, returned is out]
    pair = (lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.int32))
    returned = lib.linalg.lu_factor(a, out=pair)
    return outs + [pair, returned[0] is pair[0]]


@scenario
def out_with_grad_raises(lib):
    a = lib.tensor(M, requires_grad=True)
    outs = []
    for name, args, parts in (("inv", (a,), 1), ("det", (a,), 1), ("solve", (a, a), 1),
                              ("svdvals", (a,), 1), ("slogdet", (a,), 2), ("qr", (a,), 2)):
        out = tuple(lib.empty(0, dtype=lib.float64) for _ in range(parts))
        try:
            getattr(lib.linalg, name)(*args, out=out if parts > 1 else out[0])
        except RuntimeError as error:
            outs.append(str(error))
    return outs


# --- float32 -------------------------------------------------------------------------------

@scenario
def float32_gradients(lib):
    f = lib.float32
    return (grad_of(lib, lib.linalg.inv, M, f), grad_of(lib, lib.linalg.det, M, f),
            grad_of(lib, lib.linalg.svdvals, M, f), grad_of(lib, lambda a: lib.linalg.eigvalsh(
                a + a.mT), M, f), grad_of(lib, lambda a: lib.linalg.solve(a, a[0]), M, f))


def _refusals(lib, dtype):
    """What each function raises for a matrix of dtype: torch refuses integers and half
    precision with words that differ by function."""
    a = lib.eye(3).to(dtype)
    calls = {"det": (a,), "slogdet": (a,), "inv": (a,), "inv_ex": (a,), "solve": (a, a),
             "solve_ex": (a, a), "cholesky": (a,), "cholesky_ex": (a,), "eigh": (a,),
             "eigvalsh": (a,), "eig": (a,), "eigvals": (a,), "svd": (a,), "svdvals": (a,),
             "qr": (a,), "pinv": (a,), "matrix_rank": (a,), "lstsq": (a, a), "cond": (a,),
             "matrix_power": (a, -1)}
    outs = []
    for name, args in calls.items():
        for fn in (getattr(lib.linalg, name),) + ((lambda x: lib.linalg.cond(x, 1),)
                                                   if name == "cond" else ()):
            try:
                fn(*args)
                outs.append((name, "ok"))
            except (RuntimeError, NotImplementedError) as error:
                outs.append((name, type(error).__name__, str(error)))
    for fn in (lib.logdet, lib.inverse, lib.cholesky,
               lambda x: lib.linalg.solve_triangular(x, x, upper=True)):
        try:
            fn(a)
        except (RuntimeError, NotImplementedError) as error:
            outs.append((type(error).__name__, str(error)))
    return outs


@scenario
def half_precision_refusals(lib):
    return _refusals(lib, lib.float16), _refusals(lib, lib.bfloat16)


@scenario
def integer_refusals(lib):
    return _refusals(lib, lib.int32)


@scenario
def mixed_float_dtypes_raise(lib):
    return lib.linalg.solve_triangular(t(lib, M), t(lib, M, lib.float32), upper=True)


# --- broadcasting --------------------------------------------------------------------------

@scenario
def broadcast_batches(lib):
    a = t(lib, np.stack([M, M.T]))
    b = t(lib, RHS)
    return (lib.linalg.solve(a, b), lib.linalg.solve_triangular(a.triu(), b, upper=True),
            lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b),
            lib.cholesky_solve(b, lib.linalg.cholesky(a @ a.mT)), lib.linalg.solve(a, t(lib, VEC)),
            lib.linalg.cross(t(lib, VEC), t(lib, VEC[:1] * 2)), lib.linalg.vecdot(
                t(lib, VEC), t(lib, VEC[0])))


@scenario
def solve_batch_mismatch_raises(lib):
    return lib.linalg.solve(t(lib, np.stack([M, M])), t(lib, RNG_FIXED_3))


RNG_FIXED_3 = RNG.standard_normal((3, 3, 2))


# --- zero-size -----------------------------------------------------------------------------

@scenario
def zero_size_factorizations(lib):
    e = lib.zeros(2, 0, 0, dtype=lib.float64)
    w = lib.zeros(2, 0, 3, dtype=lib.float64)
    return (lib.linalg.cholesky(e), lib.linalg.eigh(e), lib.linalg.eigvals(e),
            lib.linalg.qr(w), lib.linalg.qr(w.mT, mode="complete"), lib.linalg.svd(w),
            lib.linalg.svd(w, full_matrices=False), lib.linalg.lu(w), lib.linalg.lu_factor(e),
            lib.linalg.slogdet(e), lib.linalg.matrix_exp(e), lib.linalg.matrix_power(e, 3),
            lib.linalg.pinv(w), lib.linalg.matrix_rank(w), lib.linalg.cond(e),
            lib.linalg.matrix_norm(w, 1), lib.linalg.lstsq(w.mT, lib.zeros(2, 3, 1,
                                                                         dtype=lib.float64)))


@scenario
def empty_batch(lib):
    e = lib.zeros(0, 3, 3, dtype=lib.float64)
    return (lib.linalg.inv(e), lib.linalg.det(e), lib.linalg.eigvalsh(e), lib.linalg.svdvals(e),
            lib.linalg.cholesky_ex(e).info, lib.linalg.inv_ex(e).info, lib.linalg.norm(e),
            lib.linalg.matrix_rank(e), lib.linalg.solve(e, lib.zeros(0, 3, dtype=lib.float64)))


# --- the LU family -------------------------------------------------------------------------

@scenario
def lu_without_pivoting_raises(lib):
    return lib.linalg.lu_factor(t(lib, M), pivot=False)


@scenario
def lu_factor_ex_singular_info(lib):
    lu, piv, info = lib.linalg.lu_factor_ex(t(lib, np.stack([M, np.zeros((3, 3))])))
    return lu, piv, info


@scenario
def lu_solve_shape_raises(lib):
    lu, piv = lib.linalg.lu_factor(t(lib, M))
    return lib.linalg.lu_solve(lu, piv, t(lib, VEC))


@scenario
def lu_solve_dtype_raises(lib):
    lu, piv = lib.linalg.lu_factor(t(lib, M))
    return lib.linalg.lu_solve(lu, piv, t(lib, M, lib.float32))


@scenario
def lu_unpack_variants(lib):
    lu, piv = lib.linalg.lu_factor(t(lib, np.stack([M, M.T])))
    return (lib.lu_unpack(lu, piv), lib.lu_unpack(lu, piv, unpack_pivots=False)[1:],
            lib.lu_unpack(lu, piv, unpack_data=False)[0])


@scenario
def lu_unpack_pivot_dtype_raises(lib):
    lu, piv = lib.linalg.lu_factor(t(lib, M))
    return lib.lu_unpack(lu, piv.long())


# --- triangular, Cholesky and structured solvers' errors -----------------------------------

@scenario
def solve_triangular_shape_raises(lib):
    return lib.linalg.solve_triangular(t(lib, M), t(lib, VEC), upper=True)


@scenario
def solve_triangular_vector_raises(lib):
    return lib.linalg.solve_triangular(t(lib, M), t(lib, M[0]), upper=True)


@scenario
def triangular_solve_nonsquare_raises(lib):
    return lib.triangular_solve(t(lib, M), t(lib, VEC))


@scenario
def triangular_solve_shape_raises(lib):
    return lib.triangular_solve(t(lib, VEC.T), t(lib, M[:2, :2]))


@scenario
def cholesky_nonsquare_raises(lib):
    return lib.linalg.cholesky(t(lib, VEC))


@scenario
def cholesky_integer_raises(lib):
    return lib.linalg.cholesky(lib.eye(3, dtype=lib.int64))


@scenario
def cholesky_inverse_nonsquare_raises(lib):
    return lib.cholesky_inverse(t(lib, VEC))


@scenario
def eigh_nonsquare_raises(lib):
    return lib.linalg.eigh(t(lib, VEC))


@scenario
def eig_integer_raises(lib):
    return lib.linalg.eig(lib.eye(3, dtype=lib.int64))


@scenario
def svd_one_dim_raises(lib):
    return lib.linalg.svd(t(lib, M[0]))


@scenario
def qr_integer_raises(lib):
    return lib.linalg.qr(lib.eye(3, dtype=lib.int64))


@scenario
def matrix_exp_nonsquare_raises(lib):
    return lib.linalg.matrix_exp(t(lib, VEC))


@scenario
def householder_errors(lib):
    a = t(lib, M)
    outs = []
    for tau in (t(lib, [1.0, 2.0, 3.0, 4.0]), t(lib, [1.0], lib.float32)):
        try:
            lib.linalg.householder_product(a, tau)
        except RuntimeError as error:
            outs.append(str(error))
    return outs


@scenario
def vander_errors_and_dtypes(lib):
    outs = [lib.linalg.vander(lib.arange(3)), lib.linalg.vander(t(lib, Z[0]), N=2)]
    for fn in (lambda: lib.linalg.vander(lib.tensor([True])),
               lambda: lib.linalg.vander(lib.arange(3.0), N=1)):
        try:
            fn()
        except RuntimeError as error:
            outs.append(str(error))
    return outs


@scenario
def cross_errors(lib):
    outs = []
    for fn in (lambda: lib.linalg.cross(t(lib, VEC), t(lib, VEC[:, :2])),
               lambda: lib.linalg.cross(t(lib, VEC), t(lib, VEC, lib.float32)),
               lambda: lib.linalg.cross(t(lib, VEC), t(lib, VEC), dim=0)):
        try:
            fn()
        except RuntimeError as error:
            outs.append(str(error))
    return outs


@scenario
def ldl_errors(lib):
    outs = []
    ld, piv = lib.linalg.ldl_factor(t(lib, M + M.T))
    for fn in (lambda: lib.linalg.ldl_factor(t(lib, VEC)),
               lambda: lib.linalg.ldl_solve(ld, piv.long(), t(lib, M)),
               lambda: lib.linalg.ldl_solve(ld, piv, t(lib, VEC))):
        try:
            fn()
        except RuntimeError as error:
            outs.append(str(error))
    return outs


@scenario
def multi_dot_errors(lib):
    outs = []
    for fn in (lambda: lib.linalg.multi_dot([]),
               lambda: lib.linalg.multi_dot([t(lib, M), t(lib, VEC)]),
               lambda: lib.linalg.multi_dot([t(lib, M), t(lib, M, lib.float32)])):
        try:
            fn()
        except RuntimeError as error:
            outs.append(str(error))
    return outs


@scenario
def tensorsolve_errors(lib):
    outs = []
    for fn in (lambda: lib.linalg.tensorsolve(t(lib, M), t(lib, VEC)),
               lambda: lib.linalg.tensorinv(t(lib, M), ind=0)):
        try:
            fn()
        except RuntimeError as error:
            outs.append(str(error))
    return outs


DIFFERENCES = {}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_linalg_edge_scenario_matches_torch(name):
    check(SCENARIOS[name], rtol=1e-6)
