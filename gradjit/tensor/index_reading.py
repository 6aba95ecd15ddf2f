"""PyTorch's reading of a Tensor index into the parts the array layer indexes with (numpy's
rules): 0-d integer tensors as ints, byte masks as bool masks, lists of sequences as tuples,
and PyTorch's errors for indices that do not fit the tensor."""
from __future__ import annotations

import re
import warnings

import numpy as np

from gradjit.tensor import dtypes

BYTE_MASK = ("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
             "instead. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
             "IndexingUtils.h:37.)")
ZERO_DIM_INT = ("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
# numpy's words for an integer index out of range, which PyTorch says of a dimension
_OUT_OF_RANGE = re.compile(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)")


def is_tensor(p) -> bool:
    return hasattr(p, "_edge")


def index_parts(t, index):
    """The parts of `index` (of tensor t) as the array surface takes them."""
    if _read_as_tuple(index):
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated "
                      "and will be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. "
                      "In pytorch 2.9 this will be interpreted as tensor index, "
                      "x[torch.tensor(seq)], which will result either in an error or a "
                      "different result", UserWarning, stacklevel=3)
        index = tuple(index)
    parts = index if isinstance(index, tuple) else (index,)
    _check(t, parts, single=not isinstance(index, tuple))
    # a traced index Tensor stays traced: its values are known only when the function runs
    return tuple(_read(p) for p in parts)


def is_advanced(parts) -> bool:
    """Whether the index read has a part that is an array (numpy's advanced indexing)."""
    return any(not (p is None or p is Ellipsis or isinstance(p, (int, slice, np.integer)))
               for p in parts)


def _read_as_tuple(index) -> bool:
    """PyTorch's rule kept from old numpy: a list of under 32 items holding a sequence, slice,
    Ellipsis, None or Tensor is a tuple of indices, one per axis."""
    return type(index) is list and len(index) < 32 and any(
        isinstance(x, (list, tuple, range, slice, np.ndarray)) or x is None or x is Ellipsis
        or is_tensor(x) for x in index)


def _check(t, parts, single):
    if any(type(p) is slice and p.step is not None and p.step < 0 for p in parts):
        raise ValueError("step must be greater than zero")
    for p in parts:
        if type(p) is float:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or "
                             "byte Variables are valid indices (got float)")
        if is_tensor(p) and (p.dtype.is_floating_point or p.dtype.is_complex):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if single and t.dim() == 0 and type(parts[0]) is int:
        raise IndexError(ZERO_DIM_INT)
    if single and t.dim() == 0 and type(parts[0]) is slice:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    taken = [_dims_taken(p) for p in parts]
    if sum(taken) > t.dim():
        raise IndexError(f"too many indices for tensor of dimension {t.dim()}")
    dim = 0
    for i, p in enumerate(parts):
        if p is Ellipsis:
            dim = t.dim() - sum(taken[i + 1:])
        elif taken[i] and _is_mask(p):
            _check_mask(tuple(p.shape), tuple(t.shape), dim)
        dim += taken[i]


def _dims_taken(p) -> int:
    if p is None or p is Ellipsis or type(p) is bool:
        return 0
    return p.dim() if _is_mask(p) else 1


def _is_mask(p) -> bool:
    return is_tensor(p) and p.dtype in (dtypes.bool_, dtypes.uint8)


def _check_mask(mask, shape, dim):
    for j, size in enumerate(mask):
        if size != shape[dim + j]:
            raise IndexError(f"The shape of the mask {list(mask)} at index {j} does not match "
                             f"the shape of the indexed tensor {list(shape)} at index {dim + j}")


def _read(p):
    if is_tensor(p):
        if p.dtype is dtypes.uint8:
            warnings.warn(BYTE_MASK, UserWarning, stacklevel=4)
            p = p.bool()
        if p.dim() == 0 and p.dtype is not dtypes.bool_ and type(p._value) is np.ndarray:
            return int(p._value)  # an integer: the result is a view, as PyTorch's
        if p.dtype not in (dtypes.int64, dtypes.int32, dtypes.bool_):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        # a traced index stays a Tensor, so that what it selects is one too
        return p._value if type(p._value) is np.ndarray else p
    if type(p) is int and not -2 ** 63 <= p < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    return _list_index(p)


def _list_index(p):
    """A list of Python numbers as PyTorch reads it: the tensor it makes, floats among them
    turned long (truncated), where numpy would refuse float indices."""
    if type(p) is not list or not _numbers(p):
        return p
    array = np.array(p)
    return array.astype(np.int64) if array.dtype.kind == "f" else p


def _numbers(items) -> bool:
    return all(_numbers(x) if type(x) is list else type(x) in (int, float, bool) for x in items)


def put_value(t, parts, value, put=False):
    """The value of t[parts] = value (or of index_put, `put`) as PyTorch takes it: a tensor
    without its leading 1s, of t's dtype where the index is an array (but for one mask filled
    with one value, by setitem), of a shape that broadcasts to the indexed one."""
    target = indexed_shape(tuple(t.shape), parts)
    if not is_tensor(value):
        return value
    advanced = put or is_advanced(parts)
    shape = tuple(value.shape)
    lead = 0 if put else next((i for i, d in enumerate(shape) if d != 1), len(shape))
    if lead:
        value = value.reshape(shape[lead:])
    if target is not None and not _broadcasts(shape[lead:], target):
        if advanced:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(shape[lead:])} "
                               f"cannot be broadcast to indexing result of shape "
                               f"{list(target)}")
        value.expand(target)  # PyTorch's copy_ expands the value: its error
    if advanced and value.dtype is not t.dtype and (put or not (
            len(parts) == 1 and _is_bool_array(parts[0]) and value.dim() == 0)):
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{t.dtype.legacy} for the destination and {value.dtype.legacy} for "
                           "the source.")
    return value


def _is_bool_array(p) -> bool:
    return isinstance(p, np.ndarray) and p.dtype.kind == "b"


def _broadcasts(shape, target) -> bool:
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False


def indexed_shape(shape, parts):
    """The shape of x[parts] for x of `shape`, where every part is known now (None where one
    is traced), with PyTorch's error for an index out of range."""
    if any(not (p is None or isinstance(p, (int, slice, bool, list, np.ndarray, np.integer))
                or p is Ellipsis) for p in parts):
        return None
    try:
        return np.broadcast_to(np.int8(0), shape)[parts].shape
    except IndexError as error:
        words = _OUT_OF_RANGE.fullmatch(str(error))
        if words is None:
            raise
        index, axis, size = words.groups()
        raise IndexError(f"index {index} is out of bounds for dimension {axis} with size "
                         f"{size}") from None


def index_steps(parts, shape):
    """PyTorch's reading of an index of several parts, one view a part: (grad_fn, index)
    pairs, each index applied to the previous result (a select per int, a slice per slice
    that is not the whole dim, an unsqueeze per None), then one IndexBackward0 of the arrays,
    whose other parts are all taken by then (so an int beside an array selects first, as in
    PyTorch, not as numpy's advanced index). None for one part, or parts these steps do not
    cover (bools, traced arrays)."""
    if len(parts) < 2 or any(type(p) is bool or hasattr(p, "__gradjit_bind__") for p in parts):
        return None
    spans = [0 if p is None or p is Ellipsis else
             getattr(p, "ndim", 1) if getattr(p, "dtype", None) == np.bool_ else 1
             for p in parts]
    rest = len(shape) - sum(spans)
    steps, final, dim, size = [], [], 0, list(shape)
    for p, span in zip(parts, spans):
        lead = (slice(None),) * dim
        if p is Ellipsis:
            dim += rest
            final.append(p)
        elif p is None:
            steps.append(("UnsqueezeBackward0", lead + (None,)))
            size.insert(dim, 1)
            dim += 1
            final.append(slice(None))
        elif isinstance(p, (int, np.integer)):
            steps.append(("SelectBackward0", lead + (p,)))
            del size[dim]
        elif type(p) is slice:
            if p.indices(size[dim]) != (0, size[dim], 1):
                steps.append(("SliceBackward0", lead + (p,)))
            dim += 1
            final.append(slice(None))
        else:
            dim += span
            final.append(p)
    if is_advanced(parts):
        steps.append(("IndexBackward0", tuple(final)))
    return steps or [("AliasBackward0", (Ellipsis,))]
