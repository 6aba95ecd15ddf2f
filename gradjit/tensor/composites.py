"""Tensor methods PyTorch composes from smaller operations (bmm and the add*mm family,
matrix_exp, the conjugate transposes, dist, cov, corrcoef, renorm, histc, bincount, diagflat,
frexp, nextafter, mvlgamma, polygamma, i0), each one named tensor operation over the
gradjit.ops functions."""
from __future__ import annotations

import collections
import math
import warnings

import numpy as np

from gradjit import ops
from gradjit.ir import elementwise as E
from gradjit.ir.primitive import ShapeError
from gradjit.ops import special
from gradjit.ops.promote import in_float32
from gradjit.tensor import dtypes, fused
from gradjit.tensor.arith import apply, operand
from gradjit.tensor.base import _check_dim
from gradjit.tensor.refusals import bool_type, complex_type, float_only, no_kernel
from gradjit.tensor.contract import _check_dtypes, _check_matrices


def _dim_is(name, t, rank, what):
    if t.dim() != rank:
        raise RuntimeError(f"{name} must be a {what} tensor")


def _check_batches(a, b):
    _dim_is("batch1", a, 3, "3D")
    _dim_is("batch2", b, 3, "3D")
    _check_dtypes(a, b)
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")


# PyTorch's warning for a transpose of a 0-d tensor: its wording and its source line
_ZERO_DIM = {"tensor.mT": ("Tensor.mT", "This function is the identity in these cases.", 4373),
             "tensor.mH": ("Tensor.mH", "Consider using x.conj().", 4382),
             "tensor.adjoint()": ("adjoint()", "Consider using x.conj().", 4390),
             "tensor.H": ("Tensor.H", "Consider using x.conj().", 4335)}


def _zero_dim_transpose(t, name):
    what, advice, line = _ZERO_DIM[name]
    warnings.warn(f"{what} is deprecated on 0-D tensors. {advice} (Triggered internally at "
                  f"/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:{line}.)",
                  UserWarning, stacklevel=3)
    return t


def _matrix_transpose(t, name):
    if t.dim() == 0:
        return _zero_dim_transpose(t, name)
    if t.dim() < 2:
        raise RuntimeError(f"{name} is only supported on matrices or batches of matrices. Got "
                           f"{t.dim()}-D tensor.")
    return t.transpose(-2, -1)


def _conjugate(t):
    return t.conj() if t.is_complex() else t


def _scaled_sum(product, input, beta, alpha):
    """beta * input + alpha * product; beta == 0 ignores input's values (nan and inf too)
    while keeping it in the graph with a zero gradient, as PyTorch does."""
    kind = ops.result_type(product)
    if not kind.is_float:  # integer products truncate their scales, boolean ones test them
        cast = bool if kind.name == "bool" else int
        beta, alpha = cast(beta), cast(alpha)
    if alpha != 1:
        product = ops.mul(product, alpha)
    shape = ops.shape_of(product)
    if beta == 0:
        return ops.add(product, ops.where(np.zeros(shape, bool), input, beta))
    return ops.add(product, input if beta == 1 else ops.mul(input, beta))


def _same_addmv_dtypes(input, mat, vec):
    if not input.dtype is mat.dtype is vec.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                           f"{input.dtype.legacy}, {mat.dtype.legacy}, and {vec.dtype.legacy}")


def _check_added(input, shape):
    try:
        ops.broadcast_shapes(tuple(input.shape), shape)
    except ShapeError:
        raise RuntimeError(f"The size of tensor a ({tuple(input.shape)}) must match the size "
                           f"of tensor b ({shape})") from None


def _step_towards(x, y):
    """nextafter(x, y) as x plus the (exact) step to it, so that x's gradient is 1 where
    x != y, as PyTorch's; an infinite or NaN x gets the value alone (no gradient, where
    PyTorch's is 1: x plus inf - inf would be NaN)."""
    after = ops.nextafter(x, y)
    moved = ops.logical_and(ops.isfinite(x), ops.ne(x, y))
    return ops.where(moved, ops.add(x, E.stop_gradient(ops.sub(after, x))), after)


def _matrix_exp(a):
    """Scaling and squaring: a Taylor polynomial of degree 18 at a / 2^s with ||a / 2^s||_1
    <= 1/2, then s squarings, each matrix of a batch its own s. The most squarings any matrix
    needs is a concrete number (a traced input answers it with a guard, so a trace serves
    the inputs whose norms need as many squarings). float32 runs in float64: its squarings
    would compound float32's rounding well past what PyTorch's float32 result keeps."""
    if ops.result_type(a).name == "f32":
        return ops.astype(_matrix_exp(ops.astype(a, "f64")), "f32")
    if ops.shape_of(a)[-1] == 0:  # nothing to scale by: a norm over no entries has no value
        return a
    norm = ops.matrix_norm(a, 1, (-2, -1), True)
    s = ops.maximum(ops.ceil(ops.log2(ops.maximum(norm, 1e-300))) + 1.0, 0.0)
    s = E.stop_gradient(ops.where(ops.isfinite(s), s, 0.0))
    x = ops.true_divide(a, ops.exp2(s))
    eye = np.eye(ops.shape_of(a)[-1], dtype=ops.result_type(a).numpy)
    out = ops.add(eye, ops.true_divide(x, 18.0))
    for k in range(17, 0, -1):  # Horner: I + x/1 (I + x/2 (I + ... x/18))
        out = ops.add(eye, ops.true_divide(ops.matmul(x, out), float(k)))
    for i in range(ops.count(ops.amax(s)) if math.prod(ops.shape_of(s)) else 0):
        out = ops.where(ops.gt(s, float(i)), ops.matmul(out, out), out)
    return out


def _covariance(x, correction, fweights, aweights):
    """numpy's cov with PyTorch's names (rows are variables, columns observations), written
    in Tensor operations as PyTorch composes it, so its graph has PyTorch's nodes."""
    x = x.view(1, -1) if x.dim() < 2 else x
    w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    w_sum = x.shape[1] if w is None else w.sum()
    mean = (x if w is None else x * w).sum(1) / w_sum
    if correction == 0:  # PyTorch divides by the weights' sum itself
        factor = w_sum
    elif w is None or aweights is None:
        factor = w_sum - correction
    else:  # correction times a tensor: PyTorch's Scalar overload (MulBackward1)
        scaled = apply("MulBackward1", lambda v: ops.mul(v, correction), (w * aweights).sum())
        factor = w_sum - scaled / w_sum
    if bool(factor <= 0):  # PyTorch warns, then divides by 0
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=3)
        factor = factor * 0
    centred = x - mean.unsqueeze(1)
    return (centred.mm((centred if w is None else centred * w).t().conj()) / factor).squeeze()


def _check_weights(name, weights, n, integral):
    if weights is None:
        return None
    weights = operand(weights)
    if weights.dim() > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {weights.dim()} dimensions")
    if weights.numel() != n:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {weights.numel()} != {n}")
    if integral and weights.dtype.is_floating_point:
        raise RuntimeError("cov(): expected fweights to have integral dtype but got fweights "
                           f"with {weights.dtype.legacy} dtype")
    if not integral and not weights.dtype.is_floating_point:
        raise RuntimeError("cov(): expected aweights to have floating point dtype but got "
                           f"aweights with {weights.dtype.legacy} dtype")
    # traced weights answer with a guard, so a call that breaks it traces again and raises
    if bool((weights < 0).any()):
        raise RuntimeError(f"cov(): {name} cannot be negative")
    return weights


def _histogram_range(x, low, high):
    """[low, high], or the data's range where they are equal (a finite one: a concrete check,
    which a traced input answers with a guard)."""
    if low == high and x.numel():
        low, high = ops.amin(x), ops.amax(x)
    if not bool(ops.logical_and(ops.isfinite(low), ops.isfinite(high))):
        raise RuntimeError(f"torch.histc: range of [{float(low):g}, {float(high):g}] is not "
                           "finite")
    return low, high


def _histogram(x, bins, low, high):
    """Counts of x in `bins` equal bins over [low, high] (high in the last), values outside
    not counted; low == high widens the range by 1 either way."""
    same = ops.eq(low, high)
    low, high = ops.where(same, ops.sub(low, 1), low), ops.where(same, ops.add(high, 1), high)
    index = ops.floor(ops.true_divide(ops.mul(ops.sub(x, low), bins), ops.sub(high, low)))
    index = ops.where(ops.eq(x, high), bins - 1, index)
    inside = ops.logical_and(ops.ge(x, low), ops.le(x, high))
    index = ops.where(inside, index, -1.0)
    edges = np.arange(bins, dtype=ops.result_type(x).numpy)
    hits = ops.eq(ops.reshape(index, (-1, 1)), edges)
    return ops.sum_(ops.astype(hits, ops.result_type(x)), 0)


def _polygamma_shift(x):
    """Recurrence steps that bring x's smallest value up to where the asymptotic series is
    accurate: 20, plus the power of 2 past -min(x) for negative x (at most 2^12, beyond which
    a float has too few digits left of its integer part to matter). A concrete number, so a
    traced input answers it with a guard on this count."""
    if not math.prod(ops.shape_of(x)):
        return special.POLYGAMMA_FROM
    low = ops.amin(x)
    low = ops.where(ops.isfinite(low), low, 0.0)
    k = ops.minimum(ops.ceil(ops.log2(ops.maximum(ops.sub(1.0, low), 1.0))), 12.0)
    return special.POLYGAMMA_FROM + 2 ** ops.count(k) - 1


def _mvlgamma(x, p):
    x = ops.to_float(x)
    terms = [special.gammaln(ops.sub(x, j / 2)) for j in range(p)]
    total = terms[0]
    for term in terms[1:]:
        total = ops.add(total, term)
    return ops.add(total, p * (p - 1) / 4 * math.log(math.pi))


Frexp = collections.namedtuple("frexp", ["mantissa", "exponent"])
Frexp.__repr__ = lambda self: (f"torch.return_types.frexp(\nmantissa={self.mantissa!r},\n"
                               f"exponent={self.exponent!r})")


_Histogram = collections.namedtuple("histogram", "hist bin_edges")
_Histogram.__repr__ = lambda self: (f"torch.return_types.histogram(\nhist={self.hist!r},\n"
                                    f"bin_edges={self.bin_edges!r})")


_HistogramDD = collections.namedtuple("histogramdd", "hist bin_edges")
_HistogramDD.__repr__ = lambda self: (f"torch.return_types.histogramdd(\nhist={self.hist!r},\n"
                                      f"bin_edges={self.bin_edges!r})")


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """(hist, bin_edges) of the points in input's rows (its last dim the coordinates): counts
    (or weights, or a density) in bins equal over `range` (the data's by default) or between
    given edges, as numpy.histogramdd computes them."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"histogramdd" not implemented for \'{input.dtype.legacy}\'')
    dims = input.shape[-1]
    if isinstance(bins, (list, tuple)) and bins and hasattr(bins[0], "_edge"):
        bins = [edges._concrete().astype(np.float64) for edges in bins]
    hist, edges = np.histogramdd(
        input._concrete().reshape(-1, dims).astype(np.float64), bins,
        None if range is None else list(zip(range[0::2], range[1::2])), density=density,
        weights=None if weight is None else weight._concrete().reshape(-1))
    dt = input.dtype.ir.numpy
    return _HistogramDD(input.new_tensor(hist.astype(dt)),
                        tuple(input.new_tensor(e.astype(dt)) for e in edges))


def _bmm(a, b):
    """PyTorch's CPU bmm adds a small product's (contraction * rows * cols < 400) terms one
    at a time, rounding after each to the dtype (float for half types, rounded at the end),
    as here; larger ones go to BLAS."""
    rows, inner, cols = a.shape[1], a.shape[2], b.shape[2]
    if inner * rows * cols >= 400 or inner == 0 or not a.is_floating_point():
        return ops.matmul(a, b)
    dtype = a.dtype
    if dtype.itemsize < 4:
        a, b = a.float(), b.float()
    products = a.unsqueeze(-1) * b.unsqueeze(1)
    out = products[:, :, 0]
    for k in range(1, inner):
        out = out + products[:, :, k]
    return out.to(dtype)


class CompositesMixin:
    """The Tensor methods of these composite operations."""

    # ---- batched and accumulated matrix products ----

    def bmm(self, mat2):
        _check_batches(self, mat2)
        return apply("BmmBackward0", no_kernel("bmm", _bmm, bool_type), self, mat2)

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        if getattr(mat1, "_sparse_layout", False):
            from gradjit.sparse.linear import addmm  # the sparse layout sits above Tensor
            return addmm(self, mat1, mat2, beta, alpha)
        _check_matrices(mat1, mat2, dtypes=False)
        # PyTorch compares the added term first, and names the factors mat1 and mat2 here
        for name, first in (("self", self), ("mat1", mat1)):
            if first.dtype is not mat2.dtype:
                raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                                   f"{first.dtype.legacy} and {mat2.dtype.legacy}")
        _check_added(self, (mat1.shape[0], mat2.shape[1]))
        if beta == 1 and alpha == 1 and tuple(self.shape) in (
                (mat2.shape[1],), (mat1.shape[0], mat2.shape[1])):
            out = fused.addmm(self, mat1, mat2)
            if out is not None:
                return out
        def added(c, a, b):
            return ops.in_float32(lambda *f32: _scaled_sum(ops.matmul(f32[1], f32[2]), f32[0],
                                                           beta, alpha), c, a, b)
        return apply("AddmmBackward0", no_kernel("addmm_impl_cpu_", added, bool_type), self,
                     mat1, mat2)

    def addmv(self, mat, vec, *, beta=1, alpha=1):
        if mat.dim() != 2 or vec.dim() != 1:
            raise RuntimeError(f"vector + matrix @ vector expected, got {self.dim()}, "
                               f"{mat.dim()}, {vec.dim()}")
        if mat.shape[1] != vec.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({mat.shape[0]}), mat "
                               f"({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})")
        _check_added(self, (mat.shape[0],))
        _same_addmv_dtypes(self, mat, vec)
        return apply("AddmvBackward0", no_kernel("addmv_impl_cpu", lambda c, a, v: _scaled_sum(
            ops.matmul(a, v), c, beta, alpha), bool_type), self, mat, vec)

    def addr(self, vec1, vec2, *, beta=1, alpha=1):
        if vec1.dim() != 1 or vec2.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.dim()}-D")
        _check_added(self, (vec1.shape[0], vec2.shape[0]))
        if not self.dtype.is_floating_point:  # unlike the other products, addr refuses them
            for name, scale in (("beta", beta), ("alpha", alpha)):
                if isinstance(scale, float):
                    raise RuntimeError(f"For integral input tensors, argument {name} must not "
                                       "be a floating point number.")
        return apply("AddrBackward0", lambda c, u, v: _scaled_sum(ops.outer(u, v), c, beta,
                                                                   alpha), self, vec1, vec2)

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        _check_batches(batch1, batch2)
        _check_added(self, (batch1.shape[1], batch2.shape[2]))
        return apply("AddbmmBackward0", no_kernel("addmm_impl_cpu_", lambda c, a, b: _scaled_sum(
            ops.einsum("bij,bjk->ik", a, b), c, beta, alpha), bool_type), self, batch1, batch2)

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        _check_batches(batch1, batch2)
        _check_added(self, (batch1.shape[0], batch1.shape[1], batch2.shape[2]))
        return apply("BaddbmmBackward0", no_kernel("baddbmm", lambda c, a, b: _scaled_sum(
            ops.matmul(a, b), c, beta, alpha), bool_type), self, batch1, batch2)

    def matrix_exp(self):
        if self.dim() < 2:
            raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 "
                               "dimensions.")
        if self.shape[-1] != self.shape[-2]:
            raise RuntimeError("linalg.matrix_exp: A must be batches of square matrices, but "
                               f"they are {self.shape[-2]} by {self.shape[-1]} matrices")
        float_only("linalg.matrix_exp", self)
        return apply("LinalgMatrixExpBackward0", _matrix_exp, self)

    # ---- matrix transposes (conjugate ones are the plain transposes of real tensors) ----

    @property
    def mT(self):
        return _matrix_transpose(self, "tensor.mT")

    @property
    def mH(self):
        return _conjugate(_matrix_transpose(self, "tensor.mH"))

    def adjoint(self):
        return _conjugate(_matrix_transpose(self, "tensor.adjoint()"))

    @property
    def H(self):
        if self.dim() == 0:
            return _conjugate(_zero_dim_transpose(self, "tensor.H"))
        if self.dim() != 2:
            raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got "
                               f"{self.dim()}-D tensor." + (" For batches of matrices, consider "
                                                            "using tensor.mH" if self.dim() > 2
                                                            else ""))
        return _conjugate(self.transpose(0, 1))

    # ---- distances and statistics ----

    def dist(self, other, p=2):
        other = operand(other)
        if not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                               f"Got {self.dtype.legacy} instead.")
        return apply("DistBackward0", lambda a, b: ops.vector_norm(ops.sub(a, b), p),
                     self, other)

    def cov(self, *, correction=1, fweights=None, aweights=None):
        if self.dim() > 2:
            raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got "
                               f"an input with {self.dim()} dimensions")
        n = self.shape[-1] if self.dim() else 1
        fweights = _check_weights("fweights", fweights, n, True)
        aweights = _check_weights("aweights", aweights, n, False)
        return _covariance(self, correction, fweights, aweights)

    def corrcoef(self):
        c = self.cov()
        if c.dim() == 0:
            return c / c
        std = c.diagonal().sqrt()
        c = c / std.view(-1, 1) / std.view(1, -1)
        if c.is_complex():  # each part clamped, as PyTorch does
            return c.real.clamp(-1, 1) + 1j * c.imag.clamp(-1, 1)
        return c.clamp(-1, 1)

    def renorm(self, p, dim, maxnorm):
        if p < 0:
            raise RuntimeError("renorm: non-positive-norm not supported")
        if maxnorm < 0:
            raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
        if self.dim() <= 1:
            raise RuntimeError("renorm: input needs at least 2 dimensions, got "
                               f"{self.dim()} dimensions")
        axis = _check_dim(dim, self.dim())
        float_only("linalg.vector_norm", self)
        others = tuple(i for i in range(self.dim()) if i != axis)

        def renorm(x):
            norm = ops.vector_norm(x, p, others, True)
            factor = ops.where(ops.gt(norm, maxnorm), ops.true_divide(
                maxnorm, ops.add(norm, 1e-7)), 1.0)
            return ops.mul(x, ops.astype(factor, ops.result_type(x)))
        return apply("RenormBackward0", renorm, self)

    def histogram(self, bins, *, range=None, weight=None, density=False):
        """(hist, bin_edges): counts (or weights, or a density) in bins equal over `range`
        (the data's by default) or between given edges, as numpy.histogram computes them."""
        if not self.dtype.is_floating_point:
            raise NotImplementedError(f'"histogramdd" not implemented for '
                                      f"'{self.dtype.legacy}'")
        if weight is not None and weight.dtype != self.dtype:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor "
                               f"and weight tensor should have the same dtype, but got input("
                               f"{dtypes.CPP_NAMES[self.dtype.legacy]}), and weight("
                               f"{dtypes.CPP_NAMES[weight.dtype.legacy]})")
        if weight is not None and tuple(weight.shape) != tuple(self.shape):
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have "
                               f"the same shape as the input tensor excluding its innermost "
                               f"dimension, but got input with shape {[self.numel(), 1]} and "
                               f"weight with shape {list(weight.shape)}")
        if hasattr(bins, "_edge"):
            if bins.dtype != self.dtype:
                raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have "
                                   "the same dtype")
            bins = bins._concrete()
        dt = self.dtype.ir.numpy
        hist, edges = np.histogram(self._concrete().astype(np.float64), bins, range,
                                   weights=None if weight is None else weight._concrete(),
                                   density=density)
        return _Histogram(self.new_tensor(hist.astype(dt)), self.new_tensor(edges.astype(dt)))

    def histc(self, bins=100, min=0, max=0):
        if not self.dtype.is_floating_point:
            raise NotImplementedError(f"\"histogram_cpu\" not implemented for "
                                      f"'{self.dtype.legacy}'")
        if bins <= 0:
            raise RuntimeError("torch.histogram(): bins must be > 0, but got "
                               f"{bins} for dimension 0")
        if min > max:
            raise RuntimeError("torch.histc: max must be larger than min")
        low, high = _histogram_range(self.detach(), min, max)
        return apply("HistcBackward0", lambda x, lo, hi: _histogram(x, bins, lo, hi),
                     self.detach(), low, high)

    def bincount(self, weights=None, minlength=0):
        """Counts by comparison with every bin. The length is the largest value's, a concrete
        number (a traced input answers it with a guard); PyTorch has no gradient here."""
        if self.dtype.is_floating_point:
            raise NotImplementedError(f'"bincount_cpu" not implemented for '
                                      f"'{self.dtype.legacy}'")
        if self.dim() != 1 or self.dtype is dtypes.bool_ or \
                (self.numel() and bool(ops.any_(ops.lt(self.detach(), 0)))):
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
        if minlength < 0:
            raise RuntimeError("minlength should be >= 0")
        length = max(int(ops.amax(self.detach())) + 1 if self.numel() else 0, minlength)
        if weights is not None:
            weights = operand(weights).detach()
            if weights.shape != self.shape:
                raise RuntimeError("weights should be 1-d and have the same length as input")

        def count(x, w):
            hits = ops.eq(ops.expand_dims(x, 1), np.arange(length))
            if w is None:
                return ops.sum_(ops.astype(hits, "i64"), 0)
            dtype = ops.result_type(w) if ops.result_type(w).is_float else "f64"
            return ops.sum_(ops.where(hits, ops.expand_dims(ops.astype(w, dtype), 1), 0), 0)
        return apply("BincountBackward0", count, self.detach(), weights)

    def diagflat(self, offset=0):
        return apply("DiagEmbedBackward0", lambda x: ops.diag(x, offset), self.reshape(-1))

    # ---- small math ----

    def frexp(self):
        if not self.dtype.is_floating_point:
            raise RuntimeError("torch.frexp() only supports floating-point dtypes")
        return Frexp(*apply("FrexpBackward0", ops.frexp, self))

    def mvlgamma(self, p):
        if p < 1:
            raise RuntimeError("p has to be greater than or equal to 1")
        return apply("MvlgammaBackward0", lambda x: _mvlgamma(x, p), self)

    multigammaln = mvlgamma

    def polygamma(self, n):
        if n < 0:
            raise RuntimeError("polygamma(n, x) does not support negative n.")
        if n == 0:
            return apply("PolygammaBackward0", special.digamma, self)
        shift = _polygamma_shift(self.detach())
        return apply("PolygammaBackward0", lambda x: special.polygamma(n, x, shift), self)

    def i0(self):
        # integers become the default float, as PyTorch's (numpy's i0 makes them float64)
        x = self if self.dtype.is_floating_point or self.dtype.is_complex else self.to(
            dtypes.get_default_dtype())
        return apply("I0Backward0", no_kernel(
            "i0_vml_cpu", lambda v: in_float32(special.i0, v), complex_type), x)

    def nextafter(self, other):
        """Differentiable as PyTorch has it: 1 for self where it moves, 0 for other."""
        if not hasattr(other, "_edge"):
            raise TypeError("nextafter(): argument 'other' (position 2) must be Tensor, not "
                            f"{type(other).__name__}")
        dtype = ops.result_type(self, other)
        if not dtype.is_float:
            raise NotImplementedError(f'"nextafter_cpu" not implemented for '
                                      f"'{dtypes.of_ir(dtype).legacy}'")
        return apply("NextafterBackward0", lambda x, y: _step_towards(
            ops.astype(x, dtype), ops.astype(y, dtype)), self, other)
