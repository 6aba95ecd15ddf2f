"""torch.nn: Modules and Parameters over the public Tensor API; the math is in
nn.functional."""
from gradjit.nn import functional, grad, init, parallel, utils  # noqa: F401
from gradjit.nn.modules import *  # noqa: F401,F403
from gradjit.nn.parameter import Buffer, Parameter  # noqa: F401
from gradjit.nn.parallel import DataParallel  # noqa: F401
# jax.nn's names (`import gradjit as jax`; `jax.nn.relu`, `jax.nn.initializers`)
from gradjit.nn import jax_initializers as initializers  # noqa: E402,F401
from gradjit.nn.jax_functions import *  # noqa: E402,F401,F403
