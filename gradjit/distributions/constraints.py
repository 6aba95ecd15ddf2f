"""The constraints of torch.distributions: what a parameter or a sample may be (`check` gives
a boolean tensor), printed as PyTorch prints them in its validation errors."""
from __future__ import annotations

import gradjit


class Constraint:
    """Subclasses define check(value) -> boolean tensor."""

    is_discrete = False
    event_dim = 0

    def __repr__(self) -> str:
        return f"{type(self).__name__.lstrip('_')}()"


class _Real(Constraint):
    def check(self, value):
        return value == value  # not NaN


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _Bounded(Constraint):
    """lower <= value <= upper; either bound may be absent, and strict."""

    def __init__(self, name, lower=None, upper=None, strict=False, integer=False):
        self.name, self.lower_bound, self.upper_bound = name, lower, upper
        self.strict, self.is_discrete = strict, integer

    def check(self, value):
        ok = value == value
        if self.is_discrete:
            ok = ok & (value % 1 == 0)
        if self.lower_bound is not None:
            ok = ok & (value > self.lower_bound if self.strict else value >= self.lower_bound)
        if self.upper_bound is not None:
            ok = ok & (value < self.upper_bound if self.strict else value <= self.upper_bound)
        return ok

    def __repr__(self) -> str:
        bounds = [f"{k}={v}" for k, v in (("lower_bound", self.lower_bound),
                                           ("upper_bound", self.upper_bound)) if v is not None]
        return f"{self.name}({', '.join(bounds)})"


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Vector(Constraint):
    """Every entry of the last dimension satisfies `base` (PyTorch's IndependentConstraint)."""

    event_dim = 1

    def __init__(self, base):
        self.base = base

    def check(self, value):
        return self.base.check(value).all(dim=-1)

    def __repr__(self) -> str:
        return f"IndependentConstraint({self.base!r}, 1)"


class _Multinomial(Constraint):
    """Non-negative integer vectors summing to at most total_count (Multinomial's support)."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return (value >= 0).all(dim=-1) & (value.sum(-1) <= self.upper_bound)



real = _Real()
boolean = _Boolean()
positive = _Bounded("GreaterThan", lower=0.0, strict=True)
nonnegative = _Bounded("GreaterThanEq", lower=0.0)
nonnegative_integer = _Bounded("IntegerGreaterThan", lower=0, integer=True)
unit_interval = _Bounded("Interval", lower=0.0, upper=1.0)
simplex = _Simplex()
real_vector = _Vector(real)


def interval(lower, upper):
    return _Bounded("Interval", lower, upper)


def less_than(upper):
    return _Bounded("LessThan", upper=upper, strict=True)


def integer_interval(lower, upper):
    return _Bounded("IntegerInterval", lower, upper, integer=True)


def multinomial(upper_bound):
    return _Multinomial(upper_bound)


def all_true(valid) -> bool:
    return bool(gradjit.as_tensor(valid).all())
