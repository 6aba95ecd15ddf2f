"""Normal and Uniform: reparameterized samples (rsample), log densities, entropies and moments
in PyTorch's formulas, so values and gradients agree with torch.distributions."""
from __future__ import annotations

import math

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.distribution import Distribution, broadcast_all
from gradjit.distributions.exp_family import ExponentialFamily


class LocationScale(Distribution):
    """A distribution on the real line with a location and a positive scale."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def mode(self):
        return self.loc


class Normal(LocationScale, ExponentialFamily):
    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        return self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal()

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * gradjit.log(-math.pi / y)

    @property
    def mean(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = gradjit.randn(*shape, dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        value = self._checked(value)
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - \
            math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        value = self._checked(value)
        return 0.5 * (1 + gradjit.erf((value - self.loc) * self.scale.reciprocal() /
                                      math.sqrt(2)))

    def icdf(self, value):
        return self.loc + self.scale * gradjit.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + gradjit.log(self.scale)


class Uniform(Distribution):
    """Uniform on [low, high)."""

    arg_constraints = {"low": None, "high": None}  # checked together: low < high
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        self.arg_constraints = {"low": constraints.less_than(self.high),
                                "high": constraints.greater_than(self.low)}
        super().__init__(self.low.shape, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return float("nan") * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        rand = gradjit.rand(*shape, dtype=self.low.dtype)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return gradjit.log(lb.mul(ub)) - gradjit.log(self.high - self.low)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return gradjit.log(self.high - self.low)
