"""numpy under gradjit's name. gradjit traces numpy's own functions, so HIPS autograd's
`import autograd.numpy as np` ports as `import gradjit.numpy as np`: every name here is
numpy's (np.ndarray is numpy.ndarray), and so are random, linalg and fft; functions also take
lists of traced values, as autograd's do."""
import numpy as _numpy

from gradjit.numpy import fft, linalg, random  # noqa: F401
from gradjit.numpy.lifting import attribute


def __getattr__(name):
    return attribute(_numpy, name)


def __dir__():
    return dir(_numpy)
