"""The Distribution base of torch.distributions: batch and event shapes, argument and sample
validation with PyTorch's messages, and sample() as rsample() without gradient."""
from __future__ import annotations

import copy
import functools
import warnings

import numpy as np

import gradjit
from gradjit.distributions import constraints


class lazy_property(functools.cached_property):
    """A value computed on first access, then stored on the instance; computed with gradient
    tracking on, so that a first access under no_grad (as sample() makes) does not store a
    value cut from the parameters."""

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with gradjit.enable_grad():
            return super().__get__(instance, owner)


class Distribution:
    has_rsample = False
    has_enumerate_support = False

    @property
    def arg_constraints(self) -> dict:
        """Each parameter's constraint; a subclass states them (as {} if none)."""
        raise NotImplementedError

    @property
    def support(self):
        """The constraint a value must satisfy; a subclass states it."""
        raise NotImplementedError
    _validate_default = True  # PyTorch validates unless Distribution.set_default_validate_args

    @staticmethod
    def set_default_validate_args(value: bool):
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_default = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = gradjit.Size(batch_shape)
        self._event_shape = gradjit.Size(event_shape)
        self._validate_args = self._validate_default if validate_args is None else validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                              "`arg_constraints = {}` or initialize the distribution with "
                              "`validate_args=False` to turn off validation.", stacklevel=2)
            for name, constraint in arg_constraints.items():
                value = self._checked_parameter(name, constraint)
                if value is None:
                    continue
                if not constraints.all_true(constraint.check(value)):
                    raise ValueError(
                        f"Expected parameter {name} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                        f"constraint {constraint!r}, but found invalid values:\n{value}")

    def _checked_parameter(self, name, constraint):
        """The value of a parameter validation checks (a derived one, as PyTorch, through its
        property), or None where it is skipped."""
        if constraints.is_dependent(constraint):
            return None
        if name in self.__dict__:
            return self.__dict__[name]
        if not isinstance(getattr(type(self), name, None), property):  # lazy: not given
            return None
        return getattr(self, name)

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def stddev(self):
        return self.variance.sqrt()

    def expand(self, batch_shape, _instance=None):
        """A copy over batch_shape: parameters (and inner distributions) expanded, no data
        copied."""
        batch_shape = gradjit.Size(batch_shape)
        new = copy.copy(self)
        old = len(self._batch_shape)
        for name, value in self.__dict__.items():
            if gradjit.is_tensor(value) and name in self.arg_constraints:
                new.__dict__[name] = value.expand(tuple(batch_shape) +
                                                  tuple(value.shape[old:]))
            elif isinstance(value, Distribution) and tuple(value.batch_shape) == \
                    tuple(self._batch_shape):
                new.__dict__[name] = value.expand(batch_shape)
        new._batch_shape = batch_shape
        return new

    def _get_checked_instance(self, cls, _instance=None):
        """An uninitialized instance of self's class for expand() to fill, or _instance."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {type(self).__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def _extended_shape(self, sample_shape=()):
        return gradjit.Size(tuple(sample_shape) + tuple(self._batch_shape) +
                            tuple(self._event_shape))

    def sample(self, sample_shape=()):
        with gradjit.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        raise NotImplementedError

    def sample_n(self, n):
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
                      FutureWarning, stacklevel=2)
        return self.sample((n,))

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{type(self)} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def _enumerated(self, values, expand):
        """The support's values (along the first dimension, each of event_shape) set over
        broadcastable batch dimensions, or expanded to the batch shape."""
        event = tuple(values.shape[1:])
        values = values.reshape((-1,) + (1,) * len(self._batch_shape) + event)
        return values.expand((-1,) + tuple(self._batch_shape) + event) if expand else values

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return gradjit.exp(self.entropy())

    def _checked(self, value):
        """value, validated against the support when validation is on."""
        if self._validate_args:
            self._validate_sample(value)
        return value

    def _validate_sample(self, value):
        if not gradjit.is_tensor(value):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event = len(self._event_shape)
        if tuple(value.shape[len(value.shape) - event:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        expected = tuple(self._batch_shape) + tuple(self._event_shape)
        for i, j in zip(reversed(tuple(value.shape)), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{value.size()} vs {gradjit.Size(expected)}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample "
                          "validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=2)
            return
        if not constraints.all_true(support.check(value)):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}")

    def __repr__(self) -> str:
        shown = [f"{k}: {v if v.numel() == 1 else v.size()}" for k in self.arg_constraints
                 if (v := self.__dict__.get(k)) is not None]
        return f"{type(self).__name__}({', '.join(shown)})"


def broadcast_all(*values):
    """Numbers become tensors (of the tensors' dtype, else the default one) and all are
    expanded to their common shape."""
    like = next((v for v in values if gradjit.is_tensor(v)), None)
    dtype = like.dtype if like is not None else gradjit.get_default_dtype()
    tensors = [v if gradjit.is_tensor(v) else gradjit.tensor(float(v), dtype=dtype)
               for v in values]
    return list(gradjit.broadcast_tensors(*tensors))


def finfo(t):
    """numpy's limits of a floating tensor's dtype (eps, min)."""
    return np.finfo(np.float64 if t.dtype == gradjit.float64 else np.float32)
