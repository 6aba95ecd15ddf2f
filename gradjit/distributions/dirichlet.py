"""Dirichlet and Beta (a two-category Dirichlet) with PyTorch's log densities, entropies and
moments; draws are normalized gamma draws, reparameterized as PyTorch's (torch._dirichlet_grad
of each coordinate, coupled through the simplex's constraint)."""
from __future__ import annotations

from numbers import Number

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.distribution import broadcast_all
from gradjit.distributions.exp_family import ExponentialFamily
from gradjit.distributions.gamma import standard_gamma


def _Dirichlet_backward(x, concentration, grad_output):
    """The vector-Jacobian product of a Dirichlet draw x in its concentration: each
    coordinate's own derivative, times the gradient less its mean under x (the coordinates
    sum to one, so moving one moves the others in proportion)."""
    total = concentration.sum(-1, True).expand_as(concentration)
    centred = grad_output - (x * grad_output).sum(-1, True)
    return gradjit._dirichlet_grad(x, concentration, total) * centred


class _Dirichlet(gradjit.autograd.Function):
    """Dirichlet(concentration) draws with PyTorch's implicit gradient."""

    @staticmethod
    def forward(ctx, concentration):
        gammas = standard_gamma(concentration).clamp(min=float(gradjit.finfo(
            gradjit.float64).tiny))
        x = (gammas / gammas.sum(-1, True)).to(concentration.dtype)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @gradjit.autograd.function.once_differentiable
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        return _Dirichlet_backward(x, concentration, grad_output)


class Dirichlet(ExponentialFamily):
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - gradjit.lgamma(x.sum(-1))

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:],
                         validate_args=validate_args)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return _Dirichlet.apply(self.concentration.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        conc = self.concentration
        return gradjit.xlogy(conc - 1.0, value).sum(-1) + gradjit.lgamma(conc.sum(-1)) - \
            gradjit.lgamma(conc).sum(-1)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        conc_m1 = (self.concentration - 1).clamp(min=0.0)
        mode = conc_m1 / conc_m1.sum(-1, True)
        # with every concentration below one the mass piles onto the largest one's corner
        corner = gradjit.nn.functional.one_hot(mode.argmax(dim=-1), conc_m1.shape[-1])
        below_one = (self.concentration < 1).all(dim=-1, keepdim=True)
        return gradjit.where(below_one, corner.to(mode.dtype), mode)

    @property
    def variance(self):
        total = self.concentration.sum(-1, True)
        return self.concentration * (total - self.concentration) / \
            (total.pow(2) * (total + 1))

    def entropy(self):
        conc = self.concentration
        k, total = conc.size(-1), conc.sum(-1)
        return gradjit.lgamma(conc).sum(-1) - gradjit.lgamma(total) - \
            (k - total) * gradjit.digamma(total) - \
            ((conc - 1.0) * gradjit.digamma(conc)).sum(-1)


class Beta(ExponentialFamily):
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    @property
    def _natural_params(self):
        return self.concentration1, self.concentration0

    def _log_normalizer(self, x, y):
        return gradjit.lgamma(x) + gradjit.lgamma(y) - gradjit.lgamma(x + y)

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, Number) and isinstance(concentration0, Number):
            both = gradjit.tensor([float(concentration1), float(concentration0)])
        else:
            both = gradjit.stack(broadcast_all(concentration1, concentration0), -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet.batch_shape, validate_args=validate_args)

    concentration1 = property(lambda self: self._dirichlet.concentration[..., 0])
    concentration0 = property(lambda self: self._dirichlet.concentration[..., 1])

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(gradjit.stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()
