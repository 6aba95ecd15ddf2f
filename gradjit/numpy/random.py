"""numpy.random under gradjit's name (HIPS autograd's `autograd.numpy.random`)."""
import numpy.random as _module


def __getattr__(name):
    return getattr(_module, name)


def __dir__():
    return dir(_module)
