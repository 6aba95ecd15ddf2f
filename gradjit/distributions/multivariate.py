"""MultivariateNormal (by covariance, precision or lower Cholesky factor) and Independent,
with PyTorch's parameterizations, draws and formulas."""
from __future__ import annotations

import math

import numpy as np

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.distribution import Distribution, lazy_property


def _solve_lower(lower, rhs):
    return gradjit.linalg.solve_triangular(lower, rhs, upper=False)


def _mahalanobis(lower, diff):
    """|L^-1 diff|^2 over the event dim, L and diff broadcast together."""
    shape = np.broadcast_shapes(tuple(lower.shape[:-2]), tuple(diff.shape[:-1]))
    n = lower.shape[-1]
    lower = lower.expand(*shape, n, n)
    diff = diff.expand(*shape, n)
    return _solve_lower(lower, diff.unsqueeze(-1)).squeeze(-1).pow(2).sum(-1)


def _precision_to_scale_tril(precision):
    """The lower Cholesky factor of precision's inverse, as PyTorch derives it."""
    flipped = gradjit.linalg.cholesky(precision.flip(-2, -1))
    inverse = flipped.flip(-2, -1).mT
    eye = gradjit.eye(precision.shape[-1], dtype=precision.dtype)
    return _solve_lower(inverse, eye.expand(*inverse.shape))


class MultivariateNormal(Distribution):
    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        matrix = given[0]
        if matrix.dim() < 2:
            name = "scale_tril matrix" if scale_tril is not None else \
                "covariance_matrix" if covariance_matrix is not None else "precision_matrix"
            raise ValueError(f"{name} must be at least two-dimensional, with optional leading "
                             "batch dimensions")
        batch = np.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        n = loc.shape[-1]
        self.loc = loc.expand(*batch, n)
        # the matrix given is kept (and validated) as given; the others derive from its factor
        name = "scale_tril" if scale_tril is not None else \
            "covariance_matrix" if covariance_matrix is not None else "precision_matrix"
        self.__dict__[name] = matrix.expand(*batch, n, n)
        super().__init__(batch, (n,), validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = gradjit.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(*self._batch_shape, *self._event_shape,
                                                     *self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        lower = self._unbroadcasted_scale_tril
        return (lower @ lower.mT).expand(*self._batch_shape, *self._event_shape,
                                         *self._event_shape)

    @lazy_property
    def precision_matrix(self):
        return gradjit.cholesky_inverse(self._unbroadcasted_scale_tril).expand(
            *self._batch_shape, *self._event_shape, *self._event_shape)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(*self._batch_shape,
                                                                    *self._event_shape)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = gradjit.randn(*shape, dtype=self.loc.dtype)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        m = _mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + m) - \
            self._half_log_det()

    def entropy(self):
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return h.expand(*self._batch_shape) if self._batch_shape else h


class Independent(Distribution):
    """base's rightmost `reinterpreted_batch_ndims` batch dims read as event dims: log_prob
    and entropy sum over them."""

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        batch = tuple(base_distribution.batch_shape)
        if reinterpreted_batch_ndims > len(batch):
            raise ValueError(f"Expected reinterpreted_batch_ndims <= len(base_distribution."
                             f"batch_shape), actual {reinterpreted_batch_ndims} vs "
                             f"{len(batch)}")
        cut = len(batch) - reinterpreted_batch_ndims
        self.base_dist, self.reinterpreted_batch_ndims = base_distribution, \
            reinterpreted_batch_ndims
        super().__init__(batch[:cut], batch[cut:] + tuple(base_distribution.event_shape),
                         validate_args=False)

    arg_constraints: dict = {}
    has_rsample = property(lambda self: self.base_dist.has_rsample)
    has_enumerate_support = property(lambda self: self.reinterpreted_batch_ndims == 0 and
                                     self.base_dist.has_enumerate_support)
    support = constraints.dependent_property(
        lambda self: constraints.independent(self.base_dist.support,
                                             self.reinterpreted_batch_ndims)
        if self.reinterpreted_batch_ndims else self.base_dist.support)
    mean = property(lambda self: self.base_dist.mean)
    mode = property(lambda self: self.base_dist.mode)
    variance = property(lambda self: self.base_dist.variance)

    def expand(self, batch_shape, _instance=None):
        batch_shape = tuple(batch_shape)
        base_batch = batch_shape + tuple(self._event_shape[:self.reinterpreted_batch_ndims])
        new = self._get_checked_instance(Independent, _instance)
        Independent.__init__(new, self.base_dist.expand(base_batch),
                             self.reinterpreted_batch_ndims, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _summed(self, value):
        n = self.reinterpreted_batch_ndims
        return value.sum(tuple(range(-n, 0))) if n else value

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def log_prob(self, value):
        return self._summed(self.base_dist.log_prob(value))

    def entropy(self):
        return self._summed(self.base_dist.entropy())

    def enumerate_support(self, expand=True):
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand)

    def __repr__(self) -> str:
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"
