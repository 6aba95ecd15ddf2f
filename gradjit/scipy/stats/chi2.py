"""The chi-squared distribution's pdf, logpdf and cdf (scipy.stats.chi2's): the gamma
distribution of shape df / 2 and scale 2."""
from __future__ import annotations

from gradjit.scipy.stats import gamma


def logpdf(x, df, loc=0.0, scale=1.0):
    return gamma.logpdf(x, df / 2.0, loc, 2.0 * scale)


def pdf(x, df, loc=0.0, scale=1.0):
    return gamma.pdf(x, df / 2.0, loc, 2.0 * scale)


def cdf(x, df, loc=0.0, scale=1.0):
    return gamma.cdf(x, df / 2.0, loc, 2.0 * scale)
