"""Gamma: log density, entropy and moments in PyTorch's formulas (lgamma, digamma, xlogy), and
draws by Marsaglia and Tsang's squeeze-free rejection method from gradjit's normal and uniform
generators, reparameterized as PyTorch's (torch._standard_gamma_grad)."""
from __future__ import annotations

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.distribution import broadcast_all, finfo
from gradjit.distributions.exp_family import ExponentialFamily


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


class _StandardGamma(gradjit.autograd.Function):
    """Gamma(concentration, 1) draws whose gradient is the implicit one, as PyTorch's."""

    @staticmethod
    def forward(ctx, concentration):
        x = standard_gamma(concentration).to(concentration.dtype)
        x = x.clamp(min=float(gradjit.finfo(x.dtype).tiny))  # PyTorch's draws are positive
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        return grad_output * gradjit._standard_gamma_grad(concentration, x)


class Gamma(ExponentialFamily):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        return self.concentration - 1, -self.rate

    def _log_normalizer(self, x, y):
        return gradjit.lgamma(x + 1) + (x + 1) * gradjit.log(-y.reciprocal())

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

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        draw = _StandardGamma.apply(self.concentration.expand(shape)) / self.rate.expand(shape)
        tiny = float(finfo(self.rate).tiny)  # PyTorch's draws are positive
        return draw + (draw.detach().clamp(min=tiny) - draw.detach())

    def log_prob(self, value):
        value = gradjit.as_tensor(value, dtype=self.rate.dtype)  # a number too, as PyTorch's
        if self._validate_args:
            self._validate_sample(value)
        conc, rate = self.concentration, self.rate
        return (gradjit.xlogy(conc, rate) + gradjit.xlogy(conc - 1, value) - rate * value -
                gradjit.lgamma(conc))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return gradjit.special.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        conc = self.concentration
        return (conc - self.rate.log() + gradjit.lgamma(conc) +
                (1.0 - conc) * gradjit.digamma(conc))


class Chi2(Gamma):
    """Gamma(df / 2, 1 / 2)."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    # Derived, as PyTorch's: validation and its messages see concentration * 2.
    df = property(lambda self: self.concentration * 2)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape)
        new.concentration, new.rate = (t.expand(tuple(batch_shape))
                                       for t in (self.concentration, self.rate))
        return new
