"""autograd.scipy.misc: logsumexp, where older scipy (and autograd) kept it."""
from gradjit.scipy.special import logsumexp  # noqa: F401
