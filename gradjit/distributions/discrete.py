"""Bernoulli, Categorical and Multinomial, each given by probs or by logits (the other derived
on demand as PyTorch does), with PyTorch's log_prob and entropy formulas."""
from __future__ import annotations

import math

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.distribution import Distribution, broadcast_all, finfo, lazy_property
from gradjit.distributions.exp_family import ExponentialFamily


def _one_of(probs, logits):
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def _softplus(x):
    """log(1 + e^x), whose gradient at 0 is sigmoid(0) = 0.5, as PyTorch's."""
    return _half_at_zero(x) + gradjit.log1p(gradjit.exp(-x.abs()))


def _half_at_zero(x):
    """max(x, 0) whose gradient at 0 is 0.5, as PyTorch's Binomial takes it."""
    return x.clamp(min=0) / 2 + (x - x.clamp(max=0)) / 2  # halves first: no overflow


class _ProbsOrLogits(Distribution):
    """The parameter given is stored; the other one is computed when first asked for."""

    @lazy_property
    def probs(self):
        return self._probs_from_logits(self.logits)

    @lazy_property
    def logits(self):
        return self._logits_from_probs(self.probs)

    @property
    def param(self):
        return self.__dict__["probs" if "probs" in self.__dict__ else "logits"]


class Bernoulli(_ProbsOrLogits, ExponentialFamily):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        return (gradjit.logit(self.probs),)

    def _log_normalizer(self, x):
        return gradjit.log1p(gradjit.exp(x))

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        name, value = ("probs", probs) if probs is not None else ("logits", logits)
        (self.__dict__[name],) = broadcast_all(value)
        super().__init__(self.param.shape, validate_args=validate_args)

    @staticmethod
    def _probs_from_logits(logits):
        return gradjit.sigmoid(logits)

    @staticmethod
    def _logits_from_probs(probs):
        eps = float(finfo(probs).eps)
        p = probs.clamp(min=eps, max=1 - eps)
        return gradjit.log(p) - gradjit.log1p(-p)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return gradjit.where(self.probs == 0.5, float("nan"), mode)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with gradjit.no_grad():
            return gradjit.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -gradjit.nn.functional.binary_cross_entropy_with_logits(logits, value,
                                                                       reduction="none")

    def entropy(self):
        return gradjit.nn.functional.binary_cross_entropy_with_logits(
            self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        return self._enumerated(gradjit.arange(2, dtype=self.param.dtype), expand)


class Categorical(_ProbsOrLogits):
    """One of K categories per batch element; probs or logits along the last dimension."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        given = probs if probs is not None else logits
        if given.dim() < 1:
            raise ValueError(f"`{'probs' if probs is not None else 'logits'}` parameter must "
                             "be at least one-dimensional.")
        if probs is not None:
            self.__dict__["probs"] = probs / probs.sum(-1, keepdim=True)
        else:
            self.__dict__["logits"] = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._num_events = given.shape[-1]
        super().__init__(given.shape[:-1], validate_args=validate_args)

    @staticmethod
    def _probs_from_logits(logits):
        return gradjit.softmax(logits, dim=-1)

    @staticmethod
    def _logits_from_probs(probs):
        eps = float(finfo(probs).eps)
        return gradjit.log(probs.clamp(min=eps, max=1 - eps))

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self):
        return gradjit.full(tuple(self._extended_shape()), float("nan"),
                            dtype=self.param.dtype)

    variance = mean

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        count = 1
        for n in sample_shape:
            count *= n
        rows = self.probs.detach().reshape(-1, self._num_events)
        drawn = gradjit.multinomial(rows, count, True).T
        return drawn.reshape(tuple(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # gather, as PyTorch's: unvalidated values out of range raise rather than score 0
        value, log_pmf = gradjit.broadcast_tensors(value.long().unsqueeze(-1), self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        low = float(finfo(self.logits).min)  # -inf logits (zero probs) contribute 0, not nan
        return -(self.logits.clamp(min=low) * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        return self._enumerated(gradjit.arange(self._num_events), expand)


class Multinomial(Distribution):
    """Counts of total_count draws from a Categorical, along the last dimension."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        param = self._categorical.param
        super().__init__(self._categorical.batch_shape, param.shape[-1:],
                         validate_args=validate_args)

    probs = property(lambda self: self._categorical.probs)
    logits = property(lambda self: self._categorical.logits)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        draws = self._categorical.sample((self.total_count, *sample_shape))
        hits = draws.unsqueeze(-1) == gradjit.arange(self._event_shape[0])
        return hits.sum(0).to(self.probs.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # 0 * -inf (a category never drawn whose probability is zero) counts as 0
        logits = gradjit.where((value == 0) & (logits == float("-inf")), 0.0, logits)
        return gradjit.lgamma(value.sum(-1) + 1) - gradjit.lgamma(value + 1).sum(-1) + \
            (logits * value).sum(-1)

    def entropy(self):
        """PyTorch's sum over the binomial marginals of each category."""
        n = self.total_count
        k = gradjit.arange(n + 1, dtype=self.probs.dtype).reshape(
            (n + 1,) + (1,) * (len(self._batch_shape) + 1))
        p = self.probs.clamp(min=float(finfo(self.probs).eps),
                             max=1 - float(finfo(self.probs).eps))
        logit = gradjit.log(p) - gradjit.log1p(-p)
        log_binomial = k * logit - gradjit.lgamma(k + 1) - gradjit.lgamma(n - k + 1) - \
            (n * _half_at_zero(logit) + n * gradjit.log1p(gradjit.exp(-logit.abs())) -
             math.lgamma(n + 1))
        weights = gradjit.lgamma(k + 1)
        # lgamma of the integer count is taken in the default dtype, as PyTorch does
        return n * self._categorical.entropy() - gradjit.lgamma(gradjit.tensor(n + 1)) + \
            (weights * log_binomial.exp()).sum(0).sum(-1)
