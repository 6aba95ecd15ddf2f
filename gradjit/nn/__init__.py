"""torch.nn: Modules and Parameters over the public Tensor API; the math is in
nn.functional."""
from gradjit.nn import functional, init, utils  # noqa: F401
from gradjit.nn.modules import *  # noqa: F401,F403
from gradjit.nn.parameter import Buffer, Parameter  # noqa: F401
from gradjit.nn import parallel  # noqa: E402,F401
from gradjit.nn.parallel import DataParallel  # noqa: E402,F401
