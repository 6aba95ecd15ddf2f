"""numpy under gradjit's name. gradjit traces numpy's own functions, so HIPS autograd's
`import autograd.numpy as np` ports as `import gradjit.numpy as np`: every name here is
numpy's (np.ndarray is numpy.ndarray), and so are random, linalg and fft; functions also take
lists of traced values, as autograd's do, and the scalar types (np.float64) cast them."""
import numpy as _numpy

from gradjit.numpy import fft, linalg, random  # noqa: F401
from gradjit.numpy.lifting import attribute
from gradjit.tracer.scalar_types import STAND_INS


def __getattr__(name):
    if name in STAND_INS:  # np.float64(x) of a traced x casts it
        return STAND_INS[name]
    return attribute(_numpy, name)


def __dir__():
    return dir(_numpy)
