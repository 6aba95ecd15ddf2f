"""LowRankMultivariateNormal: covariance W W^T + diag(D), its density and entropy through the
m x m capacitance matrix I + W^T D^-1 W (Woodbury), as PyTorch computes them."""
from __future__ import annotations

import math

import numpy as np

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.distribution import Distribution
from gradjit.distributions.multivariate import _mahalanobis


def _capacitance_tril(w, d):
    """The lower Cholesky factor of I + W^T D^-1 W."""
    k = (w.mT / d.unsqueeze(-2)) @ w
    return gradjit.linalg.cholesky(k + gradjit.eye(w.shape[-1], dtype=w.dtype))


def _lowrank_logdet(w, d, capacitance_tril):
    """log det(W W^T + D) by the matrix determinant lemma."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + d.log().sum(-1)


def _lowrank_mahalanobis(w, d, x, capacitance_tril):
    """x^T (W W^T + D)^-1 x by the Woodbury identity."""
    wt_dinv_x = ((w.mT / d.unsqueeze(-2)) @ x.unsqueeze(-1)).squeeze(-1)
    return (x.pow(2) / d).sum(-1) - _mahalanobis(capacitance_tril, wt_dinv_x)


class LowRankMultivariateNormal(Distribution):
    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = tuple(loc.shape[-1:])
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape "
                             f"{event_shape[0]} x m")
        if tuple(cov_diag.shape[-1:]) != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape "
                             f"{gradjit.Size(event_shape)}")
        try:
            shape = np.broadcast_shapes(tuple(loc.shape) + (1,), tuple(cov_factor.shape),
                                        tuple(cov_diag.shape) + (1,))
        except ValueError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from e
        self.loc = loc.unsqueeze(-1).expand(shape)[..., 0]
        self.cov_factor = cov_factor.expand(shape)
        self.cov_diag = cov_diag.unsqueeze(-1).expand(shape)[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def _full(self, matrix):
        return matrix.expand(tuple(self._batch_shape) + tuple(self._event_shape) * 2)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
                ).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @property
    def scale_tril(self):
        n = self._event_shape[0]
        d_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        w = self._unbroadcasted_cov_factor / d_sqrt
        k = w @ w.mT + gradjit.eye(n, dtype=w.dtype)
        return self._full(d_sqrt * gradjit.linalg.cholesky(k))

    @property
    def covariance_matrix(self):
        w = self._unbroadcasted_cov_factor
        return self._full(w @ w.mT + gradjit.diag_embed(self._unbroadcasted_cov_diag))

    @property
    def precision_matrix(self):
        wt_dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        a = gradjit.linalg.solve_triangular(self._capacitance_tril, wt_dinv, upper=False)
        return self._full(gradjit.diag_embed(self._unbroadcasted_cov_diag.reciprocal()) -
                          a.mT @ a)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        eps_w = gradjit.randn(*(shape[:-1] + tuple(self.cov_factor.shape[-1:])),
                              dtype=self.loc.dtype)
        eps_d = gradjit.randn(*shape, dtype=self.loc.dtype)
        return self.loc + (self._unbroadcasted_cov_factor @ eps_w.unsqueeze(-1)).squeeze(-1) \
            + self._unbroadcasted_cov_diag.sqrt() * eps_d

    def _log_det(self):
        return _lowrank_logdet(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                               self._capacitance_tril)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        m = _lowrank_mahalanobis(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                 value - self.loc, self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._log_det() + m)

    def entropy(self):
        h = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return h.expand(tuple(self._batch_shape)) if len(self._batch_shape) else h


def _trace_xxt(x):
    return x.pow(2).sum((-2, -1))


def _check_events(p, q, names):
    if p.event_shape != q.event_shape:
        # PyTorch's message keeps the indentation of its continued source line
        raise ValueError(f"KL-divergence between two {names} with{' ' * 26}different event "
                         "shapes cannot be computed")


def kl_lowrank_lowrank(p, q):
    _check_events(p, q, "Low Rank Multivariate Normals")
    qw, qd = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    pw, pd = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    term1 = q._log_det() - p._log_det()
    term3 = _lowrank_mahalanobis(qw, qd, q.loc - p.loc, q._capacitance_tril)
    a = gradjit.linalg.solve_triangular(q._capacitance_tril, qw.mT / qd.unsqueeze(-2),
                                        upper=False)
    term2 = (pd / qd).sum(-1) + _trace_xxt(pw * qd.rsqrt().unsqueeze(-1)) - \
        _trace_xxt(a * pd.sqrt().unsqueeze(-2)) - _trace_xxt(a @ pw)
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


def kl_full_lowrank(p, q):
    """p a MultivariateNormal, q a LowRankMultivariateNormal."""
    _check_events(p, q, "(Low Rank) Multivariate Normals")
    qw, qd = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    p_tril = p._unbroadcasted_scale_tril
    term1 = q._log_det() - 2 * p_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    term3 = _lowrank_mahalanobis(qw, qd, q.loc - p.loc, q._capacitance_tril)
    a = gradjit.linalg.solve_triangular(q._capacitance_tril, qw.mT / qd.unsqueeze(-2),
                                        upper=False)
    term2 = _trace_xxt(p_tril * qd.rsqrt().unsqueeze(-1)) - _trace_xxt(a @ p_tril)
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


def kl_lowrank_full(p, q):
    """p a LowRankMultivariateNormal, q a MultivariateNormal."""
    _check_events(p, q, "(Low Rank) Multivariate Normals")
    q_tril = q._unbroadcasted_scale_tril
    term1 = 2 * q_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) - p._log_det()
    term3 = _mahalanobis(q_tril, q.loc - p.loc)
    n = p.event_shape[0]
    batch = np.broadcast_shapes(tuple(q_tril.shape[:-2]),
                                tuple(p._unbroadcasted_cov_factor.shape[:-2]))
    q_tril = q_tril.expand(batch + (n, n))
    p_w = p._unbroadcasted_cov_factor.expand(batch + (n, p.cov_factor.size(-1)))
    p_d = gradjit.diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(batch + (n, n))
    term2 = _trace_xxt(gradjit.linalg.solve_triangular(q_tril, p_w, upper=False)) + \
        _trace_xxt(gradjit.linalg.solve_triangular(q_tril, p_d, upper=False))
    return 0.5 * (term1 + term2 + term3 - n)
