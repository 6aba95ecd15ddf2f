"""Creating tensors: from data, filled, ranges, identity, random (our own seeded generator),
from numpy (sharing memory) and like other tensors."""
from __future__ import annotations

import functools
import math
import numbers
import warnings
from collections.abc import Sequence

import numpy as np

from gradjit.ir.types import complex_of, is_bfloat16, is_complex32, round_bfloat16, round_complex32
from gradjit.tensor import dtypes, unsigned
from gradjit.tensor import memory_format as MF
from gradjit.tensor.arange_values import arange_values, fma
from gradjit.tensor.dtype_device import _device
from gradjit.tensor.shape import _shape_args
from gradjit.tracer.torch_surface import TRACING


def _leaf(array, device=None, requires_grad=False):
    from gradjit.tensor.tensor import Tensor
    if is_bfloat16(array.dtype):  # data cast into bfloat16 storage is not rounded yet
        array = round_bfloat16(array)
    elif is_complex32(array.dtype):
        array = round_complex32(array)
    t = Tensor._wrap(array)
    if TRACING:
        from gradjit.tracer.trace import current_trace  # the tracer sits above Tensors
        t._made_in = current_trace()
    if device is None and dtypes.default_device[0] is not dtypes.CPU:
        device = dtypes.default_device[0]
    if device is not None:
        t._device = _device(device)
    if requires_grad:
        if not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t.requires_grad_(True)
    return t


def _numpy_dtype(dtype, default=None):
    if dtype is None:
        return default
    return dtypes.to_dtype(dtype).ir.numpy


def _infer(data, dtype=None) -> np.ndarray:
    """numpy data with PyTorch's inference: bool, int64, or the default float; numpy scalars
    and 0-dim tensors among the data keep their dtypes, promoted with the rest; Python floats
    go straight to a requested `dtype` (1e300 must not pass through float32 on its way to
    float64)."""
    if hasattr(data, "_edge"):
        return np.array(data._concrete())
    if isinstance(data, np.ndarray):
        if any(step < 0 for step in data.strides):  # refused as by from_numpy
            raise ValueError(_NEGATIVE_STRIDES)
        _check_numpy(data)
        return np.array(data)
    if isinstance(data, Sequence) and data and isinstance(data[0], np.ndarray):
        warnings.warn("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please "
                      "consider converting the list to a single numpy.ndarray with numpy.array() "
                      "before converting to a tensor.", UserWarning, stacklevel=3)
    first = data
    while isinstance(first, Sequence) and not isinstance(first, (str, bytes)) and first:
        first = first[0]
        if isinstance(first, str):  # PyTorch reads its shape first, and text as a sequence
            raise ValueError("too many dimensions 'str'")
    typed = []
    plain = _plain(data, typed)
    shape = _nested_shape(plain)
    if 0 in shape:  # nothing stored, so nothing checked: zeros of the first elements' shape
        return np.zeros(shape, _numpy_dtype(dtype, dtypes.get_default_dtype().ir.numpy))
    kinds = _python_numbers(data)
    _check_nested(plain, shape, 0, float in kinds)
    array = np.array(plain)
    if typed and dtype is None and array.size:
        return array.astype(_promoted(typed, data).ir.numpy)
    if not typed and array.dtype.kind in "uOf" and not kinds & {float, complex}:
        # integers alone, some past int64's range (numpy made them unsigned, objects or floats)
        if dtype is None:
            raise ValueError("Overflow when unpacking long long")
        return array  # for tensor() to convert to dtype, not wrapped through int64
    if array.dtype.kind == "f":
        target = _numpy_dtype(dtype, dtypes.get_default_dtype().ir.numpy)
        if target.kind != "f":  # checked against the integer range first, by tensor()
            return array
        with np.errstate(over="ignore"):  # 1e6 as float16 is inf, as in PyTorch
            return array.astype(target)
    if array.dtype.kind == "c":  # the complex type of the default float
        default = dtypes.get_default_dtype().to_complex().ir.numpy
        target = _numpy_dtype(dtype, default)
        return array.astype(target if target.kind == "c" else default)
    if array.dtype.kind in "iu":
        return array.astype(np.int64)
    if array.dtype.kind == "b" or array.size == 0:
        return array if array.size else array.astype(dtypes.get_default_dtype().ir.numpy)
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


def _plain(data, typed):
    """Nested Python numbers; the dtypes of numpy scalars and tensors met go into `typed`.
    Any Python sequence counts, as PyTorch reads one (a deque of returns), but not text."""
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return [_plain(x, typed) for x in data]
    if hasattr(data, "_edge"):  # PyTorch reads a tensor among the data as one number
        typed.append(data.dtype)
        return data._python_scalar()
    if isinstance(data, np.generic):
        typed.append(dtypes.of_numpy(data.dtype))
        return data
    if isinstance(data, np.ndarray):  # a sequence of its own dtype, as numpy scalars are
        _check_numpy(data)
        typed.append(dtypes.of_numpy(data.dtype))
        return data.tolist()
    if isinstance(data, numbers.Number):
        return data
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


def _nested_shape(plain):
    """The shape PyTorch reads off nested lists: the lengths along their first elements."""
    shape = []
    while isinstance(plain, list):
        shape.append(len(plain))
        if not plain:
            break
        plain = plain[0]
    return shape


def _check_nested(plain, shape, dim, floating):
    """Every list along `dim` as long as the first one, as PyTorch checks while it copies."""
    if dim == len(shape):
        if isinstance(plain, list):
            raise TypeError("must be real number, not list" if floating else
                            "'list' object cannot be interpreted as an integer")
        return
    if not isinstance(plain, list):
        raise TypeError("not a sequence")
    if len(plain) != shape[dim]:
        raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got "
                         f"{len(plain)})")
    for x in plain:
        _check_nested(x, shape, dim + 1, floating)


def _promoted(typed, data):
    """PyTorch's promotion of the typed elements with the Python numbers among `data`."""
    from gradjit.tensor.defaults import promote_types
    result = typed[0]
    for t in {*typed[1:], *map(_python_dtype, _python_numbers(data))}:
        result = promote_types(result, t)
    return result


def _python_numbers(data):
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):  # as _plain reads
        return {t for x in data for t in _python_numbers(x)}
    typed = hasattr(data, "_edge") or isinstance(data, (np.generic, np.ndarray))
    return set() if typed else {type(data)}


def _python_dtype(kind):
    if issubclass(kind, bool):
        return dtypes.bool_
    if issubclass(kind, numbers.Integral):
        return dtypes.int64
    default = dtypes.get_default_dtype()
    return default.to_complex() if issubclass(kind, complex) else default


def _check_numpy(array):
    try:
        dtypes.to_dtype(array.dtype)
    except (KeyError, TypeError):
        raise TypeError(f"can't convert np.ndarray of type numpy.{array.dtype.type.__name__}. "
                        "The only supported types are: float64, float32, float16, complex64, "
                        "complex128, int64, int32, int16, int8, uint64, uint32, uint16, uint8, "
                        "and bool.") from None


def is_traced(data) -> bool:
    """A value being traced (inside grad/jit), given bare rather than inside a Tensor."""
    return getattr(type(data), "__gradjit_priority__", None) is not None and \
        not hasattr(data, "_edge")


def _holds_traced(data) -> bool:
    return is_traced(_unwrapped(data)) or isinstance(data, (list, tuple)) and \
        any(map(_holds_traced, data))


def _unwrapped(data):
    """A Tensor's value (traced or an array); anything else as it is."""
    return data._value if hasattr(data, "_edge") else data


def _traced_tensor(data, dtype):
    """A Tensor around a traced value, or around nested lists holding some, stacked; numbers
    take PyTorch's default dtypes."""
    from gradjit import ops
    if isinstance(data, (list, tuple)):
        parts = [_traced_tensor(x, None)._value if _holds_traced(x) else _infer(x)
                 for x in data]
        data = ops.stack(parts) if parts else _infer(data)
    from gradjit.tensor.tensor import Tensor
    if getattr(data, "__gradjit_weak__", False):
        data = _traced_number(data, dtype)
    # a Tensor is copied without its history, as in eager code
    out = data.detach().clone() if hasattr(data, "_edge") else Tensor._wrap(data)
    return out if dtype is None else out.to(dtype)


def _traced_number(number, dtype):
    """A traced Python number as tensor() types the number: integers past int64's range
    (traced as uint64) refused as the eager call refuses them, floats in the default dtype."""
    from gradjit import ops
    from gradjit.tracer.trace import as_array
    kind = number.dtype.kind
    if kind == "u" and dtype is None:
        raise ValueError("Overflow when unpacking long long")
    number = as_array(number)
    if kind in "fc":
        default = dtypes.get_default_dtype().ir
        return ops.astype(number, default if kind == "f" else complex_of(default))
    return number


def tensor(data, *, dtype=None, device=None, requires_grad=False):
    if dtype is not None:
        dtype = dtypes.checked_argument(dtype, "tensor")
    if _holds_traced(data):
        return _traced_tensor(data, dtype)
    numbers = not isinstance(data, np.ndarray) and not hasattr(data, "_edge")
    target = None if dtype is None else _numpy_dtype(dtype)
    if target == np.uint64 and numbers:
        return _leaf(_uint64_array(data), device, requires_grad)
    array = _infer(data, dtype)
    if target is not None:
        if target.kind in "iu" and numbers and array.size:
            _check_fits(array, target)
        array = array.astype(target)
    return _leaf(array, device, requires_grad)


def _uint64_array(data):
    """PyTorch reads each number as a C unsigned 64-bit integer: no floats, no negatives, and
    all 64 bits (numpy would read them through int64 or float64)."""
    values = np.asarray(data, dtype=object)
    if any(isinstance(v, float) for v in values.flat):
        raise TypeError("an integer is required")
    if values.size and values.min() < 0:
        raise OverflowError("can't convert negative int to unsigned")
    if values.size and values.max() >= 2 ** 64:
        raise OverflowError("int too big to convert")
    return values.astype(np.uint64)


def _check_fits(array, target):
    """Python numbers must fit the integer dtype asked for (an unsigned one also takes the
    negatives of its range, wrapped, as PyTorch allows, but only from integers)."""
    info = np.iinfo(target)
    low = -int(info.max) if target.kind == "u" and array.dtype.kind != "f" else int(info.min)
    if array.min() < low or array.max() > int(info.max):
        name = dtypes.of_numpy(target).ir.torch_name
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")


def as_tensor(data, dtype=None, device=None):
    if hasattr(data, "_edge"):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or _numpy_dtype(dtype) == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """obj as a Tensor, sharing memory where it can (a Tensor, a numpy array of that dtype);
    copy=True always copies, copy=False refuses where it cannot share."""
    if hasattr(obj, "_edge"):
        return _tensor_as(obj, dtype, copy, requires_grad)
    if isinstance(obj, np.ndarray):
        shared = dtype is None or _numpy_dtype(dtype) == obj.dtype
        if copy is False and not shared:
            raise ValueError(f"can't alias tensor with dtype '{dtypes.of_numpy(obj.dtype).legacy}'"
                             f" into dtype '{dtypes.to_dtype(dtype).legacy}'.")
        out = from_numpy(obj.copy() if copy else obj) if shared else \
            tensor(obj, dtype=dtype, device=device)
    elif copy is False:
        raise ValueError("can't alias arbitrary sequence into a tensor.")
    else:
        out = tensor(obj, dtype=dtype, device=device)
    return out.requires_grad_() if requires_grad else out


_ASARRAY_WARNED: list = []


def _tensor_as(t, dtype, copy, requires_grad):
    if requires_grad is None:
        if t.requires_grad and not _ASARRAY_WARNED:
            _ASARRAY_WARNED.append(True)  # PyTorch warns once per process
            warnings.warn("torch.asarray: unspecified requires_grad now defaults to "
                          "obj.requires_grad instead of False. Pass requires_grad=False "
                          "explicitly to get the old behavior and silence this warning.",
                          stacklevel=3)
        requires_grad = t.requires_grad
    out = t
    if dtype is not None and dtypes.to_dtype(dtype) != t.dtype:
        if copy is False:
            raise ValueError(f"can't alias tensor with dtype '{t.dtype.legacy}' into dtype "
                             f"'{dtypes.to_dtype(dtype).legacy}'.")
        out = t.to(dtype)
    elif copy:
        out = t.clone()
    if not requires_grad and out.requires_grad:
        return out.detach()
    return out.requires_grad_() if requires_grad and not out.requires_grad else out


_NEGATIVE_STRIDES = ("At least one stride in the given numpy array is negative, and tensors with "
                     "negative strides are not currently supported. (You can probably work "
                     "around this by making a copy of your array  with array.copy().) ")


def from_numpy(array: np.ndarray):
    """A tensor sharing `array`'s memory."""
    if not isinstance(array, np.ndarray):
        kind = type(array)
        name = kind.__name__ if kind.__module__ == "builtins" else \
            f"{kind.__module__}.{kind.__qualname__}"
        raise TypeError(f"expected np.ndarray (got {name})")
    if any(step < 0 for step in array.strides):  # a tensor's strides count forwards
        raise ValueError(_NEGATIVE_STRIDES)
    if not array.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte "
                         "order. Conversion between byte orders is currently not supported.")
    _check_numpy(array)
    if not array.flags.writeable:  # PyTorch's words; Python's filters show it once a line
        warnings.warn("The given NumPy array is not writable, and PyTorch does not support "
                      "non-writable tensors. This means writing to this tensor will result in "
                      "undefined behavior. You may want to copy the array to protect its data or "
                      "make it writable before converting it to a tensor. This type of warning "
                      "will be suppressed for the rest of this program.", UserWarning,
                      stacklevel=2)
    return _leaf(array)


def _sizes(shape, size=None) -> tuple:
    """A shape given as sizes (`zeros(2, 3)`), one sequence (`zeros((2, 3))`) or `size=`."""
    return _shape_args(shape if size is None else (size,))


def refuse_negative_sizes(shape: tuple) -> tuple:
    negative = [n for n in shape if n < 0]
    if negative:
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative[0]}: "
                           f"{list(shape)}")
    return shape


def refuse_overflowing_storage(shape: tuple, itemsize: int) -> tuple:
    """PyTorch's check of a new tensor's byte count against int64, before numpy's own (a
    ValueError, "array is too big")."""
    if math.prod(shape) * itemsize >= 2 ** 63:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
    return shape


def _filled(size, value, dtype, device, requires_grad):
    value = value.item() if hasattr(value, "_edge") else value  # a 0-d tensor as its number
    shape = refuse_negative_sizes(_shape_args(size))
    if dtype is None:
        kind = np.dtype(value.dtype).kind if getattr(value, "__gradjit_weak__", False) else None
        dtype = dtypes.to_dtype(type(value)) if isinstance(value, (bool, int)) else \
            dtypes.bool_ if kind == "b" else dtypes.int64 if kind in ("i", "u") else \
            dtypes.get_default_dtype().to_complex() if isinstance(value, complex) or \
            kind == "c" else dtypes.get_default_dtype()
    if isinstance(value, (bool, int, float, complex)):
        value = dtypes.scalar_in(value, dtypes.to_dtype(dtype))
    refuse_overflowing_storage(shape, np.dtype(_numpy_dtype(dtype)).itemsize)
    return _leaf(np.full(shape, value, _numpy_dtype(dtype)), device, requires_grad)


def takes_out(make):
    """A factory that also takes out=: its values made in out's dtype (a dtype= given must be
    it, as PyTorch checks), written into out."""
    @functools.wraps(make)
    def factory(*args, out=None, dtype=None, **kwargs):
        if out is None:
            return make(*args, dtype=dtype, **kwargs)
        from gradjit.tensor.functions import write_out
        if dtype is not None and dtypes.to_dtype(dtype) is not out.dtype:
            raise RuntimeError(f"dtype {dtypes.to_dtype(dtype).legacy} does not match dtype of "
                               f"out parameter ({out.dtype.legacy})")
        return write_out(f"aten::{make.__name__}",  # PyTorch's factories name their aten op
                         lambda: make(*args, dtype=out.dtype, **kwargs), (), out)
    return factory


@takes_out
def zeros(*shape, size=None, dtype=None, layout=None, device=None, requires_grad=False):
    shape = _sizes(shape, size)
    if any(n < 0 for n in shape):  # zeros alone says it so
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    if layout is not None and layout.name == "sparse_coo":
        return _sparse_zeros(shape, None, dtype, requires_grad)
    return _filled(shape, 0.0, dtype, device, requires_grad)


def _sparse_zeros(shape, sparse_dim, dtype, requires_grad):
    from gradjit.sparse.tensor import zeros  # the sparse layout sits above the factories
    return zeros(shape, sparse_dim, dtype or dtypes.get_default_dtype(), requires_grad)


@takes_out
def ones(*shape, size=None, dtype=None, device=None, requires_grad=False):
    return _filled(_sizes(shape, size), 1.0, dtype, device, requires_grad)


@takes_out
def empty(*size, dtype=None, layout=None, device=None, requires_grad=False,
          memory_format=MF.contiguous_format):
    """Unlike PyTorch's, the memory is initialized (to zeros), so results are reproducible."""
    if layout is not None and layout.name == "sparse_coo":
        return _sparse_zeros(_shape_args(size), None, dtype, requires_grad)
    out = _filled(size, 0.0, dtype, device, requires_grad)
    return out if memory_format is MF.contiguous_format else _laid_out_as(out, memory_format)


def _laid_out_as(t, memory_format, like=None):
    """t (new, so changed in place) laid out in memory_format; preserve_format: as `like`."""
    if memory_format is MF.preserve_format:
        value = like._value
        if not isinstance(value, np.ndarray) or value.flags.c_contiguous:
            return t
        order = MF.dense_order(value.shape, value.strides)
    else:
        order = MF.order_of(memory_format, t.dim())
    if isinstance(t._value, np.ndarray):
        t._value = MF.laid_out(t._value, order)
    return t


@takes_out
def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    # a Python number that gradjit.compile traces stands for that number
    if not (isinstance(fill_value, (numbers.Number, np.bool_)) or hasattr(fill_value, "_edge")
            and fill_value.dim() == 0 or getattr(fill_value, "__gradjit_weak__", False)):
        raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not "
                        f"{type(fill_value).__name__}")
    return _filled((size,) if isinstance(size, int) else (tuple(size),), fill_value, dtype,
                   device, requires_grad)


@takes_out
def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    bounds = [float(b) if hasattr(b, "_edge") and b.is_floating_point() else
              b.item() if hasattr(b, "_edge") else b for b in (start, end, step)]
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not all(math.isfinite(b) for b in bounds[:2]):
        raise RuntimeError(f"unsupported range: {bounds[0]} -> {bounds[1]}")
    if (bounds[2] > 0 and bounds[1] < bounds[0]) or (bounds[2] < 0 and bounds[1] > bounds[0]):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        floating = any(isinstance(b, float) for b in bounds)
        dtype = dtypes.get_default_dtype() if floating else dtypes.int64
    unsigned.refuse("arange_cpu", dtypes.to_dtype(dtype))
    if dtypes.to_dtype(dtype) is dtypes.bool_:
        raise NotImplementedError('"arange_cpu" not implemented for \'Bool\'')
    start, end, step = bounds
    count = max(0, math.ceil((end - start) / step))
    kind = dtypes.to_dtype(dtype)
    if dtype in (dtypes.float32, dtypes.float64):
        values = arange_values(start, step, count, dtype is dtypes.float32)
    elif not (kind.is_floating_point or kind.is_complex):
        values = _integer_arange(start, end, step, count, kind is dtypes.int64)
    elif all(isinstance(b, int) for b in bounds):
        values = start + np.arange(count, dtype=np.int64) * step
    else:
        values = start + np.arange(count, dtype=np.float64) * step
    return _leaf(values.astype(_numpy_dtype(dtype)), device, requires_grad)


def _integer_arange(start, end, step, count, int64):
    """torch's integer arange: start and step truncated to int64, where it accumulates; an
    int64 one also counts its elements from the truncated bounds, in integer arithmetic."""
    first, stride = int(start), int(step)
    if int64:
        if stride == 0:  # torch's words, with its Python error type here
            raise ValueError("step must be nonzero")
        span = int(end) - first + stride - (1 if stride > 0 else -1)
        count = max(0, abs(span) // abs(stride) * (1 if (span >= 0) == (stride > 0) else -1))
    return first + np.arange(count, dtype=np.int64) * stride


@takes_out
def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    numpy = _numpy_dtype(dtype, _spaced_default(start, end))
    return _leaf(spaced("linspace", start, end, steps, numpy).astype(numpy), device,
                 requires_grad)


def _spaced_default(*bounds):
    """linspace's dtype without dtype=: the default float's, complex if a bound is."""
    default = dtypes.get_default_dtype()
    complex_bound = any(isinstance(b, complex) or getattr(b, "is_complex", lambda: False)()
                        for b in bounds)
    return (default.to_complex() if complex_bound else default).ir.numpy


def spaced(name, start, end, steps, numpy):
    """torch's linspace kernel for a `numpy` result: bounds read in that dtype (an integer one
    truncates them), each half stepped from its own end, in float32 for float32 and float64
    otherwise."""
    if not isinstance(steps, int):
        raise TypeError(f"{name}() received an invalid combination of arguments: steps must be "
                        f"int, not {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    for which, bound in (("start", start), ("end", end)):
        if hasattr(bound, "_edge") and bound.dim():
            raise RuntimeError(f"{name} only supports 0-dimensional start and end tensors, but "
                               f"got {which} with {bound.dim()} dimension(s).")
    start, end = (b.item() if hasattr(b, "_edge") else b for b in (start, end))
    if numpy.kind != "c" and any(isinstance(b, complex) for b in (start, end)):
        raise RuntimeError(f"torch.{name}(): inferred dtype "
                           f"{dtypes.CPP_NAMES[dtypes.get_default_dtype().to_complex().legacy]} "
                           f"can't be safely cast to passed dtype "
                           f"{dtypes.of_numpy(numpy).legacy}")
    if np.issubdtype(numpy, np.integer):
        start, end = int(start), int(end)
    work = {np.dtype(np.float32): np.float32, np.dtype(np.complex64): np.complex64,
            np.dtype(np.complex128): np.complex128}.get(np.dtype(numpy), np.float64)
    start, end = work(start), work(end)
    index = np.arange(steps, dtype=work)
    step = (end - start) / work(max(steps - 1, 1))
    halfway = steps // 2 if steps > 1 else 1  # one step is start itself
    fused = name == "linspace" and np.dtype(numpy) in (np.float32, np.float64)
    if fused and work is np.float32:  # float32 products are exact in float64: rounded once
        step, index, start, end = (np.float64(v) for v in (step, index, start, end))
    stepped = fma if fused else lambda a, b, c: a * b + c
    return np.where(index < halfway, stepped(step, index, start),
                    stepped(-step, work(steps - 1) - index, end)).astype(work)


@takes_out
def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    for name, size in (("n", n), ("m", m)):
        if size is not None and size < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {size}")
    array = np.eye(n, n if m is None else m,
                   dtype=_numpy_dtype(dtype, dtypes.get_default_dtype().ir.numpy))
    return _leaf(array, device, requires_grad)


# ---- like another tensor ----

def _like(fill):
    def make(input, *, dtype=None, layout=None, device=None, requires_grad=False,
             memory_format=MF.preserve_format):
        # a sparse tensor's: sparse, without entries
        if getattr(input, "_sparse_layout", False) and layout is None:
            if fill is ones:
                from gradjit.sparse.arith import not_on_sparse
                raise not_on_sparse("fill_.Scalar")
            return _sparse_zeros(tuple(input.shape), input.sparse_dim(), dtype or input.dtype,
                                 requires_grad)
        return _laid_out_as(fill(tuple(input.shape), dtype=dtype or input.dtype,
                                 device=device or input.device, requires_grad=requires_grad),
                            memory_format, input)
    make.__name__ = fill.__name__ + "_like"
    return make


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False,
              memory_format=MF.preserve_format):
    return _laid_out_as(full(tuple(input.shape), fill_value, dtype=dtype or input.dtype,
                             device=device or input.device, requires_grad=requires_grad),
                        memory_format, input)


zeros_like, ones_like, empty_like = _like(zeros), _like(ones), _like(empty)
