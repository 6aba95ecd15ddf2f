"""numpy.linalg under gradjit's name (HIPS autograd's `autograd.numpy.linalg`)."""
import numpy.linalg as _module


def __getattr__(name):
    return getattr(_module, name)


def __dir__():
    return dir(_module)
