"""KL(p || q) in closed form between distributions of different families, PyTorch's formulas,
in the table CROSS_FAMILY; pairs where q cannot cover p's support are infinite."""
from __future__ import annotations

import math

import gradjit
from gradjit.distributions.continuous import Normal, Uniform
from gradjit.distributions.continuous_bernoulli import ContinuousBernoulli
from gradjit.distributions.counts import Binomial, Poisson
from gradjit.distributions.dirichlet import Beta
from gradjit.distributions.discrete import Bernoulli
from gradjit.distributions.gamma import Gamma
from gradjit.distributions.location_scale import Exponential, Laplace
from gradjit.distributions.lowrank import (LowRankMultivariateNormal, kl_full_lowrank,
                                           kl_lowrank_full)
from gradjit.distributions.multivariate import MultivariateNormal
from gradjit.distributions.pushforward import EULER, Gumbel, Pareto


def _x_log_x(t):
    return gradjit.xlogy(t, t)  # 0 at 0


def _bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


def _to_continuous_bernoulli(p, q):
    """For p on [0, 1] whose mean and entropy are known."""
    return -p.entropy() - p.mean * q.logits - gradjit.log1p(-q.probs) - q._cont_bern_log_norm()


def _continuous_bernoulli_exponential(p, q):
    return -p.entropy() - gradjit.log(q.rate) + q.rate * p.mean


def _continuous_bernoulli_normal(p, q):
    t2 = 0.5 * (math.log(2.0 * math.pi) + (q.loc / q.scale).square()) + gradjit.log(q.scale)
    t3 = (p.variance + p.mean.square() - 2.0 * q.loc * p.mean) / (2.0 * q.scale.square())
    return -p.entropy() + t2 + t3


def _continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    inside = (q.low >= p.support.lower_bound) | (q.high <= p.support.upper_bound)
    return gradjit.where(inside, math.inf, result)


def _beta_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * (p.concentration1 /
                                                   (p.concentration1 + p.concentration0))


def _beta_gamma(p, q):
    total = p.concentration1 + p.concentration0
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (p.concentration1.digamma() - total.digamma())
    return -p.entropy() + t2 - t3 + q.rate * p.concentration1 / total


def _beta_normal(p, q):
    mean = p.concentration1 / (p.concentration1 + p.concentration0)
    var = q.scale.pow(2)
    t2 = 0.5 * (var * 2 * math.pi).log()
    t3 = (mean * (1 - mean) / (p.concentration1 + p.concentration0 + 1) + mean.pow(2)) * 0.5
    return -p.entropy() + t2 + (t3 - q.loc * mean + q.loc.pow(2) * 0.5) / var


def _beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    outside = (q.low > p.support.lower_bound) | (q.high < p.support.upper_bound)
    return gradjit.where(outside, math.inf, result)


def _exponential_gamma(p, q):
    ratio = q.rate / p.rate
    return -q.concentration * gradjit.log(ratio) + ratio + q.concentration.lgamma() + \
        q.concentration * EULER - (1 + EULER)


def _exponential_gumbel(p, q):
    prod, loc_ratio = p.rate * q.scale, q.loc / q.scale
    t2 = gradjit.exp(loc_ratio) * prod / (prod + 1)
    return prod.log() - 1 - loc_ratio + t2 + prod.reciprocal()


def _exponential_normal(p, q):
    var, rate_sq = q.scale.pow(2), p.rate.pow(2)
    t1 = 0.5 * gradjit.log(rate_sq * var * 2 * math.pi)
    return t1 - 1 + (rate_sq.reciprocal() - q.loc / p.rate + q.loc.pow(2) * 0.5) / var


def _gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


def _gamma_gumbel(p, q):
    prod, loc_ratio = p.rate * q.scale, q.loc / q.scale
    conc = p.concentration
    t1 = (conc - 1) * conc.digamma() - conc.lgamma() - conc
    t2 = prod.log() + conc / prod
    t3 = gradjit.exp(loc_ratio) * (1 + prod.reciprocal()).pow(-conc) - loc_ratio
    return t1 + t2 + t3


def _gamma_normal(p, q):
    var, rate_sq, conc = q.scale.pow(2), p.rate.pow(2), p.concentration
    t1 = 0.5 * gradjit.log(rate_sq * var * 2 * math.pi) - conc - conc.lgamma()
    t2 = 0.5 * (conc.pow(2) + conc) / rate_sq
    t3 = q.loc * conc / p.rate
    return t1 + (conc - 1) * conc.digamma() + (t2 - t3 + 0.5 * q.loc.pow(2)) / var


def _gumbel_normal(p, q):
    ratio = p.scale / q.scale
    t1 = (ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * EULER - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (EULER + 1)


def _laplace_normal(p, q):
    var = q.scale.pow(2)
    ratio = p.scale.pow(2) / var
    t1 = 0.5 * gradjit.log(2 * ratio / math.pi)
    t = 0.5 * p.loc.pow(2) - p.loc * q.loc + 0.5 * q.loc.pow(2)
    return -t1 + ratio + t / var - 1


def _normal_gumbel(p, q):
    mean_ratio, var_ratio = p.loc / q.scale, (p.scale / q.scale).pow(2)
    loc_ratio = q.loc / q.scale
    t3 = gradjit.exp(-mean_ratio + 0.5 * var_ratio + loc_ratio)
    return -var_ratio.log() * 0.5 + mean_ratio - loc_ratio + t3 - \
        (0.5 * (1 + math.log(2 * math.pi)))


def _normal_laplace(p, q):
    diff = p.loc - q.loc
    scaled = diff / p.scale
    t2 = math.sqrt(2 / math.pi) * p.scale * gradjit.exp(-0.5 * scaled.pow(2))
    t3 = diff * gradjit.erf(math.sqrt(0.5) * scaled)
    return -gradjit.log(p.scale / q.scale) + (t2 + t3) / q.scale - \
        (0.5 * (1 + math.log(0.5 * math.pi)))


def _pareto_exponential(p, q):
    prod = p.scale * q.rate
    result = (p.alpha / prod).log() - p.alpha.reciprocal() + \
        p.alpha * prod / (p.alpha - 1) - 1
    return gradjit.where(p.alpha <= 1, math.inf, result)


def _pareto_gamma(p, q):
    common = p.scale.log() + p.alpha.reciprocal()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    result = p.alpha.log() - common + t2 + (1 - q.concentration) * common + t4 - 1
    return gradjit.where(p.alpha <= 1, math.inf, result)


def _pareto_normal(p, q):
    var = 2 * q.scale.pow(2)
    common = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * common.pow(2) / (p.alpha - 2)
    t4 = (p.alpha * common - q.loc).pow(2)
    result = t1 - p.alpha.reciprocal() + (t3 + t4) / var - 1
    return gradjit.where(p.alpha <= 2, math.inf, result)


def _uniform_beta(p, q):
    width = p.high - p.low
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t3 = (q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    t4 = q.concentration1.lgamma() + q.concentration0.lgamma() - \
        (q.concentration1 + q.concentration0).lgamma()
    result = t3 + t4 - gradjit.log(width) - t2
    outside = (p.high > q.support.upper_bound) | (p.low < q.support.lower_bound)
    return gradjit.where(outside, math.inf, result)


def _uniform_continuous_bernoulli(p, q):
    outside = (p.high >= q.support.upper_bound) | (p.low <= q.support.lower_bound)
    return gradjit.where(outside, math.inf, _to_continuous_bernoulli(p, q))


def _uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return gradjit.where(p.low < q.support.lower_bound, math.inf, result)


def _uniform_gamma(p, q):
    width = p.high - p.low
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    result = -width.log() + t2 + t3 + q.rate * (p.high + p.low) / 2
    return gradjit.where(p.low < q.support.lower_bound, math.inf, result)


def _uniform_gumbel(p, q):
    common = q.scale / (p.high - p.low)
    high, low = (p.high - q.loc) / q.scale, (p.low - q.loc) / q.scale
    t1 = common.log() + 0.5 * (high + low)
    return t1 - common * (gradjit.exp(-high) - gradjit.exp(-low))


def _uniform_normal(p, q):
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (width.pow(2) / 12 + t3) / q.scale.pow(2)


def _uniform_pareto(p, q):
    width = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * width).log()
    t2 = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    result = t2 * (q.alpha + 1) - t1
    return gradjit.where(p.low < q.support.lower_bound, math.inf, result)


# p's family -> (the parameter giving the result's shape, the families q whose support
# misses part of p's)
_INFINITE = {
    Beta: ("concentration1", [Pareto]),
    ContinuousBernoulli: ("probs", [Pareto]),
    Exponential: ("rate", [Beta, ContinuousBernoulli, Pareto, Uniform]),
    Gamma: ("concentration", [Beta, ContinuousBernoulli, Pareto, Uniform]),
    Gumbel: ("loc", [Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform]),
    Laplace: ("loc", [Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform]),
    Normal: ("loc", [Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform]),
    Pareto: ("scale", [Beta, ContinuousBernoulli, Uniform]),
    Poisson: ("rate", [Bernoulli, Binomial]),
}


def _infinite(param):
    return lambda p, q: gradjit.full_like(getattr(p, param), math.inf)


CROSS_FAMILY = {
    (Bernoulli, Poisson): _bernoulli_poisson,
    (Beta, ContinuousBernoulli): _to_continuous_bernoulli,
    (Beta, Exponential): _beta_exponential,
    (Beta, Gamma): _beta_gamma,
    (Beta, Normal): _beta_normal,
    (Beta, Uniform): _beta_uniform,
    (ContinuousBernoulli, Exponential): _continuous_bernoulli_exponential,
    (ContinuousBernoulli, Normal): _continuous_bernoulli_normal,
    (ContinuousBernoulli, Uniform): _continuous_bernoulli_uniform,
    (Exponential, Gamma): _exponential_gamma,
    (Exponential, Gumbel): _exponential_gumbel,
    (Exponential, Normal): _exponential_normal,
    (Gamma, Exponential): _gamma_exponential,
    (Gamma, Gumbel): _gamma_gumbel,
    (Gamma, Normal): _gamma_normal,
    (Gumbel, Normal): _gumbel_normal,
    (Laplace, Normal): _laplace_normal,
    (LowRankMultivariateNormal, MultivariateNormal): kl_lowrank_full,
    (MultivariateNormal, LowRankMultivariateNormal): kl_full_lowrank,
    (Normal, Gumbel): _normal_gumbel,
    (Normal, Laplace): _normal_laplace,
    (Pareto, Exponential): _pareto_exponential,
    (Pareto, Gamma): _pareto_gamma,
    (Pareto, Normal): _pareto_normal,
    (Uniform, Beta): _uniform_beta,
    (Uniform, ContinuousBernoulli): _uniform_continuous_bernoulli,
    (Uniform, Exponential): _uniform_exponential,
    (Uniform, Gamma): _uniform_gamma,
    (Uniform, Gumbel): _uniform_gumbel,
    (Uniform, Normal): _uniform_normal,
    (Uniform, Pareto): _uniform_pareto,
}
CROSS_FAMILY.update({(p, q): _infinite(param) for p, (param, qs) in _INFINITE.items()
                     for q in qs})
