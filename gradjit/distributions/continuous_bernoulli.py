"""ContinuousBernoulli: the density proportional to p^x (1 - p)^(1 - x) on [0, 1], with
PyTorch's normalizer, moments, cdf and inverse cdf (Taylor expansions near p = 1/2, where the
closed forms lose precision)."""
from __future__ import annotations

import math
from numbers import Number

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.discrete import _one_of, _ProbsOrLogits
from gradjit.distributions.distribution import broadcast_all
from gradjit.distributions.exp_family import ExponentialFamily
from gradjit.distributions.relaxed import _clamp_probs


class ContinuousBernoulli(_ProbsOrLogits, ExponentialFamily):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """log((e^x - 1) / x) outside the lims around x = 0, its Taylor series inside."""
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = gradjit.where(outside, x, self._lims[0] - 0.5)
        log_norm = gradjit.log(gradjit.special.expm1(cut).abs()) - gradjit.log(cut.abs())
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return gradjit.where(outside, log_norm, taylor)

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        _one_of(probs, logits)
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        if probs is not None:
            if validate_args is not None and \
                    not bool(self.arg_constraints["probs"].check(param).all()):
                raise ValueError("The parameter probs has invalid values")
            self.__dict__["probs"] = _clamp_probs(param)
        else:
            self.__dict__["logits"] = param
        self._lims = lims
        super().__init__(() if isinstance(given, Number) else param.shape,
                         validate_args=validate_args)

    @staticmethod
    def _probs_from_logits(logits):
        return _clamp_probs(gradjit.sigmoid(logits))

    @staticmethod
    def _logits_from_probs(probs):
        p = _clamp_probs(probs)
        return gradjit.log(p) - gradjit.log1p(-p)

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        return gradjit.where(self._outside_unstable_region(), self.probs, self._lims[0])

    def _stable(self, closed_form, taylor):
        return gradjit.where(self._outside_unstable_region(), closed_form, taylor)

    def _cont_bern_log_norm(self):
        """log of the normalizing constant."""
        cut = self._cut_probs()
        below = gradjit.where(cut <= 0.5, cut, 0.0)
        above = gradjit.where(cut >= 0.5, cut, 1.0)
        log_norm = gradjit.log((gradjit.log1p(-cut) - gradjit.log(cut)).abs()) - gradjit.where(
            cut <= 0.5, gradjit.log1p(-2.0 * below), gradjit.log(2.0 * above - 1.0))
        x = (self.probs - 0.5).pow(2)
        return self._stable(log_norm, math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x)

    @property
    def mean(self):
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (gradjit.log1p(-cut) - gradjit.log(cut))
        x = self.probs - 0.5
        return self._stable(mus, 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x)

    @property
    def variance(self):
        cut = self._cut_probs()
        variances = cut * (cut - 1.0) / (1.0 - 2.0 * cut).pow(2) + \
            1.0 / (gradjit.log1p(-cut) - gradjit.log(cut)).pow(2)
        x = (self.probs - 0.5).pow(2)
        return self._stable(variances, 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return self.icdf(gradjit.rand(*shape, dtype=self.probs.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        bce = gradjit.nn.functional.binary_cross_entropy_with_logits(logits, value,
                                                                     reduction="none")
        return -bce + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        inside = self._stable(cdfs, value)
        return gradjit.where(value <= 0.0, 0.0, gradjit.where(value >= 1.0, 1.0, inside))

    def icdf(self, value):
        cut = self._cut_probs()
        closed = (gradjit.log1p(-cut + value * (2.0 * cut - 1.0)) - gradjit.log1p(-cut)) / \
            (gradjit.log(cut) - gradjit.log1p(-cut))
        return self._stable(closed, value)

    def entropy(self):
        log_p0, log_p1 = gradjit.log1p(-self.probs), gradjit.log(self.probs)
        return self.mean * (log_p0 - log_p1) - self._cont_bern_log_norm() - log_p0
