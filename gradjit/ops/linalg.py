"""Linear algebra with numpy's semantics on stacks of matrices (..., M, N): solves, inverses,
determinants and factorizations on the LAPACK-backed primitives of gradjit.ir.linalg, and the
functions built from them (pinv, lstsq, matrix_rank, cond, norms by singular values)."""
from __future__ import annotations

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import linalg as L
from gradjit.ir import linalg_eig as EIG
from gradjit.ir import linalg_lu as LU
from gradjit.ir import linalg_qr as QR
from gradjit.ir import structural as S
from gradjit.ir.primitive import ir_type
from gradjit.ir.types import real_of
from gradjit.ops.array import (add, amax, amin, expand_dims, gt, maximum, mul, reshape,
                               squeeze, sum_, transpose, true_divide, where)
from gradjit.ops.indexing import getitem
from gradjit.ops.promote import astype, broadcast, broadcast_shapes, default_float, result_type

LinAlgError = np.linalg.LinAlgError
mT, mH = L.mT, L.mH


def _float(*xs):
    """numpy computes integers (and bools) in float64; the result keeps a float's (or a
    complex) type."""
    dt = result_type(*xs)
    dt = dt if dt.is_inexact else default_float(*xs)
    return [astype(x, dt) for x in xs]


def matrices(a, square=False, exact_rank=False):
    """a as a float stack of (square) matrices, with numpy's LinAlgError otherwise."""
    (a,) = _float(a)
    t = ir_type(a)
    if t.rank < 2 or (exact_rank and t.rank != 2):
        need = "two-dimensional" if exact_rank else "at least two-dimensional"
        raise LinAlgError(f"{t.rank}-dimensional array given. Array must be {need}")
    if square and t.shape[-1] != t.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    return a


def lower_symmetric(a, upper=False):
    """The symmetric matrix that one triangle of a stands for (what LAPACK's symmetric
    routines read)."""
    i, j = L.grid(a)
    return E.where((E.le if upper else E.ge)(i, j), a, mH(a))


# ---- solves and inverses ----

def solve(a, b, vector=None):
    """a x = b, batch axes broadcast. b is a vector (..., M) or a stack (..., M, K): by numpy
    2's rule (a vector when 1-d) unless `vector` says."""
    a = matrices(a, square=True)
    a, b = _float(a, b)
    sa, sb = ir_type(a).shape, ir_type(b).shape
    vector = len(sb) == 1 if vector is None else vector
    b2 = reshape(b, sb + (1,)) if vector else b
    sb2 = ir_type(b2).shape
    if sb2[-2] != sa[-1]:
        raise ValueError(f"solve: the matrices {sa} and right-hand side {sb} do not match: "
                         f"{sa[-1]} unknowns, {sb2[-2]} equations")
    batch = broadcast_shapes(sb2[:-2], sa[:-2])  # in this order torch words a mismatch
    x = L.solve(broadcast(a, batch + sa[-2:]), broadcast(b2, batch + sb2[-2:]))
    return reshape(x, batch + sa[-1:]) if vector else x


def symmetric_gradient(a):
    """a itself, with the gradient reaching it made Hermitian: PyTorch's rule for functions
    that read one triangle of a Hermitian matrix (eigh, cholesky)."""
    sym = mul(add(a, mH(a)), 0.5)
    return add(E.stop_gradient(a), E.sub(sym, E.stop_gradient(sym)))


def inv(a):
    a = matrices(a, square=True)
    return L.solve(a, L.eye_like(a))


def solve_triangular(a, b, lower=True, left=True, unit=False):
    """a x = b (or x a = b when not `left`) reading one triangle of a; batch axes broadcast."""
    a, b = _float(matrices(a, square=True), matrices(b))
    if not left:
        return mT(solve_triangular(mT(a), mT(b), not lower, True, unit))
    sa, sb = ir_type(a).shape, ir_type(b).shape
    if sb[-2] != sa[-1]:
        raise ValueError(f"solve_triangular: the matrices {sa} and right-hand side {sb} do "
                         "not match")
    batch = broadcast_shapes(sa[:-2], sb[:-2])
    return L.triangular_solve(broadcast(a, batch + sa[-2:]), broadcast(b, batch + sb[-2:]),
                              lower=lower, unit=unit)


# ---- determinants ----

def slogdet(a):
    """(sign, log|det|): the sign of a's type (a unit complex number for complex a), log|det|
    real."""
    a = matrices(a, square=True)
    sign, logabsdet = L.unpack(L.slogdet(a), ((), ()))
    return sign, L.real_part(logabsdet)


def det(a):
    return L.det(matrices(a, square=True))


# ---- factorizations ----

def cholesky(a, upper=False):
    a = matrices(a, square=True)
    return mT(L.cholesky(mT(a))) if upper else L.cholesky(a)


def cholesky_as_torch(a, upper=False):
    """PyTorch's linalg.cholesky: a read as Hermitian, its gradient made Hermitian, plus for
    complex a the skew-Hermitian part that PyTorch's rule keeps, L^-H D L^-1 with D the
    imaginary part of diag(L^H gL) / 2, brought in by a term of value 0."""
    factor = cholesky(symmetric_gradient(a), upper)
    if not L.is_complex(factor):
        return factor
    lower = mH(factor) if upper else factor
    fixed = E.stop_gradient(lower)
    change = E.sub(a, E.stop_gradient(a))  # 0, with the gradient of a
    left = solve_triangular(fixed, change)  # L^-1 dA, then L^-1 dA L^-H
    inner = mH(solve_triangular(fixed, mH(left)))
    lower = add(lower, S.matmul(fixed, mul(L.imaginary_diagonal(inner), 0.5)))
    return mH(lower) if upper else lower


def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return UPLO == "U"


def eigh(a, UPLO="L"):
    """(eigenvalues ascending, eigenvectors as columns), reading the UPLO triangle."""
    upper = _uplo(UPLO)
    a = matrices(a, square=True)
    n = ir_type(a).shape[-1]
    w, v = L.unpack(L.eigh(a, upper=upper), ((n,), (n, n)))
    return L.real_part(w), v


def eigvalsh(a, UPLO="L"):
    return eigh(a, UPLO)[0]


def eig(a):
    """(eigenvalues, unit eigenvectors as columns) of general square matrices, complex."""
    a = matrices(a, square=True)
    n = ir_type(a).shape[-1]
    w, v = L.unpack(EIG.eig(a), ((n,), (n, n)))
    return w, v


def svd(a, full_matrices=True):
    """(U, S, Vh) with S real and descending."""
    a = matrices(a)
    m, n = ir_type(a).shape[-2:]
    u, s, vh = L.unpack(L.svd(a, full_matrices=full_matrices), L.svd_shapes(m, n, full_matrices))
    return u, L.real_part(s), vh


def svdvals(a, hermitian=False):
    """The singular values, descending. A `hermitian` matrix is read from its lower triangle
    (as numpy's eigh-based path reads it); its singular values are the general ones."""
    a = matrices(a)
    if hermitian:
        a = lower_symmetric(matrices(a, square=True))
    return svd(a, full_matrices=False)[1]


QR_MODES = ("reduced", "complete", "r")


def qr(a, mode="reduced"):
    """(Q, R) for 'reduced' and 'complete', R alone for 'r'."""
    if mode not in QR_MODES:
        raise ValueError(f"Unrecognized mode '{mode}': supported are {', '.join(QR_MODES)}")
    a = matrices(a)
    m, n = ir_type(a).shape[-2:]
    complete = mode == "complete"
    q, r = L.unpack(QR.qr(a, complete=complete), QR.qr_shapes(m, n, complete))
    return r if mode == "r" else (q, r)


# ---- LU with partial pivoting: A = P L U ----

def lu_factor(a):
    """(LU, pivots): L's strict lower triangle over U, LAPACK's 1-based int32 row swaps."""
    a = matrices(a)
    lu, pivots = L.unpack(LU.lu_factor(a), LU.lu_shapes(*ir_type(a).shape[-2:]))
    return lu, astype(L.real_part(pivots), "i32")


def lu_info(lu):
    """getrf's info per matrix: the 1-based index of U's first zero pivot, 0 when none."""
    d = diagonal(lu)
    t = ir_type(d)
    k = t.shape[-1]
    if k == 0:
        return E.full(value=0, shape=t.shape[:-1], dtype="i32")
    position = E.add(S.iota(shape=t.shape, dtype="i32", axis=t.rank - 1),
                     E.full(value=1, shape=t.shape, dtype="i32"))
    first = amin(where(E.eq(d, E.zeros_like(d)), position, np.int32(k + 1)), -1)
    return where(gt(first, np.int32(k)), np.int32(0), first)


def singular(a):
    """Per matrix, whether partial-pivoting elimination meets a zero pivot (LAPACK's getrf
    info > 0), where inverting fails."""
    if ir_type(a).dtype.is_complex:  # getrf's zero pivot is what makes slogdet's sign 0
        sign = slogdet(a)[0]
        return E.eq(sign, E.zeros_like(sign))
    return gt(lu_info(lu_factor(a)[0]), np.int32(0))


def lu_unpack(lu, pivots):
    """(P, L, U) of a compact factorization."""
    return (LU.permutation(pivots, ir_type(lu).shape[-2], ir_type(lu).dtype.name),
            *LU.factors(lu))


def lu_solve(lu, pivots, b, left=True, adjoint=False):
    """A X = B (A^T X = B when `adjoint`; X A = B, X A^T = B when not `left`) for A = P L U
    given compactly; batch axes broadcast."""
    if not left:
        return mH(lu_solve(lu, pivots, mH(b), True, not adjoint))
    sa, sb = ir_type(lu).shape, ir_type(b).shape
    batch = broadcast_shapes(sa[:-2], sb[:-2])
    lu, b = broadcast(lu, batch + sa[-2:]), broadcast(b, batch + sb[-2:])
    p = LU.permutation(broadcast(pivots, batch + sa[-1:]), sa[-1], ir_type(lu).dtype.name)
    if adjoint:  # U^H L^H P^T X = B
        y = L.triangular_solve(mH(lu), b, lower=True, unit=False)
        return S.matmul(p, L.triangular_solve(mH(lu), y, lower=False, unit=True))
    y = L.triangular_solve(lu, S.matmul(mT(p), b), lower=True, unit=True)
    return L.triangular_solve(lu, y, lower=False, unit=False)


# ---- built on the SVD ----

def _cutoff(s, rtol, atol=0.0):
    """max(atol, rtol * max(s)) along the last axis, kept as an axis for broadcasting;
    rtol and atol are numbers or arrays over the batch axes."""
    def per_batch(x):
        if isinstance(x, (int, float, np.generic)):
            return float(x)
        return expand_dims(astype(x, ir_type(s).dtype), -1)
    scaled = mul(amax(s, -1, keepdims=True), per_batch(rtol))
    return scaled if isinstance(atol, (int, float)) and atol == 0 else \
        maximum(scaled, per_batch(atol))


def _pseudo_inverse(a, rtol, atol=0.0, hermitian=False):
    """(V diag(1/s) U^H, s, which s are kept) for a float stack a with no empty axis, reading
    its lower triangle when hermitian; the inverse's gradient is the closed form's."""
    u, s, vh = svd(lower_symmetric(a) if hermitian else a, full_matrices=False)
    keep = gt(s, _cutoff(s, rtol, atol))
    inverse = where(keep, true_divide(1.0, where(keep, s, 1.0)), 0.0)
    inverse = S.matmul(mH(vh), mul(expand_dims(inverse, -1), mH(u)))
    return _with_closed_form_gradient(E.stop_gradient(inverse), a), s, keep


def _with_closed_form_gradient(p, a):
    """p, the pseudo-inverse of a's value, with the gradient of Golub and Pereyra's
    dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P, taken at a as given (PyTorch's
    rule, also for hermitian=True): exact while the rank stays constant, where the SVD's
    gradient would divide by differences of equal (zero) singular values. The linear form
    below has that derivative; its value is removed again."""
    a0 = E.stop_gradient(a)
    x = S.matmul(S.matmul(p, mH(p)), mH(a))
    y = S.matmul(mH(a), S.matmul(mH(p), p))
    linear = add(E.sub(add(x, y), S.matmul(S.matmul(p, a), p)),
                 E.neg(add(S.matmul(S.matmul(x, a0), p), S.matmul(S.matmul(p, a0), y))))
    return add(p, E.sub(linear, E.stop_gradient(linear)))


def pinv(a, rcond=1e-15, hermitian=False, atol=0.0):
    """V diag(1/s) U^H, singular values at most max(atol, rcond * max(s)) taken as 0 (of the
    matrix a's lower triangle stands for when hermitian)."""
    a = matrices(a, square=hermitian)
    m, n = ir_type(a).shape[-2:]
    if m == 0 or n == 0:
        return transpose(a, tuple(range(ir_type(a).rank - 2)) + (-1, -2))
    return _pseudo_inverse(a, rcond, atol, hermitian)[0]


def matrix_rank(a, atol=0.0, rtol=None, hermitian=False):
    """The number of singular values above max(atol, rtol * max(s)); rtol defaults to
    max(M, N) * eps. Below two dimensions: whether any element is nonzero (numpy)."""
    t = ir_type(a)
    if t.rank < 2:
        if not t.size:
            return 0
        return astype(E.logical_not(S.reduce_min(E.eq(a, E.zeros_like(a)),
                                                 axes=tuple(range(t.rank)), keepdims=False)),
                      "i64")
    s = svdvals(a, hermitian)
    if 0 in t.shape[-2:]:  # no singular values: rank 0, and no largest one to scale rtol by
        return sum_(astype(s, "i64"), -1)
    if rtol is None:
        rtol = max(t.shape[-2:]) * np.finfo(ir_type(s).dtype.numpy).eps
    return sum_(astype(gt(s, _cutoff(s, rtol, atol)), "i64"), -1)


def matrix_norm_svd(x, ord, axis=(-2, -1), keepdims=False):
    """The matrix norms of numpy's norm computed from singular values: ord 2 (largest),
    -2 (smallest) and 'nuc' (their sum), over the two axes `axis`."""
    reduce = {2: amax, -2: amin, "nuc": sum_}.get(ord)
    if reduce is None:
        raise ValueError(f"matrix_norm_svd: ord must be 2, -2 or 'nuc', not {ord!r}")
    (x,) = _float(x)
    rank = ir_type(x).rank
    rows, cols = (a % rank for a in axis)
    rest = [d for d in range(rank) if d not in (rows, cols)]
    s = svdvals(transpose(x, rest + [rows, cols]))
    out = reduce(s, -1)
    if keepdims:
        for d in sorted((rows, cols)):
            out = expand_dims(out, d)
    return out


def lstsq(a, b, rcond=None):
    """(x, residuals, rank, s) as numpy gives them for a 2-d a and b of 1 or 2 dimensions;
    x = pinv(a) b with singular values at most rcond * max(s) dropped (default
    float64's eps * max(M, N)). The residuals exist when a has full column rank and M > N:
    whether it does is decided when tracing (a guard)."""
    a = matrices(a, exact_rank=True)
    a, b = _float(a, b)
    sb = ir_type(b).shape
    if len(sb) not in (1, 2):
        raise LinAlgError(f"{len(sb)}-dimensional array given. Array must be two-dimensional")
    m, n = ir_type(a).shape
    if sb[0] != m:
        raise LinAlgError("Incompatible dimensions")
    # numpy solves in float64 whatever the input, and its default cut-off is float64's.
    rcond = np.finfo(np.float64).eps * max(m, n) if rcond is None else rcond
    b2 = reshape(b, (m, 1)) if len(sb) == 1 else b
    dt = ir_type(a).dtype.name
    real = real_of(ir_type(a).dtype).name  # singular values and residuals of complex a too
    if min(m, n) == 0:
        x = E.full(value=0.0, shape=(n, ir_type(b2).shape[1]), dtype=dt)
        s, rank = E.full(value=0.0, shape=(0,), dtype=real), np.int32(0)
    else:
        inverse, s, keep = _pseudo_inverse(a, rcond)
        x = S.matmul(inverse, b2)
        rank = astype(sum_(astype(keep, "i64")), "i32")
    residuals = E.full(value=0.0, shape=(0,), dtype=real)
    if m > n and bool(E.eq(rank, n)):  # full column rank (an empty a counts as one)
        error = add(S.matmul(a, x), mul(b2, -1.0)) if n else b2
        residuals = sum_(squared_magnitude(error), 0)
    return (squeeze(x, -1) if len(sb) == 1 else x), residuals, rank, s


def squared_magnitude(x):
    """|x|^2, real (x * x for a real x)."""
    return L.real_part(mul(x, E.conj(x))) if L.is_complex(x) else mul(x, x)


# ---- tensor forms ----

def tensorinv(a, ind=2):
    shape = ir_type(a).shape
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    rows = int(np.prod(shape[ind:], dtype=np.int64))
    square = reshape(a, (rows, -1) if rows else (0, int(np.prod(shape[:ind]))))
    return reshape(inv(square), shape[ind:] + shape[:ind])


def tensorsolve(a, b, axes=None):
    rank, b_shape = ir_type(a).rank, ir_type(b).shape
    if axes is not None:
        order = [d for d in range(rank) if d not in [k % rank for k in axes]]
        a = transpose(a, order + [k % rank for k in axes])
    shape = ir_type(a).shape
    solved = shape[len(b_shape):]
    count = int(np.prod(solved, dtype=np.int64))
    if int(np.prod(shape, dtype=np.int64)) != count ** 2:
        raise LinAlgError("Input arrays must satisfy the requirement "
                          "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    return reshape(solve(reshape(a, (count, count)), reshape(b, (count,))), solved)


# ---- views of numpy 2's linalg namespace ----

def matrix_transpose(x):
    if ir_type(x).rank < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is "
                         f"{ir_type(x).rank}")
    return mT(x)


def diagonal(x, offset=0):
    """The diagonal `offset` above the main one of each matrix, by one gather."""
    if ir_type(x).rank < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    rows, cols = ir_type(x).shape[-2:]
    first = max(0, -offset)
    count = max(0, min(rows - first, cols - first - offset))
    index = np.arange(count)
    return getitem(x, (Ellipsis, index + first, index + first + offset))


def trace(x, offset=0, dtype=None):
    """The sum of the diagonal; integers sum in int64 as numpy's sum does."""
    return sum_(diagonal(x, offset), -1, dtype=dtype)
