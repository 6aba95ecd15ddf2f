"""The LU factorization with partial pivoting (LAPACK's getrf) as a library primitive: A = P L U
packed as (LU, pivots), LU holding L's strict lower triangle over U, pivots 1-based row swaps
kept as floats inside the packed value. Gradients by the rules of the square, wide and tall
cases, written with primitives; the permutation P is rebuilt from the pivots by primitives."""
from __future__ import annotations

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.linalg import (_block, _matrices, _packed_type, _prim, _triangle, eye_like, mT,
                               pack, pack_values, real_part, triangular_solve, unpack)
from gradjit.ir.primitive import ir_type


def lu_shapes(m, n):
    return ((m, n), (min(m, n),))


def _magnitude(x):
    """The size LAPACK's pivot search compares: |re| + |im| for complex entries (izamax)."""
    return np.abs(x.real) + np.abs(x.imag) if np.iscomplexobj(x) else np.abs(x)


def getrf(a):
    """(LU, 1-based pivots) by LAPACK's rule: the first entry of largest magnitude in each
    column is the pivot; a zero column is skipped (the matrix is singular), not an error."""
    m, n = a.shape[-2:]
    batch = a.shape[:-2]
    lu = np.array(a, copy=True).reshape((int(np.prod(batch)), m, n))
    rows = np.arange(lu.shape[0])
    pivots = np.zeros((lu.shape[0], min(m, n)), a.dtype)
    for j in range(min(m, n)):
        p = j + np.argmax(_magnitude(lu[:, j:, j]), axis=-1)
        pivots[:, j] = p + 1
        lu[rows, j], lu[rows, p] = lu[rows, p], lu[rows, j].copy()
        pivot = lu[:, j, j]
        lu[:, j + 1:, j] /= np.where(pivot == 0, 1, pivot)[:, None]
        lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j:j + 1] * lu[:, j:j + 1, j + 1:]
    return lu.reshape(batch + (m, n)), pivots.reshape(batch + (min(m, n),))


def permutation(pivots, m, dtype):
    """P (..., m, m) with A = P L U from getrf's 1-based pivots (..., k): the row swaps replayed
    on the order of the rows, by primitives, so it also runs traced."""
    t = ir_type(pivots)
    batch, k = t.shape[:-1], t.shape[-1]
    order = S.iota(shape=batch + (m,), dtype="i64", axis=len(batch))
    at = S.iota(shape=batch + (m,), dtype="i64", axis=len(batch))
    swaps = E.sub(E.cast(real_part(pivots), dtype="i64"),  # complex A packs them complex
                  E.full(value=1, shape=t.shape, dtype="i64"))
    for j in range(k):
        target = S.broadcast_to(S.slice_(swaps, start=(0,) * len(batch) + (j,),
                                         stop=batch + (j + 1,), step=(1,) * t.rank),
                                shape=batch + (m,))
        is_target = E.eq(at, target)
        moved = S.reduce_sum(E.where(is_target, order, E.zeros_like(order)), axes=(len(batch),),
                             keepdims=True)
        current = S.slice_(order, start=(0,) * len(batch) + (j,), stop=batch + (j + 1,),
                           step=(1,) * t.rank)
        spread = (S.broadcast_to(x, shape=batch + (m,)) for x in (moved, current))
        moved, current = spread
        order = E.where(E.eq(at, E.full(value=j, shape=batch + (m,), dtype="i64")), moved,
                        E.where(is_target, current, order))
    rows = S.iota(shape=batch + (m, m), dtype="i64", axis=len(batch))
    columns = S.broadcast_to(S.reshape(order, shape=batch + (1, m)), shape=batch + (m, m))
    return E.cast(E.eq(rows, columns), dtype=dtype)


def factors(lu):
    """(L, U) of a compact LU: L unit lower (m, k), U upper (k, n)."""
    m, n = ir_type(lu).shape[-2:]
    k = min(m, n)
    lower = E.add(_triangle(_block(lu, m, k), lower=True, diagonal=False), eye_like(
        _block(lu, m, k)))
    return lower, _triangle(_block(lu, k, n), lower=False)


def _columns(x, start, stop):
    t = ir_type(x)
    return S.slice_(x, start=(0,) * (t.rank - 1) + (start,), stop=t.shape[:-1] + (stop,),
                    step=(1,) * t.rank)


def _rows(x, start, stop):
    return mT(_columns(mT(x), start, stop))


def _solve_lower(lower, y):
    """L^-1 y, L unit lower."""
    return triangular_solve(lower, y, lower=True, unit=True)


def _right_upper(y, upper):
    """y U^-1."""
    return mT(triangular_solve(mT(upper), mT(y), lower=True, unit=False))


def _square_vjp(lower, upper, gl, gu):
    """A = L U square: gA = L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T."""
    inner = E.add(_triangle(S.matmul(mT(lower), gl), lower=True, diagonal=False),
                  _triangle(S.matmul(gu, mT(upper)), lower=False))
    left = triangular_solve(mT(lower), inner, lower=False, unit=True)
    return mT(triangular_solve(upper, mT(left), lower=False, unit=False))


def _square_jvp(lower, upper, da):
    """A = L U square: X = L^-1 dA U^-1, dL = L tril(X, -1), dU = triu(X) U."""
    x = _right_upper(_solve_lower(lower, da), upper)
    return (S.matmul(lower, _triangle(x, lower=True, diagonal=False)),
            S.matmul(_triangle(x, lower=False), upper))


def _lu_factor_vjp(g, y, a):
    m, n = ir_type(a).shape[-2:]
    k = min(m, n)
    lu, pivots = unpack(y, lu_shapes(m, n))
    g_lu, _ = unpack(g, lu_shapes(m, n))  # the pivots are piecewise constant
    lower, upper = factors(lu)
    gl = _triangle(_block(g_lu, m, k), lower=True, diagonal=False)
    gu = _triangle(_block(g_lu, k, n), lower=False)
    p = permutation(pivots, m, ir_type(a).dtype.name)
    if m < n:  # A = P L [U1 | U2]: U2 = L^-1 P^T A2 feeds back into L
        u1, u2, gu1, gu2 = (_columns(x, s, e) for x, s, e in ((upper, 0, m), (upper, m, n),
                                                              (gu, 0, m), (gu, m, n)))
        ga2 = triangular_solve(mT(lower), gu2, lower=False, unit=True)
        gl = E.sub(gl, S.matmul(ga2, mT(u2)))
        gb = S.concatenate(_square_vjp(lower, u1, gl, gu1), ga2, axis=ir_type(a).rank - 1)
    elif m > n:  # P^T A = [L1; L2] U: L2 = B2 U^-1 feeds back into U
        l1, l2, gl1, gl2 = (_rows(x, s, e) for x, s, e in ((lower, 0, n), (lower, n, m),
                                                           (gl, 0, n), (gl, n, m)))
        gb2 = mT(triangular_solve(upper, mT(gl2), lower=False, unit=False))
        gu = E.sub(gu, S.matmul(mT(l2), gb2))
        gb = S.concatenate(_square_vjp(l1, upper, gl1, gu), gb2, axis=ir_type(a).rank - 2)
    else:
        gb = _square_vjp(lower, upper, gl, gu)
    return (S.matmul(p, gb),)


def _lu_factor_jvp(tangents, y, a):
    (ta,) = tangents
    m, n = ir_type(a).shape[-2:]
    lu, pivots = unpack(y, lu_shapes(m, n))
    lower, upper = factors(lu)
    db = S.matmul(mT(permutation(pivots, m, ir_type(a).dtype.name)), ta)
    rank = ir_type(a).rank
    if m < n:
        u2 = _columns(upper, m, n)
        dl, du1 = _square_jvp(lower, _columns(upper, 0, m), _columns(db, 0, m))
        du2 = _solve_lower(lower, E.sub(_columns(db, m, n), S.matmul(dl, u2)))
        d_lu = E.add(S.concatenate(dl, E.zeros_like(u2), axis=rank - 1),
                     S.concatenate(du1, du2, axis=rank - 1))
    elif m > n:
        l2 = _rows(lower, n, m)
        dl1, du = _square_jvp(_rows(lower, 0, n), upper, _rows(db, 0, n))
        dl2 = _right_upper(E.sub(_rows(db, n, m), S.matmul(l2, du)), upper)
        d_lu = E.add(S.concatenate(dl1, dl2, axis=rank - 2),
                     S.concatenate(du, E.zeros_like(l2), axis=rank - 2))
    else:
        d_lu = E.add(*_square_jvp(lower, upper, db))
    return pack_values([d_lu, E.zeros_like(pivots)], ir_type(a).shape[:-2])


def _lu_factor_rule(a):
    _matrices(a, complex_ok=True)
    return _packed_type(a.shape[:-2], lu_shapes(*a.shape[-2:]), a.dtype)


lu_factor = _prim("lu_factor", _lu_factor_rule, lambda a: pack(getrf(a), a.shape[:-2]),
                  _lu_factor_vjp, _lu_factor_jvp)
