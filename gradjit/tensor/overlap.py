"""PyTorch's memory-overlap checks on a write: elements of the written tensor that share memory
(a stride-0 dim), and an in-place or out= write whose bytes meet an input's; whether a result
is a view of an operand's memory."""
from __future__ import annotations

import math

import numpy as np
from numpy.lib.array_utils import byte_bounds
from numpy.lib.stride_tricks import as_strided

INTERNAL = ("unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.")
BETWEEN = ("unsupported operation: some elements of the input tensor and the written-to tensor "
           "refer to a single memory location. Please clone() the tensor before performing the "
           "operation.")


def same_memory(out, operand) -> bool:
    """Whether numpy's result `out` lies in the operand's memory; where either holds no
    element, whether both are cut from the array that owns the memory (an empty view is
    still PyTorch's view)."""
    if out.size and operand.size:
        return np.may_share_memory(out, operand)
    owners = []
    for array in (out, operand):
        while isinstance(array.base, np.ndarray):
            array = array.base
        owners.append(array)
    return owners[0] is owners[1]


def internal(value) -> bool:
    """Whether elements of an array share memory (a dimension of stride 0, as expand makes):
    the one internal overlap PyTorch detects."""
    return type(value) is np.ndarray and value.size > 1 and any(
        step == 0 and n > 1 for n, step in zip(value.shape, value.strides))


def _dense(value) -> bool:
    """Whether an array's elements fill a block of memory once each, in some dim order."""
    expected = value.itemsize
    for step, n in sorted((abs(step), n) for n, step in zip(value.shape, value.strides)
                          if n > 1):
        if step != expected:
            return False
        expected *= n
    return True


def status(a, b):
    """PyTorch's overlap status of two arrays: "full" (the same elements in the same layout),
    "partial" (their memory meets otherwise) or None (apart, or too hard to tell: either is
    not dense)."""
    if a is b:
        return "full"
    if a.size == 0 or b.size == 0 or not (_dense(a) and _dense(b)):
        return None
    (a_begin, a_end), (b_begin, b_end) = byte_bounds(a), byte_bounds(b)
    if (a_begin, a_end) == (b_begin, b_end):
        return "full" if a.strides == b.strides else "partial"
    return "partial" if a_begin < b_end and b_begin < a_end else None


def check_inputs(written, inputs, refused=("partial",)):
    """PyTorch's check of an in-place write against its tensor inputs (x.add_(x.t()),
    x[1:] = x[:-1]): one whose memory meets the written elements other than element for
    element would be read after it is partly overwritten; the indexed writes (index_add_,
    scatter_, x[i] = ...) refuse the same elements too (`refused`)."""
    if type(written) is not np.ndarray:
        return
    for tensor in inputs:
        value = getattr(tensor, "_value", None)
        if type(value) is np.ndarray and np.may_share_memory(written, value) and \
                status(written, value) in refused:
            raise RuntimeError(BETWEEN)


ANY = ("full", "partial")  # the indexed writes' refusal


def check_internal(out):
    """An out= tensor none of whose elements may share memory."""
    if internal(getattr(out, "_value", None)):
        raise RuntimeError(INTERNAL)


def _owner(value):
    """The array that owns a view's memory (as_strided views hold it in a stand-in)."""
    while True:
        base = value.base
        if base is not None and not isinstance(base, np.ndarray):
            base = getattr(base, "base", None)
        if not isinstance(base, np.ndarray):
            return value
        value = base


def _resized(target, shape):
    """out= as PyTorch resizes it to the result's shape before writing: contiguous from its
    first element while its storage has room (None where a new storage is allocated)."""
    if target.shape == shape:
        return target
    root = _owner(target)
    begin = byte_bounds(target)[0]
    if begin + math.prod(shape) * target.itemsize > byte_bounds(root)[1]:
        return None
    strides = [target.itemsize] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return as_strided(target, shape, strides)


def check_out(out, shape, inputs, refused):
    """out= (resized to `shape` first where one is given) against the tensors among `inputs`:
    none may share its memory in a `refused` way ("partial", or "full" too where the kernel
    reads inputs in another order than it writes out)."""
    target = getattr(out, "_value", None)
    if type(target) is not np.ndarray or not refused:
        return
    if shape is not None:
        target = _resized(target, tuple(shape))
    for tensor in inputs:
        value = getattr(tensor, "_value", None)
        if target is not None and type(value) is np.ndarray and \
                status(target, value) in refused:
            raise RuntimeError(BETWEEN)
