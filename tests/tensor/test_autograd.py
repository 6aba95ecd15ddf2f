"""Autograd semantics as PyTorch defines them: leaves, grad_fn objects, accumulation, retain
and create graph, grad modes, detach, version counters, views modified in place, and the
errors PyTorch raises."""
import warnings

import numpy as np
import pytest

import gradjit as torch


def test_leaves_and_grad_fn_objects():
    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    assert x.is_leaf and x.grad_fn is None and not y.is_leaf
    assert y.grad_fn.name() == "AddBackward0" and type(y.grad_fn).__name__ == "AddBackward0"
    assert repr(y.grad_fn).startswith("<AddBackward0 object at 0x")
    (acc, _), (none, _) = y.grad_fn.next_functions
    assert acc.variable is x and none is None
    z = (y * y).mean()
    assert z.grad_fn.next_functions[0][0].name() == "MulBackward0"
    with torch.no_grad():
        w = x * 2
    assert w.is_leaf and not w.requires_grad


def test_accumulation_and_zeroing_keep_the_grad_tensor():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    grad = x.grad
    (x * 3).sum().backward()
    assert x.grad is grad and x.grad.tolist() == [5.0, 7.0]
    x.grad.zero_()
    assert x.grad.tolist() == [0.0, 0.0] and not x.grad.requires_grad


def test_vector_jacobian_product_and_shape_check():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x ** 2
    y.backward(torch.tensor([1.0, 0.1, 0.01]))
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 0.4, 0.06], rtol=1e-6)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(torch.ones(2))
    with pytest.raises(RuntimeError, match="implicitly created only for scalar outputs"):
        (x * 2).backward()


def test_retain_graph_and_second_backward():
    x = torch.ones(3, requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 4.0, 4.0]
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    s = (x + 2).sum()  # saves nothing: PyTorch allows a second pass
    s.backward()
    s.backward()


def test_grad_modes():
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        assert not (x * 2).requires_grad
        with torch.enable_grad():
            assert (x * 2).requires_grad
    torch.set_grad_enabled(False)
    assert not torch.is_grad_enabled()
    torch.set_grad_enabled(True)
    with torch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert torch.is_grad_enabled()

    @torch.no_grad()
    def doubled(t):
        return t * 2
    assert not doubled(x).requires_grad and torch.is_grad_enabled()


def test_detach_data_and_requires_grad_flags():
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and np.shares_memory(d.numpy(), y.detach().numpy())
    d.add_(1)  # shares the version counter: y's saved value is now stale
    assert y._version == 1
    y.detach_()
    assert y.is_leaf and not y.requires_grad
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf"):
        (x * 2).requires_grad = False
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        torch.arange(3).requires_grad = True
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        torch.zeros(2, dtype=torch.long, requires_grad=True)
    assert x.data.requires_grad is False and x.data._version == 0


def test_retain_grad_for_non_leaves():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    z = x * 4
    (y * z).sum().backward()
    assert y.retains_grad and y.grad.tolist() == [4.0, 8.0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert z.grad is None
    assert "not a leaf Tensor" in str(caught[0].message)


def test_autograd_grad():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    y = (x * w).sum()
    gx, gw = torch.autograd.grad(y, (x, w), retain_graph=True)
    assert gx.tolist() == [3.0, 4.0] and gw.tolist() == [1.0, 2.0] and x.grad is None
    unused = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="appears to not have been used"):
        torch.autograd.grad(y, [x, unused], retain_graph=True)
    assert torch.autograd.grad(y, [x, unused], allow_unused=True, retain_graph=True)[1] is None
    with pytest.raises(RuntimeError, match="does not require grad"):
        torch.autograd.grad(y, [torch.ones(2)])
    middle = x * 2
    (g,) = torch.autograd.grad((middle ** 2).sum(), middle)  # w.r.t. a non-leaf
    assert g.tolist() == [4.0, 8.0]


def test_backward_inputs_limits_accumulation():
    x = torch.ones(2, requires_grad=True)
    w = torch.ones(2, requires_grad=True)
    (x * w * 3).sum().backward(inputs=[w])
    assert x.grad is None and w.grad.tolist() == [3.0, 3.0]


def test_control_flow_gradient():
    def f(a):
        b = a * 2
        while b.norm() < 1000:
            b = b * 2
        return b if b.sum() > 0 else 100 * b
    for start in (0.3, -0.7):
        a = torch.tensor(start, requires_grad=True)
        c = f(a)
        c.backward()
        assert a.grad.item() == pytest.approx((c / a).item())


def test_inplace_on_leaves_is_refused_unless_no_grad():
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
        x[0] = 2.0
    with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
        x[1:].mul_(2)
    with torch.no_grad():
        x.sub_(0.5)
        x[0] = 3.0
    assert x.tolist() == [3.0, 0.5, 0.5] and x.requires_grad and x._version == 2


def test_version_counter_errors_exactly_when_a_stale_value_is_needed():
    x = torch.ones(3, requires_grad=True)
    y = x.exp()
    y.add_(1)  # exp's backward needs its output
    with pytest.raises(RuntimeError, match="modified by an inplace operation.*version 1; "
                                           "expected version 0"):
        y.sum().backward()
    a = x * 1
    b = a * torch.ones(3)  # a's value is only needed for the constant's gradient
    a.add_(1)
    b.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_inplace_history_on_non_leaves():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y.mul_(y)  # the original value is kept for the backward of mul_
    assert y.grad_fn.name() == "MulBackward0" and y._version == 1
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    x.grad = None
    y = x * 1
    y[0] = 0.0
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0]


def test_views_modified_in_place_update_the_base_history():
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x * 1
    head, tail = y[:2], y[2:]
    tail.mul_(10)
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    assert tail.grad_fn.name() == "AsStridedBackward0"
    assert y.tolist() == [1.0, 2.0, 30.0, 40.0]
    (y.sum() + head.sum()).backward()
    assert x.grad.tolist() == [2.0, 2.0, 10.0, 10.0]


def test_create_graph_gives_higher_order():
    x = torch.tensor(2.0, requires_grad=True)
    y = x ** 4
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    (h,) = torch.autograd.grad(g, x, create_graph=True)
    (k,) = torch.autograd.grad(h, x)
    assert (g.item(), h.item(), k.item()) == (32.0, 48.0, 48.0)
