"""numpy.fft under gradjit's name (HIPS autograd's `autograd.numpy.fft`)."""
import numpy.fft as _module

from gradjit.numpy.lifting import attribute


def __getattr__(name):
    return attribute(_module, name)


def __dir__():
    return dir(_module)
