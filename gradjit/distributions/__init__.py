"""torch.distributions: parameterized probability distributions written with the Tensor API;
each of PyTorch's submodules (normal, beta, ...) importable by its name."""
import sys
import types

from gradjit.distributions import constraints, transforms  # noqa: F401
from gradjit.distributions.constraint_registry import biject_to, transform_to  # noqa: F401
from gradjit.distributions.continuous import Normal, Uniform
from gradjit.distributions.continuous_bernoulli import ContinuousBernoulli
from gradjit.distributions.counts import Binomial, Geometric, NegativeBinomial, Poisson
from gradjit.distributions.dirichlet import Beta, Dirichlet
from gradjit.distributions.discrete import Bernoulli, Categorical, Multinomial
from gradjit.distributions.distribution import Distribution
from gradjit.distributions.exp_family import ExponentialFamily
from gradjit.distributions.gamma import Chi2, Gamma
from gradjit.distributions.kl import kl_divergence, register_kl
from gradjit.distributions.lkj_cholesky import LKJCholesky
from gradjit.distributions.location_scale import (Cauchy, Exponential, GeneralizedPareto,
                                                  Laplace)
from gradjit.distributions.lowrank import LowRankMultivariateNormal
from gradjit.distributions.mixture import MixtureSameFamily
from gradjit.distributions.multivariate import Independent, MultivariateNormal
from gradjit.distributions.pushforward import (Gumbel, HalfCauchy, HalfNormal, InverseGamma,
                                               Kumaraswamy, LogisticNormal, LogNormal, Pareto,
                                               Weibull)
from gradjit.distributions.relaxed import (ExpRelaxedCategorical,  # noqa: F401 (submodules)
                                           LogitRelaxedBernoulli, OneHotCategorical,
                                           OneHotCategoricalStraightThrough, RelaxedBernoulli,
                                           RelaxedOneHotCategorical)
from gradjit.distributions.student import FisherSnedecor, StudentT
from gradjit.distributions.transformed import TransformedDistribution
from gradjit.distributions.transforms import *  # noqa: F401,F403
from gradjit.distributions.von_mises import VonMises
from gradjit.distributions.wishart import Wishart
from gradjit.distributions import utils  # noqa: F401

# PyTorch's submodule -> the names it defines; those without a module of the same name here
# become modules re-exporting them. Each class names PyTorch's module as its own, as its repr
# (and the messages quoting it) does there.
_SUBMODULES = {
    "bernoulli": ["Bernoulli"], "beta": ["Beta"], "binomial": ["Binomial"],
    "categorical": ["Categorical"], "cauchy": ["Cauchy"], "chi2": ["Chi2"],
    "dirichlet": ["Dirichlet"], "exp_family": ["ExponentialFamily"],
    "exponential": ["Exponential"],
    "fishersnedecor": ["FisherSnedecor"], "generalized_pareto": ["GeneralizedPareto"],
    "gamma": ["Gamma"], "geometric": ["Geometric"],
    "gumbel": ["Gumbel"], "half_cauchy": ["HalfCauchy"], "half_normal": ["HalfNormal"],
    "independent": ["Independent"], "inverse_gamma": ["InverseGamma"],
    "kumaraswamy": ["Kumaraswamy"], "lkj_cholesky": ["LKJCholesky"], "laplace": ["Laplace"],
    "log_normal": ["LogNormal"],
    "logistic_normal": ["LogisticNormal"], "mixture_same_family": ["MixtureSameFamily"],
    "lowrank_multivariate_normal": ["LowRankMultivariateNormal"],
    "multinomial": ["Multinomial"],
    "multivariate_normal": ["MultivariateNormal"], "negative_binomial": ["NegativeBinomial"],
    "normal": ["Normal"], "one_hot_categorical": ["OneHotCategorical",
                                                  "OneHotCategoricalStraightThrough"],
    "pareto": ["Pareto"], "poisson": ["Poisson"],
    "relaxed_bernoulli": ["LogitRelaxedBernoulli", "RelaxedBernoulli"],
    "relaxed_categorical": ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"],
    "studentT": ["StudentT"], "transformed_distribution": ["TransformedDistribution"],
    "uniform": ["Uniform"], "von_mises": ["VonMises"], "weibull": ["Weibull"],
    "wishart": ["Wishart"],
}
for _name, _exports in _SUBMODULES.items():
    _full = f"{__name__}.{_name}"
    if _full not in sys.modules:
        _module = types.ModuleType(_full, f"torch.distributions.{_name}: {', '.join(_exports)}.")
        _module.__dict__.update({n: globals()[n] for n in _exports}, __all__=_exports)
        sys.modules[_full] = _module
        globals()[_name] = _module
    for _export in _exports:
        globals()[_export].__module__ = _full

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2",
           "ContinuousBernoulli", "Dirichlet", "Distribution", "Exponential",
           "ExponentialFamily", "FisherSnedecor", "Gamma", "GeneralizedPareto",
           "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "InverseGamma",
           "Kumaraswamy", "LKJCholesky", "Laplace", "LogNormal", "LogisticNormal",
           "LowRankMultivariateNormal",
           "MixtureSameFamily", "Multinomial", "MultivariateNormal", "NegativeBinomial", "Normal",
           "OneHotCategorical", "OneHotCategoricalStraightThrough", "Pareto", "Poisson",
           "RelaxedBernoulli", "RelaxedOneHotCategorical", "StudentT",
           "TransformedDistribution", "Uniform", "VonMises", "Weibull", "Wishart", "biject_to",
           "constraints",
           "kl_divergence", "register_kl", "transform_to", "transforms"]
__all__ += transforms.__all__
