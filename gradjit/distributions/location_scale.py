"""Exponential, Laplace, Cauchy, Gumbel, HalfNormal and LogNormal with PyTorch's formulas for
samples (reparameterized, drawn as PyTorch draws them), log densities, CDFs, entropies and
moments."""
from __future__ import annotations

import math

import numpy as np

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.continuous import LocationScale, Normal
from gradjit.distributions.distribution import Distribution, broadcast_all, finfo

_EULER = 0.57721566490153286060


class Exponential(Distribution):
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return gradjit.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        draws = gradjit.empty(self._extended_shape(sample_shape), dtype=self.rate.dtype)
        return draws.exponential_() / self.rate

    def log_prob(self, value):
        value = self._checked(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        return 1 - gradjit.exp(-self.rate * self._checked(value))

    def icdf(self, value):
        return -gradjit.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - gradjit.log(self.rate)


class Laplace(LocationScale):
    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape=()):
        eps = finfo(self.loc).eps
        u = gradjit.empty(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        u = u.uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * gradjit.log1p(-u.abs())

    def log_prob(self, value):
        value = self._checked(value)
        return -gradjit.log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        value = self._checked(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * gradjit.expm1(
            -(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * gradjit.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + gradjit.log(2 * self.scale)


class Cauchy(LocationScale):
    @property
    def mean(self):
        return gradjit.full(tuple(self._extended_shape()), math.nan, dtype=self.loc.dtype)

    @property
    def variance(self):
        return gradjit.full(tuple(self._extended_shape()), math.inf, dtype=self.loc.dtype)

    def rsample(self, sample_shape=()):
        eps = gradjit.empty(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.loc + eps.cauchy_() * self.scale

    def log_prob(self, value):
        value = self._checked(value)
        return -math.log(math.pi) - self.scale.log() - (
            ((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        value = self._checked(value)
        return gradjit.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return gradjit.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()


class Gumbel(LocationScale):
    @property
    def mean(self):
        return self.loc + self.scale * _EULER

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def rsample(self, sample_shape=()):
        info = np.finfo(np.float64 if self.loc.dtype == gradjit.float64 else np.float32)
        u = gradjit.empty(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        u = u.uniform_(float(info.tiny), 1 - float(info.eps))
        return self.loc - self.scale * gradjit.log(-gradjit.log(u))

    def log_prob(self, value):
        z = (self._checked(value) - self.loc) / self.scale
        return -(self.scale.log() + z + gradjit.exp(-z))

    def cdf(self, value):
        return gradjit.exp(-gradjit.exp(-(self._checked(value) - self.loc) / self.scale))

    def icdf(self, value):
        return self.loc - self.scale * gradjit.log(-gradjit.log(value))

    def entropy(self):
        return self.scale.log() + (1 + _EULER)


class HalfNormal(Distribution):
    """|x| of x ~ Normal(0, scale)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        (self.scale,) = broadcast_all(scale)
        self._base = Normal(gradjit.zeros_like(self.scale), self.scale, validate_args=False)
        super().__init__(self.scale.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        return gradjit.zeros_like(self.scale)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def rsample(self, sample_shape=()):
        return self._base.rsample(sample_shape).abs()

    def log_prob(self, value):
        value = self._checked(value)
        density = self._base.log_prob(value) + math.log(2)
        return gradjit.where(value >= 0, density, -math.inf)

    def cdf(self, value):
        return 2 * self._base.cdf(self._checked(value)) - 1

    def icdf(self, prob):
        return self._base.icdf((prob + 1) / 2)

    def entropy(self):
        return self._base.entropy() - math.log(2)


class LogNormal(Distribution):
    """exp(x) of x ~ Normal(loc, scale)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        self._base = Normal(self.loc, self.scale, validate_args=False)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def rsample(self, sample_shape=()):
        return self._base.rsample(sample_shape).exp()

    def log_prob(self, value):
        value = self._checked(value)
        log_value = value.log()
        return self._base.log_prob(log_value) - log_value

    def cdf(self, value):
        return self._base.cdf(self._checked(value).log())

    def icdf(self, value):
        return self._base.icdf(value).exp()

    def entropy(self):
        return self._base.entropy() + self.loc
