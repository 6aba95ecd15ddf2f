"""HIPS autograd's scipy.stats: each distribution a module of scipy's function names and
argument orders (`norm.logpdf(x, loc, scale)`), written as traced compositions."""
from gradjit.scipy.stats import (beta, chi2, dirichlet, gamma, multivariate_normal,  # noqa: F401
                                 norm, poisson, t)
