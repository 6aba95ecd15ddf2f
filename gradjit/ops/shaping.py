"""numpy's rearranging, joining and splitting functions (flip, roll, tile, repeat, pad,
concatenate, split, ...) on array-likes, as compositions of the structural primitives. Static
arguments (axes, shifts, repeats, pad widths) are plain Python; where they pick elements, the
positions are computed by running numpy's own function on an index ramp."""
from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from gradjit.ir import structural as S
from gradjit.ir.primitive import ir_type
from gradjit.ops.array import concatenate as _concatenate
from gradjit.ops.array import reshape, shape_of, transpose
from gradjit.ops.indexing import getitem, value_deciding_shape
from gradjit.ops.promote import (astype, broadcast, check_cast, check_casting,
                                  result_type)


def asarray(x):
    """Array-likes pass; lists and numbers become numpy arrays, as numpy's functions take them."""
    return x if hasattr(x, "ir_type") or isinstance(x, np.ndarray) else np.asarray(x)


def ravel(x, order="C"):
    """The elements in C order (rows first) or, for order='F', columns first."""
    if order not in ("C", "F", "A", "K"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    x = asarray(x)
    return reshape(transpose(x) if order == "F" else x, (-1,))


def static_index(x, what):
    """The numpy value of an argument that decides the result's shape."""
    value = value_deciding_shape(x, what)
    if value is None:
        raise TypeError(f"{what} computed at run time would give a data-dependent shape; "
                        "pass it as a constant (a list or numpy array)")
    return value


def along(x, positions, axis):
    """x with its `axis` replaced by the positions (an int array) along it."""
    positions = np.asarray(positions, np.int64)
    n = shape_of(x)[axis]
    if positions.shape == (n,) and np.array_equal(positions, np.arange(n)):
        return x
    return S.gather(x, positions, axis=axis)


# ---- reordering ----

def flip(m, axis=None):
    x = asarray(m)
    rank = len(shape_of(x))
    axes = range(rank) if axis is None else normalize_axis_tuple(axis, rank)
    for a in axes:
        x = along(x, np.arange(shape_of(x)[a])[::-1], a)
    return x


def roll(a, shift, axis=None):
    x = asarray(a)
    shape = shape_of(x)
    if axis is None:
        return reshape(roll(ravel(x), shift, 0), shape)
    axes = normalize_axis_tuple(axis, len(shape), allow_duplicate=True)
    pairs = np.broadcast(shift, axes)
    if pairs.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    total = dict.fromkeys(range(len(shape)), 0)
    for s, ax in pairs:
        total[int(ax)] += int(s)
    for ax, s in total.items():
        x = along(x, np.roll(np.arange(shape[ax]), s), ax)
    return x


def rot90(m, k=1, axes=(0, 1)):
    x = asarray(m)
    rank = len(shape_of(x))
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == rank:
        raise ValueError("Axes must be different.")
    if not all(-rank <= a < rank for a in axes):
        raise ValueError(f"Axes={axes} out of range for array of ndim={rank}.")
    a0, a1 = axes[0] % rank, axes[1] % rank
    perm = list(range(rank))
    perm[a0], perm[a1] = a1, a0
    k %= 4
    if k == 0:
        return x
    if k == 2:
        return flip(flip(x, a0), a1)
    if k == 1:
        return transpose(flip(x, a1), perm)
    return flip(transpose(x, perm), a1)


def moveaxis(a, source, destination):
    x = asarray(a)
    rank = len(shape_of(x))
    source = normalize_axis_tuple(source, rank, "source")
    destination = normalize_axis_tuple(destination, rank, "destination")
    if len(source) != len(destination):
        raise ValueError("`source` and `destination` arguments must have the same number of "
                         "elements")
    order = [n for n in range(rank) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return transpose(x, order)


def rollaxis(a, axis, start=0):
    x = asarray(a)
    n = len(shape_of(x))
    axis = normalize_axis_index(axis, n)
    start = start + n if start < 0 else start
    if not 0 <= start < n + 1:
        raise np.exceptions.AxisError(f"'start' arg requires {-n} <= start < {n + 1}")
    start -= axis < start
    order = [i for i in range(n) if i != axis]
    order.insert(start, axis)
    return transpose(x, order)


# ---- repetition ----

def tile(A, reps):
    x = asarray(A)
    reps = tuple(reps) if np.iterable(reps) else (reps,)
    shape = shape_of(x)
    rank = max(len(reps), len(shape))
    reps = (1,) * (rank - len(reps)) + tuple(int(r) for r in reps)
    shape = (1,) * (rank - len(shape)) + shape
    if min(reps, default=1) < 0:
        raise ValueError("negative dimensions are not allowed")
    spread = reshape(x, tuple(d for s in shape for d in (1, s)))
    tiled = broadcast(spread, tuple(d for r, s in zip(reps, shape) for d in (r, s)))
    return reshape(tiled, tuple(r * s for r, s in zip(reps, shape)))


def repeat(a, repeats, axis=None):
    x = asarray(a)
    if axis is None:
        x, axis = ravel(x), 0
    shape = shape_of(x)
    axis = normalize_axis_index(axis, len(shape))
    counts = static_index(repeats, "np.repeat: repeats")
    positions = np.repeat(np.arange(shape[axis]), counts)  # numpy's errors for bad counts
    if counts.ndim == 0 or counts.size == 1:  # one count: a broadcast, no gather
        r = int(counts.reshape(()))
        spread = reshape(x, shape[:axis + 1] + (1,) + shape[axis + 1:])
        wide = broadcast(spread, shape[:axis + 1] + (r,) + shape[axis + 1:])
        return reshape(wide, shape[:axis] + (shape[axis] * r,) + shape[axis + 1:])
    return along(x, positions, axis)


# ---- joining ----

def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    refuse_out("concatenate", out)
    xs = [asarray(a) for a in arrays]
    if not xs:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        xs, axis = [ravel(x) for x in xs], 0
    dt = _join_dtype(xs, dtype, casting)
    rank = len(shape_of(xs[0]))
    if rank == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = normalize_axis_index(axis, rank)
    first = shape_of(xs[0])
    for i, x in enumerate(xs[1:], 1):
        shape = shape_of(x)
        if len(shape) != rank:
            raise ValueError(f"all the input arrays must have same number of dimensions, but "
                             f"the array at index 0 has {rank} dimension(s) and the array at "
                             f"index {i} has {len(shape)} dimension(s)")
        for d, (n0, n) in enumerate(zip(first, shape)):
            if d != axis and n0 != n:
                raise ValueError(
                    f"all the input array dimensions except for the concatenation axis must "
                    f"match exactly, but along dimension {d}, the array at index 0 has size "
                    f"{n0} and the array at index {i} has size {n}")
    xs = [astype(x, dt) for x in xs]
    return _concatenate(xs, axis)  # a new array even of one, as numpy's


def _join_dtype(xs, dtype, casting):
    check_casting(casting)
    if dtype is None:
        return result_type(*xs)
    for x in xs:
        check_cast(ir_type(x).dtype.numpy, dtype, casting)
    return np.dtype(dtype)


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    xs = [asarray(a) for a in arrays]
    if not xs:
        raise ValueError("need at least one array to stack")
    if len({shape_of(x) for x in xs}) > 1:
        raise ValueError("all input arrays must have the same shape")
    axis = normalize_axis_index(axis, len(shape_of(xs[0])) + 1)
    return concatenate([expand_dims(x, axis) for x in xs], axis, out, dtype=dtype,
                       casting=casting)


def expand_dims(a, axis):
    x = asarray(a)
    shape = iter(shape_of(x))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    axes = normalize_axis_tuple(axes, len(axes) + len(shape_of(x)))
    return reshape(x, tuple(1 if i in axes else next(shape) for i in range(
        len(axes) + len(shape_of(x)))))


def squeeze(a, axis=None):
    x = asarray(a)
    shape = shape_of(x)
    if axis is None:
        axes = tuple(i for i, d in enumerate(shape) if d == 1)
    elif not shape and axis in (0, -1):  # numpy lets an integer axis squeeze a 0-d array
        return x
    else:
        axes = normalize_axis_tuple(axis, len(shape))
        if any(shape[i] != 1 for i in axes):
            raise ValueError("cannot select an axis to squeeze out which has size not equal "
                             "to one")
    return reshape(x, tuple(d for i, d in enumerate(shape) if i not in axes))


def atleast_nd(rank, arys):
    """numpy's atleast_1d/2d/3d: one array gives an array, several give a tuple."""
    out = tuple(_at_least(asarray(a), rank) for a in arys)
    return out[0] if len(out) == 1 else out


def _at_least(x, rank):
    shape = shape_of(x)
    if len(shape) >= rank:
        return x
    if rank == 3:  # numpy's atleast_3d puts a 1-d array in the middle: (n,) -> (1, n, 1)
        return reshape(x, {0: (1, 1, 1), 1: (1,) + shape + (1,), 2: shape + (1,)}[len(shape)])
    return reshape(x, (1,) * (rank - len(shape)) + shape)


def hstack(tup, *, dtype=None, casting="same_kind"):
    xs = [_at_least(asarray(a), 1) for a in tup]
    axis = 0 if xs and len(shape_of(xs[0])) == 1 else 1
    return concatenate(xs, axis, dtype=dtype, casting=casting)


def vstack(tup, *, dtype=None, casting="same_kind"):
    return concatenate([_at_least(asarray(a), 2) for a in tup], 0, dtype=dtype,
                       casting=casting)


def dstack(tup):
    return concatenate([_at_least(asarray(a), 3) for a in tup], 2)


def column_stack(tup):
    xs = [asarray(a) for a in tup]
    return concatenate([reshape(x, (-1, 1)) if len(shape_of(x)) < 2 else x for x in xs], 1)


def append(arr, values, axis=None):
    x, v = asarray(arr), asarray(values)
    if axis is None:
        x, v, axis = ravel(x), ravel(v), 0
    return concatenate([x, v], axis)


def broadcast_arrays(*args, subok=False):
    xs = [asarray(a) for a in args]
    shape = np.broadcast_shapes(*(shape_of(x) for x in xs))
    return tuple(broadcast(x, shape) for x in xs)


def broadcast_to(array, shape, subok=False):
    x = asarray(array)
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if any(d < 0 for d in shape):
        raise ValueError("all elements of broadcast shape must be non-negative")
    if np.broadcast_shapes(shape_of(x), shape) != shape:
        raise ValueError("cannot broadcast a non-scalar to a scalar array" if not shape else
                         f"operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {shape_of(x)} and requested shape {shape}")
    return broadcast(x, shape)


def block(arrays):
    """numpy's block: the innermost lists join along the last axis, each level out along the
    axis before."""
    depth = _block_depth(arrays, ())
    leaves = []
    _block_leaves(arrays, leaves)
    rank = max([depth] + [len(shape_of(x)) for x in leaves])
    return _block_join(arrays, depth, rank)


def _block_depth(arrays, index):
    if isinstance(arrays, tuple):
        raise TypeError(f"{_at(index)} is a tuple. Only lists "
                        "can be used to arrange blocks, and np.block does not allow implicit "
                        "conversion from tuple to ndarray.")
    if not isinstance(arrays, list):
        return 0
    if not arrays:
        raise ValueError(f"List at {_at(index)} cannot be empty")
    depths = [_block_depth(a, index + (i,)) for i, a in enumerate(arrays)]
    if len(set(depths)) > 1:
        bad = next(i for i, d in enumerate(depths) if d != depths[0])
        raise ValueError(f"List depths are mismatched. First element was at depth "
                         f"{len(index) + 1 + depths[0]}, but there is an element at depth "
                         f"{len(index) + 1 + depths[bad]} ({_at(index + (bad,))})")
    return depths[0] + 1


def _at(index):
    return "arrays" + "".join(f"[{i}]" for i in index)


def _block_leaves(arrays, out):
    if isinstance(arrays, list):
        for a in arrays:
            _block_leaves(a, out)
    else:
        out.append(asarray(arrays))


def _block_join(arrays, depth, rank):
    if not isinstance(arrays, list):
        x = asarray(arrays)
        return reshape(x, (1,) * (rank - len(shape_of(x))) + shape_of(x))
    return concatenate([_block_join(a, depth - 1, rank) for a in arrays], -depth)


# ---- splitting ----

def array_split(ary, indices_or_sections, axis=0):
    x = asarray(ary)
    shape = shape_of(x)
    axis = normalize_axis_index(axis, len(shape))
    n = shape[axis]
    if np.ndim(indices_or_sections) == 0:
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extra = divmod(n, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        points = np.concatenate([[0], np.cumsum(sizes)]).tolist()
    else:
        points = [0] + [int(i) for i in indices_or_sections] + [n]
    lead = (slice(None),) * axis
    return [getitem(x, lead + (slice(lo, hi),)) for lo, hi in zip(points[:-1], points[1:])]


def split(ary, indices_or_sections, axis=0):
    if np.ndim(indices_or_sections) == 0:
        n = shape_of(asarray(ary))[normalize_axis_index(axis, len(shape_of(asarray(ary))))]
        if n % int(indices_or_sections):  # numpy's ZeroDivisionError for 0 sections
            raise ValueError("array split does not result in an equal division")
    return array_split(ary, indices_or_sections, axis)


def _directional_split(name, axis_of, least):
    def split_along(ary, indices_or_sections):
        x = asarray(ary)
        rank = len(shape_of(x))
        if rank < least:
            raise ValueError(f"{name} only works on arrays of {least} or more dimensions")
        return split(x, indices_or_sections, axis_of(rank))
    split_along.__name__ = name
    return split_along


hsplit = _directional_split("hsplit", lambda rank: 1 if rank > 1 else 0, 1)
vsplit = _directional_split("vsplit", lambda rank: 0, 2)
dsplit = _directional_split("dsplit", lambda rank: 2, 3)


def refuse_out(name, out):
    if out is not None:
        raise TypeError(f"np.{name}: out= is not supported on traced values (they cannot be "
                        "written in place); use the returned value")


__all__ = ["along", "append", "array_split", "asarray", "atleast_nd", "block",
           "broadcast_arrays", "column_stack", "dsplit", "dstack", "flip", "hsplit", "hstack",
           "moveaxis", "ravel", "refuse_out", "repeat", "rollaxis", "roll", "rot90", "split",
           "static_index", "tile", "vsplit", "vstack"]  # concatenate, stack, ...: numpy's
# forms, reached by module name (gradjit.ops.concatenate is the one PyTorch's cat shares)
