"""jax.lax under gradjit's name (`from gradjit import lax`): control flow run as Python control
flow under tracing (guards, unrolled loops), and elementwise, shape, contraction, convolution,
window, gather/scatter and sorting operations written with traced numpy functions."""
from gradjit.lax.control import (associative_scan, cond, fori_loop, map,  # noqa: F401,A004
                                 scan, select, select_n, stop_gradient, switch, while_loop)
from gradjit.lax.elementwise import *  # noqa: F401,F403
from gradjit.lax.indexing import *  # noqa: F401,F403
from gradjit.lax.parallel import (all_gather, axis_index, pmax, pmean, pmin,  # noqa: F401
                                  psum)
from gradjit.lax.structural import *  # noqa: F401,F403
