"""KL(p || q) in closed form for two distributions of the same family, PyTorch's formulas:
the table SAME_FAMILY maps (type of p, type of q) to the function."""
from __future__ import annotations

import math

import numpy as np

import gradjit
from gradjit.distributions.continuous import Normal, Uniform
from gradjit.distributions.continuous_bernoulli import ContinuousBernoulli
from gradjit.distributions.counts import Binomial, Geometric, Poisson
from gradjit.distributions.dirichlet import Beta, Dirichlet
from gradjit.distributions.discrete import Bernoulli, Categorical
from gradjit.distributions.exp_family import ExponentialFamily, kl_exponential_family
from gradjit.distributions.gamma import Gamma
from gradjit.distributions.location_scale import Cauchy, Exponential, Laplace
from gradjit.distributions.lowrank import LowRankMultivariateNormal, kl_lowrank_lowrank
from gradjit.distributions.multivariate import (Independent, MultivariateNormal, _mahalanobis,
                                                _solve_lower)
from gradjit.distributions.pushforward import EULER, Gumbel, HalfNormal, Pareto
from gradjit.distributions.relaxed import OneHotCategorical
from gradjit.distributions.transformed import TransformedDistribution
from gradjit.distributions.transforms.base import _sum_rightmost


def _normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


def _uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    outside = (q.low > p.low) | (q.high < p.high)
    return gradjit.where(outside, math.inf, result)


def _exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


def _laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    distance = (p.loc - q.loc).abs()
    return -scale_ratio.log() + distance / q.scale + \
        scale_ratio * gradjit.exp(-distance / p.scale) - 1


def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


def _kl_gamma_gamma(p, q):
    t1 = q.concentration * gradjit.log(p.rate / q.rate)
    t2 = gradjit.lgamma(q.concentration) - gradjit.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * gradjit.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


def _bernoulli_bernoulli(p, q):
    softplus = gradjit.nn.functional.softplus
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = gradjit.where(p.probs == 0, 0.0, gradjit.where(q.probs == 0, math.inf, t1))
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = gradjit.where(p.probs == 1, 0.0, gradjit.where(q.probs == 1, math.inf, t2))
    return t1 + t2


def _categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = gradjit.where(p.probs == 0, 0.0, gradjit.where(q.probs == 0, math.inf, t))
    return t.sum(-1)


def _mvn_mvn(p, q):
    p_lower, q_lower = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = q_lower.diagonal(dim1=-2, dim2=-1).log().sum(-1) - \
        p_lower.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    shape = np.broadcast_shapes(tuple(p_lower.shape), tuple(q_lower.shape))
    term2 = _solve_lower(q_lower.expand(*shape), p_lower.expand(*shape)).pow(2).sum((-2, -1))
    term3 = _mahalanobis(q_lower, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - p.event_shape[0])


def _beta_beta(p, q):
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sum_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sum_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * gradjit.digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * gradjit.digamma(p.concentration0)
    t5 = (sum_q - sum_p) * gradjit.digamma(sum_p)
    return t1 - t2 + t3 + t4 + t5


def _binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count "
                                  "is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() -
                          (-q.probs).log1p())
    return gradjit.where(p.total_count > q.total_count, math.inf, kl)


def _continuous_bernoulli_continuous_bernoulli(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + gradjit.log1p(-p.probs)
    return t1 + t2 - q._cont_bern_log_norm() - gradjit.log1p(-q.probs)


def _dirichlet_dirichlet(p, q):
    sum_p, sum_q = p.concentration.sum(-1), q.concentration.sum(-1)
    t1 = sum_p.lgamma() - sum_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sum_p.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


def _gumbel_gumbel(p, q):
    ct1, ct2, ct3 = p.scale / q.scale, q.loc / q.scale, p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t3 = gradjit.exp(ct2 + (1 + ct1).lgamma() - ct3)
    return t1 + ct1 * EULER + t3 - (1 + EULER)


def _geometric_geometric(p, q):
    return -p.entropy() - gradjit.log1p(-q.probs) / p.probs - q.logits


def _pareto_pareto(p, q):
    scale_ratio, alpha_ratio = p.scale / q.scale, q.alpha / p.alpha
    result = q.alpha * scale_ratio.log() - alpha_ratio.log() + alpha_ratio - 1
    return gradjit.where(p.support.lower_bound < q.support.lower_bound, math.inf, result)


def _kl_of_bases(p, q):
    from gradjit.distributions.kl import kl_divergence  # kl imports this table
    return kl_divergence(p.base_dist, q.base_dist)


def _transformed_transformed(p, q):
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return _kl_of_bases(p, q)


def _independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(_kl_of_bases(p, q), p.reinterpreted_batch_ndims)


def _cauchy_cauchy(p, q):
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    return t1 - (4 * p.scale * q.scale).log()


SAME_FAMILY = {
    (Bernoulli, Bernoulli): _bernoulli_bernoulli,
    (Beta, Beta): _beta_beta,
    (Binomial, Binomial): _binomial_binomial,
    (Categorical, Categorical): _categorical_categorical,
    (Cauchy, Cauchy): _cauchy_cauchy,
    (ContinuousBernoulli, ContinuousBernoulli): _continuous_bernoulli_continuous_bernoulli,
    (Dirichlet, Dirichlet): _dirichlet_dirichlet,
    (Exponential, Exponential): _exponential_exponential,
    (ExponentialFamily, ExponentialFamily): kl_exponential_family,
    (Gamma, Gamma): _kl_gamma_gamma,
    (Geometric, Geometric): _geometric_geometric,
    (Gumbel, Gumbel): _gumbel_gumbel,
    (HalfNormal, HalfNormal): lambda p, q: _normal_normal(p.base_dist, q.base_dist),
    (Independent, Independent): _independent_independent,
    (Laplace, Laplace): _laplace_laplace,
    (LowRankMultivariateNormal, LowRankMultivariateNormal): kl_lowrank_lowrank,
    (MultivariateNormal, MultivariateNormal): _mvn_mvn,
    (Normal, Normal): _normal_normal,
    (OneHotCategorical, OneHotCategorical): lambda p, q: _categorical_categorical(
        p._categorical, q._categorical),
    (Pareto, Pareto): _pareto_pareto,
    (Poisson, Poisson): _kl_poisson_poisson,
    (TransformedDistribution, TransformedDistribution): _transformed_transformed,
    (Uniform, Uniform): _uniform_uniform,
}
