"""Exponential, Laplace, Cauchy and GeneralizedPareto with PyTorch's formulas for samples
(reparameterized, drawn as PyTorch draws them), log densities, CDFs, entropies and moments."""
from __future__ import annotations

import math


import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.continuous import LocationScale
from gradjit.distributions.distribution import Distribution, broadcast_all, finfo
from gradjit.distributions.exp_family import ExponentialFamily


class Exponential(ExponentialFamily):
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -gradjit.log(-x)

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


class GeneralizedPareto(Distribution):
    """Peaks over a threshold: loc, scale and a concentration (shape) of either sign; zero
    concentration is the exponential case, taken apart so both branches stay finite."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        numbers = not any(gradjit.is_tensor(v) for v in (loc, scale, concentration))
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(() if numbers else self.loc.shape, validate_args=validate_args)

    def _split(self):
        """(concentration == 0, the concentration with 1 in place of those zeros)."""
        zero = gradjit.isclose(self.concentration, gradjit.zeros_like(self.concentration))
        return zero, gradjit.where(zero, 1.0, self.concentration)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return self.icdf(gradjit.rand(*shape, dtype=self.loc.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, conc = self._split()
        y = 1 / conc + gradjit.ones_like(z)
        nonzero = gradjit.where(y == 0, y, y * gradjit.log1p(conc * z))
        return -self.scale.log() - gradjit.where(zero, z, nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, conc = self._split()
        return gradjit.where(zero, -z, -gradjit.log1p(conc * z) / conc)

    def log_cdf(self, value):
        return gradjit.log1p(-gradjit.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return gradjit.exp(self.log_cdf(value))

    def icdf(self, value):
        zero, conc = self._split()
        log_u = gradjit.log1p(-value)
        nonzero = self.loc + self.scale / conc * gradjit.expm1(-conc * log_u)
        return gradjit.where(zero, self.loc - self.scale * log_u, nonzero)

    @property
    def mean(self):
        valid = self.concentration < 1
        conc = gradjit.where(valid, self.concentration, 0.5)
        return gradjit.where(valid, self.loc + self.scale / (1 - conc), math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        conc = gradjit.where(valid, self.concentration, 0.25)
        return gradjit.where(valid, self.scale ** 2 / ((1 - conc) ** 2 * (1 - 2 * conc)),
                             math.nan)

    def entropy(self):
        return (gradjit.log(self.scale) + self.concentration + 1).expand(
            tuple(self._batch_shape))

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        upper = gradjit.where(self.concentration < 0,
                              self.loc - self.scale / self.concentration, math.inf)
        return constraints.interval(self.loc, upper)
