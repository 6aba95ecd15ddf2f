"""The distributions PyTorch builds as TransformedDistribution: LogNormal, HalfNormal,
HalfCauchy, Gumbel, Weibull, Pareto, LogisticNormal, InverseGamma and Kumaraswamy, with its
closed-form moments and the densities it overrides."""
from __future__ import annotations

import math

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.continuous import Normal, Uniform
from gradjit.distributions.distribution import broadcast_all
from gradjit.distributions.gamma import Gamma
from gradjit.distributions.location_scale import Cauchy, Exponential
from gradjit.distributions.transformed import TransformedDistribution
from gradjit.distributions.transforms import (AbsTransform, AffineTransform, ExpTransform,
                                              PowerTransform, StickBreakingTransform)

EULER = 0.57721566490153286060


class LogNormal(TransformedDistribution):
    """exp(x) of x ~ Normal(loc, scale)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(),
                         validate_args=validate_args)

    loc = property(lambda self: self.base_dist.loc)
    scale = property(lambda self: self.base_dist.scale)

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

    def entropy(self):
        return self.base_dist.entropy() + self.loc


class _Folded(TransformedDistribution):
    """|x| of x from a zero-centred base: the base's density doubled on [0, inf)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base = self._base_type(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    scale = property(lambda self: self.base_dist.scale)

    @property
    def mode(self):
        return gradjit.zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = gradjit.as_tensor(value, dtype=self.scale.dtype)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return gradjit.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_Folded):
    _base_type = Normal

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)


class HalfCauchy(_Folded):
    _base_type = Cauchy

    @property
    def mean(self):
        return gradjit.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self):
        return self.base_dist.variance


class Gumbel(TransformedDistribution):
    """loc - scale * log(-log(u)) of u ~ Uniform(tiny, 1 - eps)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        info = gradjit.finfo(self.loc.dtype)
        if isinstance(loc, (int, float)) and isinstance(scale, (int, float)):
            base = Uniform(info.tiny, 1 - info.eps, validate_args=validate_args)
        else:
            base = Uniform(gradjit.full_like(self.loc, info.tiny),
                           gradjit.full_like(self.loc, 1 - info.eps),
                           validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(0, -gradjit.ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc, -self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * EULER

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + EULER)


class Weibull(TransformedDistribution):
    """scale * e ** (1 / concentration) of e ~ Exponential(1)."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(gradjit.ones_like(self.scale), validate_args=validate_args)
        super().__init__(base, [PowerTransform(exponent=self.concentration_reciprocal),
                                AffineTransform(loc=0, scale=self.scale)],
                         validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * gradjit.exp(gradjit.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self):
        k_inv = self.concentration_reciprocal
        return self.scale.pow(2) * (gradjit.exp(gradjit.lgamma(1 + 2 * k_inv)) -
                                    gradjit.exp(2 * gradjit.lgamma(1 + k_inv)))

    def entropy(self):
        k_inv = self.concentration_reciprocal
        return EULER * (1 - k_inv) + gradjit.log(self.scale * k_inv) + 1


class Pareto(TransformedDistribution):
    """scale * exp(e) of e ~ Exponential(alpha)."""

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        super().__init__(Exponential(self.alpha, validate_args=validate_args),
                         [ExpTransform(), AffineTransform(loc=0, scale=self.scale)],
                         validate_args=validate_args)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


class LogisticNormal(TransformedDistribution):
    """Stick breaking of x ~ Normal(loc, scale): a point of the simplex."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    loc = property(lambda self: self.base_dist.base_dist.loc)
    scale = property(lambda self: self.base_dist.base_dist.scale)


class InverseGamma(TransformedDistribution):
    """1 / x of x ~ Gamma(concentration, rate)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        super().__init__(base, PowerTransform(-base.rate.new_ones(())),
                         validate_args=validate_args)

    concentration = property(lambda self: self.base_dist.concentration)
    rate = property(lambda self: self.base_dist.rate)

    @property
    def mean(self):
        return gradjit.where(self.concentration > 1, self.rate / (self.concentration - 1),
                             math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        conc = self.concentration
        finite = self.rate.square() / ((conc - 1).square() * (conc - 2))
        return gradjit.where(conc > 2, finite, math.inf)

    def entropy(self):
        conc = self.concentration
        return conc + self.rate.log() + conc.lgamma() - (1 + conc) * conc.digamma()


def _kumaraswamy_moment(a, b, n):
    arg = 1 + n / a
    return b * gradjit.exp(gradjit.lgamma(arg) + gradjit.lgamma(b) - gradjit.lgamma(arg + b))


class Kumaraswamy(TransformedDistribution):
    """(1 - u ** (1 / concentration0)) ** (1 / concentration1) of u ~ Uniform(0, 1)."""

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(gradjit.full_like(self.concentration0, 0),
                       gradjit.full_like(self.concentration0, 1), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base, transforms, validate_args=validate_args)

    @property
    def mean(self):
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        c1, c0 = self.concentration1, self.concentration0
        log_mode = c0.reciprocal() * (-c0).log1p() - (-c0 * c1).log1p()
        return gradjit.where((c0 < 1) | (c1 < 1), math.nan, log_mode).exp()

    @property
    def variance(self):
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 2) - \
            self.mean.pow(2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        h0 = gradjit.digamma(self.concentration0 + 1) + EULER
        return t0 + t1 * h0 - self.concentration1.log() - self.concentration0.log()
