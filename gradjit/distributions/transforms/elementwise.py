"""Transforms acting on each entry alone: exp, sigmoid, softplus, tanh and abs from one table,
and the parameterized power, affine and cumulative-distribution maps."""
from __future__ import annotations

import math
from numbers import Number

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.distribution import broadcast_all
from gradjit.distributions.transforms.base import Transform
from gradjit.nn.functional import softplus


def _clipped_sigmoid(x):
    info = gradjit.finfo(x.dtype)
    return gradjit.sigmoid(x).clamp(min=info.tiny, max=1.0 - info.eps)


def _logit(y):
    info = gradjit.finfo(y.dtype)
    y = y.clamp(min=info.tiny, max=1.0 - info.eps)
    return y.log() - (-y).log1p()


class _Elementwise(Transform):
    """A parameterless map; any two instances of the class are equal."""

    def __eq__(self, other):
        return isinstance(other, type(self))

    __hash__ = Transform.__hash__

    def _call(self, x):
        return self._forward(x)

    def _inverse(self, y):
        return self._backward(y)

    def log_abs_det_jacobian(self, x, y):
        return self._log_det(x, y)


def _elementwise(name, codomain, forward, backward, log_det=None, bijective=True):
    rules = {"domain": constraints.real, "codomain": codomain, "bijective": bijective,
             "_forward": staticmethod(forward), "_backward": staticmethod(backward)}
    if bijective:
        rules.update(sign=+1, _log_det=staticmethod(log_det))
    else:  # backward is only a pseudo-inverse: no log |det J| and no sign
        rules["log_abs_det_jacobian"] = Transform.log_abs_det_jacobian
    return type(name, (_Elementwise,), rules)


ExpTransform = _elementwise("ExpTransform", constraints.positive, lambda x: x.exp(),
                            lambda y: y.log(), lambda x, y: x)
SigmoidTransform = _elementwise("SigmoidTransform", constraints.unit_interval,
                                _clipped_sigmoid, _logit,
                                lambda x, y: -softplus(-x) - softplus(x))
SoftplusTransform = _elementwise("SoftplusTransform", constraints.positive, softplus,
                                 lambda y: (-y).expm1().neg().log() + y,
                                 lambda x, y: -softplus(-x))
TanhTransform = _elementwise("TanhTransform", constraints.interval(-1.0, 1.0),
                             lambda x: x.tanh(), gradjit.atanh,
                             lambda x, y: 2.0 * (math.log(2.0) - x - softplus(-2.0 * x)))
AbsTransform = _elementwise("AbsTransform", constraints.positive, lambda x: x.abs(),
                            lambda y: y, bijective=False)


class PowerTransform(Transform):
    """y = x ** exponent on the positive reals."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    _args = property(lambda self: (self.exponent,))
    sign = property(lambda self: self.exponent.sign())

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and \
            bool(self.exponent.eq(other.exponent).all().item())

    __hash__ = Transform.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return gradjit.broadcast_shapes(shape, tuple(self.exponent.shape))

    inverse_shape = forward_shape


def _same(a, b):
    if isinstance(a, Number) and isinstance(b, Number):
        return a == b
    return bool((a == b).all().item())


class AffineTransform(Transform):
    """y = loc + scale * x, over events of event_dim dims."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim

    _args = property(lambda self: (self.loc, self.scale, self._event_dim))
    event_dim = property(lambda self: self._event_dim)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.independent(constraints.real, self.event_dim) if self.event_dim \
            else constraints.real

    codomain = domain

    def __eq__(self, other):
        return isinstance(other, AffineTransform) and _same(self.loc, other.loc) and \
            _same(self.scale, other.scale)

    __hash__ = Transform.__hash__

    @property
    def sign(self):
        if isinstance(self.scale, Number):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = tuple(x.shape)
        if isinstance(self.scale, Number):
            result = gradjit.full_like(x, math.log(abs(self.scale)))
        else:
            result = self.scale.abs().log()
        if self.event_dim:
            result = result.reshape(tuple(result.shape[:-self.event_dim]) + (-1,)).sum(-1)
            shape = shape[:-self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return gradjit.broadcast_shapes(shape, tuple(getattr(self.loc, "shape", ())),
                                        tuple(getattr(self.scale, "shape", ())))

    inverse_shape = forward_shape


class CumulativeDistributionTransform(Transform):
    """y = distribution.cdf(x), onto the unit interval."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    _args = property(lambda self: (self.distribution,))
    domain = property(lambda self: self.distribution.support)

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)
