"""The beta distribution's pdf, logpdf and cdf (scipy.stats.beta's); the cdf is
differentiable in x (not a and b, as in autograd)."""
from __future__ import annotations

import numpy as np

from gradjit.ir.elementwise import stop_gradient
from gradjit.scipy.special import betainc, betaln


def logpdf(x, a, b, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    return (a - 1.0) * np.log(y) + (b - 1.0) * np.log1p(-y) - betaln(a, b) - np.log(scale)


def pdf(x, a, b, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, a, b, loc, scale))


def cdf(x, a, b, loc=0.0, scale=1.0):
    a, b = (stop_gradient(np.asarray(v, np.float64)) for v in (a, b))
    return betainc(a, b, (x - loc) / scale)
