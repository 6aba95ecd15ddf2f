"""The multivariate normal's pdf, logpdf (x's last axis holds the coordinates) and entropy
(scipy.stats.multivariate_normal's). A singular covariance (allow_singular) is handled as
scipy does, through its eigenvalues: the pseudo-inverse and pseudo-determinant."""
from __future__ import annotations

import math

import numpy as np

_LOG_2PI = math.log(2 * math.pi)


def _symmetric(cov):
    """cov's symmetric part: the same matrix, whose gradient is symmetric (autograd's)."""
    return 0.5 * (cov + np.swapaxes(cov, -1, -2))


def _regular(diff, cov):
    """(Mahalanobis distances, log det, rank) through the Cholesky factor."""
    chol = np.linalg.cholesky(cov)
    solved = np.linalg.solve(chol, np.reshape(diff, (-1, np.shape(cov)[-1])).T)
    distances = np.reshape(np.sum(solved ** 2, axis=0), np.shape(diff)[:-1])
    return distances, 2.0 * np.sum(np.log(np.diagonal(chol))), np.shape(cov)[-1]


def _singular(diff, cov):
    """The same through the eigenvalues above scipy's cutoff (the others count as 0)."""
    values, vectors = np.linalg.eigh(cov)
    cutoff = 1e6 * np.finfo(np.float64).eps * np.max(np.abs(values))
    kept = np.greater(values, cutoff)
    inverse = np.where(kept, 1.0 / np.where(kept, values, 1.0), 0.0)
    distances = np.sum(np.matmul(diff, vectors) ** 2 * inverse, axis=-1)
    log_det = np.sum(np.log(np.where(kept, values, 1.0)))
    return distances, log_det, int(np.sum(kept))


def logpdf(x, mean=None, cov=1, allow_singular=False):
    cov = _symmetric(np.atleast_2d(cov))
    diff = x - (0.0 if mean is None else mean)
    if np.shape(cov)[-1] == 1 and np.shape(diff)[-1:] != (1,):
        diff = np.expand_dims(diff, -1)  # scalar coordinates of a one-dimensional normal
    distances, log_det, rank = (_singular if allow_singular else _regular)(diff, cov)
    return -0.5 * (distances + log_det + rank * _LOG_2PI)


def pdf(x, mean=None, cov=1, allow_singular=False):
    return np.exp(logpdf(x, mean, cov, allow_singular))


def entropy(mean=None, cov=1):
    cov = _symmetric(np.atleast_2d(cov))
    return 0.5 * (np.shape(cov)[-1] * (1.0 + _LOG_2PI) + np.linalg.slogdet(cov)[1])
