"""Tensors laid out by explicit strides over shared memory: empty_strided, empty_permuted,
frombuffer, from_file, as_strided_ and its copy and scatter forms, slice_inverse, plus
nonzero_static, map2_ and the deprecated out-of-place resize."""
from __future__ import annotations

import math
import warnings

import numpy as np

from gradjit.tensor import dtypes
from gradjit.tensor.arith import apply
from gradjit.tensor.factories import _leaf, tensor
from gradjit.tensor.layout import _positions, _storage_of


def strided_view(root, size, stride, offset=0):
    """The numpy view of the flat array `root` (the storage) at offset + sum(i_k * stride_k)
    elements; numpy keeps `root` as its base, so the view's storage and offset read back."""
    item = root.itemsize
    return np.ndarray(tuple(size), root.dtype, buffer=root, offset=offset * item,
                      strides=tuple(s * item for s in stride))


def _span(size, stride):
    """Elements a layout reaches from its first one."""
    return 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """A zero-filled tensor of `size` laid out with `stride` (in elements) over a storage
    just large enough for it."""
    numpy = dtypes.to_dtype(dtype or dtypes.get_default_dtype()).ir.numpy
    root = np.zeros(_span(size, stride), numpy)
    return _leaf(strided_view(root, size, stride), device, requires_grad)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """A tensor of `size` whose dimensions lie in memory in the order `physical_layout`
    (outermost first)."""
    size, order = tuple(size), tuple(physical_layout)
    if len(size) != len(order):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(size)} is not equal to "
                           f"len(physical_layout) = {len(order)}")
    for i, d in enumerate(order):
        if not 0 <= d < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and "
                               f"{len(size) - 1}, but got {d} at index {i}).  NB: negative dims "
                               "not currently supported; file an issue if you want it.")
    if len(set(order)) != len(order):
        raise RuntimeError("Duplicate dim not allowed")
    stride, step = [0] * len(size), 1
    for d in reversed(order):
        stride[d], step = step, step * size[d]
    return empty_strided(size, stride, dtype=dtype, device=device, requires_grad=requires_grad)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over the memory of an object with the buffer protocol (shared: writes
    reach the buffer)."""
    data = memoryview(buffer).cast("B")
    length, numpy = data.nbytes, dtypes.to_dtype(dtype).ir.numpy
    item = np.dtype(numpy).itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % item:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({item})")
        count = (length - offset) // item
    elif offset + count * item > length:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    array = np.frombuffer(data, numpy, count, offset)
    if not data.readonly:
        array.flags.writeable = True
    return _leaf(array, None, requires_grad)


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
              pin_memory=False):
    """`size` elements read from a file's start; `shared`: mapped, so writes reach the file."""
    numpy = dtypes.to_dtype(dtype or dtypes.get_default_dtype()).ir.numpy
    if shared:
        return _leaf(np.memmap(filename, numpy, "r+", shape=(size,)), device)
    with open(filename, "rb") as f:
        data = f.read(size * np.dtype(numpy).itemsize)
    return _leaf(np.frombuffer(data, numpy).copy(), device)


def as_strided_(input, size, stride, storage_offset=None):
    """input becomes the as_strided view of its own storage."""
    offset = input.storage_offset() if storage_offset is None else storage_offset
    root = _storage_of(input._value).reshape(-1)
    input._update(lambda: input.as_strided(size, stride, storage_offset), write=False)
    input._value = strided_view(root, size, stride, offset)
    return input


def as_strided_copy(input, size, stride, storage_offset=None):
    return apply("AsStridedBackward0_copy",
                 lambda t: t.as_strided(size, stride, storage_offset).clone(), input)


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of input with the elements that as_strided(size, stride, offset) reads from
    its contiguous layout replaced by src."""
    flat = tensor(_positions(storage_offset or 0, tuple(size), tuple(stride)).reshape(-1))

    def scattered(x, s):  # src is cast to input's dtype, as torch's kernel copies it
        return x.reshape(-1).index_put((flat,), s.reshape(-1).to(x.dtype)).reshape(x.shape)
    return apply("AsStridedScatterBackward0", scattered, input, src)


def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """`input` (a slice of `src`) seen again with src's sizes, strides and offset."""
    return apply("SliceInverseBackward0", lambda t: t.as_strided(
        tuple(src.shape), src.stride(), src.storage_offset()), input)


def resize_as_(input, the_template, memory_format=None):
    return input.resize_as_(the_template, memory_format)


def nonzero_static(input, *, size, fill_value=-1):
    """nonzero's indices, cut or padded with fill_value to exactly `size` rows."""
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = np.argwhere(input.detach().numpy()).astype(np.int64)[:size]
    rows = np.full((size, input.dim()), fill_value, np.int64)
    rows[:len(found)] = found
    return tensor(rows)


class StridedMixin:
    """The Tensor-method forms."""

    as_strided_scatter, nonzero_static = as_strided_scatter, nonzero_static
    slice_inverse = slice_inverse

    def as_strided_(self, size, stride, storage_offset=None):
        return as_strided_(self, size, stride, storage_offset)

    def map2_(self, x, y, callable):
        """callable(self element, x element, y element) into self, x and y broadcast."""
        shape = tuple(self.shape)
        others = [t.expand(shape)._concrete() for t in (x, y)]  # torch's expand errors
        return self._write_elements("map2_", np.vectorize(
            callable, otypes=[self.dtype.ir.numpy]), self, *others)

    def resize(self, *sizes):
        warnings.warn("non-inplace resize is deprecated", stacklevel=2)
        return _resized(self, sizes)

    def resize_as(self, tensor):
        warnings.warn("non-inplace resize_as is deprecated", stacklevel=2)
        return _resized(self, tuple(tensor.shape))


_SPACE = " "  # PyTorch's resize message ends with one


def _resized(t, sizes):
    """autograd's resize: a reshape that must keep the number of elements."""
    count = math.prod(sizes)
    if t.numel() != count:
        raise RuntimeError(f"requested resize to {'x'.join(map(str, sizes))} ({count} elements "
                           f"in total), but the given tensor has a size of "
                           f"{'x'.join(map(str, t.shape))} ({t.numel()} elements). autograd's "
                           "resize can only change the shape of a given tensor, while "
                           f"preserving the number of elements.{_SPACE}")
    return apply("ResizeBackward", lambda x: x.reshape(sizes), t)


__all__ = ["as_strided_", "as_strided_copy", "as_strided_scatter", "empty_permuted",
           "empty_strided",
           "from_file", "frombuffer", "nonzero_static", "resize_as_", "slice_inverse"]
