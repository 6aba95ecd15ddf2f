"""Linear-algebra primitives on stacks of real or complex matrices (..., M, N). They are
library primitives: compiled programs run them on the host through numpy's LAPACK between
kernels, as matrix products run through BLAS; numpy's LinAlgError (singular, not positive
definite) is raised from the compiled program as from numpy.

Each IR op has one result. A factorization with several outputs (eigh, svd, qr, slogdet)
returns them packed: each part flattened per matrix and concatenated along one last axis,
sliced apart again by `unpack`. One LAPACK call then gives all parts (a primitive per part
would factor the matrix once per part used), and the parts always belong to the same
factorization (the signs of singular vectors chosen by one call match its U and Vh). Real
parts of complex factorizations (eigenvalues, singular values) are packed as complex.

Gradients follow the published rules, written with primitives; for complex matrices those of
the factorizations that are not holomorphic (eigh, svd, qr, cholesky) are the real rules with
conjugate transposes, in PyTorch's pairing, turned into gradjit's (JAX's) by `conjugated`.
Where a rule divides by the gap between two eigenvalues (or squared singular values), pairs
equal to within rounding are masked to 0 (never inf or NaN). At a repeated eigenvalue the
gradient is then exact for functions of the eigenvalues (sums, norms from singular values)
and of a degenerate eigenspace through its projector; other functions of the vectors there
(U diag(s) Vh itself) get a finite gradient that leaves out the 0/0 limit of the rotations
inside the eigenspace.
"""
from __future__ import annotations

import math

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.primitive import PRIMITIVES, Primitive, ir_type, register, require
from gradjit.ir.types import TensorType
from gradjit.runtime.blas import single_threaded


def _prim(name, rule, evaluate, vjp, jvp, params=(), batch=None):
    """The batch axis of vmap is one more leading stack axis, over which LAPACK is called per
    matrix; LAPACK runs with numpy's OpenBLAS on one thread, as matrix products do."""
    return register(Primitive(name, "library", rule, single_threaded(evaluate), vjp,
                              params=tuple(params), jvp=jvp,
                              batch=batch or S.batch_stacked(name)))


def _solve_batch(name):
    """Right-hand sides stacked against one shared matrix are one solve with their columns
    side by side: the matrix is factored once, not once per example."""
    stacked = S.batch_stacked(name)

    def batch(args, batched, size, **params):
        a, b = args
        if batched != (False, True) or ir_type(a).rank != 2:
            return stacked(args, batched, size, **params)
        n, k = ir_type(b).shape[1:]
        columns = S.reshape(S.move_axis(b, 0, 1), shape=(n, size * k))
        x = PRIMITIVES[name](a, columns, **params)
        return S.move_axis(S.reshape(x, shape=(n, size, k)), 1, 0)
    return batch


# ---- packing several results into one ----

def pack(parts, batch) -> np.ndarray:
    """numpy: each part flattened per matrix, concatenated along the last axis."""
    batch = tuple(batch)
    return np.concatenate([np.reshape(p, batch + (math.prod(np.shape(p)[len(batch):]),))
                           for p in parts], axis=-1)


def pack_values(parts, batch):
    """The IR counterpart of pack: each part flattened per matrix, concatenated."""
    batch = tuple(batch)
    flat = [S.reshape(p, shape=batch + (math.prod(ir_type(p).shape[len(batch):]),))
            for p in parts]
    return S.concatenate(*flat, axis=len(batch))


def _packed_type(batch, shapes, dt) -> TensorType:
    return TensorType(tuple(batch) + (sum(math.prod(s) for s in shapes),), dt)


def unpack(packed, shapes):
    """The parts of a packed value, each of shape batch + its shape (shapes exclude batch)."""
    t = ir_type(packed)
    batch, parts, start = t.shape[:-1], [], 0
    for shape in shapes:
        stop = start + math.prod(shape)
        piece = S.slice_(packed, start=(0,) * len(batch) + (start,), stop=batch + (stop,),
                         step=(1,) * t.rank)
        parts.append(S.reshape(piece, shape=batch + tuple(shape)))
        start = stop
    return parts


# ---- helpers for the gradient rules (primitives only: they run on numpy, tensors and IR) ----

def mT(x):
    """Swap the last two axes."""
    rank = ir_type(x).rank
    return S.transpose(x, perm=tuple(range(rank - 2)) + (rank - 1, rank - 2))


def is_complex(x) -> bool:
    return ir_type(x).dtype.is_complex


def mH(x):
    """The conjugate transpose (the transpose of a real stack)."""
    return E.conj(mT(x)) if is_complex(x) else mT(x)


def real_part(x):
    """A complex stack's real part (a real spectrum packed beside complex vectors)."""
    return E.real(x) if is_complex(x) else x


def like(x, other):
    """x in other's type: a real spectrum scaling complex vectors."""
    name = ir_type(other).dtype.name
    return x if ir_type(x).dtype.name == name else E.cast(x, dtype=name)


def imaginary_diagonal(x):
    """i Im(x_ii) on the diagonal, 0 elsewhere (0 for a real stack)."""
    d = _diagonal_part(x)
    return E.sub(d, like(real_part(d), d)) if is_complex(x) else _zero(x)


def conjugated(vjp):
    """A VJP written in PyTorch's pairing Re tr(G^H dA), where the rules of functions that
    are not holomorphic read as the real ones with conjugate transposes, turned into
    gradjit's (JAX's, Re sum(g dA)): conj(rule(conj(g)))."""
    def rule(g, y, *args, **params):
        if not is_complex(g):
            return vjp(g, y, *args, **params)
        out = vjp(E.conj(g), y, *args, **params)
        return tuple(E.conj(c) if c is not None and is_complex(c) else c for c in out)
    return rule


def grid(x):
    """Row and column indices shaped like the matrix stack x."""
    t = ir_type(x)
    return (S.iota(shape=t.shape, dtype="i64", axis=t.rank - 2),
            S.iota(shape=t.shape, dtype="i64", axis=t.rank - 1))


def _zero(x):
    return E.zeros_like(x)


def _scale_columns(x, v):
    """x[..., i, j] * v[..., j]."""
    t = ir_type(x)
    return E.mul(x, S.broadcast_to(S.reshape(v, shape=t.shape[:-2] + (1, t.shape[-1])),
                                   shape=t.shape))


def _scale_rows(x, v):
    """x[..., i, j] * v[..., i]."""
    t = ir_type(x)
    return E.mul(x, S.broadcast_to(S.reshape(v, shape=t.shape[:-1] + (1,)), shape=t.shape))


def _diag_embed(v):
    n = ir_type(v).shape[-1]
    square = S.broadcast_to(S.reshape(v, shape=ir_type(v).shape[:-1] + (1, n)),
                            shape=ir_type(v).shape[:-1] + (n, n))
    i, j = grid(square)
    return E.where(E.eq(i, j), square, _zero(square))


def eye_like(x):
    i, j = grid(x)
    return E.cast(E.eq(i, j), dtype=ir_type(x).dtype.name)


def _inverse_gaps(w):
    """F[..., i, j] = 1 / (w_j - w_i), and 0 where w_i and w_j agree to within rounding."""
    t = ir_type(w)
    n, batch = t.shape[-1], t.shape[:-1]
    square = batch + (n, n)
    if n == 0:
        return E.full(value=0.0, shape=square, dtype=t.dtype.name)
    wi = S.broadcast_to(S.reshape(w, shape=batch + (n, 1)), shape=square)
    wj = S.broadcast_to(S.reshape(w, shape=batch + (1, n)), shape=square)
    gap = E.sub(wj, wi)
    scale = S.reduce_max(E.abs_(w), axes=(t.rank - 1,), keepdims=True)
    tol = E.mul(S.broadcast_to(S.reshape(scale, shape=batch + (1, 1)), shape=square),
                float(n * np.finfo(t.dtype.numpy).eps))
    degenerate = E.le(E.abs_(gap), tol)
    one = E.full(value=1.0, shape=square, dtype=t.dtype.name)
    return E.where(degenerate, _zero(gap), E.div(one, E.where(degenerate, one, gap)))


def _safe_reciprocal(s):
    """1/s, and 0 where s is 0 (a rank-deficient matrix's missing directions)."""
    zero = E.eq(s, 0.0)
    one = E.full(value=1.0, shape=ir_type(s).shape, dtype=ir_type(s).dtype.name)
    return E.where(zero, _zero(s), E.div(one, E.where(zero, one, s)))


def _triangle(x, lower, diagonal=True):
    """The lower (or upper) triangle of each matrix, with or without the diagonal."""
    i, j = grid(x)
    keep = (E.ge if diagonal else E.gt)(i, j) if lower else (E.le if diagonal else E.lt)(i, j)
    return E.where(keep, x, _zero(x))


def _symmetric(t, upper):
    """The Hermitian matrix that a function reading one triangle of its operand sees, from
    the operand's tangent t: the triangle mirrored across the diagonal, whose imaginary part
    LAPACK ignores."""
    half = _triangle(t, not upper)
    both = E.add(half, mH(half))
    return E.sub(both, E.mul(_diagonal_part(both), 0.5))


def _diagonal_part(x):
    i, j = grid(x)
    return E.where(E.eq(i, j), x, _zero(x))


def _diagonal(x):
    """The diagonal of each matrix (..., n)."""
    return S.reduce_sum(_diagonal_part(x), axes=(ir_type(x).rank - 1,), keepdims=False)


def _trace(x):
    return S.reduce_sum(_diagonal(x), axes=(ir_type(x).rank - 2,), keepdims=False)


def _plus(a, b):
    """a + b where either may be None (a zero tangent)."""
    return b if a is None else a if b is None else E.add(a, b)


def fold(sym, upper):
    """The gradient of a function reading one triangle of its operand (numpy's eigh and
    cholesky), from its gradient `sym` with respect to the Hermitian matrix it stands for:
    an off-diagonal entry of the triangle counts for both places."""
    i, j = grid(sym)
    strict = E.lt(i, j) if upper else E.gt(i, j)
    return E.where(strict, E.add(sym, mH(sym)), E.where(E.eq(i, j), sym, _zero(sym)))


# ---- shape rules ----

def _matrices(x, square=False, complex_ok=False):
    require(x.rank >= 2 and (x.dtype.is_float or complex_ok and x.dtype.is_complex),
            f"operand must be a stack of float matrices (..., M, N), not {x}")
    require(not square or x.shape[-1] == x.shape[-2],
            f"matrices must be square, not {x.shape[-2]}x{x.shape[-1]}")


def _square_rule(a, **_):
    _matrices(a, square=True, complex_ok=True)
    return a


def _solve_rule(a, b, **_):
    # complex too: eig's gradient solves with its eigenvectors
    _matrices(a, square=True, complex_ok=True)
    _matrices(b, complex_ok=True)
    require(b.shape[:-1] == a.shape[:-1] and b.dtype == a.dtype,
            f"right-hand sides {b} do not match the matrices {a}")
    return b


# ---- solve: a x = b ----

def _solve_vjp(g, x, a, b):
    gb = solve(mT(a), g)
    return E.neg(S.matmul(gb, mT(x))), gb


def _solve_jvp(tangents, x, a, b):
    # d(A^-1 b) = A^-1 (db - dA x)
    ta, tb = tangents
    rhs = _plus(tb, None if ta is None else E.neg(S.matmul(ta, x)))
    return solve(a, rhs)


solve = _prim("solve", _solve_rule, np.linalg.solve, _solve_vjp, _solve_jvp,
              batch=_solve_batch("solve"))


# ---- triangular solve: substitution, reading one triangle of a ----

def _triangular_solve_eval(a, b, *, lower, unit):
    # Substitution, as BLAS trsm: a zero pivot gives inf/nan, not an error (PyTorch's rule).
    n = a.shape[-1]
    x = np.zeros(b.shape, b.dtype)
    for i in range(n) if lower else reversed(range(n)):
        done = slice(0, i) if lower else slice(i + 1, n)
        rhs = b[..., i, :] - (a[..., i:i + 1, done] @ x[..., done, :])[..., 0, :]
        x[..., i, :] = rhs if unit else rhs / a[..., i, i, None]
    return x


def _triangular_solve_vjp(g, x, a, b, *, lower, unit):
    gb = triangular_solve(mT(a), g, lower=not lower, unit=unit)
    return _triangle(E.neg(S.matmul(gb, mT(x))), lower, diagonal=not unit), gb


def _triangular_solve_jvp(tangents, x, a, b, *, lower, unit):
    # as solve's, with only the entries of a that the substitution reads
    ta, tb = tangents
    read = None if ta is None else _triangle(ta, lower, diagonal=not unit)
    rhs = _plus(tb, None if read is None else E.neg(S.matmul(read, x)))
    return triangular_solve(a, rhs, lower=lower, unit=unit)


triangular_solve = _prim("triangular_solve", _solve_rule, _triangular_solve_eval,
                         _triangular_solve_vjp, _triangular_solve_jvp, params=("lower", "unit"),
                         batch=_solve_batch("triangular_solve"))


# ---- cholesky: the lower factor, reading the lower triangle ----

def _cholesky_vjp(g, lower_factor, a):
    # Murray (2016): A-bar = L^-H phi(L^H g) L^-1, phi taking the lower triangle with half
    # the diagonal; the Hermitian part is the gradient with respect to the Hermitian matrix.
    inner = S.matmul(mH(lower_factor), g)
    i, j = grid(inner)
    phi = E.where(E.gt(i, j), inner, E.where(E.eq(i, j), E.mul(inner, 0.5), _zero(inner)))
    left = triangular_solve(mH(lower_factor), phi, lower=False, unit=False)
    both = mH(triangular_solve(mH(lower_factor), mH(left), lower=False, unit=False))
    return (fold(E.mul(E.add(both, mH(both)), 0.5), upper=False),)


def _cholesky_jvp(tangents, lower_factor, a):
    # dL = L phi(L^-1 dA L^-H), phi taking the lower triangle with half the diagonal; dA is
    # the Hermitian matrix of the lower triangle that numpy reads
    (ta,) = tangents
    left = triangular_solve(lower_factor, _symmetric(ta, upper=False), lower=True, unit=False)
    inner = triangular_solve(lower_factor, mH(left), lower=True, unit=False)  # Hermitian
    phi = E.sub(_triangle(inner, lower=True), E.mul(_diagonal_part(inner), 0.5))
    return S.matmul(lower_factor, phi)


cholesky = _prim("cholesky", _square_rule, np.linalg.cholesky, conjugated(_cholesky_vjp),
                 _cholesky_jvp)


# ---- det ----

def _det_rule(a):
    _matrices(a, square=True, complex_ok=True)
    return TensorType(a.shape[:-2], a.dtype)


def _adjugate_transposed(a):
    """adj(A)^T (det A * A^-T where A is invertible) from the SVD A = U S Vh:
    conj(conj(det(U) det(Vh)) U diag(p) Vh) with p_i the product of the other singular
    values, so singular matrices get their finite derivative too (PyTorch's answer)."""
    t = ir_type(a)
    n, batch = t.shape[-1], t.shape[:-2]
    u, s, vh = unpack(svd(a, full_matrices=False), svd_shapes(n, n, False))
    s = real_part(s)
    others = S.broadcast_to(S.reshape(s, shape=batch + (1, n)), shape=ir_type(u).shape)
    i, j = grid(others)
    one = E.full(value=1.0, shape=ir_type(others).shape, dtype=ir_type(others).dtype.name)
    p = E.exp(S.reduce_sum(E.log(E.where(E.eq(i, j), one, others)), axes=(t.rank - 1,),
                           keepdims=False))  # log 0 = -inf: a zero factor gives exactly 0
    sign = E.mul(unpack(slogdet(u), ((), ()))[0], unpack(slogdet(vh), ((), ()))[0])
    sign = E.conj(sign) if is_complex(sign) else sign
    adjugate = S.matmul(_scale_columns(u, E.mul(like(p, u), _per_matrix(sign, ir_type(p)))), vh)
    return E.conj(adjugate) if is_complex(adjugate) else adjugate


def _per_matrix(v, like):
    """A value per matrix (shape batch) broadcast over the last axis of `like`."""
    return S.broadcast_to(S.reshape(v, shape=like.shape[:-1] + (1,)), shape=like.shape)


def _det_vjp(g, d, a):
    t = ir_type(a)
    scale = S.broadcast_to(S.reshape(g, shape=t.shape[:-2] + (1, 1)), shape=t.shape)
    return (E.mul(scale, _adjugate_transposed(a)),)


def _det_jvp(tangents, d, a):
    # d det A = tr(adj(A) dA)
    (ta,) = tangents
    rank = ir_type(a).rank
    return S.reduce_sum(E.mul(_adjugate_transposed(a), ta), axes=(rank - 2, rank - 1),
                        keepdims=False)


det = _prim("det", _det_rule, np.linalg.det, _det_vjp, _det_jvp)


# ---- slogdet: packed (sign, log|det|) ----

def _slogdet_rule(a):
    _matrices(a, square=True, complex_ok=True)
    return _packed_type(a.shape[:-2], ((), ()), a.dtype)


def _slogdet_vjp(g, y, a):
    # With c = tr(A^-1 dA): d log|det A| = Re c and d sign = i Im(c) sign (a real sign is
    # piecewise constant), so the cotangent of c is Re(g_log) + i Im(g_sign sign). At a
    # singular matrix log|det| is -inf and has no gradient: the solve raises LinAlgError.
    g_sign, g_log = unpack(g, ((), ()))
    if is_complex(a):
        sign = unpack(y, ((), ()))[0]
        g_log = E.complex_(E.real(g_log), E.imag(E.mul(g_sign, sign)))
    t = ir_type(a)
    scale = S.broadcast_to(S.reshape(g_log, shape=t.shape[:-2] + (1, 1)), shape=t.shape)
    return (E.mul(scale, solve(mT(a), eye_like(a))),)


def _slogdet_jvp(tangents, y, a):
    # with c = tr(A^-1 dA): d log|det A| = Re c, d sign = i Im(c) sign (0 for a real sign)
    (ta,) = tangents
    c = _trace(solve(a, ta))
    if not is_complex(c):
        return pack_values([E.zeros_like(c), c], ir_type(a).shape[:-2])
    d_log = like(E.real(c), c)
    sign = unpack(y, ((), ()))[0]
    return pack_values([E.mul(sign, E.sub(c, d_log)), d_log], ir_type(a).shape[:-2])


slogdet = _prim("slogdet", _slogdet_rule,
                lambda a: pack(np.linalg.slogdet(a), a.shape[:-2]), _slogdet_vjp, _slogdet_jvp)


# ---- eigh: packed (eigenvalues, eigenvectors), reading one triangle ----

def _eigh_rule(a, *, upper):
    _matrices(a, square=True, complex_ok=True)
    n = a.shape[-1]
    return _packed_type(a.shape[:-2], ((n,), (n, n)), a.dtype)


def _eigh_vjp(g, y, a, *, upper):
    n = ir_type(a).shape[-1]
    w, v = unpack(y, ((n,), (n, n)))
    gw, gv = unpack(g, ((n,), (n, n)))
    inner = S.matmul(mH(v), gv)
    skew = E.mul(E.sub(inner, mH(inner)), 0.5)
    core = E.add(_diag_embed(gw), E.mul(like(_inverse_gaps(real_part(w)), v), skew))
    return (fold(S.matmul(S.matmul(v, core), mH(v)), upper),)


def _eigh_jvp(tangents, y, a, *, upper):
    # with M = V^H dA V (dA the Hermitian matrix of the triangle read): dw = diag(M),
    # dV = V (F o M), F_ij = 1 / (w_j - w_i) (0 on the diagonal and at repeated eigenvalues)
    (ta,) = tangents
    n = ir_type(a).shape[-1]
    w, v = unpack(y, ((n,), (n, n)))
    inner = S.matmul(S.matmul(mH(v), _symmetric(ta, upper)), v)
    dv = S.matmul(v, E.mul(like(_inverse_gaps(real_part(w)), v), inner))
    return pack_values([_diagonal(inner), dv], ir_type(a).shape[:-2])


eigh = _prim("eigh", _eigh_rule,
             lambda a, *, upper: pack(np.linalg.eigh(a, UPLO="U" if upper else "L"),
                                      a.shape[:-2]),
             conjugated(_eigh_vjp), _eigh_jvp, params=("upper",))


# ---- svd: packed (U, S, Vh) ----

def svd_shapes(m, n, full_matrices):
    k = min(m, n)
    return ((m, m if full_matrices else k), (k,), (n if full_matrices else k, n))


def _svd_rule(a, *, full_matrices):
    _matrices(a, complex_ok=True)
    return _packed_type(a.shape[:-2], svd_shapes(*a.shape[-2:], full_matrices), a.dtype)


def _svd_vjp(g, y, a, *, full_matrices):
    # Townsend (2016). With full_matrices the completing columns of U and rows of Vh are
    # not unique: their cotangents are ignored (as PyTorch does).
    m, n = ir_type(a).shape[-2:]
    k = min(m, n)
    shapes = svd_shapes(m, n, full_matrices)
    (u, s, vh), (gu, gs, gvh) = unpack(y, shapes), unpack(g, shapes)
    if full_matrices:
        u, gu, vh, gvh = _block(u, m, k), _block(gu, m, k), _block(vh, k, n), _block(gvh, k, n)
    v, gv, s = mH(vh), mH(gvh), real_part(s)
    gaps = like(_inverse_gaps(E.mul(s, s)), u)
    uu, vv = S.matmul(mH(u), gu), S.matmul(mH(v), gv)
    j_ = E.mul(gaps, E.sub(uu, mH(uu)))
    k_ = E.mul(gaps, E.sub(vv, mH(vv)))
    inv_s = like(_safe_reciprocal(s), u)
    s = like(s, u)
    # the phase of each pair of singular vectors: the JVP turns it with U alone
    core = E.add(E.add(_scale_columns(j_, s), _scale_rows(k_, s)),
                 E.add(_diag_embed(gs), _scale_columns(imaginary_diagonal(uu), inv_s)))
    ga = S.matmul(S.matmul(u, core), vh)
    if m > k:  # (I - U U^H) gU S^-1 V^H
        rest = E.sub(gu, S.matmul(u, uu))
        ga = E.add(ga, S.matmul(_scale_columns(rest, inv_s), vh))
    if n > k:  # U S^-1 gV^H (I - V V^H)
        rest = E.sub(mH(gv), S.matmul(mH(vv), vh))
        ga = E.add(ga, S.matmul(u, _scale_rows(rest, inv_s)))
    return (ga,)


def _block(x, rows, cols):
    """The leading rows x cols block of each matrix."""
    t = ir_type(x)
    return S.slice_(x, start=(0,) * t.rank, stop=t.shape[:-2] + (rows, cols), step=(1,) * t.rank)


def _svd_jvp(tangents, y, a, *, full_matrices):
    # With dP = U^H dA V and F_ij = 1 / (s_j^2 - s_i^2) (0 where equal): ds = Re diag(dP),
    # dU = U (F o (dP S + S dP^H) + i Im diag(dP) S^-1), dV = V (F o (S dP + dP^H S)), plus
    # the parts outside the spans for a non-square A: (I - U U^H) dA V S^-1 and
    # (I - V V^H) dA^H U S^-1. The phase term turns U alone, as JAX's rule. With
    # full_matrices the completing columns of U and rows of Vh get no tangent, as their
    # cotangents are ignored (they are not unique).
    (ta,) = tangents
    m, n = ir_type(a).shape[-2:]
    k = min(m, n)
    shapes = svd_shapes(m, n, full_matrices)
    u, s, vh = unpack(y, shapes)
    if full_matrices:
        u, vh = _block(u, m, k), _block(vh, k, n)
    v, s = mH(vh), real_part(s)
    dp = S.matmul(S.matmul(mH(u), ta), v)
    gaps = like(_inverse_gaps(E.mul(s, s)), u)
    inv_s = like(_safe_reciprocal(s), u)
    s = like(s, u)
    du = S.matmul(u, E.add(E.mul(gaps, E.add(_scale_columns(dp, s), _scale_rows(mH(dp), s))),
                           _scale_columns(imaginary_diagonal(dp), inv_s)))
    dv = S.matmul(v, E.mul(gaps, E.add(_scale_rows(dp, s), _scale_columns(mH(dp), s))))
    if m > k:
        dav = S.matmul(ta, v)
        du = E.add(du, _scale_columns(E.sub(dav, S.matmul(u, dp)), inv_s))
    if n > k:
        dau = S.matmul(mH(ta), u)
        dv = E.add(dv, _scale_columns(E.sub(dau, S.matmul(v, mH(dp))), inv_s))
    dvh = mH(dv)
    if full_matrices:
        du, dvh = _padded(du, m, m), _padded(dvh, n, n)
    ds = _diagonal(dp)
    return pack_values([du, like(real_part(ds), ds), dvh], ir_type(a).shape[:-2])


def _padded(x, rows, cols):
    """x in the leading block of rows x cols matrices of zeros."""
    t = ir_type(x)
    extra = (0,) * (t.rank - 2) + (rows - t.shape[-2], cols - t.shape[-1])
    return S.pad(x, low=(0,) * t.rank, high=extra, interior=(0,) * t.rank, value=0.0)


svd = _prim("svd", _svd_rule,
            lambda a, *, full_matrices: pack(np.linalg.svd(a, full_matrices=full_matrices),
                                             a.shape[:-2]),
            conjugated(_svd_vjp), _svd_jvp, params=("full_matrices",))
