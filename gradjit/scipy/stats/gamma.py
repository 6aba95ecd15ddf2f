"""The gamma distribution's pdf, logpdf and cdf (scipy.stats.gamma's, shape a); the cdf is
differentiable in x (not a, as in autograd)."""
from __future__ import annotations

import numpy as np

from gradjit.ir.elementwise import stop_gradient
from gradjit.scipy.special import gammainc, gammaln


def logpdf(x, a, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    return (a - 1.0) * np.log(y) - y - gammaln(a) - np.log(scale)


def pdf(x, a, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0.0, scale=1.0):
    return gammainc(stop_gradient(np.asarray(a, np.float64)), (x - loc) / scale)
