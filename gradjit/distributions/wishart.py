"""Wishart: positive definite matrices, given by df and a covariance, precision or scale_tril,
with PyTorch's log density, entropy and moments, and reparameterized draws by the Bartlett
decomposition (chi-square diagonal, normal lower triangle)."""
from __future__ import annotations

import math
import warnings
from numbers import Number

import numpy as np

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.distribution import lazy_property
from gradjit.distributions.exp_family import ExponentialFamily
from gradjit.distributions.gamma import Chi2
from gradjit.distributions.multivariate import _precision_to_scale_tril

_MATRICES = ("covariance_matrix", "precision_matrix", "scale_tril")


def _mvdigamma(x, p):
    """The derivative of mvlgamma(x, p)."""
    if not bool(x.gt((p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    return gradjit.digamma(x.unsqueeze(-1) - gradjit.arange(p, dtype=x.dtype) / 2).sum(-1)


class Wishart(ExponentialFamily):
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = {k: m for k, m in zip(_MATRICES, (covariance_matrix, precision_matrix,
                                                  scale_tril)) if m is not None}
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        (name, param), = given.items()
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, Number):
            batch = tuple(param.shape[:-2])
            self.df = gradjit.tensor(df, dtype=param.dtype)
        else:
            batch = np.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape))
            self.df = df.expand(batch)
        p = param.shape[-1]
        if bool(self.df.le(p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        self.__dict__[name] = param.expand(batch + (p, p))
        if bool(self.df.lt(p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur "
                          "for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch, param.shape[-2:], validate_args=validate_args)
        self._unbroadcasted_scale_tril = param if name == "scale_tril" else \
            gradjit.linalg.cholesky(param) if name == "covariance_matrix" else \
            _precision_to_scale_tril(param)
        self._chi2 = self._bartlett_chi2()

    def _bartlett_chi2(self):
        """The squared diagonal of the Bartlett factor: Chi2(df - i) in row i."""
        p = self._event_shape[-1]
        steps = gradjit.arange(p, dtype=self._unbroadcasted_scale_tril.dtype)
        return Chi2(self.df.unsqueeze(-1) - steps.expand(tuple(self._batch_shape) + (p,)))

    def expand(self, batch_shape, _instance=None):
        batch_shape = tuple(batch_shape)
        new = super().expand(batch_shape)
        shape = batch_shape + tuple(self._event_shape)
        new.df = self.df.expand(batch_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(shape)
        for name in _MATRICES:
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name].expand(shape)
        new._chi2 = new._bartlett_chi2()
        return new

    def _full(self, matrix):
        return matrix.expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def scale_tril(self):
        return self._full(self._unbroadcasted_scale_tril)

    @lazy_property
    def covariance_matrix(self):
        lower = self._unbroadcasted_scale_tril
        return self._full(lower @ lower.mT)

    @lazy_property
    def precision_matrix(self):
        eye = gradjit.eye(self._event_shape[-1], dtype=self._unbroadcasted_scale_tril.dtype)
        return self._full(gradjit.cholesky_solve(eye, self._unbroadcasted_scale_tril))

    def _per_matrix(self, values):
        return values.reshape(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self):
        return self._per_matrix(self.df) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = gradjit.where(factor <= 0, float("nan"), factor)
        return self._per_matrix(factor) * self.covariance_matrix

    @property
    def variance(self):
        cov = self.covariance_matrix
        diagonal = cov.diagonal(dim1=-2, dim2=-1)
        return self._per_matrix(self.df) * (cov.pow(2) + diagonal.unsqueeze(-1) *
                                            diagonal.unsqueeze(-2))

    def _bartlett_sample(self, sample_shape):
        p = self._event_shape[-1]
        eps = float(gradjit.finfo(self._unbroadcasted_scale_tril.dtype).eps)
        factor = gradjit.diag_embed(self._chi2.rsample(sample_shape).sqrt().clamp(min=eps))
        rows, cols = gradjit.tril_indices(p, p, offset=-1)
        below = gradjit.zeros(tuple(factor.shape), dtype=factor.dtype)
        below[..., rows, cols] = gradjit.randn(
            tuple(sample_shape) + tuple(self._batch_shape) + (p * (p - 1) // 2,),
            dtype=factor.dtype)
        lower = self._unbroadcasted_scale_tril @ (factor + below)
        return lower @ lower.mT

    def rsample(self, sample_shape=(), max_try_correction=None):
        """Draws; one that is not numerically positive definite (likely when df < ndim) is
        drawn again, up to max_try_correction times (10 by default), with a warning. PyTorch
        2.13 tests the first draws' definiteness the wrong way round, so it warns and redraws
        on every call; here only singular draws are redrawn."""
        tries = 10 if max_try_correction is None else max_try_correction
        sample = self._bartlett_sample(sample_shape)
        singular = ~self.support.check(sample)
        if bool(singular.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(tries):
                sample = gradjit.where(singular[..., None, None],
                                       self._bartlett_sample(sample_shape), sample)
                singular = ~self.support.check(sample)
                if not bool(singular.any()):
                    break
        return sample

    def _log_det_scale(self, p):
        return p * math.log(2) / 2 + \
            self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        trace = gradjit.cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(
            dim1=-2, dim2=-1).sum(dim=-1)
        return -nu * self._log_det_scale(p) - gradjit.mvlgamma(nu / 2, p=p) + \
            (nu - p - 1) / 2 * gradjit.linalg.slogdet(value).logabsdet - trace / 2

    def entropy(self):
        nu, p = self.df, self._event_shape[-1]
        return (p + 1) * self._log_det_scale(p) + gradjit.mvlgamma(nu / 2, p=p) - \
            (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p) + nu * p / 2

    @property
    def _natural_params(self):
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (-gradjit.linalg.slogdet(-2 * x).logabsdet +
                                    math.log(2) * p) + gradjit.mvlgamma(y + (p + 1) / 2, p=p)
