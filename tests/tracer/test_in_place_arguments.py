"""A Tensor argument updated in place inside jit or grad is a clear error naming the line (its
update would be lost, a silently wrong answer); updates of copies compile and match torch."""
import numpy as np
import pytest
import torch as real

import gradjit
from gradjit.tracer.trace import TraceError


def add_in_place(x):
    y = x * 2
    x.add_(1)
    return y


def write_item(x):
    x[0] = 5.0
    return x.sum()


@pytest.mark.parametrize("fn", [add_in_place, write_item])
@pytest.mark.parametrize("transform", [gradjit.jit, gradjit.grad])
def test_updating_an_argument_in_place_raises_naming_the_line(fn, transform):
    x = gradjit.tensor([1.0, 2.0])
    with pytest.raises(TraceError, match=r"argument x is updated in place(.|\n)*"
                                         r"test_in_place_arguments.py:\d+"):
        transform(fn)(x) if transform is gradjit.jit else transform(lambda x: fn(x).sum())(x)
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])


def test_in_place_updates_of_a_copy_match_torch_values_and_gradients():
    def f(x, t):
        y = x.clone()
        y.mul_(x).add_(1)
        y[0] = 0.0
        return y
    data = np.array([0.5, -1.5, 2.0])
    x = gradjit.tensor(data, requires_grad=True)
    out = gradjit.jit(f)(x, gradjit)
    tx = real.tensor(data, requires_grad=True)
    expected = f(tx, real)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy())
    (out * out).sum().backward()
    (expected * expected).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
