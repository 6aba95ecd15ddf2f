"""Gamma: log density, entropy and moments in PyTorch's formulas (lgamma, digamma, xlogy), and
draws by Marsaglia and Tsang's squeeze-free rejection method from gradjit's normal and uniform
generators. Those draws are not reparameterized (has_rsample is False), unlike PyTorch's, whose
rsample differentiates the gamma cdf implicitly."""
from __future__ import annotations

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.distribution import Distribution, broadcast_all, finfo


def standard_gamma(concentration):
    """Gamma(concentration, 1) draws of the shape of `concentration`, computed in float64."""
    alpha = concentration.detach().double()
    boost = alpha < 1  # Gamma(a) = Gamma(a + 1) * U^(1/a) for a < 1
    d = gradjit.where(boost, alpha + 1, alpha) - 1.0 / 3
    c = (9 * d).rsqrt()
    shape = tuple(alpha.shape)
    result = gradjit.zeros(shape, dtype=gradjit.float64)
    pending = gradjit.ones(shape, dtype=gradjit.bool)
    while bool(pending.any()):
        x = gradjit.randn(*shape, dtype=gradjit.float64)
        v = (1 + c * x) ** 3
        u = gradjit.rand(*shape, dtype=gradjit.float64)
        safe_v = gradjit.where(v > 0, v, 1.0)
        accept = (v > 0) & (u.log() < 0.5 * x * x + d - d * safe_v + d * safe_v.log())
        take = pending & accept
        result = gradjit.where(take, d * safe_v, result)
        pending = pending & ~accept
    u = gradjit.rand(*shape, dtype=gradjit.float64)
    return gradjit.where(boost, result * u.pow(1 / alpha), result)


class Gamma(Distribution):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with gradjit.no_grad():
            draw = standard_gamma(self.concentration.expand(shape)) / self.rate.double()
            tiny = float(finfo(self.rate).tiny)
            return draw.to(self.rate.dtype).clamp(min=tiny)  # PyTorch's draws are positive

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        conc, rate = self.concentration, self.rate
        return (gradjit.xlogy(conc, rate) + gradjit.xlogy(conc - 1, value) - rate * value -
                gradjit.lgamma(conc))

    def entropy(self):
        conc = self.concentration
        return (conc - self.rate.log() + gradjit.lgamma(conc) +
                (1.0 - conc) * gradjit.digamma(conc))


class Chi2(Gamma):
    """Gamma(df / 2, 1 / 2)."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        (self.df,) = broadcast_all(df)
        super().__init__(0.5 * self.df, 0.5, validate_args=validate_args)

    def __repr__(self) -> str:
        return "Chi2()"  # PyTorch's df is derived from the concentration, so it shows none
