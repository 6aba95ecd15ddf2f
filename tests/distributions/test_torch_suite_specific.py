"""PyTorch's distributions suite's per-distribution checks, with torch and gradjit side by
side: edge values, gradients at the edges of the support, subclassing, and errors."""
import pytest
import torch

import gradjit
from tests.torch_reference import same_error


def _custom_init_subclass(lib):
    D = lib.distributions

    class Wrapped(D.Independent):
        def __init__(self, base):
            super().__init__(base, 1)
    return Wrapped(D.Normal(lib.zeros(2), 1.0))


def test_expand_of_a_subclass_with_its_own_init_asks_for_its_own_expand():
    same_error(lambda: _custom_init_subclass(gradjit).expand((3,)),
               lambda: _custom_init_subclass(torch).expand((3,)))


@pytest.mark.parametrize("name", ["Independent", "MixtureSameFamily"])
def test_expand_keeps_a_subclass_and_the_validation_switch(name):
    def make(lib):
        D = lib.distributions
        sub = type("Sub", (getattr(D, name),), {})
        if name == "Independent":
            return sub(D.Normal(lib.zeros(2), 1.0), 1, validate_args=False)
        return sub(D.Categorical(lib.ones(3)), D.Normal(lib.zeros(3), 1.0),
                   validate_args=False)
    t, g = make(torch).expand((4,)), make(gradjit).expand((4,))
    assert type(g).__name__ == type(t).__name__ == "Sub"
    assert g._validate_args == t._validate_args is False
    assert tuple(g.batch_shape) == tuple(t.batch_shape)
