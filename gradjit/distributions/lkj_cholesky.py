"""LKJCholesky: lower Cholesky factors of correlation matrices with density proportional to
det(L L^T)^(concentration - 1), PyTorch's log density, and draws by the onion method."""
from __future__ import annotations

import math

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.dirichlet import Beta
from gradjit.distributions.distribution import Distribution, broadcast_all


class LKJCholesky(Distribution):
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # row i of the factor has squared off-diagonal length Beta(i / 2, eta + (dim - 2 - i) / 2)
        offset = gradjit.arange(dim - 1, dtype=self.concentration.dtype)
        offset = gradjit.cat([gradjit.zeros(1, dtype=offset.dtype), offset])
        marginal = self.concentration + 0.5 * (dim - 2)
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.shape, (dim, dim), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape)
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        return new

    def sample(self, sample_shape=()):
        """The onion method: each row is a uniform direction in the rows above it, scaled by
        the square root of its Beta draw, and the diagonal completes it to unit length."""
        with gradjit.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            normal = gradjit.randn(tuple(self._extended_shape(sample_shape)),
                                   dtype=y.dtype).tril(-1)
            first_row = gradjit.arange(self.dim).unsqueeze(-1) == 0  # all zero: no direction
            direction = gradjit.where(first_row, 0.0,
                                      normal / normal.norm(dim=-1, keepdim=True))
            w = y.sqrt() * direction
            tiny = float(gradjit.finfo(w.dtype).tiny)
            diagonal = (1 - (w ** 2).sum(-1)).clamp(min=tiny).sqrt()
            return w + gradjit.diag_embed(diagonal)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diagonal = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - \
            gradjit.arange(2, self.dim + 1)
        unnormalized = (order * diagonal.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalizer = 0.5 * dm1 * math.log(math.pi) + gradjit.mvlgamma(alpha - 0.5, dm1) - \
            gradjit.lgamma(alpha) * dm1
        return unnormalized - normalizer
