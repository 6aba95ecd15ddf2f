"""torch.distributions: parameterized probability distributions written with the Tensor API."""
from gradjit.distributions import constraints
from gradjit.distributions.continuous import Normal, Uniform
from gradjit.distributions.discrete import Bernoulli, Categorical, Multinomial
from gradjit.distributions.distribution import Distribution

__all__ = ["Bernoulli", "Categorical", "Distribution", "Multinomial", "Normal", "Uniform",
           "constraints"]
