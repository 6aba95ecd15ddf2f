"""Geometric (failures before the first success of Bernoulli(probs) trials), Binomial (successes
in total_count trials), NegativeBinomial (successes before total_count failures), given by probs
or logits, and Poisson, with PyTorch's log_prob, entropy and moments."""
from __future__ import annotations

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.discrete import (Bernoulli, _half_at_zero, _one_of, _ProbsOrLogits,
                                            _softplus)
from gradjit.distributions.distribution import broadcast_all, finfo
from gradjit.distributions.exp_family import ExponentialFamily
from gradjit.distributions.gamma import Gamma


class Geometric(_ProbsOrLogits):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer
    _probs_from_logits = staticmethod(Bernoulli._probs_from_logits)
    _logits_from_probs = staticmethod(Bernoulli._logits_from_probs)

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        name, value = ("probs", probs) if probs is not None else ("logits", logits)
        (self.__dict__[name],) = broadcast_all(value)
        super().__init__(self.param.shape, validate_args=validate_args)
        if self._validate_args and probs is not None and not bool((self.probs > 0).all()):
            value = self.probs  # a success must be possible: probs in (0, 1]
            raise ValueError(
                f"Expected parameter probs ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) of distribution {self!r} to be positive but found "
                f"invalid values:\n{value.detach()[~(value.detach() > 0)]}")

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return gradjit.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        tiny = float(finfo(self.probs).tiny)
        with gradjit.no_grad():
            u = gradjit.rand(*shape, dtype=self.probs.dtype).clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # A sure success puts all mass on 0, where 0 * log(0) must count as 0.
        probs = gradjit.where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        bce = _softplus(self.logits) - self.logits * self.probs
        return bce / self.probs


class Poisson(ExponentialFamily):
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    @property
    def _natural_params(self):
        return (gradjit.log(self.rate),)

    def _log_normalizer(self, x):
        return gradjit.exp(x)

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        """Counts the arrivals of a unit-rate Poisson process before time `rate`: exponential
        gaps summed until they pass it (a number of steps about the largest rate)."""
        if not self.rate.dtype.is_floating_point:  # torch.poisson's refusal
            raise NotImplementedError(f'"poisson_cpu" not implemented for '
                                      f"'{self.rate.dtype.legacy}'")
        shape = self._extended_shape(sample_shape)
        with gradjit.no_grad():
            rate = self.rate.double().expand(shape)
            count = gradjit.zeros(shape, dtype=gradjit.float64)
            time = gradjit.zeros(shape, dtype=gradjit.float64)
            while True:
                time = time - gradjit.log1p(-gradjit.rand(*shape, dtype=gradjit.float64))
                arrived = time <= rate
                if not bool(arrived.any()):
                    return count.to(self.rate.dtype)
                count = count + arrived.double()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return gradjit.xlogy(value, rate) - rate - gradjit.lgamma(value + 1)


class _Trials(_ProbsOrLogits):
    """A count over Bernoulli trials: total_count, and probs or logits of a success."""

    _probs_from_logits = staticmethod(Bernoulli._probs_from_logits)
    _logits_from_probs = staticmethod(Bernoulli._logits_from_probs)

    def _set_trials(self, total_count, probs, logits, validate_args):
        _one_of(probs, logits)
        name, value = ("probs", probs) if probs is not None else ("logits", logits)
        self.total_count, self.__dict__[name] = broadcast_all(total_count, value)
        self.total_count = self.total_count.type_as(self.param)
        super().__init__(self.param.shape, validate_args=validate_args)


class Binomial(_Trials):
    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        self._set_trials(total_count, probs, logits, validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        """The sum of total_count Bernoulli draws (as many steps as the largest count)."""
        shape = self._extended_shape(sample_shape)
        with gradjit.no_grad():
            probs, total = self.probs.expand(shape), self.total_count.expand(shape)
            count = gradjit.zeros(shape, dtype=probs.dtype)
            for trial in range(int(self.total_count.max()) if total.numel() else 0):
                count = count + gradjit.bernoulli(probs) * (total > trial).to(probs.dtype)
            return count

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        log_factorial_n = gradjit.lgamma(n + 1)
        log_factorial_k = gradjit.lgamma(value + 1)
        log_factorial_nmk = gradjit.lgamma(n - value + 1)
        # n * log(1 + exp(logits)), stable for either sign of the logits.
        normalize = (n * _half_at_zero(self.logits) +
                     n * gradjit.log1p(gradjit.exp(-self.logits.abs())) - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize

    def _common_count(self, what):
        count = int(self.total_count.max())
        if not self.total_count.min() == count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return count

    def enumerate_support(self, expand=True):
        count = self._common_count("enumerate_support")
        return self._enumerated(gradjit.arange(1 + count, dtype=self.param.dtype), expand)

    def entropy(self):
        self._common_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(gradjit.exp(log_prob) * log_prob).sum(0)


class NegativeBinomial(_Trials):
    """Successes before total_count failures, each trial a success with probability probs."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        self._set_trials(total_count, probs, logits, validate_args)

    @property
    def mean(self):
        return self.total_count * gradjit.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / gradjit.sigmoid(-self.logits)

    def sample(self, sample_shape=()):
        """A Poisson draw at a Gamma(total_count, exp(-logits)) rate."""
        with gradjit.no_grad():
            rate = Gamma(self.total_count, gradjit.exp(-self.logits),
                         validate_args=False).sample(sample_shape)
            return Poisson(rate, validate_args=False).sample()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logsigmoid = gradjit.nn.functional.logsigmoid
        n = self.total_count
        unnormalized = n * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        normalization = -gradjit.lgamma(n + value) + gradjit.lgamma(1.0 + value) + \
            gradjit.lgamma(n)
        return unnormalized - gradjit.where(n + value == 0.0, 0.0, normalization)
