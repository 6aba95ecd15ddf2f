"""biject_to and transform_to: the transform from the unconstrained reals onto a constraint's
set, looked up by the constraint's class (bijective ones for biject_to)."""
from __future__ import annotations

from numbers import Number

from gradjit.distributions import constraints
from gradjit.distributions import transforms as T


class ConstraintRegistry:
    """Constraint class -> factory(constraint) giving a Transform."""

    def __init__(self):
        self._registry = {}

    def register(self, constraint, factory=None):
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint,
                                                               constraints.Constraint):
            raise TypeError("Expected constraint to be either a Constraint subclass or "
                            f"instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(
                f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _independent(registry):
    return lambda c: T.IndependentTransform(registry(c.base_constraint),
                                            c.reinterpreted_batch_ndims)


def _interval(c):
    if isinstance(c.lower_bound, Number) and c.lower_bound == 0 and \
            isinstance(c.upper_bound, Number) and c.upper_bound == 1:
        return T.SigmoidTransform()
    return T.ComposeTransform([T.SigmoidTransform(),
                               T.AffineTransform(c.lower_bound, c.upper_bound - c.lower_bound)])


# (constraint, factory, registered in biject_to, in transform_to). One class may carry more
# than one row (positive and greater_than are both _GreaterThan): the last row wins, as in
# PyTorch.
_RULES = [
    (constraints.real, lambda c: T.identity_transform, True, True),
    (constraints.positive, lambda c: T.ExpTransform(), True, True),
    (constraints.nonnegative, lambda c: T.ExpTransform(), True, True),
    (constraints.greater_than, lambda c: T.ComposeTransform(
        [T.ExpTransform(), T.AffineTransform(c.lower_bound, 1)]), True, True),
    (constraints.greater_than_eq, lambda c: T.ComposeTransform(
        [T.ExpTransform(), T.AffineTransform(c.lower_bound, 1)]), True, True),
    (constraints.less_than, lambda c: T.ComposeTransform(
        [T.ExpTransform(), T.AffineTransform(c.upper_bound, -1)]), True, True),
    (constraints.interval, _interval, True, True),
    (constraints.half_open_interval, _interval, True, True),
    (constraints.simplex, lambda c: T.StickBreakingTransform(), True, False),
    (constraints.simplex, lambda c: T.SoftmaxTransform(), False, True),
    (constraints.lower_cholesky, lambda c: T.LowerCholeskyTransform(), False, True),
    (constraints.positive_definite, lambda c: T.PositiveDefiniteTransform(), False, True),
    (constraints.positive_semidefinite, lambda c: T.PositiveDefiniteTransform(), False, True),
    (constraints.corr_cholesky, lambda c: T.CorrCholeskyTransform(), True, True),
]
for _constraint, _factory, _bijective, _any in _RULES:
    if _bijective:
        biject_to.register(_constraint, _factory)
    if _any:
        transform_to.register(_constraint, _factory)
for _registry in (biject_to, transform_to):
    _registry.register(constraints.independent, _independent(_registry))
    _registry.register(constraints.cat, lambda c, r=_registry: T.CatTransform(
        [r(p) for p in c.cseq], c.dim, c.lengths))
    _registry.register(constraints.stack, lambda c, r=_registry: T.StackTransform(
        [r(p) for p in c.cseq], c.dim))
