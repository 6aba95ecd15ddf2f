"""Tensor.as_subclass against torch: the same storage, the same autograd graph."""
import pytest

import gradjit

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("lib", [gradjit, torch])
def test_as_subclass_shares_storage_and_stays_in_the_graph(lib):
    class Sub(lib.Tensor):
        pass

    a = lib.ones(3, requires_grad=True)
    b = a.as_subclass(Sub)
    assert type(b) is Sub and b.requires_grad and not b.is_leaf
    (b * 2).sum().backward()
    assert a.grad.tolist() == [2.0, 2.0, 2.0]
    plain = lib.zeros(2)
    view = plain.as_subclass(Sub)
    view.add_(1)
    assert plain.tolist() == [1.0, 1.0] and not view.requires_grad
