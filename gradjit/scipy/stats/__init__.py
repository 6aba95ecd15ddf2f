"""HIPS autograd's scipy.stats: each distribution a module of scipy's function names and
argument orders (`norm.logpdf(x, loc, scale)`), written as traced compositions."""
from gradjit.scipy.stats import (beta, chi2, dirichlet, gamma, multivariate_normal,  # noqa: F401
                                 norm, poisson, t)


def scipy_stats_caller(frame):
    """(distribution name, method name, the frame that called the method, whether the
    distribution was frozen with its parameters: norm(0, 2).cdf(x)) of the outermost
    scipy.stats distribution method on the stack from `frame` out, or None: scipy's methods
    turn their arguments into numpy arrays, which a traced value cannot become."""
    import sys
    if "scipy.stats" not in sys.modules:
        return None
    from scipy.stats._distn_infrastructure import rv_frozen, rv_generic
    found = None
    while frame is not None:
        owner = frame.f_locals.get("self")
        if isinstance(owner, (rv_generic, rv_frozen)) and not frame.f_code.co_name.startswith("_"):
            dist = owner.dist if isinstance(owner, rv_frozen) else owner
            found = (dist.name, frame.f_code.co_name, frame.f_back, dist is not owner)
        frame = frame.f_back
    return found
