"""eig: the eigenvalues and right eigenvectors of general square matrices (real or complex),
complex, packed as linalg's factorizations are (eigenvalues, then eigenvectors as columns).

The JVP is JAX's: with M = V^-1 dA V, dw = diag(M) and dV = V (F o M), F_ij = 1 / (w_j - w_i),
less the part along each unit-norm column V_j (numpy normalizes them). The VJP is its
transpose under JAX's pairing Re(sum(a b)). Like JAX's and PyTorch's, the eigenvector part
holds for functions that do not depend on the phase of each eigenvector (LAPACK fixes it by
its own rule)."""
from __future__ import annotations

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.linalg import (_diag_embed, _diagonal, _inverse_gaps, _packed_type, _prim, mT,
                               pack, pack_values, solve, unpack)
from gradjit.ir.primitive import ir_type, require
from gradjit.ir.types import complex_of


def _shapes(a):
    n = ir_type(a).shape[-1]
    return ((n,), (n, n))


def _eig_rule(a):
    require(a.rank >= 2 and a.dtype.is_inexact and a.shape[-1] == a.shape[-2],
            f"operand must be a stack of square float or complex matrices, not {a}")
    n = a.shape[-1]
    return _packed_type(a.shape[:-2], ((n,), (n, n)), complex_of(a.dtype))


def _eig_eval(a):
    w, v = np.linalg.eig(a)
    dt = np.result_type(a.dtype, np.complex64)
    return pack((w.astype(dt), v.astype(dt)), a.shape[:-2])


def _column_sums(x):
    """sum over rows, kept as a row: x[..., i, j] summed over i, shape (..., 1, n)."""
    return S.reduce_sum(x, axes=(ir_type(x).rank - 2,), keepdims=True)


def _along_rows(row, like):
    return S.broadcast_to(row, shape=ir_type(like).shape)


def _eig_jvp(tangents, y, a):
    (ta,) = tangents
    w, v = unpack(y, _shapes(a))
    ta = E.cast(ta, dtype=ir_type(v).dtype.name)
    m = S.matmul(solve(v, ta), v)
    du = S.matmul(v, E.mul(_inverse_gaps(w), m))
    along = E.real(_column_sums(E.mul(E.conj(v), du)))
    dv = E.sub(du, E.mul(v, E.cast(_along_rows(along, v), dtype=ir_type(v).dtype.name)))
    return pack_values([_diagonal(m), dv], ir_type(a).shape[:-2])


def _eig_vjp(g, y, a):
    w, v = unpack(y, _shapes(a))
    gw, gv = unpack(g, _shapes(a))
    along = E.real(_column_sums(E.mul(gv, v)))
    gdu = E.sub(gv, E.mul(E.conj(v), E.cast(_along_rows(along, v), dtype=ir_type(v).dtype.name)))
    gm = E.add(_diag_embed(gw), E.mul(_inverse_gaps(w), S.matmul(mT(v), gdu)))
    ga = solve(mT(v), S.matmul(gm, mT(v)))
    return (ga if ir_type(a).dtype.is_complex else E.real(ga),)


eig = _prim("eig", _eig_rule, _eig_eval, _eig_vjp, _eig_jvp)
