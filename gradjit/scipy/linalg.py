"""autograd.scipy.linalg: cholesky, cho_factor/cho_solve, solve_triangular and solve_banded
traced through numpy's linear algebra; sqrtm, expm and solve_sylvester are scipy's as
primitives with rules for both modes. Other scipy.linalg names are scipy's own, not
differentiated."""
from __future__ import annotations

import numpy as np
import scipy.linalg

from gradjit.tracer.hips import defjvp, defvjp, primitive

_TRANSPOSED = {0: False, "N": False, 1: True, "T": True, 2: True, "C": True}


def _t(a):
    return np.swapaxes(a, -1, -2)


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor of a (its lower triangle read), upper unless `lower`."""
    factor = np.linalg.cholesky(a)
    return factor if lower else _t(factor)


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     check_finite=True):
    """x with a x = b (a.T x = b for trans 1 or 'T'), reading only a's triangle."""
    triangle = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        triangle = triangle - np.diag(np.diagonal(triangle)) + np.eye(np.shape(a)[-1])
    return np.linalg.solve(_t(triangle) if _TRANSPOSED[trans] else triangle, b)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    return cholesky(a, lower), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """x with a x = b, from cho_factor's (factor, lower)."""
    factor, lower = c_and_lower
    first = solve_triangular(factor, b, trans=0 if lower else 1, lower=lower)
    return solve_triangular(factor, first, trans=1 if lower else 0, lower=lower)


def solve_banded(l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, check_finite=True):
    """x with a x = b, a given by its diagonals in LAPACK's banded storage:
    a[i, j] = ab[u + i - j, j] (the unused corners of ab are not read)."""
    lower, upper = l_and_u
    n = np.shape(ab)[-1]
    if np.shape(ab)[0] != lower + upper + 1:
        raise ValueError(f"invalid values for the number of lower and upper diagonals: "
                         f"l+u+1 ({lower + upper + 1}) does not equal ab.shape[0] "
                         f"({np.shape(ab)[0]})")
    i, j = np.indices((n, n))
    row = upper + i - j
    inside = (row >= 0) & (row <= lower + upper)
    dense = np.where(inside, ab[np.clip(row, 0, lower + upper), j], 0)
    return np.linalg.solve(dense, b)


solve_sylvester = primitive(scipy.linalg.solve_sylvester)
sqrtm = primitive(scipy.linalg.sqrtm)


def _sylvester_vjp(argnum):
    """a x + x b = q: q's cotangent u solves a.T u + u b.T = g; a's is -u x.T, b's -x.T u."""
    def maker(ans, a, b, q):
        def vjp(g):
            u = solve_sylvester(_t(a), _t(b), g)
            return (-u @ _t(ans), -_t(ans) @ u, u)[argnum]
        return vjp
    return maker


defvjp(solve_sylvester, *(_sylvester_vjp(i) for i in range(3)))
# a dx + dx b = dq - da x - x db
defjvp(solve_sylvester, lambda g, ans, a, b, q: solve_sylvester(a, b, -g @ ans),
       lambda g, ans, a, b, q: solve_sylvester(a, b, -ans @ g),
       lambda g, ans, a, b, q: solve_sylvester(a, b, g))
defvjp(sqrtm, lambda ans, a: lambda g: np.real(solve_sylvester(_t(ans), _t(ans), g)))
defjvp(sqrtm, lambda g, ans, a: solve_sylvester(ans, ans, g))  # ds s + s ds = da


expm = primitive(scipy.linalg.expm)


def _expm_frechet(a, e):
    """The derivative of expm at a in the direction e: the upper right block of
    expm([[a, e], [0, a]]). Written with expm itself, so it is differentiated again."""
    n = np.shape(a)[-1]
    block = np.concatenate([np.concatenate([a, e], axis=-1),
                            np.concatenate([np.zeros_like(a), a], axis=-1)], axis=-2)
    return expm(block)[..., :n, n:]


defvjp(expm, lambda ans, a: lambda g: _expm_frechet(_t(a), g))
defjvp(expm, lambda g, ans, a: _expm_frechet(a, g))


def __getattr__(name):
    return getattr(scipy.linalg, name)
