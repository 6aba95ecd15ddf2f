"""torch.distributions: parameterized probability distributions written with the Tensor API."""
from gradjit.distributions import constraints
from gradjit.distributions.continuous import Normal, Uniform
from gradjit.distributions.counts import Binomial, Geometric, Poisson
from gradjit.distributions.discrete import Bernoulli, Categorical, Multinomial
from gradjit.distributions.distribution import Distribution
from gradjit.distributions.gamma import Chi2, Gamma
from gradjit.distributions.location_scale import Cauchy, Exponential, Laplace
from gradjit.distributions.multivariate import Independent, MultivariateNormal  # noqa: F401
from gradjit.distributions.pushforward import (Gumbel, HalfCauchy, HalfNormal,  # noqa: F401
    LogisticNormal, LogNormal, Pareto, Weibull)
from gradjit.distributions.transformed import TransformedDistribution  # noqa: F401
from gradjit.distributions import transforms  # noqa: F401
from gradjit.distributions.constraint_registry import biject_to, transform_to  # noqa: F401
from gradjit.distributions.kl import kl_divergence, register_kl  # noqa: F401

__all__ = ["Bernoulli", "Binomial", "Categorical", "Cauchy", "Chi2", "Distribution",
           "Exponential", "Gamma", "Geometric", "Gumbel", "HalfNormal", "Independent", "Laplace",
           "LogNormal", "Multinomial", "MultivariateNormal", "Normal", "Poisson", "Uniform",
           "constraints", "kl_divergence", "register_kl"]
