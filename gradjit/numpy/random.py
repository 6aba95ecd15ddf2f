"""numpy.random under gradjit's name (HIPS autograd's `autograd.numpy.random`). A draw made
while a function is traced becomes an op that draws again, from the same generator, each
time the compiled function runs: autograd runs a function anew at each call, so its samples
are fresh at each call, and so are these."""
import itertools

import numpy as np
import numpy.random as _module

# RandomState's methods that return a draw (shuffle, which writes in place, is not one)
DRAWS = ("beta", "binomial", "chisquare", "choice", "dirichlet", "exponential", "f", "gamma",
         "geometric", "gumbel", "hypergeometric", "laplace", "logistic", "lognormal",
         "logseries", "multinomial", "multivariate_normal", "negative_binomial",
         "noncentral_chisquare", "noncentral_f", "normal", "pareto", "permutation", "poisson",
         "power", "rand", "randint", "randn", "random", "random_integers", "random_sample",
         "rayleigh", "standard_cauchy", "standard_exponential", "standard_gamma",
         "standard_normal", "standard_t", "triangular", "uniform", "vonmises", "wald",
         "weibull", "zipf")
_serial = itertools.count()


def _draw(generator, method, args, kwargs):
    from gradjit.ir.types import type_of
    from gradjit.tracer.host import host_primitive
    from gradjit.tracer.trace import Traced, current_trace
    original = getattr(_module.RandomState, method)
    if current_trace() is None or any(isinstance(a, Traced)
                                      for a in (*args, *kwargs.values())):
        return original(generator, *args, **kwargs)
    probe = _module.RandomState()  # the draw's type, from a copy of the generator's state
    probe.set_state(generator.get_state())
    out_type = type_of(np.asarray(original(probe, *args, **kwargs)))

    def draw():
        return np.asarray(original(generator, *args, **kwargs))
    prim = host_primitive(f"numpy_random_{method}_{next(_serial)}", lambda: out_type, draw, 0)
    return current_trace().bind(prim, (), {})  # no operand to say which trace records it


def _method(name):
    def method(self, *args, **kwargs):
        return _draw(self, name, args, kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = getattr(_module.RandomState, name).__doc__
    return method


class RandomState(_module.RandomState):
    """numpy's RandomState, whose draws in a traced function are made at each run."""


for _name in DRAWS:
    setattr(RandomState, _name, _method(_name))
_GLOBAL = {name: (lambda name: lambda *args, **kwargs: _draw(
    _module.mtrand._rand, name, args, kwargs))(name) for name in DRAWS}


def __getattr__(name):
    if name == "RandomState":
        return RandomState
    return _GLOBAL[name] if name in _GLOBAL else getattr(_module, name)


def __dir__():
    return dir(_module)
