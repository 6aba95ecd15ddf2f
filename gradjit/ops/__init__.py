"""The array surface: numpy/PyTorch semantics on any array-like (numpy arrays, eager tensors,
traced values), built from primitives. Eager tensors and the tracer both sit on it."""
from gradjit.ops.array import *  # noqa: F401,F403
from gradjit.ops.contract import (cross, dot, inner, kron, matrix_power, matvec,  # noqa: F401
                                  multi_dot, outer, tensordot, vdot, vecdot, vecmat)
from gradjit.ops.contraction import einsum, einsum_path  # noqa: F401
from gradjit.ops import linalg  # noqa: F401
from gradjit.ops.linalg import inv, matrix_norm_svd  # noqa: F401
from gradjit.ops.indexing import (constant_value, getitem, index_put,  # noqa: F401
                                  value_deciding_shape)
from gradjit.ops.norms import matrix_norm, norm, vector_norm  # noqa: F401
from gradjit.ops.promote import (broadcast_shapes, default_float, flavor, in_float32,  # noqa: F401
                                 mean_type, operands, result_type, to_float)
from gradjit.ops import diagonals, padding, selection, shaping  # noqa: F401
from gradjit.ops.diagonals import *  # noqa: F401,F403
from gradjit.ops.padding import *  # noqa: F401,F403
from gradjit.ops.selection import *  # noqa: F401,F403
from gradjit.ops.shaping import *  # noqa: F401,F403
from gradjit.ops.integers import (bitwise_and, bitwise_or, bitwise_xor, divmod_,  # noqa: F401
                                  float_power, floor_divide, fmod, gcd, invert, lcm, left_shift,
                                  remainder, right_shift, trunc_divide)
from gradjit.ops.reduce import *  # noqa: F401,F403
from gradjit.ops import sorting  # noqa: F401
from gradjit.ops.ufuncs import (arccos, arccosh, arcsin, arcsinh, arctan,  # noqa: F401
                                arctan2, arctanh, cbrt, copysign, cosh, deg2rad, exp2, fabs,
                                floats, fmax, fmin, heaviside, hypot, isinf, isnan, log2,
                                log10, logaddexp, logaddexp2, nan_to_num, rad2deg,
                                round_decimals, signbit, sinc, sinh, spacing, trunc,
                                frexp, modf, ldexp, nextafter)
from gradjit.ops.complex import (angle, complex_from, conj, imag, is_complex,  # noqa: F401
                                 is_real_valued, polar, real)
