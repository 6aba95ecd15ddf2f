"""The QR factorization as a library primitive: (Q, R) packed as linalg's factorizations are,
real or complex, with the reduced and complete modes of numpy and its rules for tall and wide
matrices."""
from __future__ import annotations

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.linalg import (_block, _matrices, _packed_type, _prim, _triangle, conjugated,
                               grid, imaginary_diagonal, mH, pack, pack_values,
                               triangular_solve, unpack)
from gradjit.ir.primitive import ir_type


def qr_shapes(m, n, complete):
    k = m if complete else min(m, n)
    return ((m, k), (k, n))


def _qr_rule(a, *, complete):
    _matrices(a, complex_ok=True)
    return _packed_type(a.shape[:-2], qr_shapes(*a.shape[-2:], complete), a.dtype)


def _qr_tall_vjp(q, r, gq, gr):
    """A = QR with M >= N (R square), in PyTorch's pairing: gA = (gQ + Q C) R^-H with C the
    Hermitian matrix whose lower triangle is M's, M = R gR^H - gQ^H Q (its diagonal's real
    part: the phases of R's diagonal are fixed)."""
    mid = E.sub(S.matmul(r, mH(gr)), S.matmul(mH(gq), q))
    i, j = grid(mid)
    lower = E.where(E.ge(i, j), mid, mH(mid))
    b = E.add(gq, S.matmul(q, E.mul(E.add(lower, mH(lower)), 0.5)))
    return mH(triangular_solve(r, mH(b), lower=False, unit=False))


def _check_qr(m, n, complete):
    if complete and m > n:
        raise ValueError("the gradient of qr(mode='complete') needs M <= N: the columns "
                         "completing Q are not unique")


def _right_block(x, m, n):
    """The columns m: of each matrix (the part of a wide A beyond its square block)."""
    t = ir_type(x)
    return S.slice_(x, start=(0,) * (t.rank - 1) + (m,), stop=t.shape[:-2] + (m, n),
                    step=(1,) * t.rank)


def _qr_vjp(g, y, a, *, complete):
    m, n = ir_type(a).shape[-2:]
    _check_qr(m, n, complete)
    shapes = qr_shapes(m, n, complete)
    q, r = unpack(y, shapes)
    gq, gr = unpack(g, shapes)
    if m >= n:
        return (_qr_tall_vjp(q, r, gq, gr),)
    # A = [X | Y] with X square: X = Q U, Y = Q V (Walter and Lehmann's wide case).
    y_part, gv = _right_block(a, m, n), _right_block(gr, m, n)
    gx = _qr_tall_vjp(q, _block(r, m, m), E.add(gq, S.matmul(y_part, mH(gv))), _block(gr, m, m))
    return (S.concatenate(gx, S.matmul(q, gv), axis=ir_type(a).rank - 1),)


def _qr_tall_jvp(q, r, ta):
    """A = QR with M >= N (R square). With C = Q^H dA R^-1, Q^H dQ is the skew-Hermitian
    Omega whose strictly lower triangle is C's and whose diagonal is C's imaginary part
    (dR R^-1 is upper triangular with a real diagonal): dQ = Q (Omega - C) + dA R^-1,
    dR = (C - Omega) R."""
    da_rinv = mH(triangular_solve(mH(r), mH(ta), lower=True, unit=False))
    c = S.matmul(mH(q), da_rinv)
    below = _triangle(c, lower=True, diagonal=False)
    omega = E.add(E.sub(below, mH(below)), imaginary_diagonal(c))
    dq = E.add(S.matmul(q, E.sub(omega, c)), da_rinv)
    return dq, S.matmul(E.sub(c, omega), r)


def _qr_jvp(tangents, y, a, *, complete):
    (ta,) = tangents
    m, n = ir_type(a).shape[-2:]
    _check_qr(m, n, complete)
    q, r = unpack(y, qr_shapes(m, n, complete))
    batch = ir_type(a).shape[:-2]
    if m >= n:
        return pack_values(_qr_tall_jvp(q, r, ta), batch)
    # A = [X | Y] with X square: X = Q U by the square rule, Y = Q V so dV = dQ^H Y + Q^H dY
    dq, du = _qr_tall_jvp(q, _block(r, m, m), _block(ta, m, m))
    dv = E.add(S.matmul(mH(dq), _right_block(a, m, n)), S.matmul(mH(q), _right_block(ta, m, n)))
    return pack_values([dq, S.concatenate(du, dv, axis=ir_type(a).rank - 1)], batch)


qr = _prim("qr", _qr_rule,
           lambda a, *, complete: pack(np.linalg.qr(a, mode="complete" if complete
                                                    else "reduced"), a.shape[:-2]),
           conjugated(_qr_vjp), _qr_jvp, params=("complete",))
