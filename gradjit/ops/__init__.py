"""The array surface: numpy/PyTorch semantics on any array-like (numpy arrays, eager tensors,
traced values), built from primitives. Eager tensors and the tracer both sit on it."""
from gradjit.ops.array import *  # noqa: F401,F403
from gradjit.ops import linalg  # noqa: F401
from gradjit.ops.linalg import inv, matrix_norm_svd  # noqa: F401
from gradjit.ops.indexing import constant_value, getitem, index_put  # noqa: F401
from gradjit.ops.promote import (broadcast_shapes, default_float, flavor,  # noqa: F401
                                 operands, result_type, to_float)
