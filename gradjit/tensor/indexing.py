"""PyTorch's gather/scatter family, the index_* operations along one dimension, masked_*,
put/select/index_put and nonzero (take is with the shaping methods), composed from the
gather and scatter_add primitives.

Indices known when the operation runs (every eager tensor) are checked here, with PyTorch's
errors; indices computed at run time inside grad/jit are checked by the primitives when the
program runs. Where PyTorch leaves a result unspecified (scatter or index_copy writing one
position twice), the last write is kept, as PyTorch's CPU kernels do: for known indices by
rounds of distinct positions, for run-time ones by a stable sort of the targets; every written
value gets the gradient at its target, as PyTorch's backward gathers it."""
from __future__ import annotations

import functools
import math

import numpy as np

from gradjit import ops
from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.primitive import ir_type, is_python_scalar
from gradjit.ops.indexing import _positions as positions
from gradjit.tensor import dtypes, overlap, unsigned
from gradjit.tensor.arith import apply, operand
from gradjit.tensor.base import _check_dim
from gradjit.tensor.index_reading import index_parts, put_value
from gradjit.tensor.shape import broadcast_into, broadcast_shape
from gradjit.tensor.scatter_values import _reduce, _replace, _scatter_sum, _targets


def _int_index(index, what):
    index = operand(index)
    if not index.dtype.ir.is_int or index.dtype.ir.name == "bool":
        raise RuntimeError(f"{what}(): Expected dtype int32/int64 for index")
    return index


# Each index_* operation's checks of its index in PyTorch's words: whether int32 passes as
# well as int64, the error of another dtype, and the error of an index of rank above 1.
_INT_OR_LONG = (RuntimeError, "{what}_(): Expected dtype int32/int64 for index but got: {type}")
_NOT_VECTOR = (IndexError, "{what}_(): Index is supposed to be a vector, but got dim: {rank} "
                           "with type: {type} and size: {size}")
_ALONG_INDEX = {
    "index_add": (True, _INT_OR_LONG, _NOT_VECTOR),
    "index_reduce": (True, _INT_OR_LONG, _NOT_VECTOR),
    "index_select": (True, (RuntimeError, "index_select(): Expected dtype int32 or int64 for "
                                          "index"),
                     (IndexError, "index_select(): Index is supposed to be a vector")),
    "index_copy": (False, (RuntimeError, "index_copy_(): Expected a long tensor for index, but "
                                         "got {type}"),
                   (IndexError, "index_copy_(): Index should have dimension 1 or 0 (got "
                                "{rank})")),
    "index_fill": (False, (IndexError, "index_fill_(): Expected dtype int64 for index."),
                   (RuntimeError, "Index has to be a vector/scalar")),
}


def _along_index(index, what):
    """index checked as the index of index_add, index_copy, ... (`what`) along one dim."""
    index = operand(index)
    takes_int32, (dtype_error, dtype_words), (rank_error, rank_words) = _ALONG_INDEX[what]
    allowed = (dtypes.int32, dtypes.int64) if takes_int32 else (dtypes.int64,)
    words = dict(what=what, type=index.dtype.legacy, rank=index.dim(), size=list(index.shape))
    if index.dtype not in allowed:
        raise dtype_error(dtype_words.format(**words))
    if index.dim() > 1:
        raise rank_error(rank_words.format(**words))
    return index


def _long_index(index, what):
    """put's and take's index: int64 only."""
    if not hasattr(index, "_edge") or index.dtype is not dtypes.int64:
        raise RuntimeError(f"{what}(): Expected a long tensor for index, but got "
                           f"{index.dtype.legacy if hasattr(index, '_edge') else index}")
    return index


def _check_not_empty(index, n, what):
    """put's and take's indices into n elements: refused where there are none."""
    if not n and index.numel():
        raise IndexError("put_(): Tried to put elements into an empty tensor" if what == "put_"
                         else "take(): tried to take from an empty tensor")
    return index


def _shape(x) -> tuple:
    return tuple(ir_type(x).shape)


def _check_fits(index, shape, dim, other):
    """PyTorch's rule for gather/scatter: index as many dims, no larger but along `dim`."""
    index_shape = _shape(index)
    # a 0-dim tensor counts as one dim here, as in PyTorch (torch.tensor(3) indexes a vector)
    if max(len(index_shape), 1) != max(len(shape), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as "
                           f"{other} tensor")
    for d, (i, s) in enumerate(zip(index_shape, shape)):
        if d != dim and i > s:
            raise RuntimeError(f"Size does not match at dimension {d} expected index "
                               f"{list(index_shape)} to be no larger than {other} "
                               f"{list(shape)} apart from dimension {dim}")


def _outside(index, size, low=0):
    """The first known index element outside [low, size), or None."""
    known = ops.constant_value(index)
    bad = known[(known < low) | (known >= size)] if known is not None else ()
    return bad.flat[0] if len(bad) else None


def _check_known(index, size, dim, low=0):
    bad = _outside(index, size, low)
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def _check_copy(shape, dim, source_shape):
    """index_copy's checks of the source's shape, in PyTorch's order and words."""
    if shape and source_shape and len(shape) != len(source_shape):
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality "
                         f"({len(source_shape)}), destination dimensionality ({len(shape)})")
    dest, src = (shape[:dim] + shape[dim + 1:], source_shape[:dim] + source_shape[dim + 1:])
    if dest != src:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice "
                           f"shapes. Destination slice shape: {' '.join(map(str, dest))} at "
                           f"dimension {dim} and source slice shape: "
                           f"{' '.join(map(str, src))} at dimension 0.")


def _along(index, shape, dim):
    """A 1-D index along dim as a gather/scatter index of `shape` (dim's length: the index's)."""
    index = operand(index)
    if ir_type(index).rank > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    n = math.prod(_shape(index))
    view = [1] * len(shape)
    if view:
        view[dim] = n
    target = tuple(shape[:dim]) + (n,) + tuple(shape[dim + 1:]) if shape else (n,)
    return ops.broadcast_to(ops.reshape(index, tuple(view) or (n,)), target)


def _flat_index(x, index):
    """put's indices into x flattened: negative ones count from the end."""
    n = math.prod(_shape(x))
    known = ops.constant_value(index)
    if known is not None and known.size:
        bad = known[(known < -n) | (known >= n)]
        if bad.size:
            raise IndexError(f"out of range: tried to access index {bad.flat[0]} on a tensor "
                             f"of {n} elements.")
    idx = E.cast(index, dtype="i64")
    # one below -n stays as it is, for the run-time bounds check to refuse (wrapped once it
    # would pass as counted from the end)
    return ops.where(ops.lt(idx, 0), ops.where(ops.lt(idx, -n), idx, ops.add(idx, n)), idx)


def _known_mask(mask, what):
    """Where mask is nonzero, as numpy booleans: a traced mask's value now, under a guard
    (ops.value_deciding_shape)."""
    known = ops.constant_value(mask)
    if known is None:
        value = getattr(mask, "_value", mask)
        nonzero = value if ops.ir_type(value).dtype.is_bool else ops.ne(value, 0)
        known = ops.value_deciding_shape(nonzero, what)
    if known is None:
        from gradjit.tracer.torch_surface import user_line
        raise TypeError(f"{what}: the number of selected elements decides the result's shape, "
                        "and the mask's value is not known here (eval_shape traces stand-ins "
                        f"for the values). Use torch.where(mask, x, other) instead"
                        f"{user_line()}")
    return known


def _nonzero(x, as_tuple, what):
    """nonzero's indices; `what` names the function the user called in a refusal."""
    from gradjit.tensor.factories import tensor
    unsigned.refuse("nonzero_count_cpu", x.dtype)
    known = _known_mask(x, what)
    if as_tuple:
        return tuple(tensor(i.astype(np.int64)) for i in np.nonzero(np.atleast_1d(known)))
    return tensor(np.argwhere(known).astype(np.int64))


def _as_one_element(name, run, shape, self, *others):
    """run(self as a one-element 1-d tensor, *others), its result of `shape`, recorded as the
    one operation `name` over self and others: PyTorch's kernel reads a 0-d tensor as one
    element, so its graph has no views around it."""
    return apply(name, lambda x, *ts: run(x.reshape(1), *ts).reshape(shape), self, *others)


def _one_element(name, with_source, any_single=False):
    """index_select, index_add, ...: PyTorch reads a 0-d self (and its 0-d source; for
    `any_single`, any source of one element) as one element along dim 0 or -1; a source of
    another shape is left to the method to refuse. `name`: the grad_fn, or a function of the
    arguments after the index that gives it."""
    def wrap(method):
        @functools.wraps(method)
        def wrapped(self, dim, index, *args, **kwargs):
            if self.dim():
                return method(self, dim, index, *args, **kwargs)
            _check_dim(dim, 0)
            if with_source:
                source = operand(args[0] if args else kwargs.pop("source"))
                if source.dim() and not (any_single and source.numel() == 1):
                    return method(self, dim, index, source, *args[1:], **kwargs)
                args = (source, *args[1:])
            index = operand(index).reshape(-1)
            label = name if type(name) is str else name(*args, **kwargs)

            def run(x, *_):  # (the tensor arguments, passed to be the operation's operands)
                first = [args[0].reshape(1)] if with_source else list(args[:1])
                return method(x, 0, index, *first, *args[1:], **kwargs)
            tensors = [a for a in (*args, *kwargs.values()) if hasattr(a, "_edge")]
            return _as_one_element(label, run, (), self, *tensors)
        return wrapped
    return wrap


def _scatter_name(what, src, reduce=None):
    """The grad_fn of scatter, scatter_add or scatter_reduce (`what`) of src, a tensor or a
    number."""
    if what != "scatter":
        return "ScatterAddBackward0" if what == "scatter_add" else "ScatterReduceBackward0"
    if not hasattr(src, "_edge"):
        return "ScatterBackward1"
    return "ScatterBackward0" if reduce is None else "ScatterReduceBackward0"


class IndexingMixin:
    """Tensor's gather/scatter, index_*, masked_*, put, select, index_put, nonzero."""

    def gather(self, dim, index, *, sparse_grad=False):
        index = operand(index)
        if index.numel() == 0:  # nothing gathered: torch checks neither rank nor dtype
            _check_dim(dim, self.dim())
            return apply("GatherBackward0", lambda x: x.reshape(-1)[:0].reshape(
                tuple(index.shape)), self)
        if self.dim() == 0:  # PyTorch reads a 0-d tensor as one element
            index = _int_index(index, "gather")
            return _as_one_element("GatherBackward0", lambda x: x.gather(
                0, index.reshape(-1)), tuple(index.shape), self)
        dim = _check_dim(dim, self.dim())
        index = _int_index(index, "gather")
        _check_fits(index, tuple(self.shape), dim, "self" if index.dim() == self.dim() else
                    "input")
        _check_known(index, self.shape[dim] if self.dim() else 1, dim)

        def gather(x, i):
            flat = ops.reshape(x, (-1,))
            positions_ = _targets(i, tuple(x.shape), dim)
            return ops.reshape(S.gather(flat, positions_, axis=0), tuple(i.shape))
        return apply("GatherBackward0", gather, self, index)

    def _scatter_0d(self, what, dim, index, src, **options):
        """scatter, scatter_add or scatter_reduce into a 0-d self: into its one-element 1-d
        form (dims 0 and -1 name it, as for a 1-d tensor)."""
        _check_dim(dim, 0)
        index = index.reshape(-1) if hasattr(index, "_edge") else index
        name = _scatter_name(what, src, options.get("reduce"))
        if not hasattr(src, "_edge"):
            return _as_one_element(name, lambda x: getattr(x, what)(0, index, src, **options),
                                   (), self)
        return _as_one_element(name, lambda x, s: getattr(x, what)(0, index, s, **options), (),
                               self, src)

    def _scatter_checked(self, dim, index, src, what):
        dim = _check_dim(dim, self.dim())
        index = _int_index(index, what)
        _check_fits(index, tuple(self.shape), dim, "self")
        if hasattr(src, "_edge") and src.dtype != self.dtype:  # torch names scatter for all
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        if hasattr(src, "_edge") and src.dim():
            if any(i > s for i, s in zip(index.shape, src.shape)):
                raise RuntimeError(f"Expected index {list(index.shape)} to be no larger "
                                       f"than self {list(self.shape)} apart from dimension "
                                       f"{dim} and to be no larger size than src "
                                       f"{list(src.shape)}")
        bad = _outside(index, self.shape[dim] if self.dim() else 1)
        if what == "index_copy" and bad is not None:
            raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {dim} "
                             f"with size {self.shape[dim] if self.dim() else 1}")
        _check_known(index, self.shape[dim] if self.dim() else 1, dim)
        return dim, index

    def scatter(self, dim, index, src=None, *, value=None, reduce=None):
        src = value if src is None else src
        src = src if is_python_scalar(src) else operand(src)
        if self.dim() == 0:
            return self._scatter_0d("scatter", dim, index, src, reduce=reduce)
        dim, index = self._scatter_checked(dim, index, src, "scatter")
        tensors = [src] if hasattr(src, "_edge") else []
        if reduce is not None:
            if reduce not in ("add", "multiply"):
                raise RuntimeError(f"reduce argument must be either add or multiply, got "
                                   f"{reduce}")
            name = "sum" if reduce == "add" else "prod"
            return apply(_scatter_name("scatter", src, reduce), lambda x, i, *s: _reduce(
                x, i, s[0] if s else src, dim, name, True), self, index, *tensors)
        return apply(_scatter_name("scatter", src), lambda x, i, *s: _replace(
            x, i, s[0] if s else src, dim), self, index, *tensors)

    def scatter_add(self, dim, index, src):
        src = operand(src)
        if self.dim() == 0:
            return self._scatter_0d("scatter_add", dim, index, src)
        dim, index = self._scatter_checked(dim, index, src, "scatter_add")
        return apply("ScatterAddBackward0", lambda x, i, s: _scatter_sum(x, i, s, dim),
                     self, index, src)

    def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
        reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # PyTorch's old names
        if reduce not in _REDUCTIONS:
            raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, "
                               f"got {reduce}")
        src = operand(src)
        if self.dim() == 0:
            return self._scatter_0d("scatter_reduce", dim, index, src, reduce=reduce,
                                    include_self=include_self)
        dim, index = self._scatter_checked(dim, index, src, "scatter_reduce")
        return apply("ScatterReduceBackward0", lambda x, i, s: _reduce(
            x, i, s, dim, reduce, include_self), self, index, src)

    @_one_element("IndexReduceBackward0", with_source=True)
    def index_reduce(self, dim, index, source, reduce, *, include_self=True):
        """source's slices along dim reduced into self's at index: scatter_reduce with the
        index spread along the other dims."""
        if reduce not in ("prod", "mean", "amax", "amin"):
            raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax "
                               f"or amin but got {reduce}.")
        source = operand(source)
        dim, index = self._index_along(dim, index, "index_reduce", source)
        shape = tuple(self.shape)
        return apply("IndexReduceBackward0", lambda x, i, s: _reduce(
            x, _along(i, shape, dim), s, dim, reduce, include_self), self, index, source)

    def index_select(self, dim, index):
        dim = _check_dim(dim, self.dim())
        index = _along_index(index, "index_select")
        if not self.dim():  # PyTorch reads a 0-d tensor as its one element
            if index.numel() != 1:
                raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                                   f"{index.numel()} value(s)")
            return _as_one_element("IndexSelectBackward0", lambda x: x.index_select(
                0, index.reshape(1)), (), self)
        shape = tuple(self.shape)
        bad = _outside(index, shape[dim])
        # PyTorch's kernel along dim 1 of a matrix or more words it as the empty case does
        if bad is not None and self.numel() and (len(shape) < 2 or dim != 1):
            raise IndexError("index out of range in self")
        if bad is not None:  # the words of torch's kernel for an empty tensor
            raise RuntimeError("index_select(): self indexing axis dim should be positive"
                               if not shape[dim] else
                               f"INDICES element is out of DATA bounds, id={bad} axis_dim="
                               f"{shape[dim]}")
        # PyTorch's CPU kernel words it by dim: its embedding path for 0, a generic one after
        words = ("IndexError", "index out of range in self") if dim == 0 else (
            "RuntimeError", f"INDICES element is out of DATA bounds, id={{index}} axis_dim="
                            f"{shape[dim]}")
        return apply("IndexSelectBackward0", lambda x, i: ops.reshape(
            S.gather(ops.reshape(x, (-1,)), _targets(_along(i, shape, dim), shape, dim,
                                                     *words),
                     axis=0), _shape(_along(i, shape, dim))), self, index)

    def _index_along(self, dim, index, what, source=None):
        dim = _check_dim(dim, self.dim())
        index = _along_index(index, what)
        if source is not None:
            count = index.numel()
            if source.dim() and count != source.shape[dim if self.dim() else 0]:
                if what == "index_copy":
                    raise IndexError(f"index_copy_(): Number of indices ({count}) should be "
                                     f"equal to source.size(dim) ({source.shape[dim]})")
                raise RuntimeError(f"{what}_(): Number of indices ({count}) should be equal to "
                                   f"source.size(dim): ({source.shape[dim]}), for dim: {dim}")
            wanted = list(self.shape)
            if wanted:
                wanted[dim] = count
            if list(source.shape) != wanted and what != "index_copy":  # _check_copy's rule
                raise RuntimeError(f"source tensor shape must match self tensor shape, "
                                   f"excluding the specified dimension. Got self.shape = "
                                   f"{list(self.shape)} source.shape = {list(source.shape)}")
        size = self.shape[dim] if self.dim() else 1
        low = -size if what == "index_fill" else 0  # index_fill counts back from the end
        bad = _outside(index, size, low)
        if bad is not None and what in ("index_copy", "index_fill"):  # torch's IndexErrors
            prefix = "index_copy_(): " if what == "index_copy" else ""
            raise IndexError(f"{prefix}index {bad} is out of bounds for dimension {dim} with "
                             f"size {size}")
        # PyTorch adds slice by slice (an IndexError) unless along a matrix's first or last dim
        sliced = self.dim() < 2 or dim not in (0, self.dim() - 1)
        if bad is not None and what == "index_add" and sliced:
            raise IndexError("index out of range in self")
        _check_known(index, size, dim, low)
        return dim, index

    @_one_element("IndexAddBackward0", with_source=True)
    def index_add(self, dim, index, source, *, alpha=1):
        source = operand(source)
        dim, index = self._index_along(dim, index, "index_add", source)
        if source.dtype != self.dtype:
            raise RuntimeError(f"index_add_(): self ({self.dtype.legacy}) and source "
                               f"({source.dtype.legacy}) must have the same scalar type")
        shape = tuple(self.shape)
        return apply("IndexAddBackward0", lambda x, i, s: _scatter_sum(
            x, _along(i, shape, dim), s if alpha == 1 else ops.mul(s, alpha), dim),
            self, index, source)

    @_one_element("IndexCopyBackward0", with_source=True, any_single=True)
    def index_copy(self, dim, index, source):
        source = operand(source)
        if source.dtype is not self.dtype:
            raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, "
                               f"but got (self) {self.dtype.legacy} and (source) "
                               f"{source.dtype.legacy}")
        if self.dim() and source.dim():
            _check_copy(tuple(self.shape), _check_dim(dim, self.dim()), tuple(source.shape))
        dim, index = self._index_along(dim, index, "index_copy", source)
        shape = tuple(self.shape)
        return apply("IndexCopyBackward0", lambda x, i, s: _replace(
            x, _along(i, shape, dim), s, dim), self, index, source)

    @_one_element(lambda value: "IndexFillBackward1" if hasattr(value, "_edge") else
                  "IndexFillBackward0", with_source=False)
    def index_fill(self, dim, index, value):
        dim, index = self._index_along(dim, index, "index_fill")
        index = index.remainder(self.shape[dim] if self.dim() else 1)  # -size <= index < size
        shape = tuple(self.shape)
        value = value if is_python_scalar(value) else operand(value)
        if hasattr(value, "_edge") and value.dim():
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.dim()} dimension(s).")
        if not self.dtype.is_complex and (isinstance(value, complex) or hasattr(
                value, "_edge") and value.dtype.is_complex):
            raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is "
                               "not supported")
        extra = [value] if hasattr(value, "_edge") else []
        return apply("IndexFillBackward1" if extra else "IndexFillBackward0",
                     lambda x, i, *v: _replace(x, _along(i, shape, dim), v[0] if v else value,
                                               dim), self, index, *extra)

    def masked_fill(self, mask, value):
        mask = operand(mask)
        if mask.dtype.ir.name != "bool":
            raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with "
                               f"dtype {dtypes.CPP_NAMES[mask.dtype.legacy]}")
        if hasattr(value, "_edge") and value.dim():
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but "
                               f"got tensor with {value.dim()} dimension(s).")
        if not self.dtype.is_complex and self.dtype is not dtypes.bool_ and (
                isinstance(value, complex) or hasattr(value, "_edge") and value.dtype.is_complex):
            name = dtypes.CONVERTED_NAMES[str(self.dtype).rpartition(".")[2]]
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")
        if is_python_scalar(value):
            value = self.dtype.ir.numpy.type(value).item()
            return apply("MaskedFillBackward0", lambda x, m: ops.where(m, value, x), self, mask)
        return apply("MaskedFillBackward1", lambda x, m, v: ops.where(
            m, E.cast(v, dtype=self.dtype.ir.name), x), self, mask, value)

    def masked_select(self, mask):
        mask = operand(mask)
        if mask.dtype.ir.name != "bool":
            raise RuntimeError("masked_select: expected BoolTensor for mask")
        known = _known_mask(mask, "masked_select")
        shape = broadcast_shape(known.shape, tuple(self.shape))
        chosen = np.broadcast_to(known, shape)
        return apply("MaskedSelectBackward0", lambda x: ops.getitem(
            ops.broadcast_to(x, shape), chosen), self)

    def masked_scatter(self, mask, source):
        mask, source = operand(mask), operand(source)
        if mask.dtype.ir.name != "bool":
            raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask "
                               f"with dtype {mask.dtype.legacy}")
        if source.dtype != self.dtype:  # torch's words run "got" and the dtype together
            raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes "
                               f"but got{self.dtype.legacy} and {source.dtype.legacy}")
        shape = np.broadcast_shapes(tuple(self.shape), tuple(mask.shape))  # self's too
        known = np.broadcast_to(_known_mask(mask, "masked_scatter"), shape)
        chosen = np.flatnonzero(known)
        if len(chosen) > source.numel():
            raise RuntimeError("masked_scatter: expected source to have at least "
                               f"{len(chosen)} elements, but got {source.numel()}")

        def scatter(x, s):
            flat = ops.reshape(ops.broadcast_to(x, shape), (-1,))
            taken = ops.getitem(ops.reshape(E.cast(s, dtype=self.dtype.ir.name), (-1,)),
                                slice(0, len(chosen)))
            return ops.reshape(ops.index_put(flat, chosen, taken), shape)
        return apply("MaskedScatterBackward0", scatter, self, source)

    def put(self, index, source, accumulate=False):
        index, source = _long_index(index, "put_"), operand(source)
        if source.dtype != self.dtype:
            raise RuntimeError(f"put_(): self and source expected to have the same dtype, but "
                               f"got self.dtype = {self.dtype.legacy} and source.dtype = "
                               f"{source.dtype.legacy}")
        _check_not_empty(index, self.numel(), "put_")
        if index.numel() != source.numel():
            raise IndexError(f"put_(): Expected source and index to have the same number of "
                               f"elements, but got source.numel() = {source.numel()}, "
                               f"index.numel() = {index.numel()}")

        def put(x, i, s):
            flat, where_ = ops.reshape(x, (-1,)), ops.reshape(_flat_index(x, i), (-1,))
            combined = _scatter_sum(flat, where_, s, 0) if accumulate else \
                _replace(flat, where_, ops.reshape(s, (-1,)), 0)
            return ops.reshape(combined, tuple(self.shape))
        return apply("PutBackward0", put, self, index, source)

    def select(self, dim, index):
        dim = _check_dim(dim, self.dim())
        size = self.shape[dim]
        if not -size <= index < size:
            raise IndexError(f"select(): index {index} out of range for tensor of size "
                             f"{list(self.shape)} at dimension {dim}")
        return apply("SelectBackward0", lambda x: ops.getitem(
            x, (slice(None),) * dim + (index,)), self)

    def index_put(self, indices, values, accumulate=False):
        if len(indices) > self.dim():
            raise IndexError(f"too many indices for tensor of dimension {self.dim()} (got "
                             f"{len(indices)})")
        parts = index_parts(self, tuple(indices))
        values = put_value(self, parts, operand(values), put=True)
        if not accumulate:
            return apply("IndexPutBackward0", lambda x, v: ops.index_put(x, parts, v), self,
                         values)
        known = tuple(p if type(p) in (int, np.ndarray) else operand(p)._concrete()
                      for p in parts)
        spots = np.asarray(positions(tuple(self.shape), known), np.int64)

        def accumulate_(x, v):
            flat = ops.reshape(x, (-1,))
            spread = ops.reshape(ops.broadcast_to(E.cast(v, dtype=self.dtype.ir.name),
                                                  spots.shape), (-1,))
            return ops.reshape(S.scatter_add(flat, spots.reshape(-1), spread, axis=0),
                               tuple(self.shape))
        return apply("IndexPutBackward0", accumulate_, self, values)

    def nonzero(self, *, as_tuple=False):
        return _nonzero(self, as_tuple, "nonzero")

    def argwhere(self):
        return _nonzero(self, False, "argwhere")

    def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
        overlap.check_inputs(self._value, (src,), overlap.ANY)
        return self._update(lambda: self.scatter(dim, index, src, value=value, reduce=reduce))

    def scatter_add_(self, dim, index, src):
        overlap.check_inputs(self._value, (src,), overlap.ANY)
        return self._update(lambda: self.scatter_add(dim, index, src))

    def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
        overlap.check_inputs(self._value, (src,), overlap.ANY)
        return self._update(lambda: self.scatter_reduce(dim, index, src, reduce,
                                                        include_self=include_self))

    def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
        overlap.check_inputs(self._value, (source,), overlap.ANY)
        return self._update(lambda: self.index_reduce(dim, index, source, reduce,
                                                      include_self=include_self))

    def index_add_(self, dim, index, source, *, alpha=1):
        overlap.check_inputs(self._value, (source,), overlap.ANY)
        return self._update(lambda: self.index_add(dim, index, source, alpha=alpha))

    def index_copy_(self, dim, index, source):
        overlap.check_inputs(self._value, (source,), overlap.ANY)
        return self._update(lambda: self.index_copy(dim, index, source))

    def index_fill_(self, dim, index, value):
        return self._update(lambda: self.index_fill(dim, index, value), may_overlap=True)

    def masked_fill_(self, mask, value):
        broadcast_into(tuple(self.shape), tuple(mask.shape))
        return self._update(lambda: self.masked_fill(mask, value), may_overlap=True)

    def masked_scatter_(self, mask, source):
        mask = operand(mask).expand(tuple(self.shape))  # only the mask broadcasts, to self
        return self._update(lambda: self.masked_scatter(mask, source))

    def put_(self, index, source, accumulate=False):
        overlap.check_inputs(self._value, (source,), overlap.ANY)
        return self._update(lambda: self.put(index, source, accumulate))

    def index_put_(self, indices, values, accumulate=False):
        overlap.check_inputs(self._value, (values,), overlap.ANY)
        return self._update(lambda: self.index_put(indices, values, accumulate),
                            may_overlap=True)


_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
