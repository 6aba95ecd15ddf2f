"""PyTorch's linalg suite side by side with torch: torch.linalg's norms, determinants, inverses,
solvers, factorizations and spectra on batched, zero-size, complex and non-contiguous inputs,
their gradients, and the errors for singular, non-square and mismatched inputs."""
import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

INF = float("inf")
RNG = np.random.default_rng(7)
M = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
BATCH = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
WIDE = RNG.standard_normal((2, 3, 5))
RHS = RNG.standard_normal((2, 3, 2))
Z = M + 1j * RNG.standard_normal((3, 3))
SPD = BATCH @ BATCH.transpose(0, 2, 1) + np.eye(3)
HPD = Z @ Z.conj().T + np.eye(3)
TALL_RHS = RNG.standard_normal((2, 5, 2))
TAU = RNG.standard_normal((2, 2))
TENSOR_A = RNG.standard_normal((6, 2, 3)) + np.eye(6).reshape(6, 2, 3)
TENSOR_B = RNG.standard_normal(6)
TENSOR_C = RNG.standard_normal((2, 3, 6))
SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
SCENARIOS = scenario = Scenarios()


def grad_of(lib, fn, a, dtype=None):
    """fn's result on a leaf of a and the leaf's gradient of the result's weighted real sum."""
    x = lib.tensor(a, dtype=dtype, requires_grad=True)
    out = fn(x)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    total = 0
    for o in outs:
        w = lib.arange(1.0, o.numel() + 1, dtype=o.real.dtype).reshape(o.shape)
        total = total + (o.abs() * w if o.is_complex() else o * w).sum()
    total.backward()
    return out, x.grad


def t(lib, a, dtype=None):
    return lib.tensor(a, dtype=dtype)


# --- norms ---------------------------------------------------------------------------------

@scenario
def vector_norm_every_ord(lib):
    x = t(lib, WIDE)
    return [lib.linalg.vector_norm(x, ord) for ord in (0, 1, 2, 3.5, INF, -INF, -1, -2)] + [
        lib.linalg.vector_norm(x, 2, dim=(0, 2), keepdim=True),
        lib.linalg.vector_norm(x.float(), 1, dim=-1, dtype=lib.float64)]


@scenario
def vector_norm_gradients(lib):
    return [grad_of(lib, lambda x, o=o: lib.linalg.vector_norm(x, o, dim=-1), WIDE)
            for o in (1, 2, 3, INF, -INF)]


@scenario
def vector_norm_complex_and_empty(lib):
    return (lib.linalg.vector_norm(t(lib, Z)), lib.linalg.vector_norm(t(lib, Z), 1, dim=0),
            lib.linalg.vector_norm(lib.zeros(0, 3)), lib.linalg.vector_norm(lib.zeros(0, 3), dim=1),
            lib.linalg.vector_norm(lib.zeros(0, 3), 1, dim=0))


@scenario
def vector_norm_empty_inf_raises(lib):
    return lib.linalg.vector_norm(lib.zeros(0, 3), INF)


@scenario
def vector_norm_empty_dim_raises(lib):
    return lib.linalg.vector_norm(lib.zeros(2, 0), -1, dim=(0, -1))


@scenario
def vector_norm_narrowing_dtype_raises(lib):
    return lib.linalg.vector_norm(t(lib, M), dtype=lib.float32)


@scenario
def vector_norm_complex_to_real_dtype_raises(lib):
    return lib.linalg.vector_norm(t(lib, Z), dtype=lib.float64)


@scenario
def matrix_norm_real_to_complex_dtype_raises(lib):
    return lib.linalg.matrix_norm(t(lib, M), dtype=lib.complex128)


@scenario
def vector_norm_integer_raises(lib):
    return lib.linalg.vector_norm(lib.arange(4))


@scenario
def matrix_norm_every_ord(lib):
    x = t(lib, BATCH)
    return [lib.linalg.matrix_norm(x, ord) for ord in ("fro", "nuc", 1, -1, 2, -2, INF, -INF)] + [
        lib.linalg.matrix_norm(x, dim=(0, 2), keepdim=True),
        lib.linalg.matrix_norm(t(lib, WIDE), "nuc"), lib.linalg.matrix_norm(t(lib, Z), 2)]


@scenario
def matrix_norm_gradients(lib):
    return [grad_of(lib, lambda x, o=o: lib.linalg.matrix_norm(x, o), BATCH)
            for o in ("fro", "nuc", 1, -1, 2, -2, INF, -INF)]


@scenario
def matrix_norm_bad_ord_raises(lib):
    return lib.linalg.matrix_norm(t(lib, M), 3)


@scenario
def matrix_norm_one_dim_raises(lib):
    return lib.linalg.matrix_norm(t(lib, M[0]))


@scenario
def linalg_norm_dispatch(lib):
    x = t(lib, BATCH)
    return (lib.linalg.norm(x), lib.linalg.norm(x, dim=1), lib.linalg.norm(x, 2, dim=(1, 2)),
            lib.linalg.norm(x[0], "nuc"), lib.linalg.norm(x[0], INF), lib.linalg.norm(x[0, 0], 3),
            lib.linalg.norm(x, dim=(0, 1), keepdim=True), lib.linalg.norm(x[0], -INF, dtype=None))


@scenario
def linalg_norm_ord_needs_dim_raises(lib):
    return lib.linalg.norm(t(lib, BATCH), 2)


@scenario
def cond_every_p(lib):
    x = t(lib, BATCH)
    return [lib.linalg.cond(x, p) for p in (None, "fro", "nuc", 1, -1, 2, -2, INF, -INF)] + [
        lib.linalg.cond(t(lib, WIDE)), lib.linalg.cond(t(lib, Z), 1)]


@scenario
def cond_singular_is_inf(lib):
    return lib.linalg.cond(t(lib, SINGULAR), 1), lib.linalg.cond(t(lib, SINGULAR))


@scenario
def cond_nonsquare_p_raises(lib):
    return lib.linalg.cond(t(lib, WIDE), 1)


@scenario
def cond_gradient(lib):
    return grad_of(lib, lambda x: lib.linalg.cond(x), BATCH), grad_of(
        lib, lambda x: lib.linalg.cond(x, -2), BATCH)


# --- determinants and inverses -------------------------------------------------------------

@scenario
def det_slogdet_values(lib):
    x = t(lib, BATCH)
    return (lib.linalg.det(x), lib.linalg.slogdet(x), lib.det(t(lib, Z)), lib.linalg.slogdet(
        t(lib, Z)), lib.logdet(t(lib, SPD)), lib.linalg.det(lib.zeros(2, 0, 0)),
        lib.linalg.slogdet(t(lib, -M)), lib.logdet(t(lib, -np.eye(3))), lib.det(t(lib, SINGULAR)))


@scenario
def det_gradients(lib):
    return (grad_of(lib, lib.linalg.det, BATCH), grad_of(lib, lambda x: lib.linalg.slogdet(x)[1],
            BATCH), grad_of(lib, lib.logdet, SPD), grad_of(lib, lib.linalg.det, Z))


@scenario
def det_nonsquare_raises(lib):
    return lib.linalg.det(t(lib, WIDE))


@scenario
def det_integer_raises(lib):
    return lib.linalg.det(lib.ones(3, 3, dtype=lib.int64))


@scenario
def inv_values_and_grad(lib):
    return (lib.linalg.inv(t(lib, BATCH)), lib.inverse(t(lib, Z)), lib.linalg.inv(
        lib.zeros(0, 2, 2)), lib.linalg.inv(t(lib, BATCH).transpose(-2, -1)),
        grad_of(lib, lib.linalg.inv, BATCH))


@scenario
def inv_singular_raises(lib):
    return lib.linalg.inv(t(lib, SINGULAR))


@scenario
def inv_batch_singular_raises(lib):
    return lib.linalg.inv(t(lib, np.stack([M, SINGULAR])))


@scenario
def inv_nonsquare_raises(lib):
    return lib.linalg.inv(t(lib, WIDE))


@scenario
def inv_ex_info(lib):
    return lib.linalg.inv_ex(t(lib, np.stack([M, SINGULAR]))).info, lib.linalg.inv_ex(
        t(lib, M)).inverse


@scenario
def inv_ex_check_errors_raises(lib):
    return lib.linalg.inv_ex(t(lib, SINGULAR), check_errors=True)


@scenario
def pinv_variants(lib):
    x = t(lib, WIDE)
    return (lib.linalg.pinv(x), lib.linalg.pinv(t(lib, SPD), hermitian=True),
            lib.linalg.pinv(t(lib, SINGULAR), rtol=1e-3), lib.linalg.pinv(t(lib, M), atol=3.0),
            lib.linalg.pinv(t(lib, M), atol=lib.tensor(1.0), rtol=lib.tensor(0.1)),
            lib.pinverse(t(lib, SINGULAR)), lib.linalg.pinv(t(lib, Z)),
            lib.linalg.pinv(lib.zeros(2, 0, 3)))


@scenario
def pinv_gradients(lib):
    return grad_of(lib, lib.linalg.pinv, WIDE), grad_of(
        lib, lambda x: lib.linalg.pinv(x @ x.mT, hermitian=True), WIDE)


@scenario
def pinv_integer_raises(lib):
    return lib.linalg.pinv(lib.ones(2, 2, dtype=lib.int32))


# --- solvers -------------------------------------------------------------------------------

@scenario
def solve_variants(lib):
    a, b = t(lib, BATCH), t(lib, RHS)
    return (lib.linalg.solve(a, b), lib.linalg.solve(a, b[..., 0]), lib.linalg.solve(a[0], b),
            lib.linalg.solve(a, b.mT, left=False), lib.linalg.solve(t(lib, Z), t(lib, Z)),
            lib.linalg.solve(lib.zeros(0, 3, 3), lib.zeros(0, 3, 1)))


@scenario
def solve_gradients(lib):
    b = lib.tensor(RHS, requires_grad=True)
    out, ga = grad_of(lib, lambda a: lib.linalg.solve(a, b), BATCH)
    return out, ga, b.grad


@scenario
def solve_singular_raises(lib):
    return lib.linalg.solve(t(lib, SINGULAR), t(lib, M))


@scenario
def solve_dtype_mismatch_raises(lib):
    return lib.linalg.solve(t(lib, M), t(lib, M, lib.float32))


@scenario
def solve_shape_mismatch_raises(lib):
    return lib.linalg.solve(t(lib, M), t(lib, WIDE[0].T))


@scenario
def solve_left_false_shape_raises(lib):
    return lib.linalg.solve(t(lib, M), t(lib, WIDE[0].T), left=False)


@scenario
def solve_ex_info(lib):
    r = lib.linalg.solve_ex(t(lib, np.stack([M, SINGULAR])), t(lib, RHS))
    return r.info, r.result[0]


@scenario
def solve_triangular_variants(lib):
    u, lo = t(lib, np.triu(BATCH)), t(lib, np.tril(BATCH))
    b = t(lib, RHS)
    return (lib.linalg.solve_triangular(u, b, upper=True),
            lib.linalg.solve_triangular(lo, b, upper=False, unitriangular=True),
            lib.linalg.solve_triangular(u, b.mT, upper=True, left=False),
            lib.linalg.solve_triangular(u[0], b, upper=True),
            lib.triangular_solve(b, u), lib.triangular_solve(b, lo, upper=False, transpose=True),
            lib.triangular_solve(b, u, unitriangular=True))


@scenario
def solve_triangular_gradient(lib):
    b = lib.tensor(RHS, requires_grad=True)
    out, ga = grad_of(lib, lambda a: lib.linalg.solve_triangular(a.triu(), b, upper=True), BATCH)
    return out, ga, b.grad


@scenario
def solve_triangular_upper_required_raises(lib):
    return lib.linalg.solve_triangular(t(lib, M), t(lib, M))


@scenario
def lstsq_drivers(lib):
    a, b = t(lib, np.swapaxes(WIDE, -1, -2)), t(lib, TALL_RHS)
    outs = [lib.linalg.lstsq(a, b, driver=d) for d in (None, "gels", "gelsy", "gelsd", "gelss")]
    return [(r.solution, r.residuals, r.rank, r.singular_values) for r in outs] + [
        lib.linalg.lstsq(a, b[..., 0:1], rcond=0.5, driver="gelsd").rank]


@scenario
def lstsq_gradient(lib):
    return grad_of(lib, lambda a: lib.linalg.lstsq(a, lib.tensor(RHS)).solution, BATCH)


@scenario
def lstsq_bad_driver_raises(lib):
    return lib.linalg.lstsq(t(lib, M), t(lib, M), driver="bogus")


@scenario
def lstsq_dtype_mismatch_raises(lib):
    return lib.linalg.lstsq(t(lib, M), t(lib, M, lib.float32))


@scenario
def lstsq_rows_mismatch_raises(lib):
    return lib.linalg.lstsq(t(lib, M), t(lib, WIDE[0].T))


# --- factorizations ------------------------------------------------------------------------

@scenario
def cholesky_variants(lib):
    return (lib.linalg.cholesky(t(lib, SPD)), lib.linalg.cholesky(t(lib, SPD), upper=True),
            lib.linalg.cholesky(t(lib, HPD)), lib.cholesky(t(lib, SPD[0]), upper=True),
            lib.linalg.cholesky_ex(t(lib, np.stack([SPD[0], -SPD[1]]))).info,
            lib.cholesky_inverse(lib.linalg.cholesky(t(lib, SPD))),
            lib.cholesky_inverse(lib.linalg.cholesky(t(lib, SPD), upper=True), upper=True),
            lib.cholesky_solve(t(lib, RHS), lib.linalg.cholesky(t(lib, SPD))))


@scenario
def cholesky_gradients(lib):
    return (grad_of(lib, lambda x: lib.linalg.cholesky(x @ x.mT), BATCH),
            grad_of(lib, lambda x: lib.cholesky_inverse(x.tril() + 3 * lib.eye(3)), BATCH))


@scenario
def cholesky_not_positive_raises(lib):
    return lib.linalg.cholesky(t(lib, -SPD))


@scenario
def cholesky_ex_check_errors_raises(lib):
    return lib.linalg.cholesky_ex(t(lib, -SPD[0]), check_errors=True)


def qr_identities(lib, a, mode):
    q, r = lib.linalg.qr(a, mode=mode)
    return q.abs(), r.abs(), (q @ r) if mode != "r" else r.shape


@scenario
def qr_modes(lib):
    outs = [qr_identities(lib, t(lib, a), m) for a in (WIDE, WIDE.swapaxes(1, 2), Z)
            for m in ("reduced", "complete")]
    r_only = lib.linalg.qr(t(lib, WIDE), mode="r")
    return outs + [r_only[1].abs(), r_only[0].shape, lib.qr(t(lib, M), some=False)[1].abs()]


@scenario
def qr_gradient(lib):
    return grad_of(lib, lambda x: lib.linalg.qr(x)[1].diagonal(dim1=-2, dim2=-1).abs(),
                   WIDE.swapaxes(1, 2))


@scenario
def qr_bad_mode_raises(lib):
    return lib.linalg.qr(t(lib, M), mode="full")


@scenario
def qr_r_mode_backward_raises(lib):
    return grad_of(lib, lambda x: lib.linalg.qr(x, mode="r")[1], M)


@scenario
def eigh_variants(lib):
    w, v = lib.linalg.eigh(t(lib, SPD))
    wu, vu = lib.linalg.eigh(t(lib, SPD), UPLO="U")
    wz, vz = lib.linalg.eigh(t(lib, HPD))
    return (w, v.abs(), wu, vu.abs(), wz, (vz @ lib.diag_embed(wz).to(vz.dtype) @ vz.mH),
            lib.linalg.eigvalsh(t(lib, np.triu(SPD)), UPLO="U"),
            lib.linalg.eigvalsh(t(lib, np.tril(SPD))), lib.linalg.eigvalsh(lib.zeros(0, 0)))


@scenario
def eigh_gradients(lib):
    return (grad_of(lib, lambda x: lib.linalg.eigvalsh(x + x.mT), BATCH),
            grad_of(lib, lambda x: lib.linalg.eigh(x + x.mT)[1].abs(), BATCH))


@scenario
def eigh_bad_uplo_raises(lib):
    return lib.linalg.eigh(t(lib, SPD), UPLO="X")


@scenario
def eig_values(lib):
    w, v = lib.linalg.eig(t(lib, BATCH))
    return (lib.linalg.eigvals(t(lib, BATCH)).abs().sort().values, w.dtype, v.dtype,
            (t(lib, BATCH).to(v.dtype) @ v - v * w[..., None, :]).abs().amax() < 1e-10,
            lib.linalg.eigvals(t(lib, Z)).abs().sort().values)


@scenario
def eig_gradient(lib):
    return grad_of(lib, lambda x: lib.linalg.eigvals(x).abs().sort().values, SPD)


@scenario
def svd_variants(lib):
    x = t(lib, WIDE)
    u, s, vh = lib.linalg.svd(x, full_matrices=False)
    uf, sf, vhf = lib.linalg.svd(x)
    uo, so, vo = lib.svd(x, some=True)
    return (s, u.abs(), vh.abs(), uf.shape, vhf.shape, sf, u @ lib.diag_embed(s) @ vh,
            uo.abs(), vo.shape, lib.linalg.svdvals(t(lib, Z)),
            lib.linalg.svdvals(lib.zeros(2, 0, 3)), lib.svd(x, compute_uv=False)[1])


@scenario
def svd_gradients(lib):
    return (grad_of(lib, lib.linalg.svdvals, WIDE),
            grad_of(lib, lambda x: lib.linalg.svd(x, full_matrices=False)[0].abs(), WIDE))


@scenario
def svd_full_matrices_gradient(lib):
    return grad_of(lib, lambda x: lib.linalg.svd(x)[0].abs(), WIDE)


@scenario
def matrix_rank_variants(lib):
    x = t(lib, np.stack([SINGULAR, M]))
    return (lib.linalg.matrix_rank(x), lib.linalg.matrix_rank(x, hermitian=True),
            lib.linalg.matrix_rank(x, atol=3.0), lib.linalg.matrix_rank(x, rtol=0.5),
            lib.linalg.matrix_rank(x, atol=lib.tensor([0.1, 10.0]), rtol=lib.tensor(0.0)),
            lib.linalg.matrix_rank(t(lib, WIDE)), lib.linalg.matrix_rank(lib.zeros(0, 3)))


@scenario
def matrix_power_exp(lib):
    x = t(lib, BATCH)
    return ([lib.linalg.matrix_power(x, n) for n in (0, 1, 3, -2)] + [
        lib.matrix_exp(x / 4), lib.linalg.matrix_exp(t(lib, Z) / 4), lib.linalg.matrix_exp(
            lib.zeros(0, 2, 2)), grad_of(lib, lambda a: lib.linalg.matrix_power(a, -2), BATCH),
        grad_of(lib, lambda a: lib.linalg.matrix_exp(a / 4), BATCH)])


@scenario
def matrix_power_nonsquare_raises(lib):
    return lib.linalg.matrix_power(t(lib, WIDE), 2)


@scenario
def matrix_power_singular_negative_raises(lib):
    return lib.linalg.matrix_power(t(lib, SINGULAR), -1)


@scenario
def lu_family(lib):
    a = t(lib, BATCH)
    p, lo, u = lib.linalg.lu(a)
    lu, piv = lib.linalg.lu_factor(a)
    pw, lw, uw = lib.linalg.lu(t(lib, WIDE))
    return (p, lo, u, lu, piv, lib.linalg.lu_solve(lu, piv, t(lib, RHS)),
            lib.linalg.lu_solve(lu, piv, t(lib, RHS), adjoint=True),
            lib.linalg.lu_solve(lu, piv, t(lib, RHS).mT, left=False), lib.lu_unpack(lu, piv),
            pw, lw, uw, lib.linalg.lu_factor_ex(t(lib, np.stack([M, SINGULAR]))).info,
            lib.lu_solve(t(lib, RHS), lu, piv))


@scenario
def lu_gradients(lib):
    return (grad_of(lib, lib.linalg.lu, BATCH), grad_of(lib, lambda x: lib.linalg.lu(x)[1:], WIDE),
            grad_of(lib, lambda x: lib.linalg.lu_solve(*lib.linalg.lu_factor(x), lib.tensor(RHS)),
                    BATCH))


@scenario
def lu_factor_singular_raises(lib):
    return lib.linalg.lu_factor(t(lib, np.zeros((3, 3))))


@scenario
def ldl_family(lib):
    a = t(lib, SPD)
    ld, piv = lib.linalg.ldl_factor(a)
    return ld, piv, lib.linalg.ldl_solve(ld, piv, t(lib, RHS)), lib.linalg.ldl_factor_ex(a).info


@scenario
def ldl_hermitian(lib):
    ld, piv = lib.linalg.ldl_factor(t(lib, HPD), hermitian=True)
    indefinite = t(lib, Z + Z.conj().T - 2 * np.diag(np.diag(Z.real)))  # 2x2 pivot blocks
    ls, ps = lib.linalg.ldl_factor(indefinite)
    lh, ph = lib.linalg.ldl_factor(indefinite, hermitian=True)
    return (ld, piv, lib.linalg.ldl_solve(ld, piv, t(lib, HPD), hermitian=True), ls, ps, lh, ph,
            lib.linalg.ldl_solve(lh, ph, t(lib, Z), hermitian=True),
            lib.linalg.ldl_solve(ls, ps, t(lib, Z)))


@scenario
def householder(lib):
    a = t(lib, WIDE.swapaxes(1, 2))
    tau = t(lib, TAU)
    return (lib.linalg.householder_product(a, tau), lib.orgqr(a, tau),
            grad_of(lib, lambda x: lib.linalg.householder_product(x, tau), WIDE.swapaxes(1, 2)))


@scenario
def householder_tau_too_long_raises(lib):
    tau = lib.ones(2, 4, dtype=lib.float64)
    return lib.linalg.householder_product(t(lib, WIDE.swapaxes(1, 2)), tau)


# --- products and helpers ------------------------------------------------------------------

@scenario
def multi_dot_shapes(lib):
    a, b, c = t(lib, WIDE[0]), t(lib, WIDE[1].T), t(lib, M)
    return (lib.linalg.multi_dot([a, b, c]), lib.linalg.multi_dot([a[0], b, c]),
            lib.linalg.multi_dot([a, b, c[:, 0]]), lib.linalg.multi_dot([a[0], b[:, 0]]),
            lib.linalg.multi_dot([lib.zeros(0, 3, dtype=lib.float64), c]),
            lib.chain_matmul(a, b, c))


@scenario
def multi_dot_one_tensor_raises(lib):
    return lib.linalg.multi_dot([t(lib, M)])


@scenario
def multi_dot_3d_raises(lib):
    return lib.linalg.multi_dot([t(lib, BATCH), t(lib, M)])


@scenario
def tensorinv_tensorsolve(lib):
    a = t(lib, TENSOR_A)
    b = t(lib, TENSOR_B)
    return (lib.linalg.tensorinv(a, ind=1), lib.linalg.tensorsolve(a, b),
            lib.linalg.tensorsolve(t(lib, TENSOR_C), b, dims=(0, 1)))


@scenario
def tensorinv_bad_shape_raises(lib):
    return lib.linalg.tensorinv(t(lib, WIDE), ind=1)


@scenario
def vecdot_cross_diagonal_vander(lib):
    x, y = t(lib, WIDE), t(lib, WIDE[::-1].copy())
    return (lib.linalg.vecdot(x, y), lib.linalg.vecdot(x, y, dim=1), lib.linalg.vecdot(
        t(lib, Z), t(lib, Z)), lib.linalg.cross(x[..., :3], y[..., :3]),
        lib.linalg.cross(x[:, :3], y[:, :3], dim=1), lib.linalg.diagonal(t(lib, BATCH), offset=1),
        lib.linalg.vander(t(lib, M[0])), lib.linalg.vander(t(lib, M[0]), N=5))


@scenario
def cross_bad_dim_raises(lib):
    return lib.linalg.cross(t(lib, WIDE), t(lib, WIDE))


@scenario
def vecdot_dtype_mismatch_raises(lib):
    return lib.linalg.vecdot(t(lib, M), t(lib, M, lib.float32))


@scenario
def noncontiguous_inputs(lib):
    a = t(lib, BATCH).transpose(0, 2)[..., ::1]
    return (lib.linalg.det(a), lib.linalg.inv(a), lib.linalg.solve(a, t(lib, RHS)[..., ::2]),
            lib.linalg.svdvals(a), lib.linalg.matrix_norm(a, "nuc"), lib.linalg.eigvalsh(a + a.mT))


@scenario
def float32_results(lib):
    a = t(lib, BATCH, lib.float32)
    return (lib.linalg.det(a), lib.linalg.inv(a), lib.linalg.svdvals(a), lib.linalg.eigvalsh(
        a + a.mT), lib.linalg.norm(a), lib.linalg.cond(a), lib.linalg.matrix_rank(a))


DIFFERENCES = {
    "solve_triangular_upper_required_raises": "a missing keyword: Python's TypeError words, not "
                                              "torch's argument parser's",
}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_linalg_scenario_matches_torch(name):
    check(SCENARIOS[name], rtol=1e-6)
