"""PyTorch's older linear-algebra names, which code and tutorials still call: torch.svd,
torch.qr, torch.cholesky, torch.cholesky_solve, torch.cholesky_inverse and
torch.triangular_solve (and their Tensor methods), over torch.linalg's functions."""
from __future__ import annotations

import gradjit
from gradjit.tensor import linalg as L
from gradjit.tensor.arith import operand
from gradjit.tensor.lapack_layout import by_columns
from gradjit.tensor.linalg_householder import geqrf, orgqr, ormqr

svd_result = L._result("svd", ("U", "S", "V"))
qr_result = L._result("qr", ("Q", "R"))
triangular_solve_result = L._result("triangular_solve", ("solution", "cloned_coefficient"))


def svd(input, some=True, compute_uv=True):
    """(U, S, V), V not transposed; some=False gives square U and V. Without compute_uv, U
    and V are zeros of their full shapes, as PyTorch returns them."""
    input = operand(input)
    if not compute_uv:
        m, n = input.shape[-2:]
        batch = tuple(input.shape[:-2])
        return svd_result(input.new_zeros(batch + (m, m)), L.svdvals(input),
                          input.new_zeros(batch + (n, n)))
    u, s, vh = L.svd(input, full_matrices=not some)
    return svd_result(u, s, vh.mH)


def qr(input, some=True):
    return qr_result(*L.qr(operand(input), "reduced" if some else "complete"))


def cholesky(input, upper=False):
    return L.named_cholesky("cholesky", operand(input), upper)


def _solve_factored(lower, B):
    return L.solve_triangular(lower.mH, L.solve_triangular(lower, B, upper=False), upper=True)


def cholesky_solve(B, L_factor, upper=False):
    """X with A X = B, A = L L^H (or U^H U with upper) given by its factor's triangle. As in
    PyTorch, the gradient treats every entry of the factor as free: it is that of
    A0^-1 (B - L L^H X) at the solution X and A0 = the triangle's product, held fixed."""
    def solve(B, L_factor):
        lower = L_factor.mH if upper else L_factor
        fixed = lower.detach()
        X = _solve_factored(fixed, B.detach())
        linear = _solve_factored(fixed, B - lower @ (lower.mH @ X))
        return X + (linear - linear.detach())  # X's value, exactly: linear - its copy is 0
    return by_columns(gradjit.autograd.composite("CholeskySolveBackward0", solve, operand(B),
                                                 operand(L_factor)))


def cholesky_inverse(L_factor, upper=False):
    """The inverse R of A = L L^H (or U^H U with upper) from its factor's triangle. As in
    PyTorch, the gradient treats every entry of the factor as free: it is that of
    -R (L F^H + F L^H) R at the factor F, R held fixed."""
    def inverse(factor):
        lower = factor.mH if upper else factor
        fixed = lower.detach()
        R = L.inv(fixed.tril() @ fixed.tril().mH)
        linear = -R @ (lower @ fixed.mH + fixed @ lower.mH) @ R
        return R + (linear - linear.detach())  # R's value, exactly: linear - its copy is 0
    return by_columns(gradjit.autograd.composite("CholeskyInverseBackward0", inverse,
                                                 L._matrices("cholesky_inverse", L_factor)))


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """(X, A's copy) with op(A) X = b, op(A) = A or its transpose."""
    A, b = operand(A), operand(b)
    if A.dim() >= 2 and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if b.dim() >= 2 and A.dim() >= 2 and b.shape[-2] != A.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{A.shape[-2]} by {A.shape[-1]} but each b matrix is "
                           f"{b.shape[-2]} by {b.shape[-1]}")

    def solve(b, A):
        matrix = A.mT if transpose else A
        return L.solve_triangular(matrix, b, upper=upper != transpose,
                                  unitriangular=unitriangular), A.clone()
    # one PyTorch node gives both results, linked to b and A
    return triangular_solve_result(*map(by_columns, gradjit.autograd.composite(
        "TriangularSolveBackward0", solve, b, A)))


class LegacyLinalgMixin:
    """Tensor.svd, .qr, .cholesky, .cholesky_solve, .cholesky_inverse, .triangular_solve,
    .geqrf, .orgqr, .ormqr."""

    geqrf, orgqr, ormqr = geqrf, orgqr, ormqr

    def svd(self, some=True, compute_uv=True):
        return svd(self, some, compute_uv)

    def qr(self, some=True):
        return qr(self, some)

    def cholesky(self, upper=False):
        return cholesky(self, upper)

    def cholesky_solve(self, input2, upper=False):
        return cholesky_solve(self, input2, upper)

    def cholesky_inverse(self, upper=False):
        return cholesky_inverse(self, upper)

    def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
        return triangular_solve(self, A, upper, transpose, unitriangular)
