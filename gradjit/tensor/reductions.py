"""Tensor reductions and scans with PyTorch's names, keywords and grad_fn names (prod, cumsum,
cumprod, cummax/cummin, logcumsumexp, diff, nansum, nanmean, var_mean, std_mean, aminmax,
count_nonzero, take_along_dim), each built on the gradjit.ops function numpy's side uses."""
from __future__ import annotations

from gradjit import ops
from gradjit.ir import structural as S
from gradjit.tensor import dtypes, graph
from gradjit.tensor.arith import ReturnType, _dims, _variance, apply, operand


def _accumulate(x, dtype):
    """PyTorch's accumulation type: `dtype` if given, else bools and integers as int64."""
    if dtype is not None:
        return ops.astype(x, dtypes.to_dtype(dtype).ir)
    return x if x.dtype.is_floating_point else ops.astype(x, "i64")


class MinMax(tuple):
    """(min, max) of aminmax, printed as PyTorch prints it."""

    min = property(lambda self: self[0])
    max = property(lambda self: self[1])

    def __repr__(self):
        return f"torch.return_types.aminmax(\nmin={self.min!r},\nmax={self.max!r})"


def _running_index(x, values, dim):
    """PyTorch's cummax/cummin indices: the last position so far holding the running value,
    a NaN taking over where it appears."""
    hit = ops.eq(x, values)
    if x.dtype.is_floating_point:
        hit = ops.logical_or(hit, ops.ne(x, x))
    ramp = S.iota(shape=tuple(x.shape), dtype="i64", axis=dim)
    return ops.scan(ops.where(hit, ramp, 0), dim, "max")


class ReductionMixin:
    """Products, scans, differences and statistics of Tensor."""

    def prod(self, dim=None, keepdim=False, *, dtype=None):
        name = "ProdBackward0" if dim is None else "ProdBackward1"
        return apply(name, lambda x: ops.prod(_accumulate(x, dtype), dim, keepdim), self)

    def cumsum(self, dim, *, dtype=None):
        return apply("CumsumBackward0", lambda x: ops.cumsum(_accumulate(x, dtype), dim), self)

    def cumprod(self, dim, *, dtype=None):
        return apply("CumprodBackward0", lambda x: ops.cumprod(_accumulate(x, dtype), dim),
                     self)

    def cummax(self, dim):
        return self._running("max", dim)

    def cummin(self, dim):
        return self._running("min", dim)

    def _running(self, kind, dim):
        """Values gathered at the indices, so the gradient goes to the element each value came
        from (PyTorch's rule: the last of equal running values)."""
        dim = ops.normalize_axes(dim, self.dim())[0] if self.dim() else 0
        with graph.op(None):
            flat = self.detach() if self.dim() else self.detach().reshape(1)
            indices = _running_index(flat, ops.scan(flat, dim, kind), dim)
            if not self.dim():
                indices = indices.reshape(())
        values = apply(f"Cum{kind}Backward0", lambda x, i: ops.take_along_axis(
            x, i, dim) if x.dim() else x, self, indices)
        result = ReturnType(values, indices)
        result.kind = f"cum{kind}"
        return result

    def logcumsumexp(self, dim):
        return apply("LogcumsumexpBackward0", ops.logcumsumexp, self, dim)

    def diff(self, n=1, dim=-1, prepend=None, append=None):
        parts = [operand(p) for p in (prepend, self, append) if p is not None]
        return apply("SubBackward0", lambda *xs: ops.diff(
            ops.concatenate(xs, dim) if len(xs) > 1 else xs[0], n, dim), *parts)

    def nansum(self, dim=None, keepdim=False, *, dtype=None):
        return apply("NansumBackward0", lambda x: ops.nansum(_accumulate(x, dtype), _dims(dim),
                                                              keepdim), self)

    def nanmean(self, dim=None, keepdim=False, *, dtype=None):
        x = self if dtype is None else self.to(dtype)
        if not x.dtype.is_floating_point:
            raise RuntimeError("nanmean(): expected input to have floating point or complex "
                               f"dtype but got {x.dtype.legacy}")
        return apply("DivBackward0", ops.nanmean, x, _dims(dim), keepdim)

    def aminmax(self, *, dim=None, keepdim=False):
        return MinMax(apply("AminmaxBackward0", lambda x: (
            ops.amin(x, dim, keepdim), ops.amax(x, dim, keepdim)), self))

    def count_nonzero(self, dim=None):
        with graph.op(None):
            return ops.count_nonzero(self.detach(), _dims(dim))

    def take_along_dim(self, indices, dim=None):
        return apply("GatherBackward0", lambda x, i: ops.take_along_axis(x, i, dim), self,
                     operand(indices))



def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return apply("VarMeanBackward0", lambda x: (
        _variance(x, dim, unbiased, keepdim, correction), ops.mean(x, _dims(dim), keepdim)),
        operand(input))


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return apply("StdMeanBackward0", lambda x: (
        ops.safe_sqrt(_variance(x, dim, unbiased, keepdim, correction)),
        ops.mean(x, _dims(dim), keepdim)), operand(input))
