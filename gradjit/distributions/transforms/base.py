"""The Transform protocol of torch.distributions (call, inverse, log |det J|, sign, domain and
codomain, a one-value cache) and the transforms that combine others: inverse, composition,
independence over batch dims, and a reshape of the event."""
from __future__ import annotations

import functools
import operator

import gradjit
from gradjit.distributions import constraints


def _sum_rightmost(value, dim):
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1) if dim > 0 \
        else value


class Transform:
    """A map x -> y with its inverse; subclasses define _call, _inverse and
    log_abs_det_jacobian. With cache_size=1 the last (x, y) pair is remembered, so inverting
    the latest output gives back the very input tensor (and its graph)."""

    bijective = False

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y = None, None
        self._inv = None

    @property
    def _args(self):
        """The constructor's arguments other than cache_size, for with_cache."""
        return ()

    @property
    def event_dim(self):
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    @property
    def sign(self):
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return type(self)(*self._args, cache_size=cache_size)

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x):
        return self._through_cache(x, self._call, forward=True)

    def _inv_call(self, y):
        return self._through_cache(y, self._inverse, forward=False)

    def _through_cache(self, value, compute, forward):
        """compute(value), or the other end of the last (x, y) pair when value is its x
        (forward) or its y (inverse), with a cache of size 1."""
        if self._cache_size == 0:
            return compute(value)
        x_old, y_old = self._cached_x_y
        if value is (x_old if forward else y_old):
            return y_old if forward else x_old
        out = compute(value)
        self._cached_x_y = (value, out) if forward else (out, value)
        return out

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape

    def __repr__(self) -> str:
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """t.inv: t read backwards, sharing t's cache."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    domain = constraints.dependent_property(lambda self: self._inv.codomain, is_discrete=False)
    codomain = constraints.dependent_property(lambda self: self._inv.domain, is_discrete=False)
    bijective = property(lambda self: self._inv.bijective)
    sign = property(lambda self: self._inv.sign)
    inv = property(lambda self: self._inv)

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._inv!r})"


def _widened(constraint, event_dim):
    """constraint, made independent over enough dims to reach event_dim."""
    extra = event_dim - constraint.event_dim
    return constraints.independent(constraint, extra) if extra > 0 else constraint


class ComposeTransform(Transform):
    """parts applied left to right; each part does its own caching."""

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    _args = property(lambda self: (self.parts,))

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if not self.parts:
            return constraints.real
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        return _widened(self.parts[0].domain, event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if not self.parts:
            return constraints.real
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        return _widened(self.parts[-1].codomain, event_dim)

    bijective = property(lambda self: all(p.bijective for p in self.parts))
    sign = property(lambda self: functools.reduce(operator.mul, (p.sign for p in self.parts),
                                                  1))

    @property
    def inv(self):
        if self._inv is None:
            self._inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv._inv = self
        return self._inv

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return gradjit.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms, event_dim = [], self.domain.event_dim
        for part, x, y in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(_sum_rightmost(part.log_abs_det_jacobian(x, y),
                                        event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self) -> str:
        return type(self).__name__ + "(\n    " + ",\n    ".join(map(repr, self.parts)) + "\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """base_transform whose log |det J| is summed over reinterpreted_batch_ndims more dims."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    _args = property(lambda self: (self.base_transform, self.reinterpreted_batch_ndims))
    domain = constraints.dependent_property(
        lambda self: constraints.independent(self.base_transform.domain,
                                             self.reinterpreted_batch_ndims), is_discrete=False)
    codomain = constraints.dependent_property(
        lambda self: constraints.independent(self.base_transform.codomain,
                                             self.reinterpreted_batch_ndims), is_discrete=False)
    bijective = property(lambda self: self.base_transform.bijective)
    sign = property(lambda self: self.base_transform.sign)

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                              self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_transform!r}, " \
            f"{self.reinterpreted_batch_ndims})"


def _swap_event(shape, old, new):
    if len(shape) < len(old):
        raise ValueError("Too few dimensions on input")
    cut = len(shape) - len(old)
    if tuple(shape[cut:]) != tuple(old):
        raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {old}")
    return shape[:cut] + new


class ReshapeTransform(Transform):
    """The rightmost in_shape of the input read as out_shape (a unit Jacobian)."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape, self.out_shape = gradjit.Size(in_shape), gradjit.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    _args = property(lambda self: (self.in_shape, self.out_shape))
    domain = constraints.dependent_property(
        lambda self: constraints.independent(constraints.real, len(self.in_shape)))
    codomain = constraints.dependent_property(
        lambda self: constraints.independent(constraints.real, len(self.out_shape)))

    def _call(self, x):
        return x.reshape(tuple(x.shape[:x.dim() - len(self.in_shape)]) + self.out_shape)

    def _inverse(self, y):
        return y.reshape(tuple(y.shape[:y.dim() - len(self.out_shape)]) + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(tuple(x.shape[:x.dim() - len(self.in_shape)]))

    def forward_shape(self, shape):
        return _swap_event(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return _swap_event(shape, self.out_shape, self.in_shape)
