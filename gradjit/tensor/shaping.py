"""PyTorch's shape and assembly operations on Tensors (flip, roll, rot90, tile, repeat,
triangles and diagonals, split/chunk, stacking, movedim, take, narrow, unbind), each a named
tensor operation over the same gradjit.ops functions numpy's API uses."""
from __future__ import annotations

import math
import warnings

from gradjit import ops
from gradjit.ir import structural as S
from gradjit.tensor import dtypes, factories
from gradjit.tensor import memory_format as MF
from gradjit.tensor.arith import apply, operand
from gradjit.tensor.base import _check_dim
from gradjit.tensor.indexing import _check_not_empty, _flat_index, _long_index
from gradjit.tensor.grad_mode import is_grad_enabled
from gradjit.tracer.torch_surface import TRACING, converting, traced_as_tensors


def _dims(dims, rank):
    """PyTorch's dims argument (an int, or ints given separately or as one sequence),
    normalized: IndexError out of range, RuntimeError when one repeats."""
    if len(dims) == 1 and not isinstance(dims[0], int):
        dims = tuple(dims[0])
    out = tuple(_check_dim(int(d), rank) for d in dims)
    for d in out:
        if out.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out


def _need_rank(name, x, least):
    if x.dim() < least:
        raise RuntimeError(f"{name}: input tensor must have at least {least} dimensions")


class ShapingMixin:
    """Tensor methods that rearrange, repeat, split and select elements."""

    def flip(self, *dims, **keyword):
        dims = (keyword["dims"],) if "dims" in keyword and not dims else dims
        if not dims:  # torch's words for another keyword too
            raise TypeError('flip() missing 1 required positional arguments: "dims"')
        dims = _dims(dims, self.dim())
        return apply("FlipBackward0", ops.flip, self, dims if self.dim() else ())

    def fliplr(self):
        if self.dim() < 2:
            raise RuntimeError("Input must be >= 2-d.")
        return apply("FlipBackward0", ops.flip, self, 1)

    def flipud(self):
        if self.dim() < 1:
            raise RuntimeError("Input must be >= 1-d.")
        return apply("FlipBackward0", ops.flip, self, 0)

    def roll(self, shifts, dims=None):
        shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
        if dims is None:
            if len(shifts) != 1:
                raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                                   "dims:0")
            return apply("RollBackward0", ops.roll, self, shifts[0])
        dims = (dims,) if isinstance(dims, int) else tuple(dims)
        if len(shifts) != len(dims):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               f"dims:{len(dims)}")
        return apply("RollBackward0", ops.roll, self, shifts,
                     tuple(_check_dim(d, self.dim()) for d in dims))

    def rot90(self, k=1, dims=(0, 1)):
        dims = tuple(dims)
        if len(dims) != 2:
            raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
        if self.dim() < 2:
            raise RuntimeError(f"expected total dims >= 2, but got total dims = {self.dim()}")
        d0, d1 = (_check_dim(d, self.dim()) for d in dims)
        if d0 == d1:
            raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} "
                               f"and dim1 = {d1}")
        return apply("Rot90Backward0", ops.rot90, self, k, (d0, d1))

    def tile(self, *dims):
        dims = dims[0] if len(dims) == 1 and not isinstance(dims[0], int) else dims
        return self.repeat((1,) * (self.dim() - len(dims)) + tuple(dims))

    def repeat(self, *sizes):
        sizes = sizes[0] if len(sizes) == 1 and not isinstance(sizes[0], int) else sizes
        if len(sizes) < self.dim():
            raise RuntimeError("Number of dimensions of repeat dims can not be smaller than "
                               "number of dimensions of tensor")
        shape = (1,) * (len(sizes) - self.dim()) + tuple(self.shape)
        target = [n * r for n, r in zip(shape, sizes)]
        if min(target, default=0) < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension "
                               f"{min(target)}: {target}")
        return apply("RepeatBackward0", ops.tile, self, tuple(sizes))

    def repeat_interleave(self, repeats, dim=None, *, output_size=None):
        counted = hasattr(repeats, "_edge")
        dim = None if dim is None else _check_dim(dim, self.dim())
        if counted:
            _check_repeats(repeats, self.numel() if dim is None else self.shape[dim], dim)
        elif repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        x, axis = (self.flatten(), 0) if dim is None else (self, dim)
        if counted:
            out = apply("IndexSelectBackward0", ops.repeat, x, repeats, axis)
        else:  # as PyTorch: a new dim after `axis` expanded to `repeats`, copied, merged into it
            spread = x.unsqueeze(axis + 1)
            shape = list(spread.shape)
            shape[axis + 1] = repeats
            out = spread.expand(shape).clone(memory_format=MF.contiguous_format).flatten(
                axis, axis + 1)
        if output_size is not None and out.shape[0 if dim is None else dim] != output_size:
            raise RuntimeError(f"allocated size does not match required size "
                               f"{output_size} != {out.shape[0 if dim is None else dim]}")
        return out

    # ---- triangles and diagonals ----

    def tril(self, diagonal=0):
        _need_rank("tril", self, 2)
        return apply("TrilBackward0", ops.tril, self, diagonal)

    def triu(self, diagonal=0):
        _need_rank("triu", self, 2)
        return apply("TriuBackward0", ops.triu, self, diagonal)

    def diagonal(self, offset=0, dim1=0, dim2=1):
        d1, d2 = _check_dim(dim1, self.dim()), _check_dim(dim2, self.dim())
        if d1 == d2:
            raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
        return apply("DiagonalBackward0", ops.diagonal, self, offset, d1, d2)

    def diag_embed(self, offset=0, dim1=-2, dim2=-1):
        d1, d2 = _check_dim(dim1, self.dim() + 1), _check_dim(dim2, self.dim() + 1)
        if d1 == d2:
            raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
        return apply("DiagEmbedBackward0", ops.diag_embed, self, offset, d1, d2)

    def diag(self, diagonal=0):
        if self.dim() not in (1, 2):
            raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {self.dim()}D")
        if self.dim() == 1:
            return apply("DiagEmbedBackward0", ops.diag_embed, self, diagonal)
        return apply("DiagonalBackward0_copy", ops.diagonal, self, diagonal)

    def trace(self):
        if self.dim() != 2:
            raise RuntimeError(f"trace: expected a matrix, but got tensor with dim "
                               f"{self.dim()}")
        if self.dtype is dtypes.bool_:
            raise NotImplementedError("\"trace\" not implemented for 'Bool'")
        return apply("TraceBackward0", ops.trace, self)

    # ---- splitting ----

    def split(self, split_size_or_sections, dim=0):
        d = _check_dim(dim, self.dim())
        n = self.shape[d]
        if isinstance(split_size_or_sections, int):
            size = split_size_or_sections
            if size < 0:
                raise RuntimeError(f"split expects split_size be non-negative, but got "
                                   f"split_size={size}")
            if size == 0 and n:
                raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                                   f"dimension size of {n}")
            # an empty dimension is one empty piece
            sizes = [min(size, n - i) for i in range(0, n, size)] if size and n else [0]
            return self._pieces("SplitBackward0", sizes, d)
        sizes = [int(s) for s in split_size_or_sections]
        if min(sizes, default=0) < 0:
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={sizes}")
        if sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {d}), but got "
                               f"split_sizes={sizes}")
        return self._pieces("SplitWithSizesBackward0", sizes, d)

    def chunk(self, chunks, dim=0):
        if chunks <= 0:
            raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
        n = self.shape[_check_dim(dim, self.dim())]
        if not n:  # an empty dimension gives `chunks` empty pieces, as in PyTorch
            return self.split([0] * chunks, dim)
        return self.split(max(1, math.ceil(n / chunks)), dim)

    def tensor_split(self, indices_or_sections=None, /, dim=0, *, sections=None, indices=None,
                     tensor_indices_or_sections=None):
        # torch's three overloads name the argument by its kind
        indices_or_sections = next(a for a in (indices_or_sections, sections, indices,
                                               tensor_indices_or_sections) if a is not None)
        if self.dim() == 0:
            raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got "
                               "a tensor with 0 dims")
        d = _check_dim(dim, self.dim())
        if hasattr(indices_or_sections, "_edge"):  # int() of a traced one records a guard
            t = indices_or_sections
            if t.dtype is not dtypes.int64:
                raise RuntimeError("tensor_split expected tensor_indices_or_sections to have "
                                   f"dtype of long, but got {t.dtype.legacy}")
            if t.dim() > 1:
                raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                                   "zero-dimensional or one-dimensional tensor, but got a "
                                   f"tensor with {t.dim()} dims")
            indices_or_sections = int(t) if not t.dim() else [int(i) for i in t]
        if isinstance(indices_or_sections, int) and indices_or_sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got "
                               f"{indices_or_sections}")
        count = indices_or_sections if isinstance(indices_or_sections, int) else \
            len(indices_or_sections) + 1
        return tuple(apply("SliceBackward0", lambda x, i=i: ops.array_split(
            x, indices_or_sections, d)[i], self) for i in range(count))

    def hsplit(self, sections):
        return self._directional("hsplit", 1 if self.dim() > 1 else 0, 1, sections)

    def vsplit(self, sections):
        return self._directional("vsplit", 0, 2, sections)

    def dsplit(self, sections):
        return self._directional("dsplit", 2, 3, sections)

    def _directional(self, name, dim, least, sections):
        if not isinstance(sections, (int, list, tuple)) and not hasattr(sections, "_edge"):
            got = type(sections).__name__
            reason = f"\n      didn't match because some of the arguments have invalid types: " \
                     f"(Tensor, !{got}!)"
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"(Tensor, {got}), but expected one of:\n * (Tensor input, int "
                            f"sections){reason}\n * (Tensor input, tuple of ints indices)"
                            f"{reason}\n")
        if self.dim() < least:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {least} "
                               f"dimension, but got a tensor with {self.dim()} dimensions!")
        if isinstance(sections, int) and (sections == 0 or self.shape[dim] % sections):
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but "
                               f"the size of the dimension {self.shape[dim]} is not divisible "
                               f"by the split_size {sections}!")
        return self.tensor_split(sections, dim)

    def _pieces(self, name, sizes, dim):
        starts = [sum(sizes[:i]) for i in range(len(sizes))]
        lead = (slice(None),) * dim
        return _several_views(name, self._views_of(name, [lead + (slice(s, s + n),)
                                                          for s, n in zip(starts, sizes)]))

    def _views_of(self, name, indices):
        """self[index] for each index, all outputs of one grad_fn `name` as in PyTorch."""
        def views(x):  # (a piece that is all of x is a new alias of it, as apply makes)
            out = [ops.getitem(x, index) for index in indices]
            return [S.reshape(v, shape=tuple(v.shape)) if v is x else v for v in out]
        return apply(name, views, self)

    def unbind(self, dim=0):
        d = _check_dim(dim, self.dim())
        lead = (slice(None),) * d
        return _several_views("UnbindBackward0", self._views_of(
            "UnbindBackward0", [lead + (i,) for i in range(self.shape[d])]))

    def narrow(self, dim, start, length):
        if self.dim() == 0:
            raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
        if hasattr(start, "_edge") and (start.dim() or start.dtype.is_floating_point or
                                        start.dtype.is_complex or start.dtype is dtypes.bool_):
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        d = _check_dim(dim, self.dim())
        n = self.shape[d]
        start = int(start)
        if not -n <= start <= n:
            raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], "
                             f"but got {start})")
        start += n if start < 0 else 0
        if length < 0:  # a negative length would count from the end, as a slice does
            raise RuntimeError("narrow(): length must be non-negative.")
        if start + length > n:
            raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                               f"({n}).")
        return apply("SliceBackward0", ops.getitem, self,
                     (slice(None),) * d + (slice(start, start + length),))

    # ---- axes and selection ----

    def movedim(self, source, destination):
        source = (source,) if isinstance(source, int) else tuple(source)
        destination = (destination,) if isinstance(destination, int) else tuple(destination)
        if len(source) != len(destination):
            raise RuntimeError(f"movedim: Invalid source or destination dims: source "
                               f"({list(source)} dims) should contain the same number of dims "
                               f"as destination ({list(destination)} dims)")
        for name, dims in (("source", source), ("destination", destination)):
            normal = [_check_dim(d, self.dim()) for d in dims]
            if len(set(normal)) != len(normal):
                raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(dims)})")
        if not self.dim():  # a 0-d tensor's one dim stays where it is
            source = destination = ()
        return apply("PermuteBackward0", ops.moveaxis, self, source, destination)

    moveaxis = movedim

    def take(self, index):
        _check_not_empty(_long_index(index, "take"), self.numel(), "take")
        return apply("TakeBackward0", lambda x, i: ops.take(x, _flat_index(x, i)), self, index)


def _check_repeats(repeats, size, dim):
    """PyTorch's checks of a tensor of counts against the `size` elements they repeat."""
    if repeats.dim() > 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.dtype not in (dtypes.int32, dtypes.int64):
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                  f"'{repeats.dtype.legacy}'")
    if repeats.numel() not in (1, size):
        raise RuntimeError("repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {repeats.numel()} and input.size({dim or 0}) = "
                           f"{size}")
    if repeats.numel() and bool((repeats < 0).any()):
        raise RuntimeError("repeats can not be negative")


def _tensors(tensors):
    tensors = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else \
        tensors
    return [operand(t) for t in tensors]


def _at_least(rank):
    def at_least(*tensors):
        many = len(tensors) != 1 or isinstance(tensors[0], (list, tuple))
        out = []
        for t in _tensors(tensors):
            if t.dim() >= rank:
                out.append(t)
            elif rank == 3 and t.dim() == 1:  # PyTorch's two unsqueezes: (n,) -> (1, n, 1)
                out.append(t.unsqueeze(0).unsqueeze(-1))
            else:
                name = "ViewBackward0" if t.dim() == 0 else "UnsqueezeBackward0"
                out.append(apply(name, lambda x: ops.atleast_nd(rank, (x,)), t))
        return tuple(out) if many else out[0]
    at_least.__name__ = f"atleast_{rank}d"
    return at_least


atleast_1d, atleast_2d, atleast_3d = _at_least(1), _at_least(2), _at_least(3)


def _stacking(name, arrange):
    """A stacking function: the tensors, brought to a common rank by `arrange`, which also
    names the dim, joined by cat (whose checks and words PyTorch's stacking functions share)."""
    def stacking(tensors, *, out=None):
        from gradjit.tensor.functions import write_out
        from gradjit.tensor.shape import cat
        tensors = _tensors((tensors,))
        if not tensors:
            raise RuntimeError(f"{name} expects a non-empty TensorList")
        return write_out(name, lambda: cat(*arrange(tensors)), tensors, out)
    stacking.__name__ = name
    return stacking


def _columns(tensors):
    return [t.reshape(t.numel(), 1) if t.dim() < 2 else t for t in tensors], 1


def _side_by_side(tensors):
    tensors = atleast_1d(tensors)
    return tensors, 0 if tensors[0].dim() == 1 else 1


hstack = _stacking("hstack", _side_by_side)
vstack = row_stack = _stacking("vstack", lambda ts: (atleast_2d(ts), 0))
dstack = _stacking("dstack", lambda ts: (atleast_3d(ts), 2))
column_stack = _stacking("column_stack", _columns)


_MESHGRID_WARNED: list = []


def meshgrid(*tensors, indexing=None):
    if indexing is None and not _MESHGRID_WARNED:
        _MESHGRID_WARNED.append(True)  # PyTorch warns once per process
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass "
                      "the indexing argument.", UserWarning, stacklevel=2)
    indexing = indexing or "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    tensors = _tensors(tensors)
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if any(t.dtype is not tensors[0].dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t.dim()}D")
    # as PyTorch: each tensor viewed along its axis of the grid (xy swaps the first two axes),
    # then expanded to the grid's shape
    axes = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) > 1:
        axes[:2] = 1, 0
    shape = [tensors[a].numel() for a in axes]  # (the swap is its own inverse)
    return tuple(t.view([-1 if k == axis else 1 for k in range(len(axes))]).expand(shape)
                 for t, axis in zip(tensors, axes))


def _method(name):
    @converting
    def function(input, *args, **kwargs):
        if TRACING:
            (input, *args), kwargs = traced_as_tensors((input, *args), kwargs)
        return getattr(operand(input), name)(*args, **kwargs)
    function.__name__ = name
    return function


flip, fliplr, flipud, roll, rot90, tile = map(_method, ("flip", "fliplr", "flipud", "roll",
                                                        "rot90", "tile"))
tril, triu, diag = map(_method, ("tril", "triu", "diag"))


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """With `repeats` left out, `input` holds the counts: each index repeated that often."""
    input = operand(input)
    if repeats is None:
        if input.dim() != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        index = factories.arange(input.shape[0], dtype=input.dtype)
        return index.repeat_interleave(input, output_size=output_size)
    return input.repeat_interleave(repeats, dim, output_size=output_size)


diagonal, diag_embed, trace = map(_method, ("diagonal", "diag_embed", "trace"))
split, chunk, tensor_split, unbind, narrow = map(_method, ("split", "chunk", "tensor_split",
                                                           "unbind", "narrow"))
hsplit, vsplit, dsplit = map(_method, ("hsplit", "vsplit", "dsplit"))
movedim = moveaxis = _method("movedim")
take = _method("take")

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "chunk", "column_stack", "diag",
           "diag_embed", "diagonal", "dsplit", "dstack", "flip", "fliplr", "flipud", "hsplit",
           "hstack", "meshgrid", "moveaxis", "movedim", "narrow", "repeat_interleave",
           "roll", "rot90", "row_stack", "split", "take", "tensor_split", "tile", "trace",
           "tril", "triu", "unbind", "vsplit", "vstack"]


def _several_views(name, views) -> tuple:
    """The views one function returned together, each knowing its place among them: PyTorch
    refuses an in-place write through one of them when it has history."""
    if is_grad_enabled():
        for i, v in enumerate(views):
            v._multi_output, v.output_nr = (name.removesuffix("Backward0"), i), i
    return tuple(views)
