"""HIPS autograd's misc namespace: flatten (pytrees as one vector), the optimizers sgd,
rmsprop and adam over pytrees, and fixed_point with its implicit gradient."""
from gradjit.misc import fixed_points, optimizers  # noqa: F401
from gradjit.misc.flatten import flatten, flatten_func  # noqa: F401
