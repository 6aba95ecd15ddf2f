"""Tensor reductions and scans with PyTorch's names, keywords and grad_fn names (sum, mean,
var, std, norm, logsumexp, max/min with indices, amax/amin, argmax/argmin, all/any, prod,
cumsum, cumprod, cummax/cummin, logcumsumexp, diff, nansum, nanmean, var_mean, std_mean,
aminmax, count_nonzero, take_along_dim), each built on the gradjit.ops function numpy's side
uses."""
from __future__ import annotations

import inspect

import numpy as np

from gradjit import ops
from gradjit.ir import structural as S
from gradjit.tensor import contract, dtypes, fused, graph, unsigned
from gradjit.ir import elementwise as E
from gradjit.tensor.arith import apply, operand
from gradjit.tensor.refusals import float_only, refuse_integers
from gradjit.tensor.base import _check_dim
from gradjit.tensor.shape import broadcast_shape, cat
from gradjit.tensor.hot_path import unrecorded
from gradjit.tensor.return_types import return_type


def _truth(result, x):
    """all/any of a uint8 tensor are uint8, as PyTorch keeps them; of the rest, bool."""
    return ops.astype(result, dtypes.uint8.ir) if x.dtype is dtypes.uint8 else result


def _check_mean(x):
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {x.dtype.legacy}")


def _plain_axes(dim, keepdim, rank):
    """The axes of `dim` (None: all) where they are plainly valid, distinct and in range and
    keepdim is a bool; None otherwise, for the general path to word the error."""
    if type(keepdim) is not bool:
        return None
    if dim is None:
        return tuple(range(rank))
    dims = (dim,) if type(dim) is int else tuple(dim) if isinstance(dim, (list, tuple)) else ()
    span = max(rank, 1)
    if not dims or any(type(d) is not int or not -span <= d < span for d in dims):
        return None
    axes = tuple(sorted({d % span for d in dims})) if rank else ()
    return axes if len(axes) == len(dims) or not rank else None


def _flat_positions(x, indices, dim):
    """The positions in x's flattened array that take_along_dim(x, indices, dim) reads, where
    x and the int64 indices are CPU numpy arrays of one rank, alike off `dim`, the indices in
    range; None otherwise (the general path broadcasts and words the errors)."""
    value, i = x._value, getattr(indices, "_value", None)
    if type(value) is not np.ndarray or type(i) is not np.ndarray or i.dtype != np.int64 or \
            type(dim) is not int or i.ndim != value.ndim or not -i.ndim <= dim < i.ndim or \
            not i.size or x._device is not dtypes.CPU or indices._device is not dtypes.CPU:
        return None
    axis, shape = dim % i.ndim, value.shape
    n = shape[axis]
    if i.shape[:axis] + i.shape[axis + 1:] != shape[:axis] + shape[axis + 1:] or \
            i.min() < -n or i.max() >= n:
        return None
    grid = list(np.ogrid[tuple(slice(0, d) for d in i.shape)])
    grid[axis] = np.where(i < 0, i + n, i)
    return np.ravel_multi_index(grid, shape).astype(np.int64)


def _dims(dim):
    """A reduction's dims: an empty list is every dim, as PyTorch reads it (all and any alone
    reduce none, see _listed); dim=0 is axis 0."""
    dims = _listed(dim)
    return None if dims == () else dims


def _listed(dim):
    return tuple(dim) if isinstance(dim, (list, tuple)) else dim


def _logsumexp(x, dim, keepdim):
    """PyTorch's logsumexp: shifted by the largest finite real part; a row of -inf gives -inf
    and, as there, a nan gradient (exp(x - lse) is exp(nan)); an empty row gives -inf."""
    x = ops.to_float(x)
    axes = ops.normalize_axes(dim, len(ops.shape_of(x)))
    peak = 0
    if all(ops.shape_of(x)):
        peak = ops.stop_gradient(S.reduce_max(ops.real(x) if x.dtype.is_complex else x,
                                              axes=axes, keepdims=True))
        peak = ops.where(ops.isfinite(peak), peak, 0)
    out = ops.add(ops.log(ops.sum_(ops.exp(ops.sub(x, peak)), axes, keepdims=True)), peak)
    return out if keepdim else ops.squeeze(out, axes)


def _refuse_empty(name, x, dims):
    """An extremum over no elements has no identity: PyTorch's error for the whole tensor
    (RuntimeError) or for the first empty dim among `dims` (IndexError)."""
    if x.numel():
        return
    if dims is None and name == "aminmax":
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    if dims is None:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                           "== 0. Specify the reduction dim with the 'dim' argument.")
    given = (dims,) if isinstance(dims, int) else tuple(dims)
    with graph.torch_words:
        ops.normalize_axes(given, x.dim())  # torch's errors for dims out of range or repeated
        axes = [ops.normalize_axes(dim, x.dim())[0] for dim in given]
    for dim, axis in zip(given, axes):
        if x.shape[axis] == 0:  # amax and amin name the dim as given, the others normalized
            named = dim if name in ("amax", "amin") else axis
            prefix = "aminmax:" if name == "aminmax" else f"{name}():"
            raise IndexError(f"{prefix} Expected reduction dim {named} to have non-zero size.")


def _first_index(x, values, axis, keepdim):
    """The first position along `axis` where x equals its reduced `values` (max/min indices);
    a NaN is the max and the min, so the first NaN."""
    shape = tuple(x.shape)
    kept = values if keepdim else ops.expand_dims(values, axis)
    hit = ops.logical_or(ops.eq(x, ops.broadcast_to(kept, shape)), ops.ne(x, x))
    ramp = S.iota(shape=shape, dtype="i64", axis=axis)
    index = ops.where(hit, ramp, shape[axis])
    return S.reduce_min(index, axes=(axis,), keepdims=keepdim)


def _at_index(x, indices, axis, keepdim):
    kept = indices if keepdim else ops.expand_dims(indices, axis)
    picked = ops.take_along_axis(x, kept, axis)
    return picked if keepdim else ops.squeeze(picked, axis)


def _variance(x, dim, unbiased, keepdim, correction, name="std and var"):
    """PyTorch's var: `correction` (default 1; unbiased=False is 0); n - correction <= 0
    divides by 0 (inf, or nan for 0/0). Its std has a zero gradient at a zero spread."""
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    if correction is None:
        correction = 0 if unbiased is False else 1
    return ops.var(x, _dims(dim), correction, keepdim)


def _unbiased_overload(dim, unbiased):
    """torch's var(input, unbiased) overload: a bool where dim stands is `unbiased`."""
    return (None, dim) if isinstance(dim, bool) else (dim, unbiased)


def _kept_as(dtype):
    """The IR name of a dtype= given, which the ops must keep rather than widen (int8 stays)."""
    return None if dtype is None else dtypes.to_dtype(dtype).ir.name


def _accumulate(x, dtype):
    """PyTorch's accumulation type: `dtype` if given, else bools and integers as int64."""
    if dtype is not None:
        return ops.astype(x, dtypes.to_dtype(dtype).ir)
    return x if x.dtype.is_floating_point or x.dtype.is_complex else ops.astype(x, "i64")


def _running_index(x, values, dim):
    """PyTorch's cummax/cummin indices: the last position so far holding the running value,
    a NaN taking over where it appears."""
    hit = ops.eq(x, values)
    if x.dtype.is_floating_point:
        hit = ops.logical_or(hit, ops.ne(x, x))
    ramp = S.iota(shape=tuple(x.shape), dtype="i64", axis=dim)
    return ops.scan(ops.where(hit, ramp, 0), dim, "max")



def _to_the_nans(reduce, kind, x):
    """max() or min() of every element with PyTorch's gradient: shared evenly among the
    elements equal to the result, or, when it is NaN, among the NaNs (where the reduction's own
    rule, JAX's, gives NaN everywhere). The NaNs are replaced by the identity for the
    reduction's gradient, so that no 0/0 of theirs reaches the other elements."""
    if not ops.result_type(x).is_inexact:
        return reduce(x)
    value = E.stop_gradient(reduce(x))
    nans = ops.isnan(x)
    identity = -np.inf if kind == "max" else np.inf
    numbers = reduce(ops.where(nans, identity, x))
    count = ops.sum_(ops.astype(nans, ops.result_type(x)))
    shares = ops.true_divide(ops.sum_(ops.where(nans, ops.sub(x, E.stop_gradient(x)), 0.0)),
                             ops.maximum(count, 1.0))
    return ops.where(ops.isnan(value), ops.add(value, shares), numbers)

class ReductionMixin:
    """Sums, means, extrema, products, scans, differences and statistics of Tensor."""

    def sum(self, dim=None, keepdim=False, *, dtype=None):
        axes = _plain_axes(dim, keepdim, self.dim()) if dtype is None else None
        if axes is not None:
            params = {"axes": axes, "keepdims": keepdim}
            out = unrecorded(self, lambda x: S.reduce_sum.evaluate(x, **params))
            if out is None:  # a float tensor: the general path's one reduce_sum record
                out = fused.fused(S.reduce_sum, "SumBackward0" if dim is None else
                                  "SumBackward1", (self,),
                                  lambda x: (S.reduce_sum.evaluate(x, **params), params))
            if out is not None:
                return out
        return apply("SumBackward0" if dim is None else "SumBackward1",
                     lambda x: ops.sum_(x, _dims(dim), keepdim, _kept_as(dtype)), self)

    def mean(self, dim=None, keepdim=False, *, dtype=None):
        axes = _plain_axes(dim, keepdim, self.dim()) if dtype is None else None
        if axes is not None:
            count = 1
            for a in axes:
                count *= self.shape[a]
            out = unrecorded(self, lambda x: E.div.evaluate(S.reduce_sum.evaluate(
                x, axes=axes, keepdims=keepdim), x.dtype.type(count if count else "nan")))
            if out is not None:
                return out
        x = self if dtype is None else self.to(dtype)
        _check_mean(x)
        return apply("MeanBackward0" if dim is None else "MeanBackward1",
                     lambda t: ops.mean(t, _dims(dim), keepdim), x)

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        dim, unbiased = _unbiased_overload(dim, unbiased)
        return apply("VarBackward0", _variance, self, dim, unbiased, keepdim, correction)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        dim, unbiased = _unbiased_overload(dim, unbiased)
        return apply("StdBackward0", lambda *a: ops.safe_sqrt(_variance(*a)), self, dim,
                     unbiased, keepdim, correction)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        x = self if dtype is None else self.to(dtype)
        float_only("linalg.vector_norm", x)
        if p == "nuc":  # the one matrix norm of torch.norm, over all dims by default
            return contract.matrix_norm(x, p, _dims(dim) or tuple(range(x.dim())), keepdim)
        return apply("LinalgVectorNormBackward0", ops.vector_norm, x, 2 if p == "fro" else p,
                     _dims(dim), keepdim)

    def logsumexp(self, dim=inspect.Parameter.empty, keepdim=False):
        if dim is inspect.Parameter.empty:  # required, as in PyTorch 2.13, in its words
            raise TypeError('logsumexp() missing 1 required positional arguments: "dim"')
        return apply("LogsumexpBackward0", _logsumexp, self, _dims(dim), keepdim)

    def max(self, dim=None, keepdim=False):
        return self._extremum("max", ops.amax, dim, keepdim)

    def min(self, dim=None, keepdim=False):
        return self._extremum("min", ops.amin, dim, keepdim)

    def _extremum(self, kind, reduce, dim, keepdim):
        title = kind.title()
        if isinstance(dim, (list, tuple)):
            kinds = ", ".join(type(d).__name__ for d in dim)
            kinds = f"[{kinds}]" if isinstance(dim, list) else f"({kinds})"
            mismatch = ("      didn't match because some of the arguments have invalid types: "
                        f"(!{type(dim).__name__} of {kinds}!)\n")
            raise TypeError(f"{kind}() received an invalid combination of arguments - got "
                            f"({type(dim).__name__}), but expected one of:\n * ()\n{mismatch}"
                            f" * (Tensor other)\n{mismatch} * (int dim, bool keepdim = False)\n")
        if dim is not None and not isinstance(dim, int):  # max(other): elementwise
            return apply(f"{title}imumBackward0", getattr(ops, f"{kind}imum"), self,
                         operand(dim))
        _refuse_empty(kind, self, dim)
        if dim is None:
            prim = S.reduce_max if kind == "max" else S.reduce_min
            out = unrecorded(self, lambda x: prim.evaluate(x, axes=tuple(range(x.ndim)),
                                                           keepdims=False))
            return out if out is not None else apply(
                f"{title}Backward1", lambda x: _to_the_nans(reduce, kind, x), self)
        with graph.torch_words:
            axis = ops.normalize_axes(dim, self.dim())
        if not axis:  # a 0-d tensor is its own max, at index 0
            values = apply(f"{title}Backward0", reduce, self, axis, keepdim)
            from gradjit.tensor.factories import zeros
            indices = zeros((), dtype=dtypes.int64)
        else:
            with graph.op(None):
                detached = self.detach()
                indices = _first_index(detached, reduce(detached, axis, keepdim), axis[0],
                                       keepdim)
            # gathered at the index, as PyTorch's gradient goes to that one element on ties
            values = apply(f"{title}Backward0", lambda x, i: _at_index(x, i, axis[0], keepdim),
                           self, indices)
        return return_type(kind)(values, indices)

    def amax(self, dim=(), keepdim=False):
        _refuse_empty("amax", self, _dims(dim))
        return apply("AmaxBackward0", ops.amax, self, _dims(dim), keepdim)

    def amin(self, dim=(), keepdim=False):
        _refuse_empty("amin", self, _dims(dim))
        return apply("AminBackward0", ops.amin, self, _dims(dim), keepdim)

    def argmax(self, dim=None, keepdim=False):
        self._check_arg("argmax", dim)
        out = self._found(np.argmax, dim, keepdim)
        return out if out is not None else self._arg(
            self.max(dim, keepdim) if dim is not None else None, dim, keepdim, ops.amax)

    def argmin(self, dim=None, keepdim=False):
        self._check_arg("argmin", dim)
        out = self._found(np.argmin, dim, keepdim)
        return out if out is not None else self._arg(
            self.min(dim, keepdim) if dim is not None else None, dim, keepdim, ops.amin)

    def _check_arg(self, name, dim):
        unsigned.refuse(f"{name}_cpu", self.dtype)
        if self.dtype is dtypes.bool_:
            raise RuntimeError(f"{name}(): does not support bool input")
        if dim is None and not self.numel():
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        _refuse_empty(name, self, dim)

    def _found(self, find, dim, keepdim):
        """argmax/argmin of a float tensor by numpy's: the first extremum, or the first nan,
        as _first_index finds it; None where the general path must word an error (no
        elements, a dim out of range) or keep the dims of dim=None."""
        rank, shape = self.dim(), tuple(self.shape)
        if dim is None:
            return None if keepdim or not self.numel() else \
                unrecorded(self, lambda x: find(x.reshape(-1)), history=True)
        axis = _plain_axes(dim, keepdim, rank) if type(dim) is int and rank else None
        if not axis or not shape[axis[0]]:
            return None
        return unrecorded(self, lambda x: find(x, axis=axis[0], keepdims=keepdim), history=True)

    def _arg(self, result, dim, keepdim, reduce):
        if result is not None:
            return result.indices
        flat = self.detach().reshape(-1)
        with graph.op(None):
            index = _first_index(flat, reduce(flat), 0, False)
        return index.reshape((1,) * self.dim()) if keepdim else index

    def all(self, dim=None, keepdim=False):
        return apply("AllBackward0", lambda x: _truth(ops.all_(x, _listed(dim), keepdim), x),
                     self)

    def any(self, dim=None, keepdim=False):
        return apply("AnyBackward0", lambda x: _truth(ops.any_(x, _listed(dim), keepdim), x),
                     self)

    def prod(self, dim=None, keepdim=False, *, dtype=None):
        name = "ProdBackward0" if dim is None else "ProdBackward1"
        return apply(name, lambda x: ops.prod(_accumulate(x, dtype), dim, keepdim,
                                              _kept_as(dtype)), self)

    def cumsum(self, dim, *, dtype=None):
        return apply("CumsumBackward0", lambda x: ops.cumsum(_accumulate(x, dtype), dim,
                                                              _kept_as(dtype)), self)

    def cumprod(self, dim, *, dtype=None):
        return apply("CumprodBackward0", lambda x: ops.cumprod(_accumulate(x, dtype), dim,
                                                                _kept_as(dtype)), self)

    def cummax(self, dim):
        return self._running("max", dim)

    def cummin(self, dim):
        return self._running("min", dim)

    def _running(self, kind, dim):
        """Values gathered at the indices, so the gradient goes to the element each value came
        from (PyTorch's rule: the last of equal running values)."""
        with graph.torch_words:
            dim = ops.normalize_axes(dim, self.dim())[0] if self.dim() else 0
        with graph.op(None):
            flat = self.detach() if self.dim() else self.detach().reshape(1)
            indices = _running_index(flat, ops.scan(flat, dim, kind), dim)
            if not self.dim():
                indices = indices.reshape(())
        values = apply(f"Cum{kind}Backward0", lambda x, i: ops.take_along_axis(
            x, i, dim) if x.dim() else x, self, indices)
        return return_type(f"cum{kind}")(values, indices)

    def logcumsumexp(self, dim):
        refuse_integers("logcumsumexp_out_cpu", self)
        return apply("LogcumsumexpBackward0", ops.logcumsumexp, self, dim)

    def diff(self, n=1, dim=-1, prepend=None, append=None):
        if not self.dim():
            raise RuntimeError("diff expects input to be at least one-dimensional")
        axis = _check_dim(dim, self.dim())
        for extra in (prepend, append):
            if not hasattr(extra, "_edge"):
                continue
            if extra.dim() != self.dim():
                raise RuntimeError("diff expects prepend or append to be the same dimension as "
                                   "input")
            for d, (want, have) in enumerate(zip(self.shape, extra.shape)):
                if d != axis and want != have:
                    raise RuntimeError(f"diff expects the shape of tensor to prepend or append to "
                                       f"match that of input except along the differencing "
                                       f"dimension; input.size({d}) = {want}, but got "
                                       f"tensor.size({d}) = {have}")
        if n < 0:
            raise RuntimeError(f"order must be non-negative but got {n}")
        if n == 0:  # the input itself, prepend and append ignored: PyTorch copies it into zeros
            return apply("CopyBackwards", lambda x: x.clone(), self, operands=(None, self))
        parts = [operand(p) for p in (prepend, self, append) if p is not None]
        x = cat(parts, axis) if len(parts) > 1 else self
        # as PyTorch: the differences of neighbouring slices, n times (at most length times)
        length = x.shape[axis] - 1
        for _ in range(min(n, x.shape[axis])):
            later, earlier = x.narrow(axis, 1, length), x.narrow(axis, 0, length)
            x = later.logical_xor(earlier) if x.dtype is dtypes.bool_ else later - earlier
            length -= 1
        return x

    def nansum(self, dim=None, keepdim=False, *, dtype=None):
        if self.dtype.is_complex:
            raise RuntimeError("nansum on CPU does not support complex inputs")
        return apply("NansumBackward0", lambda x: ops.nansum(_accumulate(x, dtype), _dims(dim),
                                                              keepdim, _kept_as(dtype)), self)

    def nanmean(self, dim=None, keepdim=False, *, dtype=None):
        """PyTorch's composite: the nansum over the count of non-NaN entries."""
        if not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError("nanmean(): expected input to have floating point or complex "
                               f"dtype but got {self.dtype.legacy}")
        count = self.isnan().logical_not().sum(dim, keepdim)
        return self.nansum(dim, keepdim, dtype=dtype) / count

    def aminmax(self, *, dim=None, keepdim=False):
        _refuse_empty("aminmax", self, dim)
        return return_type("aminmax", ("min", "max"))(*apply("AminmaxBackward0", lambda x: (
            ops.amin(x, dim, keepdim), ops.amax(x, dim, keepdim)), self))

    def count_nonzero(self, dim=None):
        unsigned.refuse("nonzero_count_cpu", self.dtype)
        with graph.op(None):
            return ops.count_nonzero(self.detach(), _dims(dim))

    def take_along_dim(self, indices, dim=None):
        indices = operand(indices)
        if dim is None:  # both flattened, whatever their ranks: a gather
            if indices.dtype not in (dtypes.int32, dtypes.int64):
                raise RuntimeError("gather(): Expected dtype int32/int64 for index")
            return self.reshape(-1)._gather_along(indices.reshape(-1).long(), 0)
        if indices.dim() != self.dim():
            raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                               f"number of dimensions, but got {self.dim()} dimensions for "
                               f"input, and {indices.dim()} dimensions for indices")
        if indices.dtype is not dtypes.int64:
            raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                               f"{indices.dtype.legacy}")
        dim = _check_dim(dim, self.dim())
        off = broadcast_shape(*(t.shape[:dim] + (1,) + t.shape[dim + 1:] for t in (self, indices)))
        # PyTorch gathers from self expanded to that shape (an ExpandBackward0 even unchanged)
        return self.expand(off[:dim] + self.shape[dim:dim + 1] + off[dim + 1:])._gather_along(
            indices, dim)

    def _gather_along(self, indices, dim):
        flat = _flat_positions(self, indices, dim)
        if flat is not None:  # ops.take_along_axis's gather, its positions worked out by numpy
            return apply("GatherBackward0", lambda x, i: S.gather(ops.reshape(x, (-1,)), flat,
                                                                   axis=0), self, indices)
        return apply("GatherBackward0", lambda x, i: ops.take_along_axis(x, i, dim), self,
                     indices)

    def hash_tensor(self, dim=None, *, keepdim=False, mode=0):
        """The xor of the elements' 64-bit patterns (floats widened to float64, integers to
        int64) over `dim` (every dimension by default), as uint64; no gradient."""
        if mode != 0:
            raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
        if self.dtype.is_complex or self.dtype is dtypes.uint64:
            raise NotImplementedError(f'"xor_sum_cpu" not implemented for '
                                      f"'{self.dtype.legacy}'")
        if dim is None and self.numel() == 0:
            raise RuntimeError("hash_tensor: Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' "
                               "argument.")
        given = () if dim is None else tuple(dim) if isinstance(dim, (list, tuple)) else (dim,)
        dims = tuple(_check_dim(d, self.dim()) for d in given)
        if not dims or not self.dim():  # no dims (or a 0-d tensor's only one): all of them
            dims = tuple(range(self.dim()))
        for d in dims:
            if self.shape[d] == 0:
                raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero "
                                 "size.")
        wide = dtypes.float64 if self.dtype.is_floating_point else dtypes.int64
        bits = self.detach().to(wide).numpy().view(np.uint64)
        from gradjit.tensor.factories import tensor
        return tensor(np.bitwise_xor.reduce(bits, axis=dims, keepdims=keepdim))


def hash_tensor(input, dim=None, *, keepdim=False, mode=0):
    return input.hash_tensor(dim, keepdim=keepdim, mode=mode)



def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dim, unbiased = _unbiased_overload(dim, unbiased)
    return apply("VarMeanBackward0", lambda x: (
        _variance(x, dim, unbiased, keepdim, correction, "var_mean"),
        ops.mean(x, _dims(dim), keepdim)),
        operand(input))


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dim, unbiased = _unbiased_overload(dim, unbiased)
    return apply("StdMeanBackward0", lambda x: (
        ops.safe_sqrt(_variance(x, dim, unbiased, keepdim, correction, "std_mean")),
        ops.mean(x, _dims(dim), keepdim)), operand(input))
