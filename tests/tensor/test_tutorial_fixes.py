"""Tensor behaviours that PyTorch's tutorials rely on, compared with torch."""
import numpy as np
import pytest
import torch

import gradjit


@pytest.mark.parametrize("method", ["scatter", "scatter_add"])
def test_scatter_zero_dim_index_into_vector(method):
    # the data tutorial's one-hot Lambda: zeros(10).scatter_(0, tensor(y), value=1)
    outs = []
    for t in (torch, gradjit):
        x = t.zeros(4, requires_grad=True)
        y = getattr(x, method)(0, t.tensor(2), t.tensor(7.0))
        y.sum().backward()
        outs.append((y.detach().numpy(), x.grad.numpy()))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_array_equal(outs[0][1], outs[1][1])


def test_scatter_value_and_gather_zero_dim_index():
    for t_call in (lambda t: t.zeros(5).scatter_(0, t.tensor(3), value=1),
                   lambda t: t.arange(5.0).gather(0, t.tensor(3))):
        np.testing.assert_array_equal(t_call(torch).numpy(), t_call(gradjit).numpy())
        assert t_call(torch).shape == tuple(t_call(gradjit).shape)


def test_meta_device_tensors_print_as_torch():
    # the model-ensembling tutorial prints a stateless copy moved to the meta device
    for make in (lambda t: t.zeros(2, 3, device="meta"),
                 lambda t: t.zeros((), dtype=t.int64, device="meta"),
                 lambda t: t.ones(2, device="meta", requires_grad=True) * 2,
                 lambda t: t.zeros(0, device="meta"),
                 lambda t: t.device("meta")):
        assert repr(make(gradjit)) == repr(make(torch))


def test_top_level_vmap_takes_torch_keywords():
    def run(t):
        return t.vmap(lambda a, b: a * b, in_dims=(0, None))(t.arange(6.0).reshape(3, 2),
                                                           t.tensor([2.0, 3.0]))
    np.testing.assert_array_equal(run(gradjit).numpy(), run(torch).numpy())


@pytest.mark.parametrize("op", ["sigmoid", "exp", "tanh"])
def test_modified_saved_output_names_the_forward_operation(op):
    # the autograd-mechanics notes: b = a.sigmoid(); b.mul_(2); backward raises
    from tests.torch_reference import same_error

    def call(t):
        b = getattr(t.tensor([1.0, 2.0], requires_grad=True), op)()
        b.mul_(2)
        b.sum().backward()
    same_error(lambda: call(gradjit), lambda: call(torch))


def test_tensors_made_in_inference_mode_are_inference_tensors():
    def flags(t):
        a = t.ones(2, requires_grad=True)
        with t.inference_mode():
            made = [a * 2, t.zeros(2), a.detach() + 1]
        return [m.is_inference() for m in made] + [a.is_inference(), (a * 2).is_inference(),
                                                   made[0].requires_grad]
    assert flags(gradjit) == flags(torch)


def test_grad_fn_saved_self_and_result():
    # the autograd-mechanics notes: y = x.pow(2); x.equal(y.grad_fn._saved_self)
    def views(t):
        x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y, z = x.pow(2), x.exp()
        return (x.equal(y.grad_fn._saved_self), z.equal(z.grad_fn._saved_result),
                z is z.grad_fn._saved_result, z.grad_fn._saved_result.grad_fn is not None)
    assert views(gradjit) == views(torch)


def test_missing_saved_attribute_is_an_attribute_error():
    from tests.torch_reference import same_error

    def call(t):
        return t.tensor([1.0], requires_grad=True).exp().grad_fn._saved_nothing
    same_error(lambda: call(gradjit), lambda: call(torch))
