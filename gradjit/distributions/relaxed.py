"""OneHotCategorical (and its straight-through variant) and the relaxations of Bernoulli and
one-hot categorical draws at a temperature (Concrete / Gumbel-softmax), with PyTorch's draws and
densities."""
from __future__ import annotations

from numbers import Number

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.discrete import Bernoulli, Categorical, _one_of, _ProbsOrLogits
from gradjit.distributions.distribution import Distribution, broadcast_all
from gradjit.distributions.transformed import TransformedDistribution
from gradjit.distributions.transforms import ExpTransform, SigmoidTransform


def _clamp_probs(probs):
    eps = float(gradjit.finfo(probs.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


class _OverCategorical(Distribution):
    """A distribution over K categories held as a Categorical (probs or logits)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def _hold(self, probs, logits, validate_args):
        self._categorical = Categorical(probs, logits)
        param = self._categorical.param
        super().__init__(self._categorical.batch_shape, param.shape[-1:],
                         validate_args=validate_args)

    probs = property(lambda self: self._categorical.probs)
    logits = property(lambda self: self._categorical.logits)
    param_shape = property(lambda self: self._categorical.param.shape)


class OneHotCategorical(_OverCategorical):
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._hold(probs, logits, validate_args)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        probs = self.probs
        return gradjit.nn.functional.one_hot(probs.argmax(dim=-1),
                                             num_classes=probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        indices = self._categorical.sample(sample_shape)
        return gradjit.nn.functional.one_hot(indices, self._event_shape[0]).to(
            self.probs.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        return self._enumerated(gradjit.eye(self._event_shape[0], dtype=self.probs.dtype),
                                expand)


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """One-hot draws whose gradient is that of the probabilities."""

    has_rsample = True

    def rsample(self, sample_shape=()):
        samples = self.sample(sample_shape)
        return samples + (self.probs - self.probs.detach())


class LogitRelaxedBernoulli(_ProbsOrLogits):
    """The logit of a RelaxedBernoulli draw."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    _probs_from_logits = staticmethod(Bernoulli._probs_from_logits)
    _logits_from_probs = staticmethod(Bernoulli._logits_from_probs)

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        self.temperature = temperature
        name, value = ("probs", probs) if probs is not None else ("logits", logits)
        (self.__dict__[name],) = broadcast_all(value)
        shape = () if isinstance(value, Number) else self.param.shape
        super().__init__(shape, validate_args=validate_args)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        probs = _clamp_probs(self.probs.expand(shape))
        uniforms = _clamp_probs(gradjit.rand(*shape, dtype=probs.dtype))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / \
            self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        super().__init__(LogitRelaxedBernoulli(temperature, probs, logits), SigmoidTransform(),
                         validate_args=validate_args)

    temperature = property(lambda self: self.base_dist.temperature)
    logits = property(lambda self: self.base_dist.logits)
    probs = property(lambda self: self.base_dist.probs)


class ExpRelaxedCategorical(_OverCategorical):
    """The log of a RelaxedOneHotCategorical draw (log-softmax of Gumbel-perturbed logits)."""

    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        self._hold(probs, logits, validate_args)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        uniforms = _clamp_probs(gradjit.rand(*shape, dtype=self.logits.dtype))
        scores = (self.logits - (-uniforms.log()).log()) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        k = self._event_shape[0]
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = gradjit.full_like(self.temperature, float(k)).lgamma() - \
            self.temperature.log().mul(-(k - 1))
        score = logits - value.mul(self.temperature)
        return (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1) + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        super().__init__(ExpRelaxedCategorical(temperature, probs, logits,
                                               validate_args=validate_args),
                         ExpTransform(), validate_args=validate_args)

    temperature = property(lambda self: self.base_dist.temperature)
    logits = property(lambda self: self.base_dist.logits)
    probs = property(lambda self: self.base_dist.probs)
