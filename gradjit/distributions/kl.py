"""kl_divergence(p, q) by the pair of distribution types, with PyTorch's closed forms, and
register_kl to add a pair."""
from __future__ import annotations

import math

import numpy as np

import gradjit
from gradjit.distributions.continuous import Normal, Uniform
from gradjit.distributions.counts import Poisson
from gradjit.distributions.discrete import Bernoulli, Categorical
from gradjit.distributions.gamma import Gamma
from gradjit.distributions.location_scale import Exponential, Laplace
from gradjit.distributions.multivariate import MultivariateNormal, _mahalanobis, _solve_lower

_KL: dict = {}


def register_kl(type_p, type_q):
    """Decorator: the function computes KL(p || q) for p of type_p and q of type_q."""
    def register(fn):
        _KL[(type_p, type_q)] = fn
        return fn
    return register


def kl_divergence(p, q):
    """KL(p || q), batched over the distributions' batch shape."""
    for kind_p in type(p).__mro__:
        for kind_q in type(q).__mro__:
            if (kind_p, kind_q) in _KL:
                return _KL[(kind_p, kind_q)](p, q)
    raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} "
                              f"and q type {type(q).__name__}")


@register_kl(Normal, Normal)
def _normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Uniform, Uniform)
def _uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    outside = (q.low > p.low) | (q.high < p.high)
    return gradjit.where(outside, math.inf, result)


@register_kl(Exponential, Exponential)
def _exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(Laplace, Laplace)
def _laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    distance = (p.loc - q.loc).abs()
    return -scale_ratio.log() + distance / q.scale + \
        scale_ratio * gradjit.exp(-distance / p.scale) - 1


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * gradjit.log(p.rate / q.rate)
    t2 = gradjit.lgamma(q.concentration) - gradjit.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * gradjit.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Bernoulli, Bernoulli)
def _bernoulli_bernoulli(p, q):
    softplus = gradjit.nn.functional.softplus
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = gradjit.where(p.probs == 0, 0.0, gradjit.where(q.probs == 0, math.inf, t1))
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = gradjit.where(p.probs == 1, 0.0, gradjit.where(q.probs == 1, math.inf, t2))
    return t1 + t2


@register_kl(Categorical, Categorical)
def _categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = gradjit.where(p.probs == 0, 0.0, gradjit.where(q.probs == 0, math.inf, t))
    return t.sum(-1)


@register_kl(MultivariateNormal, MultivariateNormal)
def _mvn_mvn(p, q):
    p_lower, q_lower = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = q_lower.diagonal(dim1=-2, dim2=-1).log().sum(-1) - \
        p_lower.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    shape = np.broadcast_shapes(tuple(p_lower.shape), tuple(q_lower.shape))
    term2 = _solve_lower(q_lower.expand(*shape), p_lower.expand(*shape)).pow(2).sum((-2, -1))
    term3 = _mahalanobis(q_lower, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - p.event_shape[0])
