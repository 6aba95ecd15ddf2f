"""PyTorch's refusals of dtypes its kernels lack, raised before any work, in its words."""
from __future__ import annotations

import functools

from gradjit import ops
from gradjit.ir.primitive import ir_type, is_python_scalar
from gradjit.tensor import dtypes


def complex_type(dt) -> bool:
    return dt.is_complex


def inexact_type(dt) -> bool:
    return dt.is_inexact


def bool_type(dt) -> bool:
    return dt.is_bool


def integral_type(dt) -> bool:
    return not dt.is_inexact


def refuse_cast(source, target):
    """PyTorch's rule for writing a result into a tensor of another dtype (in place, out=)."""
    if not dtypes.can_cast(source, target):
        raise RuntimeError(f"result type {source.legacy} can't be cast to the desired output "
                           f"type {target.legacy}")


def no_kernel(kernel, fn, refused):
    """fn, but for operands whose common dtype PyTorch's CPU kernel `kernel` is not built
    for (`refused(dtype)`), which it refuses in its words before any work."""
    def run(*args):
        dt = ops.result_type(*args)
        if refused(dt):
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{dtypes.of_ir(dt).legacy}'")
        return fn(*args)
    return run


def real_only(name, fn):
    """fn of real operands: PyTorch's maximum, minimum, fmax and fmin refuse complex ones."""
    def run(*args):
        if ops.result_type(*args).is_complex:
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        return fn(*args)
    return run


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


def refuse_integers(kernel, x, *others):
    """PyTorch's CPU kernel `kernel` is built for floating and complex types only: those of x
    and the other operands promoted together, which it runs in."""
    dtype = x.dtype
    if others:
        from gradjit.tensor.defaults import promote_types  # defaults imports arith: us
        dtype = functools.reduce(promote_types, (o.dtype for o in others), dtype)
    if not (dtype.is_floating_point or dtype.is_complex):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dtype.legacy}\'')


def refuse_lerp(x, end, weight):
    """torch's lerp: `end`, and a weight tensor of one or more dimensions, of x's dtype; no
    integer kernel."""
    for name, other in (("end", end), ("weight", weight)):
        if getattr(other, "dtype", x.dtype) != x.dtype and (name == "end" or other.dim()):
            raise RuntimeError(f"expected dtype {dtypes.CPP_NAMES[x.dtype.legacy]} for `{name}` "
                               f"but got dtype {dtypes.CPP_NAMES[other.dtype.legacy]}")
    if x.dtype.is_floating_point or x.dtype.is_complex:
        return
    refuse_integers(f"lerp_kernel_{'scalar' if is_python_scalar(weight) else 'tensor'}", x)


def refuse_integer_addcdiv(tensor1, tensor2):
    """addcdiv of two integer tensors: PyTorch refuses its old truncating division."""
    kinds = [getattr(t, "dtype", None) for t in (tensor1, tensor2)]
    if all(k is not None and not (k.is_floating_point or k.is_complex) for k in kinds):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
            ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
            "float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")
