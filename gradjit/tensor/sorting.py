"""PyTorch's sorting and order statistics on Tensors (sort, topk, kthvalue, median, quantile,
searchsorted, unique, ...), built on gradjit.ops.sorting with PyTorch's arguments, results
and grad_fn names. Ties go to the first element in stable order (PyTorch leaves the index
of a tie unspecified)."""
from __future__ import annotations

import math

import numpy as np

from gradjit import ops
from gradjit.ir.primitive import is_python_scalar
from gradjit.ops import sorting as O
from gradjit.tensor import graph
from gradjit.tensor.arith import apply, operand
from gradjit.tensor.return_types import return_type
from gradjit.tensor.base import _check_dim, _check_sized_dim

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")
_ROUNDED = {"lower": "floor", "higher": "ceil", "nearest": "round"}  # (their ranks)


def _result(kind, values, indices):
    return return_type(kind)(values, indices)


def _along(x, dim):
    """The axis `dim` names, and whether x is 0-d (PyTorch orders it as one element)."""
    axis = _check_dim(dim, x.dim())
    return (0, True) if x.dim() == 0 else (axis, False)


def _order(x, axis, descending):
    with graph.op(None):
        x = x.detach()
        x = ops.reshape(x, (1,)) if not x.shape else x
        return O.argsort_descending(x, axis) if descending else O.argsort(x, axis)


def _selected(name, x, indices, axis, keepdim=True):
    """x's elements at `indices` along `axis` (the gradient goes back to them); of a 0-d x,
    a 0-d result."""
    def take(t, idx):
        if not t.shape:
            return ops.reshape(O.take_along_axis(ops.reshape(t, (1,)), idx, 0), ())
        out = O.take_along_axis(t, idx, axis)
        return out if keepdim else ops.squeeze(out, axis)
    return apply(name, take, x, indices)


class SortingMixin:
    """Tensor methods that order elements."""

    def sort(self, dim=-1, descending=False, stable=None):
        # Always stable; PyTorch names the overload that takes `stable` SortBackward1.
        axis, scalar = _along(self, dim)
        order = _order(self, axis, descending)
        values = _selected("SortBackward0" if stable is None else "SortBackward1", self, order,
                           axis)
        return _result("sort", values, order.reshape(()) if scalar else order)

    def argsort(self, dim=-1, descending=False, stable=None):
        return self.sort(dim, descending, stable).indices

    def msort(self):
        return self.sort(0).values

    def topk(self, k, dim=-1, largest=True, sorted=True):
        if isinstance(dim, bool):  # not read as dim 1
            raise TypeError("topk(): argument 'dim' (position 2) must be int, not bool")
        axis, scalar = _along(self, dim)
        if not 0 <= k <= (1 if scalar else self.shape[axis]):
            raise RuntimeError("selected index k out of range")
        order = _order(self, axis, largest)
        if not scalar:  # a 0-d tensor is its own top element, even for k=0 (as in PyTorch)
            with graph.op(None):
                order = ops.getitem(order, (slice(None),) * axis + (slice(0, k),))
        values = _selected("TopkBackward0", self, order, axis)
        return _result("topk", values, order.reshape(()) if scalar else order)

    def kthvalue(self, k, dim=-1, keepdim=False):
        axis, scalar = _along(self, dim)
        if not 1 <= k <= (1 if scalar else self.shape[axis]):
            raise RuntimeError(f"kthvalue(): selected number k out of range for dimension "
                               f"{axis}")
        rank = np.full(_kept(self, axis), k - 1, np.int64)
        return _pick("kthvalue", "KthvalueBackward0", self, axis, keepdim, rank)

    def mode(self, dim=-1, keepdim=False):
        axis, scalar = _along(self, dim)
        if not scalar and self.shape[axis] == 0:
            raise IndexError(f"mode(): Expected reduction dim {axis} to have non-zero size.")
        with graph.op(None):
            x = self.detach()
            index = _mode_index(ops.reshape(x, (1,)) if scalar else x, axis)
        values = _selected("ModeBackward0", self, index, axis, keepdim)
        if not keepdim or scalar:
            with graph.op(None):
                index = ops.squeeze(index, axis)
        return _result("mode", values, index)

    def median(self, dim=None, keepdim=False):
        return self._median(dim, keepdim, False)

    def nanmedian(self, dim=None, keepdim=False):
        return self._median(dim, keepdim, True)

    def _median(self, dim, keepdim, ignore_nan):
        kind = "nanmedian" if ignore_nan else "median"
        title = kind.title()
        if dim is None:
            return apply(f"{title}Backward0", _global_median, self, ignore_nan)
        axis, scalar = _along(self, dim)
        if not scalar and self.shape[axis] == 0:
            raise IndexError(f"{kind}(): Expected reduction dim {axis} to have non-zero size.")
        with graph.op(None):
            x = self.detach()
            rank = _median_rank(ops.reshape(x, (1,)) if scalar else x, axis, ignore_nan)
        return _pick(kind, f"{title}Backward1", self, axis, keepdim, rank)

    def quantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        return _quantile(self, q, dim, keepdim, interpolation, False)

    def nanquantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        return _quantile(self, q, dim, keepdim, interpolation, True)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        return unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        return unique_consecutive(self, return_inverse, return_counts, dim)


def _kept(x, axis):
    return tuple(1 if a == axis else d for a, d in enumerate(x.shape)) or (1,)


def _pick(kind, name, x, axis, keepdim, rank):
    """(values, indices) of the elements of sorted rank `rank` (one per row, the axis kept)
    along axis."""
    order = _order(x, axis, False)
    with graph.op(None):
        index = O.take_along_axis(order, rank, axis)
    values = _selected(name, x, index, axis, keepdim)
    if not keepdim or not x.shape:
        with graph.op(None):
            index = ops.squeeze(index, axis)
    return _result(kind, values, index)


def _mode_index(x, axis):
    """Per row along axis (kept, length 1): where the most frequent value last occurs, the
    smallest such value on ties (PyTorch's choice). Equal values are neighbours once sorted:
    each run's length is its end less its start, found by running max/min of positions."""
    n = ops.shape_of(x)[axis]
    ordered = O.sort(x, axis)
    view = [1] * len(ops.shape_of(x))
    view[axis] = n
    pos = np.arange(n).reshape(view)
    edge = list(ops.shape_of(x))
    edge[axis] = 1
    before = ops.getitem(ordered, (slice(None),) * axis + (slice(None, -1),))
    after = ops.getitem(ordered, (slice(None),) * axis + (slice(1, None),))
    differs, one = ops.ne(after, before), np.ones(edge, bool)
    starts = ops.concatenate([one, differs], axis)
    ends = ops.concatenate([differs, one], axis)
    start_of = ops.scan(ops.where(starts, pos, 0), axis, "max")
    end_of = ops.flip(ops.scan(ops.flip(ops.where(ends, pos, n - 1), axis), axis, "min"), axis)
    best = ops.arg_extremum(ops.sub(end_of, start_of), axis, keepdims=True)  # first: smallest
    value = O.take_along_axis(ordered, best, axis)
    return ops.amax(ops.where(ops.eq(x, value), pos, -1), axis, keepdims=True)


def _median_rank(x, axis, ignore_nan):
    """The sorted rank PyTorch's median picks per row (keeping the axis): the lower middle
    one; for median, the first NaN of a row holding one (NaNs sort last); for nanmedian, the
    lower middle one of the non-NaN elements."""
    n = x.shape[axis]
    valid = ops.sum_(ops.logical_not(ops.ne(x, x)), axis, keepdims=True)
    if ignore_nan:
        return ops.astype(ops.maximum(ops.floor(ops.true_divide(ops.sub(valid, 1), 2)), 0),
                          "i8")
    return ops.where(ops.lt(valid, n), valid, (n - 1) // 2)


def _global_median(x, ignore_nan):
    """The median of all elements; its gradient is shared evenly by the elements equal to it
    (the NaNs when it is NaN), as PyTorch's median() without dim shares it."""
    flat = ops.reshape(x, (-1,))
    if ops.shape_of(flat)[0] == 0:  # nan, or an integer dtype's least value, as PyTorch's
        low = np.nan if x.dtype.is_floating_point else np.iinfo(x.dtype.ir.numpy).min
        return ops.add(ops.sum_(flat), np.full((), low, x.dtype.ir.numpy))
    fixed = ops.stop_gradient(flat)
    ordered = O.sort(fixed, 0)
    m = ops.reshape(O.take_along_axis(ordered, _median_rank(fixed, 0, ignore_nan), 0), ())
    if not x.dtype.is_floating_point:  # no gradient to share, and the dtype stays
        return m
    hit = ops.logical_or(ops.eq(flat, m), ops.logical_and(ops.isnan(flat), ops.isnan(m)))
    share = ops.sum_(ops.where(hit, ops.sub(flat, fixed), 0))  # zero, with the gradient
    return ops.add(m, ops.true_divide(share, ops.maximum(ops.sum_(hit), 1)))


def _quantile(x, q, dim, keepdim, interpolation, ignore_nan):
    if not x.dtype.is_floating_point:
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if hasattr(q, "_edge"):
        if q.dtype != x.dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
        if q.dim() > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        if not bool(((q >= 0) & (q <= 1)).all()):  # a guard where q is traced
            raise RuntimeError("quantile() q values must be in the range [0, 1]")
    else:
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
        q = x.new_tensor(q)
    if x.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    axis = None if dim is None else _check_dim(dim, x.dim())
    return _sorted_quantile(x, q, axis, keepdim, interpolation, ignore_nan)


def _sorted_quantile(x, q, axis, keepdim, interpolation, ignore_nan):
    """quantile as PyTorch computes it, so that its graph is PyTorch's: x sorted along its
    last dim (after moving `axis` there) viewed as (*result's shape, n), the values at the
    ranks q * (n - 1) (NaN: the last, or of the values that are not NaN) read by gather and
    interpolated by lerp, the result's dims (q's first) made by in-place reshapes."""
    if axis is None:
        rest, ordered = [1] * x.dim() if keepdim else [], x.flatten()
    else:
        rest = list(x.shape)
        if rest:
            rest[axis:axis + 1] = [1] if keepdim else []
        ordered = x if axis == x.dim() - 1 else x.unsqueeze(-1).transpose(axis, -1)
    ordered = ordered.sort()[0]
    ordered = ordered.view(rest + [ordered.shape[-1]])
    if ignore_nan:
        ranks = q * (ordered.isnan().logical_not().sum(-1, keepdim=True) - 1)
        ranks = ranks.masked_fill(ranks < 0, 0)
    else:
        last, nan = ordered.shape[-1] - 1, ordered.isnan().any(-1, keepdim=True)
        ranks = apply("MulBackward1", lambda v: ops.mul(v, last), q)  # (times a Scalar)
        shape = np.broadcast_shapes(tuple(q.shape), tuple(nan.shape))
        ranks = ranks.expand(shape) if shape != tuple(q.shape) else ranks
        ranks = ranks.masked_fill(nan, last)
    if interpolation in _ROUNDED:
        ranks = getattr(ranks, _ROUNDED[interpolation])()
    below = ranks.long()
    values = ordered.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weights = ranks.new_full(tuple(ranks.shape), 0.5) if interpolation == "midpoint" else \
            ranks - below
        values = values.lerp(ordered.gather(-1, ranks.ceil().long()), weights)
    if not q.dim():
        return values.squeeze_(-1)
    return values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """torch.searchsorted: a 1-d sequence for values of any shape, or sequences whose leading
    dimensions match the values' (one search per row)."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to "
                               "opposites, got side of left while right was True")
        right = side == "right"
    seq = operand(sorted_sequence)
    values = operand(np.asarray(values) if is_python_scalar(values) else values)
    with graph.op(None):
        if sorter is not None:
            if tuple(sorter.shape) != tuple(seq.shape):  # torch's words lack a space
                raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the "
                                   f"same size, but got boundary tensor {list(seq.shape)}and got "
                                   f"sorter tensor {list(sorter.shape)}")
            known = ops.constant_value(operand(sorter))
            if known is not None and known.size and (known.min() < 0 or
                                                     known.max() >= seq.shape[-1]):
                raise RuntimeError("torch.searchsorted(): sorter index out of range")
            seq = O.take_along_axis(seq, sorter, seq.dim() - 1)
        if seq.dim() == 1:
            out = O.searchsorted_last(seq, ops.reshape(values, (-1,)), right)
            out = ops.reshape(out, tuple(values.shape))
        else:
            if tuple(seq.shape[:-1]) != tuple(values.shape[:-1]):
                raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 "
                                   "dimension or the first N-1 dimensions of boundaries tensor "
                                   "and input value tensor must match, but we got boundaries "
                                   f"tensor {list(seq.shape)} and input value tensor "
                                   f"{list(values.shape)}")
            out = O.searchsorted_last(seq, values, right)
        return ops.astype(out, "i4" if out_int32 else "i8")


def bucketize(input, boundaries, *, out_int32=False, right=False):
    if operand(boundaries).dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{operand(boundaries).dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """torch.unique: sorted distinct values (always sorted, as PyTorch's CPU kernel gives;
    NaNs distinct, as PyTorch has them); with `dim`, the distinct slices along it."""
    with graph.op(None):
        if dim is not None:
            return _tensors(O.unique_along(input.detach(), _slices_dim(input, dim),
                                           return_inverse=return_inverse,
                                           return_counts=return_counts))
        return _tensors(O.unique(input.detach(), return_inverse=return_inverse,
                                 return_counts=return_counts, equal_nan=False))


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:
        return _consecutive_slices(input, _slices_dim(input, dim), return_inverse,
                                   return_counts)
    with graph.op(None):
        return _tensors(O.unique_consecutive(input.detach(), return_inverse, return_counts))


def _slices_dim(input, dim):
    """The dim whose slices unique and unique_consecutive compare (not one of an empty tensor
    that has other dims of size 0)."""
    dim = _check_sized_dim(dim, input.dim())
    if list(input.shape).count(0) > 1:
        raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot "
                           f"be applied{' '}")  # torch's words end with a space
    if input.numel() == 0 and input.shape[dim] != 0:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique "
                           "cannot be applied")
    return dim


def _consecutive_slices(input, dim, return_inverse, return_counts):
    """unique_consecutive along dim: each run of equal slices (NaNs differ) kept once."""
    x = np.moveaxis(input.detach().numpy(), dim, 0)
    rows = x.reshape(len(x), math.prod(x.shape[1:]))
    starts = np.flatnonzero(np.r_[True, (rows[1:] != rows[:-1]).any(axis=1)]) if len(x) \
        else np.zeros(0, np.int64)
    out = [operand(np.moveaxis(x[starts], 0, dim).copy())]
    if return_inverse:
        out.append(operand(np.cumsum(np.isin(np.arange(len(x)), starts)) - 1))
    if return_counts:
        out.append(operand(np.diff(np.r_[starts, len(x)])))
    return out[0] if len(out) == 1 else tuple(out)


def _tensors(out):
    """Results as tensors (those of an empty input are constants)."""
    if isinstance(out, tuple):
        return tuple(map(operand, out))
    return operand(out)
