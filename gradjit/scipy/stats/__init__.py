"""HIPS autograd's scipy.stats: each distribution a module of scipy's function names and
argument orders (`norm.logpdf(x, loc, scale)`), written as traced compositions."""
import sys

from gradjit.scipy.stats import (beta, chi2, dirichlet, gamma, multivariate_normal,  # noqa: F401
                                 norm, poisson, t)


def refuse_scipy_stats():
    """Raise, naming the user's call, where a scipy.stats distribution method is running on a
    traced value (scipy computes it with numpy arrays of its own, which cannot hold a value
    computed at run time), pointing to this module's function of the same name."""
    found = _scipy_stats_caller(sys._getframe(1))
    if found is None:
        return
    name, method, caller, frozen = found
    from gradjit.tracer.array_methods import TracerArrayConversionError
    from gradjit.tracer.trace import _short, source_line
    site = f"{_short(caller.f_code.co_filename)}:{caller.f_lineno}" if caller else None
    own = getattr(globals().get(name), method, None)
    arguments = "x and the frozen parameters" if frozen else "scipy's arguments"
    fix = (f"use gradjit.scipy.stats.{name}.{method}, which takes {arguments} and traces"
           if own else f"gradjit.scipy.stats has no {name}.{method}: write it with numpy "
           "functions, which trace")
    raise TracerArrayConversionError(
        f"scipy.stats.{name}.{method} was given a traced value at {site}: "
        f"{source_line(site)}\n  scipy.stats computes with numpy arrays of its own, which "
        f"cannot hold a value computed at run time; {fix}")


def _scipy_stats_caller(frame):
    """(distribution name, method name, the frame that called the method, whether the
    distribution was frozen with its parameters: norm(0, 2).cdf(x)) of the outermost
    scipy.stats distribution method on the stack from `frame` out, or None."""
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
