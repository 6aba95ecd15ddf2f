"""numpy under gradjit's name. gradjit traces numpy's own functions, so HIPS autograd's
`import autograd.numpy as np` ports as `import gradjit.numpy as np`: every name here is
numpy's (np.ndarray is numpy.ndarray), and so are random, linalg and fft."""
import numpy as _numpy

from gradjit.numpy import fft, linalg, random  # noqa: F401


def __getattr__(name):
    return getattr(_numpy, name)


def __dir__():
    return dir(_numpy)
