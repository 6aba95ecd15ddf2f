"""The Dirichlet distribution's pdf and logpdf (scipy.stats.dirichlet's: x's first axis holds
the components), differentiable in x and alpha; rvs is scipy's."""
from __future__ import annotations

import numpy as np
import scipy.stats

from gradjit.scipy.special import gammaln

rvs = scipy.stats.dirichlet.rvs


def logpdf(x, alpha):
    weights = np.reshape(alpha - 1.0, np.shape(alpha) + (1,) * (np.ndim(x) - 1))
    return (np.sum(weights * np.log(x), axis=0) + gammaln(np.sum(alpha))
            - np.sum(gammaln(alpha)))


def pdf(x, alpha):
    return np.exp(logpdf(x, alpha))
