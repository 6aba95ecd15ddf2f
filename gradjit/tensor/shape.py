"""Tensor views and shape operations, indexing and index assignment, copies and fills, cat and
stack."""
from __future__ import annotations

import operator

import numpy as np

from gradjit import ops
from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.primitive import BroadcastError
from gradjit.tensor import dtypes, fused, graph, overlap
from gradjit.tensor import memory_format as MF
from gradjit.tensor.arith import apply, operand
from gradjit.tensor.base import _check_dim
from gradjit.tensor.grad_mode import is_grad_enabled
from gradjit.tensor.hot_path import plain_float, unrecorded
from gradjit.tensor.index_reading import index_parts, index_steps, is_advanced, put_value


def _shape_args(shape):
    """Sizes given one by one or as one sequence; a size is an integer (a 0-d integer tensor
    or numpy integer too), never a float. PyTorch's parser reads a first size that is a bool
    as no size at all, later ones as 0 and 1."""
    if len(shape) == 1 and not hasattr(shape[0], "__index__"):
        shape = tuple(shape[0])
    for position, d in enumerate(shape):
        if isinstance(d, np.bool_) or position == 0 and isinstance(d, bool) or \
                not hasattr(d, "__index__"):
            raise TypeError(f"size must be a tuple of ints, not {type(d).__name__}")
    return tuple(operator.index(d) for d in shape)


def _view_possible(array, shape) -> bool:
    """Whether numpy (like PyTorch) can give this shape without copying."""
    try:
        view = array.view()
        view.shape = shape
        return True
    except (AttributeError, ValueError):
        return False


def _view_as_dtype(x, dtype):
    """x.view(dtype): x's bytes read as `dtype`, sharing memory (bfloat16, held in float32, is
    converted), without history as in PyTorch."""
    size, new = x.dtype.itemsize, dtype.itemsize
    if size != new:
        name = f"view {x.dtype.legacy} as {dtype.legacy} (different element sizes)"
        if x.dim() == 0:
            raise RuntimeError(f"self.dim() cannot be 0 to {name}")
        if new > size and x.shape[-1] % (new // size):
            raise RuntimeError(f"self.size(-1) must be divisible by {new // size} to {name}, "
                               f"but got {x.shape[-1]}")
        if x.shape[-1] != 1 and x.stride(-1) != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 to {name}, but got {x.stride(-1)}")
        if new > size and x.storage_offset() % (new // size):
            raise RuntimeError(f"self.storage_offset() must be divisible by {new // size} to "
                               f"{name}, but got {x.storage_offset()}")
        for d, step in enumerate(x.stride()[:-1]):
            if new > size and step % (new // size):
                raise RuntimeError(f"self.stride({d}) must be divisible by {new // size} to "
                                   f"{name}, but got {step}")
    value = x._detached_value()
    if x.dtype is dtypes.bfloat16:
        value = (value.view(np.uint32) >> 16).astype(np.uint16)
    if dtype is dtypes.bfloat16:
        value = (value.view(np.uint16).astype(np.uint32) << 16).view(dtype.ir.numpy)
    else:
        value = value.view(dtype.ir.numpy)
    out = type(x)._wrap(value, x._counter)
    out._device = x._device
    return out


def _resolved(shape, size):
    """shape with its -1 worked out, where it plainly holds `size` elements; None otherwise
    (the general path words the error)."""
    if shape.count(-1) > 1 or any(d < -1 for d in shape):
        return None
    known = 1
    for d in shape:
        if d != -1:
            known *= d
    if -1 not in shape:
        return shape if known == size else None
    return None if known == 0 or size % known else \
        tuple(size // known if d == -1 else d for d in shape)


def _reshaped(t, shape, view):
    """t reshaped without recording (`unrecorded`), or None; `view`: only where no copy is
    needed, as view() requires."""
    value = t._value
    if type(value) is not np.ndarray:
        return None
    target = _resolved(shape, value.size)
    if target is None or view and not _view_possible(value, target):
        return None
    return unrecorded(t, lambda x: S.reshape.evaluate(x, shape=target), any_dtype=True)


def _permuted(t, perm, name):
    """t's axes permuted as the operation `name`: without recording (`unrecorded`), or as one
    record (`fused.permuted`); None where the general path runs."""
    out = unrecorded(t, lambda x: S.transpose.evaluate(x, perm=perm), any_dtype=True)
    return out if out is not None else fused.permuted(name, t, perm)


def _plain_dim(dim, rank):
    """dim as an axis where it is an int in range (of a tensor of rank >= 1), else None."""
    return dim % rank if type(dim) is int and rank and -rank <= dim < rank else None


def _basic_index(parts):
    """parts as numpy's index of a view where they are ints, positive-step slices of ints,
    None and at most one Ellipsis (an Ellipsis closes it, so an int gives a 0-d view);
    None otherwise."""
    for p in parts:
        kind = type(p)
        if kind is slice:
            if any(b is not None and type(b) is not int for b in (p.start, p.stop, p.step)) \
                    or p.step is not None and p.step <= 0:
                return None
        elif kind is not int and p is not None and p is not Ellipsis:
            return None
    count = parts.count(Ellipsis)
    return parts + (Ellipsis,) if count == 0 else parts if count == 1 else None


def _shares_elements(value, basic):
    """Whether the view value[basic] that a write by a basic index copies into has elements
    that share memory, which PyTorch's copy refuses (out of range: the write's own error)."""
    if type(value) is not np.ndarray or 0 not in value.strides:
        return False
    try:
        return overlap.internal(value[basic])
    except IndexError:
        return False


def _getitem(x, parts):
    """numpy's reading of x[parts], a run-time index out of range worded as PyTorch does."""
    return ops.getitem(x, parts, torch_words=True)


def _index_name(parts) -> str:
    if is_advanced(parts):
        return "IndexBackward0"
    last = [p for p in parts if p is not Ellipsis]
    if not last:
        return "AliasBackward0"
    return {int: "SelectBackward0", slice: "SliceBackward0", type(None): "UnsqueezeBackward0"}[
        int if isinstance(last[-1], (int, np.integer)) else type(last[-1])]


def _expanded(array, shape):
    """A writable view of `array` broadcast to `shape` (numpy's own is read-only)."""
    strides = np.broadcast_to(array, shape).strides
    return np.lib.stride_tricks.as_strided(array, shape, strides)


def broadcast_shape(*shapes) -> tuple:
    """The shape these shapes broadcast to, or PyTorch's error naming the first two sizes that
    differ."""
    try:
        return ops.broadcast_shapes(*shapes)
    except BroadcastError as e:
        raise e.in_torch_words() from None


def broadcast_into(shape, other):
    """PyTorch's checks of an in-place write of an operand of shape `other` into `shape`."""
    broadcast = broadcast_shape(shape, other)
    if broadcast != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape "
                           f"{list(broadcast)}")


def _check_expansion(t, sizes, lead):
    """PyTorch's checks of expand(*sizes), from the last dimension to the first."""
    if lead < 0:
        raise RuntimeError(f"expand({t.type()}{{{list(t.shape)}}}, size={list(sizes)}): the "
                           f"number of sizes provided ({len(sizes)}) must be greater or equal "
                           f"to the number of dimensions in the tensor ({t.dim()})")
    for i in reversed(range(len(sizes))):
        if i < lead and sizes[i] == -1:
            raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                               f"leading, non-existing dimension {i}")
        have = t.shape[i - lead] if i >= lead else 1
        if i >= lead and sizes[i] not in (-1, have) and have != 1:
            raise RuntimeError(f"The expanded size of the tensor ({sizes[i]}) must match the "
                               f"existing size ({have}) at non-singleton dimension {i}.  Target "
                               f"sizes: {list(sizes)}.  Tensor sizes: {list(t.shape)}")


def squeeze_node(dim) -> str:
    """PyTorch's overloads: no dim, one dim, several dims."""
    return f"SqueezeBackward{0 if dim is None else 2 if isinstance(dim, (tuple, list)) else 1}"


class ShapeMixin:
    """Views (sharing storage), shape changes, indexing, copies and fills of Tensor."""

    def view(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], dtypes.dtype):
            return _view_as_dtype(self, shape[0])
        shape = _shape_args(shape)
        out = _reshaped(self, shape, True)
        if out is not None:
            return out
        out = apply("ViewBackward0", ops.reshape, self, shape)
        if isinstance(out._value, np.ndarray) and out.numel() and \
                not np.may_share_memory(out._value, self._value):
            raise RuntimeError("view size is not compatible with input tensor's size and stride "
                               "(at least one dimension spans across two contiguous subspaces). "
                               "Use .reshape(...) instead.")
        return out

    def reshape(self, *shape):
        shape = _shape_args(shape)
        out = _reshaped(self, shape, False)
        if out is not None:
            return out
        value = self._value
        with graph.torch_words:
            copies = isinstance(value, np.ndarray) and not _view_possible(
                value, ops.array.reshape(value, shape).shape)
        # PyTorch's reshape: a view of a contiguous tensor, an alias with new strides of
        # another it can view, else a contiguous clone viewed
        if copies:
            return apply("UnsafeViewBackward0", ops.reshape,
                         self.clone(memory_format=MF.contiguous_format), shape)
        name = "ViewBackward0" if self.is_contiguous() else "ReshapeAliasBackward0"
        return apply(name, ops.reshape, self, shape)

    def view_as(self, other):
        return self.view(tuple(other.shape))

    def reshape_as(self, other):
        return self.reshape(tuple(other.shape))

    def flatten(self, start_dim=0, end_dim=-1):
        if self.dim() <= 1:
            return self if self.dim() == 1 else self.reshape(1)
        start, end = _check_dim(start_dim, self.dim()), _check_dim(end_dim, self.dim())
        if start > end:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        if start == end:
            return self
        shape = tuple(self.shape)
        merged = int(np.prod(shape[start:end + 1]))
        return self.reshape(shape[:start] + (merged,) + shape[end + 1:])

    def expand(self, *sizes):
        sizes = _shape_args(sizes)
        lead = len(sizes) - self.dim()
        _check_expansion(self, sizes, lead)
        shape = tuple(s if s != -1 else self.shape[i - lead] for i, s in enumerate(sizes))
        out = apply("ExpandBackward0", ops.broadcast_to, self, shape)
        if type(self._value) is np.ndarray and type(out._value) is np.ndarray:
            # PyTorch's expand is a view: stride 0 along the new dimensions, the base's
            # writes show through (in-place writes into it are refused as overlapping)
            out._value = _expanded(self._value, shape)
            out._share(self, lambda array: _expanded(array, shape))
        return out

    def expand_as(self, other):
        return self.expand(tuple(other.shape))

    broadcast_to = expand

    @property
    def T(self):
        return apply("PermuteBackward0", ops.transpose, self)

    def t(self):
        if self.dim() > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                               f"{self.dim()}D")
        out = _permuted(self, tuple(reversed(range(self.dim()))), "TBackward0")
        return out if out is not None else apply("TBackward0", ops.transpose, self)

    def transpose(self, dim0, dim1):
        rank = self.dim()
        if rank == 0:  # a 0-d tensor takes the dims of a 1-d one, 0 and -1
            _check_dim(dim0, 0), _check_dim(dim1, 0)
            return apply("TransposeBackward0", ops.transpose, self, ())
        a, b = _plain_dim(dim0, rank), _plain_dim(dim1, rank)
        if a is not None and b is not None:
            perm = list(range(rank))
            perm[a], perm[b] = b, a
            out = _permuted(self, tuple(perm), "TransposeBackward0")
            if out is not None:
                return out
        return apply("TransposeBackward0", ops.swapaxes, self, dim0, dim1)

    swapaxes = swapdims = transpose

    def permute(self, *dims):
        rank = self.dim()
        perm = tuple(_plain_dim(d, rank) for d in _shape_args(dims))
        if sorted(perm, key=lambda d: -1 if d is None else d) == list(range(rank)):
            out = _permuted(self, perm, "PermuteBackward0")
            if out is not None:
                return out
        return apply("PermuteBackward0", ops.transpose, self, _shape_args(dims))

    def unsqueeze(self, dim):
        axis = _plain_dim(dim, self.dim() + 1)
        if axis is not None:
            shape = list(self.shape)
            shape.insert(axis, 1)
            out = _reshaped(self, tuple(shape), True)
            if out is not None:
                return out
        return apply("UnsqueezeBackward0", ops.expand_dims, self, dim)

    def squeeze(self, dim=None):
        return apply(squeeze_node(dim), ops.squeeze, self, dim)

    def contiguous(self, memory_format=MF.contiguous_format):
        """Self when its storage is in the format's order (row-major by default), else a copy
        laid out so."""
        MF.order_of(memory_format, self.dim())  # the format fits the rank
        return self if self.is_contiguous(memory_format) else self.clone(
            memory_format=memory_format)

    def clone(self, *, memory_format=MF.preserve_format):
        """A copy; in the layout of `memory_format` where given (numpy's copies keep the
        source's layout, so it is laid out explicitly)."""
        out = self._clone()
        if memory_format is not MF.preserve_format and isinstance(out._value, np.ndarray) \
                and not out.is_contiguous(memory_format):
            out._value = MF.laid_out(out._value, MF.order_of(memory_format, self.dim()))
        return out

    def _clone(self):
        out = unrecorded(self, lambda x: E.cast.evaluate(x, dtype=self.dtype.ir.name),
                         any_dtype=True)
        return out if out is not None else \
            apply("CloneBackward0", lambda x: E.cast(x, dtype=x.dtype.ir.name), self)

    # ---- indexing ----

    def __getitem__(self, index):
        parts = index_parts(self, index)
        basic = _basic_index(parts)
        if basic is not None:
            try:
                out = unrecorded(self, lambda x: x[basic], any_dtype=True)
            except IndexError:  # out of range: the general path words it as PyTorch does
                out = None
            if out is not None:
                return out
        steps = index_steps(parts, tuple(self.shape))
        if steps is not None and len(steps) > 1 or steps and steps[0][0] == "AliasBackward0":
            try:
                out = self
                for name, part in steps:
                    out = apply(name, _getitem, out, part)
                return out
            except IndexError:  # out of range: the whole index words it as PyTorch does
                pass
        return apply(_index_name(parts), _getitem, self, parts)

    def __setitem__(self, index, value):
        if isinstance(value, np.ndarray):  # (numpy scalars are numbers; arrays are refused)
            raise TypeError(f"can't assign a numpy.ndarray to a {self.type()}")
        parts = index_parts(self, index)
        basic = _basic_index(parts)
        if basic is not None and _shares_elements(self._value, basic):
            raise RuntimeError(overlap.INTERNAL)
        if type(self._value) is np.ndarray:  # a slice copies into, an index array puts
            try:
                overlap.check_inputs(*(self._value[basic], (value,)) if basic is not None else
                                     (self._value, (value,), overlap.ANY))
            except IndexError:  # out of range: the write below words it as PyTorch does
                pass
        value = put_value(self, parts, operand(value))
        needs_graph = is_grad_enabled() and (self._edge is not None or getattr(
            value, "_edge", None) is not None)
        # a traced index or value (written into a constant tensor) is known only at run time
        traced = any(hasattr(p, "__gradjit_bind__") for p in parts) or \
            hasattr(value, "_edge") and not isinstance(value._value, np.ndarray)
        if needs_graph or traced or not isinstance(self._value, np.ndarray):
            # PyTorch's operands: self and the value (a number wrapped: an empty edge)
            self._update(lambda: ops.index_put(self, parts, value), "IndexPutBackward0" if
                         is_advanced(parts) else "CopySlices", setitem=True,
                         operands=(self, value))
            return
        if hasattr(value, "_edge"):
            value = value._value
        self._value[parts] = value
        self._counter.value += 1

    def __delitem__(self, index):
        raise TypeError("Tensor does not support deleting items")

    # ---- in-place operations that are not the _ form of an operation ----

    def copy_(self, src, non_blocking=False):
        if src is self:  # PyTorch copies nothing, so its overlap check is not reached
            return self
        shape = tuple(self.shape)
        broadcast_into(shape, tuple(src.shape))
        overlap.check_inputs(self._value, (src,))
        src = operand(src)

        def copied():
            return ops.broadcast_to(E.cast(src, dtype=self.dtype.ir.name), shape)
        compute = copied
        if self._edge is not None and is_grad_enabled():
            # PyTorch's CopyBackwards keeps self's history as its first edge (a zero gradient)
            def compute():
                return ops.where(np.ones(shape, bool), copied(), self)
        return self._update(compute, "CopyBackwards", operands=(self, src))

    def fill_(self, value):
        if getattr(value, "ndim", 0):
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.ndim} dimensions.")
        return self._fill(value, "FillBackward3" if hasattr(value, "_edge") else "FillBackward2")

    def zero_(self):
        return self._fill(0, "ZeroBackward0")

    def _fill(self, value, name):
        if isinstance(value, (bool, int, float, complex)):
            value = dtypes.scalar_in(value, self.dtype)
        value_array = self._value
        if self._edge is None and self._base is None and type(value_array) is np.ndarray and \
                plain_float(value_array.dtype) and (type(value) is float or
                                                    type(value) is int and abs(value) < 2**31):
            # No history to move (grads zeroed by an optimizer): numpy fills the storage.
            value_array.fill(value)
            self._counter.value += 1
            self._view_version = self._counter.value
            return self
        return self._update(lambda: ops.where(np.ones(tuple(self.shape), bool),
                                              _like(self, operand(value)), self), name,
                            may_overlap=True, operands=(self, value) if hasattr(value, "_edge")
                            else (self,))


def _like(t, value):
    """`value` in t's dtype, as a fill writes it (truncating floats into integers)."""
    if hasattr(value, "_edge"):
        return ops.astype(value, t.dtype.ir.name)
    return t.dtype.ir.numpy.type(value).item()


def cat_arguments(tensors):
    """cat's tensors as a list, refused as PyTorch's argument parser refuses them."""
    if hasattr(tensors, "_edge"):
        raise TypeError("cat(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        "Tensor")
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if t is None or isinstance(t, (bool, int, float, complex)):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    return tensors


def _check_cat(tensors, dim):
    """PyTorch's checks of cat's shapes, in its order and words; a 1-d empty tensor is
    skipped, joining tensors of any shape."""
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t.dim() == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    kept = [(i, t) for i, t in enumerate(tensors) if tuple(t.shape) != (0,)]
    if not kept:
        return
    first = tuple(kept[0][1].shape)
    axis = _check_dim(dim, len(first))
    for i, t in kept:
        if t.dim() != len(first):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(first)} "
                               f"and {t.dim()}")
        for d, (want, got) in enumerate(zip(first, t.shape)):
            if d != axis and want != got:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {axis}. "
                                   f"Expected size {want} but got size {got} for tensor number "
                                   f"{i} in the list.")


def cat(tensors, dim=0):
    tensors = [operand(t) for t in cat_arguments(tensors)]
    _check_cat(tensors, dim)
    # torch skips 1-d empty tensors among tensors of another rank (its older cat's rule): here
    # they join as empty slices of the others' shape (inside cat's node, as operands of their
    # own), so they still count in dtype and grad
    ranked = [t for t in tensors if tuple(t.shape) != (0,)]
    if not ranked or ranked[0].dim() <= 1:
        return apply("CatBackward0", lambda *ts: ops.concatenate(ts, dim), *tensors)
    shape = list(ranked[0].shape)
    shape[_check_dim(dim, len(shape))] = 0
    return apply("CatBackward0", lambda *ts: ops.concatenate(
        [t.reshape(shape) if tuple(t.shape) == (0,) else t for t in ts], dim), *tensors)


def stack(tensors, dim=0):
    tensors = [operand(t) for t in tensors]
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, t in enumerate(tensors[1:], 1):
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0].shape)} at entry 0 and {list(t.shape)} at "
                               f"entry {i}")
    return apply("StackBackward0", lambda *ts: ops.stack(ts, dim), *tensors)

