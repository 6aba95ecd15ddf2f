"""torch.linalg on Tensors (and torch.det, torch.inverse, torch.logdet, torch.slogdet):
PyTorch's signatures, result types, errors and grad_fn names over gradjit.ops.linalg."""
from __future__ import annotations

import contextlib
import math

import numpy as np

from gradjit import ops
from gradjit.ir.linalg_lu import getrf
from gradjit.ops import linalg as L
from gradjit.tensor import graph
from gradjit.tensor.arith import apply, operand, where
from gradjit.tensor.lapack_layout import by_columns, by_rows
from gradjit.tensor.refusals import float_only, refuse_integers
from gradjit.tensor.return_types import return_type as _result


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a singular or non positive-definite input."""


LinAlgError = _LinAlgError  # torch's class keeps its C name, which errors print


linalg_slogdet = _result("linalg_slogdet", ("sign", "logabsdet"))
slogdet_result = _result("slogdet", ("sign", "logabsdet"))
linalg_eigh = _result("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_eig = _result("linalg_eig", ("eigenvalues", "eigenvectors"))
linalg_qr = _result("linalg_qr", ("Q", "R"))
linalg_svd = _result("linalg_svd", ("U", "S", "Vh"))
linalg_lstsq = _result("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))

def getrf_info(a):
    """LAPACK getrf's info: the 1-based position of the first zero pivot of partial-pivoting
    elimination, 0 when there is none."""
    zero = np.flatnonzero(np.diagonal(getrf(a)[0]) == 0)
    return int(zero[0]) + 1 if zero.size else 0


def potrf_info(a):
    """LAPACK potrf's info: the order of the first leading minor that is not positive
    definite (the lower triangle read), 0 when there is none."""
    lower = np.tril(a) + np.tril(a, -1).conj().swapaxes(-1, -2)
    for k in range(1, a.shape[0] + 1):
        try:
            factor = np.linalg.cholesky(lower[:k, :k])
        except np.linalg.LinAlgError:
            return k
        if np.isnan(factor[k - 1, k - 1]):  # potrf refuses a NaN pivot as a non-positive one
            return k
    return 0


# What a failed factorization means, in PyTorch's words, with the info k of the first matrix
# that failed and the LAPACK rule that finds it.
_FAILURES = {
    "inversion": ("{name}: {batch}The diagonal element {k} is zero, the inversion could not be "
                  "completed because the input matrix is singular.", getrf_info),
    "solver": ("torch.{name}: {batch}The solver failed because the input matrix is singular.",
               getrf_info),
    "indefinite": ("{name}: {batch}The factorization could not be completed because the input "
                   "is not positive-definite (the leading minor of order {k} is not "
                   "positive-definite).", potrf_info),
    "nonconvergence": ("{name}: {batch}The algorithm failed to converge because the input "
                       "matrix contained non-finite values.", lambda a: int(np.isnan(a).any())),
}


def failure(name, kind, values, infos=None):
    """PyTorch's LinAlgError message for the first matrix of the stack `values` that fails."""
    template, rule = _FAILURES[kind]
    if infos is None:
        flat = values.reshape((int(np.prod(values.shape[:-2])),) + values.shape[-2:])
        infos = np.array([rule(m) for m in flat]).reshape(values.shape[:-2])
    i = int(np.argmax(np.asarray(infos).reshape(-1) > 0))
    batch = f"(Batch element {i}): " if values.ndim > 2 else ""
    return template.format(name=name, batch=batch, k=int(np.asarray(infos).reshape(-1)[i]))


@contextlib.contextmanager
def lapack_errors(name, kind, A):
    """numpy's LinAlgError, eagerly, as PyTorch's (compiled programs raise numpy's)."""
    try:
        yield
    except np.linalg.LinAlgError:
        values = A.__gradjit_constant__()
        if values is None:
            raise
        raise LinAlgError(failure(name, kind, values)) from None


def _matrices(name, A, square=True, kernel=None):
    """A as a tensor of (square) matrices; an integer one refused with float_only's words, or
    with those of the CPU kernel `kernel` after the shape checks, as torch orders them."""
    A = operand(A)
    if kernel is None:
        float_only(name, A)
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if kernel is not None:
        refuse_integers(kernel, A)
    _refuse_low_precision(name, A)
    return A


# The CPU kernels torch reaches with a half-precision matrix, by function; the others refuse
# it by name
_LOW_PRECISION_KERNELS = {
    **dict.fromkeys(("linalg.det", "linalg.solve"), "lu_cpu"),
    **dict.fromkeys(("linalg.cholesky", "cholesky"), "cholesky_cpu"),
    **dict.fromkeys(("linalg.svd", "linalg.svdvals"), "linalg_svd_cpu"),
    "linalg.eigh": "linalg_eigh_cpu", "linalg.eig": "linalg_eig_out_cpu",
    "linalg.eigvals": "linalg_eig_out_cpu", "linalg.qr": "geqrf_cpu",
    "linalg.solve_triangular": "triangular_solve_cpu"}


def _refuse_low_precision(name, A):
    if A.dtype.ir.name not in ("f16", "bf16"):
        return
    if name in _LOW_PRECISION_KERNELS:
        raise NotImplementedError(f'"{_LOW_PRECISION_KERNELS[name]}" not implemented for '
                                  f"'{A.dtype.legacy}'")
    raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {A.dtype.legacy}")


def _float_or_double(A):
    """matrix_rank's and lstsq's refusal of every other type (integers, half precision)."""
    if A.dtype.ir.name not in ("f32", "f64", "c64", "c128"):
        raise RuntimeError("This function doesn't handle types other than float and double")


def _run(name, kind, grad_fn, fn, A, *args):
    with lapack_errors(name, kind, A):
        return apply(grad_fn, fn, A, *args)


# ---- solves and inverses ----

def inv(A):
    A = _matrices("linalg.inv", A)
    return by_columns(_run("linalg.inv", "inversion", "LinalgInvExBackward0", L.inv, A))


inverse = inv


def solve(A, B, *, left=True):
    """A X = B (X A = B when not `left`); B is a batch of vectors when it is 1-d or shaped
    like A without its last axis (PyTorch's rule)."""
    A, B = _matrices("linalg.solve", A), operand(B)
    if A.dtype is not B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A "
                           f"of type {A.dtype.legacy} and B of type {B.dtype.legacy} instead")
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    n = A.shape[-1]
    rows, cols = (B.shape[-1], 1) if vector else tuple(B.shape[-2:])
    if not left:
        if vector or cols != n:  # a column (n x 1) cannot stand right of an n x n matrix
            raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                               f"XA = B ({n}x{n} and {rows}x{cols})")
        # PyTorch solves the transposed system: its solution's transpose is row-major
        return by_rows(_run("linalg.solve", "solver", "LinalgSolveExBackward0",
                            lambda a, b: L.mT(L.solve(L.mT(a), L.mT(b), False)), A, B))
    if rows != n:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"AX = B ({n}x{n} and {rows}x{cols})")
    # a batch of vectors is stored as one matrix, by columns, as PyTorch stores it
    return by_columns(_run("linalg.solve", "solver", "LinalgSolveExBackward0",
                           lambda a, b: L.solve(a, b, vector), A, B))


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    A, B = _matrices("linalg.solve_triangular", A, kernel="triangular_solve_cpu"), operand(B)
    if B.dim() < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 "
                           "dimensions.")
    n = A.shape[-1]
    if B.shape[-2 if left else -1] != n:
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the "
                           f"equation {equation} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    return by_columns(apply("LinalgSolveTriangularBackward0", L.solve_triangular, A, B,
                            not upper, left, unitriangular))


# ---- determinants ----

def det(A):
    A = _matrices("linalg.det", A)
    return apply("LinalgDetBackward0", L.det, A)


def slogdet(A):
    A = _matrices("linalg.slogdet", A)
    return linalg_slogdet(*map(by_rows, apply("LinalgSlogdetBackward0", L.slogdet, A)))


def torch_slogdet(A):
    return slogdet_result(*slogdet(A))


def logdet(A):
    """log det A: NaN for a negative determinant, -inf for a singular matrix."""
    A = _matrices("logdet", A)
    sign, logabsdet = slogdet(A)
    if A.dtype.is_complex:
        return sign.log() + logabsdet
    return where(sign == -1.0, math.nan, logabsdet)


# ---- factorizations ----

def cholesky(A, *, upper=False):
    return named_cholesky("linalg.cholesky", A, upper)


def named_cholesky(name, A, upper):
    """cholesky, its errors told under `name` (torch.cholesky's are under its own)."""
    A = _matrices(name, A, kernel="cholesky_cpu" if name == "cholesky" else None)
    node = "CholeskyBackward0" if name == "cholesky" else "LinalgCholeskyExBackward0"
    values = A.__gradjit_constant__()
    if values is not None and not np.isfinite(values).all() and any(
            map(potrf_info, values.reshape((-1,) + values.shape[-2:]))):
        raise LinAlgError(failure(name, "indefinite", values))  # numpy's factor holds NaNs
    return by_columns(_run(name, "indefinite", node,
                           lambda a: L.cholesky_as_torch(a, upper), A))


def _uplo(UPLO):
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO.upper()


def eigh(A, UPLO="L"):
    A, UPLO = _matrices("linalg.eigh", A, kernel="linalg_eigh_cpu"), _uplo(UPLO)
    values, vectors = apply("LinalgEighBackward0",
                            lambda a: L.eigh(L.symmetric_gradient(a), UPLO), A)
    return linalg_eigh(by_rows(values), by_columns(vectors))


def eigvalsh(A, UPLO="L"):
    A, UPLO = _matrices("linalg.eigh", A, kernel="linalg_eigh_cpu"), _uplo(UPLO)
    return by_rows(apply("LinalgEighBackward0",
                         lambda a: L.eigvalsh(L.symmetric_gradient(a), UPLO), A))


def _eig_input(A):
    """A checked as torch's eig checks it: an integer A has no complex type to give."""
    A = operand(A)
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"Unknown Complex ScalarType for {A.dtype.legacy}")
    A = _matrices("linalg.eig", A)
    values = A.__gradjit_constant__()
    # eig's check; PyTorch's eigvals skips it and crashes in LAPACK on some NaN matrices
    if values is not None and not np.isfinite(values).all():
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    return A


def eig(A):
    """Eigenvalues and unit eigenvectors of general square matrices, always complex; the
    gradient through the eigenvectors holds for losses independent of their phases."""
    A = _eig_input(A)
    values, vectors = apply("LinalgEigBackward0", L.eig, A)
    return linalg_eig(by_rows(values), by_columns(vectors))


def eigvals(A):
    A = _eig_input(A)
    return by_rows(apply("LinalgEigBackward0", lambda a: L.eig(a)[0], A))


_QR_R_GRAD = ("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
              "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
              "through linalg.qr.")


def qr(A, mode="reduced"):
    """(Q, R); mode 'r' gives an empty Q, as PyTorch does."""
    A = _matrices("linalg.qr", A, square=False)
    if mode not in L.QR_MODES:
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    out = apply("LinalgQrBackward0", L.qr, A, mode)
    out = by_columns(out) if mode == "r" else tuple(map(by_columns, out))
    if mode == "r":
        from gradjit.tensor.factories import empty
        if out.requires_grad:
            out = graph.refuse_gradient(out, graph.Node.named("LinalgQrBackward0"), _QR_R_GRAD,
                                        [A])
        return linalg_qr(empty(0, dtype=A.dtype), out)
    return linalg_qr(*out)


def svd(A, full_matrices=True, *, driver=None):
    A = _matrices("linalg.svd", A, square=False)
    U, S, Vh = _run("linalg.svd", "nonconvergence", "LinalgSvdBackward0", L.svd, A,
                    full_matrices)
    return linalg_svd(by_columns(U), by_rows(S), by_columns(Vh))


def svdvals(A, *, driver=None):
    A = _matrices("linalg.svd", A, square=False)
    return by_rows(_run("linalg.svd", "nonconvergence", "LinalgSvdBackward0", L.svdvals, A))


# ---- built on the SVD ----

def _tolerances(A, atol, rtol):
    """PyTorch's rule: rtol defaults to max(M, N) * eps when atol is not given, else to 0."""
    if rtol is None:
        rtol = max(A.shape[-2:]) * np.finfo(A.dtype.ir.numpy).eps if atol is None else 0.0
    return (0.0 if atol is None else atol), rtol


def _number_or_tensor(x):
    return x if isinstance(x, (int, float)) else operand(x)


def pinv(A, *, atol=None, rtol=None, hermitian=False):
    A = operand(A)
    if A.dim() < 2 or A.dtype.ir.name not in ("f32", "f64", "c64", "c128"):
        raise RuntimeError(f"linalg.pinv({A.dtype.legacy}{{{list(A.shape)}}}): expected a tensor "
                           "with 2 or more dimensions of float, double, cfloat or cdouble types")
    if hermitian:  # torch computes it by an eigendecomposition
        _matrices("linalg.eigh", A)
    atol, rtol = map(_number_or_tensor, _tolerances(A, atol, rtol))
    return _run("linalg.svd", "nonconvergence", "LinalgPinvBackward0",
                lambda a: L.pinv(a, rtol, hermitian, atol), A)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False):
    _float_or_double(operand(A))
    A = _matrices("linalg.matrix_rank", A, square=False)
    atol, rtol = map(_number_or_tensor, _tolerances(A, atol, rtol))
    with lapack_errors("linalg.svd", "nonconvergence", A):
        return L.matrix_rank(A, atol, rtol, hermitian)


LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(A, B, rcond=None, *, driver=None):
    """The minimum-norm least-squares solution of A X = B over batches, with what the LAPACK
    `driver` reports: the residuals (full-rank A with M > N; not for gelsy), the rank (not
    for gels) and the singular values (gelsd, gelss). Rank-deficient A: the minimum-norm
    solution, which gelsy and gels do not promise."""
    _float_or_double(operand(A))
    A, B = _matrices("linalg.lstsq", A, square=False), operand(B)
    driver = driver or "gelsy"
    if driver not in LSTSQ_DRIVERS:
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of "
                           f"({', '.join(LSTSQ_DRIVERS)})")
    if A.dtype is not B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same "
                           f"dtype, but got input's dtype {A.dtype.legacy} and other's dtype "
                           f"{B.dtype.legacy}")
    if not 0 <= A.dim() - B.dim() <= 1:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to "
                           "other.dim() and (input.dim() - other.dim()) <= 1")
    vector = B.dim() == A.dim() - 1
    if B.shape[-1 if vector else -2] != A.shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match "
                           f"other.size({-1 if vector else -2})")
    m, n = A.shape[-2:]
    rtol = max(m, n) * np.finfo(A.dtype.ir.numpy).eps if rcond is None else rcond
    with_rank = driver != "gels"
    rank = matrix_rank(A.detach(), rtol=rtol) if with_rank else _empty(0, "int64")
    summed = driver != "gelsy" and m > n and bool((rank == n).all() if with_rank else True)

    def solve(a, b):  # PyTorch's one node gives the solution and the residuals
        columns = ops.expand_dims(b, -1) if vector else b  # a batch of vectors: columns
        x = ops.matmul(L.pinv(a, rtol), columns)
        if not summed:  # none, still an output of the node
            return _vectors(x, vector), ops.broadcast_to(ops.mul(ops.sum_(b), 0), (0,))
        residuals = ops.sum_(L.squared_magnitude(ops.sub(ops.matmul(a, x), columns)), axis=-2)
        return _vectors(x, vector), residuals
    solution, residuals = apply("LinalgLstsqBackward0", solve, A, B)
    # LAPACK overwrites B, as tall as A, by columns: the solution is its first n rows
    solution = by_columns(solution, max(m, n), vector)
    values = svdvals(A.detach()) if driver in ("gelsd", "gelss") else _empty(0, A.dtype)
    return linalg_lstsq(solution, residuals, rank, values)


# ord -> the grad_fn PyTorch's cond ends with where it is not the singular values' ratio:
# norm(A) * norm(inv(A)) where a singular matrix's NaN becomes inf, and the nuclear norm's
# plain product
_COND_GRAD_FN = {None: None, 2: None, -2: None, "nuc": "MulBackward0", **dict.fromkeys(
    ("fro", 1, -1, float("inf"), -float("inf")), "NanToNumBackward0")}


def cond(A, p=None):
    """The condition number: s_max / s_min (p None or 2), its inverse (p -2), otherwise
    norm(A, p) * norm(inv(A), p) of square matrices."""
    if p not in _COND_GRAD_FN:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    by_svd = p in (None, 2, -2)
    float_only("linalg.svd" if by_svd else "linalg.inv", operand(A))
    _refuse_low_precision("linalg.svd" if by_svd else "linalg.inv", operand(A))
    A = _matrices(f"linalg.cond(ord={p})", A, square=not by_svd)
    if A.shape[-1] == A.shape[-2] == 0:  # torch's 0 for no matrix, cut off from A's graph
        return A.detach().real.new_zeros(A.shape[:-2])
    if by_svd:  # PyTorch's: the first and last singular values' ratio
        values = svdvals(A)
        s_max, s_min = values.narrow(-1, 0, 1), values.narrow(-1, -1, 1)
        return (s_min / s_max if p == -2 else s_max / s_min).squeeze(-1)
    return apply(_COND_GRAD_FN[p], ops.norms.cond, A, p)


def tensorinv(A, ind=2):
    A = operand(A)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = math.prod(A.shape[ind:]), math.prod(A.shape[:ind])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {rows} != {cols}")
    inverse = by_columns(_run("inv", "inversion", "LinalgInvExBackward0", L.inv,
                              A.reshape(rows, rows)))
    return inverse.reshape(*A.shape[ind:], *A.shape[:ind])


def tensorsolve(A, B, dims=None):
    """PyTorch's: A with dims moved last, reshaped to a square matrix, solved against B
    flattened, the solution reshaped to A's trailing shape."""
    A, B = operand(A), operand(B)
    if dims is not None:
        A = A.movedim(tuple(dims), tuple(range(A.dim() - len(dims), A.dim())))
    shape = tuple(A.shape[B.dim():])
    solved = math.prod(shape)
    if solved != B.numel():
        raise RuntimeError(f"Expected self to satisfy the requirement "
                           f"prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but "
                           f"got {solved} != {B.numel()}")
    return solve(A.reshape(solved, solved), B.reshape(solved)).reshape(shape)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """torch.diagonal with the last two dimensions as defaults."""
    return operand(A).diagonal(offset, dim1, dim2)


def pinverse(input, rcond=1e-15):
    """torch.pinverse: pinv with a relative cut-off."""
    return pinv(input, rtol=rcond)


class LinalgMixin:
    """The linear-algebra methods of Tensor."""

    det, inverse, logdet, pinverse = det, inverse, logdet, pinverse

    def slogdet(self):
        return torch_slogdet(self)


def _vectors(x, vector):
    """x's columns as vectors where the right-hand side was a batch of vectors."""
    return ops.squeeze(x, -1) if vector else x


def _empty(n, dtype):
    from gradjit.tensor.factories import empty
    return empty(n, dtype=dtype)


__all__ = ["LinAlgError", "cholesky", "cond", "det", "diagonal", "eigh", "eigvalsh", "inv",
           "inverse", "logdet", "lstsq", "matrix_rank", "pinv", "pinverse", "qr", "slogdet",
           "solve", "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve"]
