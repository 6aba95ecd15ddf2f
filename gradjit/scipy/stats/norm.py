"""The normal distribution's pdf, logpdf, cdf, logcdf, sf and logsf (scipy.stats.norm's)."""
from __future__ import annotations

import math

import numpy as np

from gradjit.ops.special import log_ndtr, ndtr

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _z(x, loc, scale):
    return (x - loc) / scale


def logpdf(x, loc=0.0, scale=1.0):
    return -0.5 * _z(x, loc, scale) ** 2 - np.log(scale) - _HALF_LOG_2PI


def pdf(x, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    return ndtr(_z(x, loc, scale))


def logcdf(x, loc=0.0, scale=1.0):
    return log_ndtr(_z(x, loc, scale))


def sf(x, loc=0.0, scale=1.0):
    return ndtr(-_z(x, loc, scale))


def logsf(x, loc=0.0, scale=1.0):
    return log_ndtr(-_z(x, loc, scale))
