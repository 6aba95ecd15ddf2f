"""The Poisson distribution's pmf, logpmf and cdf (scipy.stats.poisson's), differentiable in
the mean mu."""
from __future__ import annotations

import numpy as np

from gradjit.ops.special import xlogy
from gradjit.scipy.special import gammaincc, gammaln


def logpmf(k, mu, loc=0):
    k = np.subtract(k, loc)
    return xlogy(k, mu) - gammaln(k + 1.0) - mu


def pmf(k, mu, loc=0):
    return np.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    """P(K <= k) = Q(floor(k) + 1, mu), 0 below 0."""
    k = np.floor(np.subtract(k, loc))
    return np.where(np.less(k, 0.0), 0.0, gammaincc(np.maximum(k, 0.0) + 1.0, mu))
