"""numpy.linalg under gradjit's name (HIPS autograd's `autograd.numpy.linalg`)."""
import numpy.linalg as _module

from gradjit.numpy.lifting import attribute


def __getattr__(name):
    return attribute(_module, name)


def __dir__():
    return dir(_module)
