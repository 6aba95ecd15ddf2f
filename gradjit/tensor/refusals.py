"""PyTorch's refusals of dtypes its kernels lack, raised before any work, in its words."""
from __future__ import annotations

from gradjit.ir.primitive import ir_type, is_python_scalar
from gradjit.tensor import dtypes


def refuse_bool_subtraction(a, b):
    """PyTorch has no subtraction of bools (a Python bool counts as a wrapped bool tensor)."""
    bools = sum(ir_type(x).dtype.name == "bool" for x in (a, b))
    if bools == 2:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if bools:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def float_only(name, x):
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {x.dtype.legacy}")


def refuse_integers(kernel, x):
    """PyTorch's CPU kernel `kernel` is built for floating and complex types only."""
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{x.dtype.legacy}\'')


def refuse_lerp(x, end, weight):
    """torch's lerp on an integer x: `end` of another dtype, else no integer kernel."""
    if getattr(end, "dtype", x.dtype) != x.dtype:
        raise RuntimeError(f"expected dtype {dtypes.CPP_NAMES[x.dtype.legacy]} for `end` but got "
                           f"dtype {dtypes.CPP_NAMES[end.dtype.legacy]}")
    refuse_integers(f"lerp_kernel_{'scalar' if is_python_scalar(weight) else 'tensor'}", x)
