"""jax.lax's shape, slicing, contraction, convolution, reduction and sorting operations, written
with numpy functions (traced by gradjit), `.at`'s index updates and nn.functional's
convolution, so they run eagerly on numpy arrays and differentiate, batch and compile under
the transformations."""
from __future__ import annotations

import builtins
import itertools
import string

import numpy as np

from gradjit import tree_util
from gradjit.tracer import leaves as L
from gradjit.tracer.at import IndexUpdateRef


def broadcast_in_dim(operand, shape, broadcast_dimensions):
    """operand's axis i placed at axis broadcast_dimensions[i] of `shape`, the rest broadcast."""
    placed = [1] * len(shape)
    for axis, size in zip(broadcast_dimensions, np.shape(operand)):
        placed[axis] = size
    return np.broadcast_to(np.reshape(operand, placed), tuple(shape))


def broadcast(operand, sizes):
    return np.broadcast_to(operand, tuple(sizes) + np.shape(operand))


def reshape(operand, new_sizes, dimensions=None):
    operand = operand if dimensions is None else np.transpose(operand, dimensions)
    return np.reshape(operand, tuple(new_sizes))


def transpose(operand, permutation):
    return np.transpose(operand, tuple(permutation))


def squeeze(array, dimensions):
    return np.squeeze(array, tuple(dimensions))


def expand_dims(array, dimensions):
    return np.expand_dims(array, tuple(dimensions))


def concatenate(operands, dimension):
    return np.concatenate(operands, axis=dimension)


def iota(dtype, size):
    return np.arange(size, dtype=np.dtype(dtype))


def full(shape, fill_value, dtype=None):
    return np.full(shape, fill_value, dtype)


def full_like(x, fill_value, dtype=None, shape=None):
    return np.full(np.shape(x) if shape is None else shape, fill_value,
                   np.result_type(x) if dtype is None else dtype)


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001
    strides = strides or (1,) * len(start_indices)
    return operand[tuple(builtins.slice(a, b, s)
                         for a, b, s in zip(start_indices, limit_indices, strides))]


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    index = [builtins.slice(None)] * np.ndim(operand)
    index[axis] = builtins.slice(start_index, limit_index, stride)
    return operand[tuple(index)]


def pad(operand, padding_value, padding_config):
    """operand with (low, high, interior) padding per axis, negative low/high cropping."""
    for axis, (low, high, interior) in enumerate(padding_config):
        operand = _dilate(operand, axis, interior + 1, padding_value)
        widths = [(0, 0)] * np.ndim(operand)
        widths[axis] = (max(low, 0), max(high, 0))
        operand = np.pad(operand, widths, constant_values=padding_value)
        n = np.shape(operand)[axis]
        operand = slice_in_dim(operand, max(-low, 0), n - max(-high, 0), axis=axis)
    return operand


def _dilate(x, axis, factor, fill=0):
    """x with factor - 1 fill values between neighbours along `axis`."""
    n = np.shape(x)[axis]
    if factor == 1 or n == 0:
        return x
    gaps = np.full(np.shape(x), fill, np.result_type(x))
    spread = np.stack([x] + [gaps] * (factor - 1), axis=axis + 1)
    merged = np.reshape(spread, np.shape(x)[:axis] + (n * factor,) + np.shape(x)[axis + 1:])
    return slice_in_dim(merged, 0, (n - 1) * factor + 1, axis=axis)


def rev(operand, dimensions):
    return np.flip(operand, tuple(dimensions))


def reduce_window(operand, init_value, computation, window_dimensions, window_strides,
                  padding, base_dilation=None, window_dilation=None):
    """computation folded over each window of operand (padded and dilated with init_value,
    as XLA does): one strided slice per position in the window, combined pairwise."""
    rank = np.ndim(operand)
    base = base_dilation or (1,) * rank
    dilation = window_dilation or (1,) * rank
    extents = [(k - 1) * d + 1 for k, d in zip(window_dimensions, dilation)]
    dilated = [(n - 1) * b + 1 for n, b in zip(np.shape(operand), base)]
    pads = _conv_padding(padding, dilated, extents, window_strides)
    x = pad(operand, np.asarray(init_value, np.result_type(operand)),
            [(lo, hi, b - 1) for (lo, hi), b in zip(pads, base)])
    out = [(n - e) // s + 1 for n, e, s in zip(np.shape(x), extents, window_strides)]
    result = None
    for offset in itertools.product(*(range(k) for k in window_dimensions)):
        starts = [o * d for o, d in zip(offset, dilation)]
        part = slice(x, starts, [a + (m - 1) * s + 1 for a, m, s in
                                 zip(starts, out, window_strides)], window_strides)
        result = part if result is None else computation(result, part)
    return result


def _clamped_starts(operand, start_indices, slice_sizes):
    """Negative starts count from the end, then each start is clamped so the box fits."""
    return [np.clip(np.where(np.less(start, 0), start + n, start), 0, n - size)
            for start, n, size in zip(start_indices, np.shape(operand), slice_sizes)]


def _grid(starts, sizes):
    """Index arrays for the box at `starts` of `sizes`, broadcasting against each other."""
    rank = len(sizes)
    return tuple(np.reshape(start + np.arange(size), [-1 if a == axis else 1
                                                      for a in range(rank)])
                 for axis, (start, size) in enumerate(zip(starts, sizes)))


def dynamic_slice(operand, start_indices, slice_sizes):
    """operand[start:start + size] per axis, the starts (possibly traced) clamped so the box
    fits, as JAX does."""
    starts = _clamped_starts(operand, start_indices, slice_sizes)
    return IndexUpdateRef(operand, _grid(starts, slice_sizes)).get(mode="clip")


def dynamic_update_slice(operand, update, start_indices):
    starts = _clamped_starts(operand, start_indices, np.shape(update))
    return IndexUpdateRef(operand, _grid(starts, np.shape(update))).set(update)


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0):
    starts = [0] * np.ndim(operand)
    sizes = list(np.shape(operand))
    starts[axis], sizes[axis] = start_index, slice_size
    return dynamic_slice(operand, starts, sizes)


def dynamic_update_slice_in_dim(operand, update, start_index, axis):
    starts = [0] * np.ndim(operand)
    starts[axis] = start_index
    return dynamic_update_slice(operand, update, starts)


def index_in_dim(operand, index, axis=0, keepdims=True):
    """operand's slice `index` along `axis` (a Python int, negative from the end)."""
    index = index + np.shape(operand)[axis] if index < 0 else index
    return _kept(slice_in_dim(operand, index, index + 1, axis=axis), axis, keepdims)


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True):
    """index_in_dim with a (possibly traced) index, clamped into range."""
    return _kept(dynamic_slice_in_dim(operand, index, 1, axis), axis, keepdims)


def _kept(x, axis, keepdims):
    return x if keepdims else np.squeeze(x, axis)


def dynamic_update_index_in_dim(operand, update, index, axis):
    """operand with its slice `index` along `axis` replaced by update (with or without that
    axis)."""
    if np.ndim(update) < np.ndim(operand):
        update = np.expand_dims(update, axis)
    return dynamic_update_slice_in_dim(operand, update, index, axis)


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
    """Contract lhs and rhs over the contracting axes, batched over the batch axes: the
    result has the batch axes, then lhs's free axes, then rhs's."""
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    letters = iter(string.ascii_letters)
    lhs_names = [next(letters) for _ in range(np.ndim(lhs))]
    rhs_names = [next(letters) for _ in range(np.ndim(rhs))]
    for a, b in zip(list(lhs_contract) + list(lhs_batch), list(rhs_contract) + list(rhs_batch)):
        rhs_names[b] = lhs_names[a]
    batch = [lhs_names[a] for a in lhs_batch]
    free_lhs = [n for a, n in enumerate(lhs_names) if a not in lhs_contract and a not in lhs_batch]
    free_rhs = [n for a, n in enumerate(rhs_names) if a not in rhs_contract and a not in rhs_batch]
    spec = f"{''.join(lhs_names)},{''.join(rhs_names)}->{''.join(batch + free_lhs + free_rhs)}"
    out = np.einsum(spec, lhs, rhs)
    return out if preferred_element_type is None else out.astype(preferred_element_type)


def dot(lhs, rhs, precision=None, preferred_element_type=None):
    return dot_general(lhs, rhs, (([np.ndim(lhs) - 1], [0]), ([], [])),
                       preferred_element_type=preferred_element_type)


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                         batch_group_count=1, precision=None, preferred_element_type=None):
    """Cross-correlation of lhs (NC + spatial, by default) with the kernel rhs (OI + spatial):
    the input dilated and padded here, then nn.functional's convolution."""
    spatial = np.ndim(lhs) - 2
    if batch_group_count != 1 or not 1 <= spatial <= 3:
        raise NotImplementedError("conv_general_dilated: batch_group_count other than 1, and "
                                  "other than 1 to 3 spatial dimensions, are not supported")
    lhs_spec, rhs_spec, out_spec = _conv_specs(dimension_numbers, np.ndim(lhs))
    x, w = np.transpose(lhs, lhs_spec), np.transpose(rhs, rhs_spec)
    rhs_dilation = tuple(rhs_dilation or (1,) * spatial)
    for axis, factor in enumerate(lhs_dilation or ()):
        x = _dilate(x, axis + 2, factor)
    kernel = [(k - 1) * d + 1 for k, d in zip(np.shape(w)[2:], rhs_dilation)]
    pads = _conv_padding(padding, np.shape(x)[2:], kernel, window_strides)
    x = pad(x, 0, [(0, 0, 0)] * 2 + [(lo, hi, 0) for lo, hi in pads])
    out = np.transpose(_convolve(x, w, tuple(window_strides), rhs_dilation,
                                 feature_group_count), np.argsort(out_spec))
    return out if preferred_element_type is None else out.astype(preferred_element_type)


def _convolve(x, w, stride, dilation, groups):
    """nn.functional's conv1d/2d/3d on Tensors around x and w: traced values, or numpy arrays
    (computed eagerly, given back as numpy)."""
    from gradjit import from_numpy
    from gradjit.nn import functional
    conv = getattr(functional, f"conv{np.ndim(x) - 2}d")
    if L.is_traced(x) or L.is_traced(w):
        return L.unwrap(conv(L.wrap_tensor(x), L.wrap_tensor(w), stride=stride,
                             dilation=dilation, groups=groups))
    return conv(from_numpy(np.ascontiguousarray(x)), from_numpy(np.ascontiguousarray(w)),
                stride=stride, dilation=dilation, groups=groups).numpy()


def _conv_specs(dimension_numbers, rank):
    """The axis orders taking lhs to NC..., rhs to OI... and the output's N C ... axes to
    their places: from strings ('NHWC', 'HWIO', 'NHWC'), axis tuples, or None (NCHW...)."""
    if dimension_numbers is None:
        return (tuple(range(rank)),) * 3
    if isinstance(dimension_numbers[0], str):
        orders = []
        for spec, first in zip(dimension_numbers, ("NC", "OI", "NC")):
            rest = [i for i, c in enumerate(spec) if c not in first]
            orders.append((spec.index(first[0]), spec.index(first[1]), *rest))
        return tuple(orders)
    return tuple(tuple(spec) for spec in dimension_numbers)


def _conv_padding(padding, sizes, kernel, strides):
    if isinstance(padding, str):
        if padding.upper() == "VALID":
            return [(0, 0)] * len(sizes)
        out = [-(-n // s) for n, s in zip(sizes, strides)]
        total = [max((o - 1) * s + k - n, 0) for o, s, k, n in zip(out, strides, kernel, sizes)]
        low = [t // 2 if padding.upper() == "SAME" else t - t // 2 for t in total]
        return [(lo, t - lo) for lo, t in zip(low, total)]
    return [tuple(p) for p in padding]


def _reducer(name, fn):
    def reduce(operand, axes):
        return fn(operand, axis=tuple(axes))
    reduce.__name__ = reduce.__qualname__ = name
    return reduce


_REDUCERS = {"reduce_sum": np.sum, "reduce_max": np.max, "reduce_min": np.min,
             "reduce_prod": np.prod, "reduce_and": np.all, "reduce_or": np.any}
globals().update({name: _reducer(name, fn) for name, fn in _REDUCERS.items()})


# The reductions of the elementwise operations numpy reduces at once; any other computation
# is folded over the reduced elements one at a time.
_MONOIDS = {np.add: np.sum, np.multiply: np.prod, np.maximum: np.max, np.minimum: np.min,
            np.logical_and: np.all, np.logical_or: np.any, np.bitwise_and: np.all,
            np.bitwise_or: np.any}


def reduce(operands, init_values, computation, dimensions):
    """operands (an array or a tree of them) reduced over `dimensions` by computation from
    init_values (a tree like operands), as XLA's reduce."""
    dims = tuple(dimensions)
    if not isinstance(operands, (tuple, list, dict)) and computation in _MONOIDS:
        return computation(init_values, _MONOIDS[computation](operands, axis=dims))
    leaves, treedef = tree_util.tree_flatten(operands)
    rest = [n for axis, n in enumerate(np.shape(leaves[0])) if axis not in dims]
    rows = [np.reshape(np.moveaxis(x, dims, tuple(range(len(dims)))), (-1, *rest))
            for x in leaves]
    total = [np.full(rest, init, np.result_type(x))
             for init, x in zip(tree_util.tree_flatten(init_values)[0], leaves)]
    for k in range(np.shape(rows[0])[0]):
        total = tree_util.tree_flatten(computation(treedef.unflatten(total),
                                           treedef.unflatten(r[k] for r in rows)))[0]
    return treedef.unflatten(total)


def argmax(operand, axis, index_dtype):
    return np.argmax(operand, axis=axis).astype(index_dtype)


def argmin(operand, axis, index_dtype):
    return np.argmin(operand, axis=axis).astype(index_dtype)


def _cumulative(fn):
    def cumulative(operand, axis=0, reverse=False):
        if reverse:
            return np.flip(fn(np.flip(operand, axis), axis=axis), axis)
        return fn(operand, axis=axis)
    return cumulative


cumsum, cumprod = _cumulative(np.cumsum), _cumulative(np.cumprod)
cummax, cummin = _cumulative(np.maximum.accumulate), _cumulative(np.minimum.accumulate)
cumlogsumexp = _cumulative(np.logaddexp.accumulate)


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """operand sorted along `dimension`; a sequence of operands is sorted by its first
    num_keys arrays (lexicographically), all permuted alike."""
    if not isinstance(operand, (tuple, list)):
        return np.sort(operand, axis=dimension, kind="stable")
    order = None
    for key in reversed(operand[:num_keys]):
        keyed = key if order is None else np.take_along_axis(key, order, dimension)
        step = np.argsort(keyed, axis=dimension, kind="stable")
        order = step if order is None else np.take_along_axis(order, step, dimension)
    return tuple(np.take_along_axis(x, order, dimension) for x in operand)


def top_k(operand, k):
    """[the k largest values along the last axis in descending order, their indices] (a list,
    as JAX returns), ties broken by the lower index."""
    order = np.argsort(-operand, axis=-1, kind="stable")[..., :k]
    return [np.take_along_axis(operand, order, -1), order.astype(np.int32)]


def sort_key_val(keys, values, dimension=-1):
    """(keys sorted along `dimension`, values permuted alike)."""
    return sort((keys, values), dimension, num_keys=1)


__all__ = ["argmax", "argmin", "broadcast", "broadcast_in_dim", "concatenate",
           "conv_general_dilated", "cumlogsumexp", "cummax", "cummin", "cumprod", "cumsum", "dot",
           "dot_general", "dynamic_slice", "dynamic_slice_in_dim", "dynamic_update_slice",
           "dynamic_update_slice_in_dim", "dynamic_index_in_dim", "dynamic_update_index_in_dim",
           "expand_dims", "index_in_dim", "full", "full_like", "iota", "pad", "reduce",
           "reduce_window", "reshape", "rev", "slice", "slice_in_dim", "sort", "sort_key_val",
           "squeeze", "top_k", "transpose", *_REDUCERS]
