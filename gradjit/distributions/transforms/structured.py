"""Transforms that mix the entries of an event (softmax and stick breaking onto the simplex,
lower-Cholesky, positive-definite and correlation-Cholesky matrices) and those applying other
transforms to the pieces of a tensor (cat, stack)."""
from __future__ import annotations

import math

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.transforms.base import Transform, _sum_rightmost
from gradjit.distributions.transforms.elementwise import _clipped_sigmoid
from gradjit.nn.functional import logsigmoid, pad, softplus


class _Structured(Transform):
    """A parameterless transform; any two instances of the class are equal."""

    def __eq__(self, other):
        return isinstance(other, type(self))

    __hash__ = Transform.__hash__


def _needs_dims(shape, n):
    if len(shape) < n:
        raise ValueError("Too few dimensions on input")


class SoftmaxTransform(_Structured):
    """exp then normalize: onto the simplex, but not bijective."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        _needs_dims(shape, 1)
        return shape

    inverse_shape = forward_shape


def _stick_offset(x, length):
    return length - x.new_ones(x.shape[-1]).cumsum(-1)


class StickBreakingTransform(_Structured):
    """Iterated sigmoids breaking a unit stick: K reals onto the K + 1 simplex, bijectively."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def _call(self, x):
        z = _clipped_sigmoid(x - _stick_offset(x, x.shape[-1] + 1).log())
        return pad(z, [0, 1], value=1) * pad((1 - z).cumprod(-1), [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = _stick_offset(y_crop, y.shape[-1])
        rest = (1 - y_crop.cumsum(-1)).clamp(min=gradjit.finfo(y.dtype).tiny)
        return y_crop.log() - rest.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        x = x - _stick_offset(x, x.shape[-1] + 1).log()
        return (-x + logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        _needs_dims(shape, 1)
        return shape[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        _needs_dims(shape, 1)
        return shape[:-1] + (shape[-1] - 1,)


class LowerCholeskyTransform(_Structured):
    """The strict lower triangle kept, the diagonal exponentiated."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(_Structured):
    """L L^T of the lower-Cholesky image."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x):
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(gradjit.linalg.cholesky(y))


def _tril_to_vec(matrix, diag):
    n = matrix.shape[-1]
    rows, cols = gradjit.tril_indices(n, n, offset=diag)
    return matrix[..., rows, cols]


def _vec_to_tril(vec, diag):
    n = round((math.sqrt(1 + 8 * vec.shape[-1]) - 1) / 2 - diag)
    rows, cols = gradjit.tril_indices(n, n, offset=diag)
    index = rows * n + cols  # scatter by a one-hot product, which autograd follows
    hot = (index.unsqueeze(-1) == gradjit.arange(n * n)).to(vec.dtype)
    return (vec.unsqueeze(-2) @ hot).squeeze(-2).reshape(tuple(vec.shape[:-1]) + (n, n))


class CorrCholeskyTransform(Transform):
    """D (D - 1) / 2 reals onto the Cholesky factor of a D x D correlation matrix: tanh, then a
    signed stick breaking of each row. Instances are equal only to themselves, as PyTorch's."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        eps = gradjit.finfo(x.dtype).eps
        r = _vec_to_tril(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)
        z1m_cumprod_sqrt = (1 - r ** 2).sqrt().cumprod(-1)
        r = r + gradjit.eye(r.shape[-1], dtype=r.dtype)
        return r * pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        y_cumsum = 1 - gradjit.cumsum(y * y, dim=-1)
        shifted = pad(y_cumsum[..., :-1], [1, 0], value=1)
        t = _tril_to_vec(y, diag=-1) / _tril_to_vec(shifted, diag=-1).sqrt()
        return (t.log1p() - t.neg().log1p()) / 2

    def log_abs_det_jacobian(self, x, y):
        y1m_cumsum = _tril_to_vec(1 - (y * y).cumsum(dim=-1), diag=-2)
        tanh_logdet = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return 0.5 * y1m_cumsum.log().sum(-1) + tanh_logdet

    def forward_shape(self, shape):
        _needs_dims(shape, 1)
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (d, d)

    def inverse_shape(self, shape):
        _needs_dims(shape, 2)
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        return shape[:-2] + (shape[-1] * (shape[-1] - 1) // 2,)


class CatTransform(Transform):
    """tseq[i] applied to the i-th piece (of lengths[i]) of dim, as gradjit.cat joins them."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.transforms)
        self.dim = dim

    _args = property(lambda self: (self.transforms, self.dim, self.lengths))
    event_dim = property(lambda self: max(t.event_dim for t in self.transforms))
    length = property(lambda self: sum(self.lengths))
    bijective = property(lambda self: all(t.bijective for t in self.transforms))
    domain = constraints.dependent_property(lambda self: constraints.cat(
        [t.domain for t in self.transforms], self.dim, self.lengths))
    codomain = constraints.dependent_property(lambda self: constraints.cat(
        [t.codomain for t in self.transforms], self.dim, self.lengths))

    def _pieces(self, *tensors):
        start = 0
        for transform, length in zip(self.transforms, self.lengths):
            yield (transform,) + tuple(t.narrow(self.dim, start, length) for t in tensors)
            start += length

    def _call(self, x):
        return gradjit.cat([t(piece) for t, piece in self._pieces(x)], dim=self.dim)

    def _inverse(self, y):
        return gradjit.cat([t.inv(piece) for t, piece in self._pieces(y)], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        terms = [_sum_rightmost(t.log_abs_det_jacobian(xp, yp), self.event_dim - t.event_dim)
                 for t, xp, yp in self._pieces(x, y)]
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + self.event_dim
        return gradjit.cat(terms, dim=dim) if dim < 0 else sum(terms)


class StackTransform(Transform):
    """tseq[i] applied to the i-th slice of dim, as gradjit.stack joins them."""

    def __init__(self, tseq, dim=0, cache_size=0):
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms, self.dim = list(tseq), dim

    _args = property(lambda self: (self.transforms, self.dim))
    bijective = property(lambda self: all(t.bijective for t in self.transforms))
    domain = constraints.dependent_property(lambda self: constraints.stack(
        [t.domain for t in self.transforms], self.dim))
    codomain = constraints.dependent_property(lambda self: constraints.stack(
        [t.codomain for t in self.transforms], self.dim))

    def _slices(self, z):
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x):
        return gradjit.stack([t(s) for t, s in zip(self.transforms, self._slices(x))],
                             dim=self.dim)

    def _inverse(self, y):
        return gradjit.stack([t.inv(s) for t, s in zip(self.transforms, self._slices(y))],
                             dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        return gradjit.stack([t.log_abs_det_jacobian(xs, ys) for t, xs, ys in zip(
            self.transforms, self._slices(x), self._slices(y))], dim=self.dim)
