"""VonMises: the circular normal distribution, with PyTorch's log density and circular moments
(log Bessel functions by the same polynomial approximations, so values agree) and its draws by
Best and Fisher's rejection scheme from the same uniforms."""
from __future__ import annotations

import math

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.distribution import Distribution, broadcast_all

# Abramowitz and Stegun 9.8.1-9.8.4: I_n(x) for x < 3.75 as a series in (x / 3.75)^2 (times x
# for n = 1), above it e^x / sqrt(x) times a series in 3.75 / x.
_BESSEL_SERIES = {
    0: ((1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2),
        (0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1,
         0.2635537e-1, -0.1647633e-1, 0.392377e-2)),
    1: ((0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3),
        (0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1, 0.2282967e-1,
         -0.2895312e-1, 0.1787654e-1, -0.420059e-2)),
}


def _horner(y, coefficients):
    result = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        result = c + y * result
    return result


def _log_bessel(x, order):
    """log I_order(x) for x > 0, order 0 or 1."""
    small_series, large_series = _BESSEL_SERIES[order]
    small = _horner((x / 3.75) ** 2, small_series)
    if order == 1:
        small = x.abs() * small
    large = x - 0.5 * x.log() + _horner(3.75 / x, large_series).log()
    return gradjit.where(x < 3.75, small.log(), large)


class VonMises(Distribution):
    """Angles in radians; loc and values are read modulo 2 pi."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.concentration * gradjit.cos(value - self.loc) - math.log(2 * math.pi) - \
            _log_bessel(self.concentration, 0)

    @property
    def mean(self):
        """The circular mean."""
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        """The circular variance, 1 - I1(kappa) / I0(kappa)."""
        kappa = self.concentration
        return 1 - (_log_bessel(kappa, 1) - _log_bessel(kappa, 0)).exp()

    def _proposal_r(self, kappa):
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        return gradjit.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))

    def sample(self, sample_shape=()):
        """Best and Fisher (1979), in double precision: in single precision the acceptance
        test stalls for concentrations near 1e-4."""
        shape = tuple(self._extended_shape(sample_shape))
        with gradjit.no_grad():
            loc, kappa = self.loc.double(), self.concentration.double()
            r = self._proposal_r(kappa)
            x = gradjit.zeros(shape, dtype=gradjit.float64)
            done = gradjit.zeros(shape, dtype=gradjit.bool)
            while not bool(done.all()):
                u1, u2, u3 = gradjit.rand((3,) + shape, dtype=gradjit.float64).unbind()
                z = gradjit.cos(math.pi * u1)
                f = (1 + r * z) / (r + z)
                c = kappa * (r - f)
                accept = (c * (2 - c) - u2 > 0) | ((c / u2).log() + 1 - c >= 0)
                x = gradjit.where(accept, (u3 - 0.5).sign() * f.acos(), x)
                done = done | accept
            return ((x + math.pi + loc) % (2 * math.pi) - math.pi).to(self.loc.dtype)
