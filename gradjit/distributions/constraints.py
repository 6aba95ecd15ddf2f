"""The constraints of torch.distributions: what a parameter or a sample may be (`check` gives
a boolean tensor), one class per kind so constraint_registry can dispatch on the type, printed
as PyTorch prints them in its validation errors."""
from __future__ import annotations

import gradjit


class Constraint:
    """Subclasses define check(value) -> boolean tensor of value's batch shape."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """A placeholder for a support that depends on other parameters."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete, self._event_dim = is_discrete, event_dim

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        return _Dependent(is_discrete=self._is_discrete if is_discrete is NotImplemented
                          else is_discrete,
                          event_dim=self._event_dim if event_dim is NotImplemented
                          else event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


class _DependentProperty(property, _Dependent):
    """A property whose class attribute reads as a dependent constraint."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete,
                                  event_dim=self._event_dim)


def is_dependent(constraint) -> bool:
    return isinstance(constraint, _Dependent)


class _IndependentConstraint(Constraint):
    """base over the rightmost reinterpreted_batch_ndims dims, all of which must hold."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if result.dim() < n:
            expected = self.base_constraint.event_dim + n
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        return result.reshape(tuple(result.shape[:result.dim() - n]) + (-1,)).all(-1)

    def __repr__(self) -> str:
        return f"IndependentConstraint({self.base_constraint!r}, " \
            f"{self.reinterpreted_batch_ndims})"


def _within(value, lower=None, upper=None, strict_lower=False, strict_upper=False):
    ok = value == value  # NaN is never inside
    if lower is not None:
        ok = ok & (value > lower if strict_lower else value >= lower)
    if upper is not None:
        ok = ok & (value < upper if strict_upper else value <= upper)
    return ok


class _Bounded(Constraint):
    """A range on the real line or the integers; subclasses fix which bounds and strictness."""

    bounds = ("lower_bound", "upper_bound")
    strict = (False, False)

    def __init__(self, *bounds):
        for name, bound in zip(self.bounds, bounds):
            setattr(self, name, bound)

    def check(self, value):
        lower = getattr(self, "lower_bound", None)
        upper = getattr(self, "upper_bound", None)
        ok = _within(value, lower, upper, *self.strict)
        return ok & (value % 1 == 0) if self.is_discrete else ok

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)}" for name in self.bounds)
        return f"{type(self).__name__[1:]}({shown})"


class MixtureSameFamilyConstraint(Constraint):
    """base holds for the value against every component (the dim before the event)."""

    def __init__(self, base_constraint):
        self.base_constraint = base_constraint

    is_discrete = property(lambda self: self.base_constraint.is_discrete)
    event_dim = property(lambda self: self.base_constraint.event_dim)

    def check(self, value):
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        keep = value.dim() - self.event_dim
        return result.reshape(tuple(result.shape[:keep]) + (-1,)).all(-1)

    def __repr__(self) -> str:
        return f"MixtureSameFamilyConstraint({self.base_constraint!r})"


def _bounded(name, bounds, strict=(False, False), discrete=False):
    return type(name, (_Bounded,), {"bounds": bounds, "strict": strict,
                                    "is_discrete": discrete})


_GreaterThan = _bounded("_GreaterThan", ("lower_bound",), (True, False))
_GreaterThanEq = _bounded("_GreaterThanEq", ("lower_bound",))
_LessThan = _bounded("_LessThan", ("upper_bound",), (False, True))
_Interval = _bounded("_Interval", ("lower_bound", "upper_bound"))
_HalfOpenInterval = _bounded("_HalfOpenInterval", ("lower_bound", "upper_bound"),
                             (False, True))
_IntegerInterval = _bounded("_IntegerInterval", ("lower_bound", "upper_bound"),
                            discrete=True)
_IntegerLessThan = _bounded("_IntegerLessThan", ("upper_bound",), discrete=True)
_IntegerGreaterThan = _bounded("_IntegerGreaterThan", ("lower_bound",), discrete=True)


class _Real(Constraint):
    def check(self, value):
        return value == value  # not NaN


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    """Non-negative integer vectors summing to at most upper_bound (Multinomial's support)."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return (value >= 0).all(dim=-1) & (value.sum(-1) <= self.upper_bound)


def _all_matrix(ok):
    return ok.flatten(-2).all(-1)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return _all_matrix(value.tril() == value)


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        positive = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return _all_matrix(value.tril() == value) & positive


class _CorrCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        tol = float(gradjit.finfo(value.dtype).eps) * value.shape[-1] * 10
        row_norm = gradjit.linalg.norm(value.detach(), dim=-1)
        return _LowerCholesky().check(value) & ((row_norm - 1.0).abs() <= tol).all(-1)


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        return gradjit.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1],
                            dtype=gradjit.bool)


class _Symmetric(_Square):
    def check(self, value):
        square = super().check(value)
        if not bool(square.all()):
            return square
        return _all_matrix(gradjit.isclose(value, value.mT, atol=1e-6))


class _PositiveSemidefinite(_Symmetric):
    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return (gradjit.linalg.eigvalsh(value) >= 0).all(-1)


class _PositiveDefinite(_Symmetric):
    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        # as PyTorch's: a Cholesky factorization exists (a singular PSD matrix may pass)
        return gradjit.linalg.cholesky_ex(value).info.eq(0)


class _Cat(Constraint):
    """cseq[i] on the i-th piece (of lengths[i]) of dim, as gradjit.cat joins them."""

    def __init__(self, cseq, dim=0, lengths=None):
        self.cseq = list(cseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.cseq)
        self.dim = dim

    is_discrete = property(lambda self: any(c.is_discrete for c in self.cseq))
    event_dim = property(lambda self: max(c.event_dim for c in self.cseq))

    def check(self, value):
        pieces, start = [], 0
        for constraint, length in zip(self.cseq, self.lengths):
            pieces.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return gradjit.cat(pieces, self.dim)


class _Stack(Constraint):
    """cseq[i] on the i-th slice of dim, as gradjit.stack joins them."""

    def __init__(self, cseq, dim=0):
        self.cseq, self.dim = list(cseq), dim

    is_discrete = property(lambda self: any(c.is_discrete for c in self.cseq))
    @property
    def event_dim(self):
        dim = max(c.event_dim for c in self.cseq)
        return dim + 1 if self.dim + dim < 0 else dim  # a negative dim lies inside the event

    def check(self, value):
        return gradjit.stack([c.check(value.select(self.dim, i))
                              for i, c in enumerate(self.cseq)], self.dim)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack


def all_true(valid) -> bool:
    return bool(gradjit.as_tensor(valid).all())
