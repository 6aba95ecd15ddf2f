"""Student's t distribution's pdf, logpdf, cdf and logcdf (scipy.stats.t's). The cdf comes
from the incomplete beta function, differentiable in x, loc and scale (not df, as in
autograd)."""
from __future__ import annotations

import math

import numpy as np

from gradjit.ir.elementwise import stop_gradient
from gradjit.scipy.special import betainc, gammaln


def logpdf(x, df, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    return (gammaln((df + 1.0) / 2.0) - gammaln(df / 2.0) - 0.5 * np.log(df * math.pi)
            - np.log(scale) - (df + 1.0) / 2.0 * np.log1p(y ** 2 / df))


def pdf(x, df, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, df, loc, scale))


def cdf(x, df, loc=0.0, scale=1.0):
    """Half the incomplete beta function at df / (df + y^2) is the tail beyond |y|."""
    y, df = (x - loc) / scale, stop_gradient(np.asarray(df, np.float64))
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + y ** 2))
    return np.where(np.greater(y, 0.0), 1.0 - tail, tail)


def logcdf(x, df, loc=0.0, scale=1.0):
    return np.log(cdf(x, df, loc, scale))
