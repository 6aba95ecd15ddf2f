"""Errors that Tensors raise in PyTorch 2.13's types and words: dimensions out of range,
shapes that do not fit, indices out of bounds, negative slice steps and list operands, while
traced numpy code keeps numpy's wording of the same checks."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

CALLS = {
    "view": lambda L: L.arange(5.0).view(3, 2),
    "view_inferred": lambda L: L.arange(5.0).view(-1, 3),
    "reshape": lambda L: L.arange(5.0).reshape(3, 2),
    "reshape_zero": lambda L: L.ones(2, 3).reshape(0, -1),
    "reshape_negative": lambda L: L.ones(2, 3).reshape(2, -3),
    "view_negative": lambda L: L.ones(2, 3).view(-2, 3),
    "expand": lambda L: L.ones(2, 3).expand(3, 3),
    "expand_leading": lambda L: L.ones(2, 3).expand(4, -1, 3, 3),
    "expand_leading_unknown": lambda L: L.ones(2, 3).expand(-1, 2, 3),
    "expand_fewer": lambda L: L.ones(2, 3).expand(3),
    "expand_as": lambda L: L.ones(2, 3).expand_as(L.ones(3, 3)),
    "mT": lambda L: L.ones(3).mT,
    "mH": lambda L: L.ones(3).mH,
    "view_two_inferred": lambda L: L.arange(6.0).view(-1, -1),
    "reshape_two_inferred": lambda L: L.arange(6.0).reshape(-1, 2, -1),
    "sum": lambda L: L.ones(2, 3).sum(5),
    "sum_negative": lambda L: L.ones(2, 3).sum(-3),
    "sum_dims": lambda L: L.ones(2, 3).sum((0, 5)),
    "sum_repeated": lambda L: L.ones(2, 3).sum((0, 0)),
    "mean": lambda L: L.ones(2, 3).mean(5),
    "softmax": lambda L: L.ones(2, 3).softmax(5),
    "log_softmax": lambda L: L.ones(2, 3).log_softmax(5),
    "logsumexp": lambda L: L.ones(2, 3).logsumexp(5),
    "amax": lambda L: L.ones(2, 3).amax(5),
    "max": lambda L: L.ones(2, 3).max(5),
    "argmax": lambda L: L.ones(2, 3).argmax(5),
    "cumsum": lambda L: L.ones(2, 3).cumsum(5),
    "cummax": lambda L: L.ones(2, 3).cummax(5),
    "prod": lambda L: L.ones(2, 3).prod(5),
    "std": lambda L: L.ones(2, 3).std(5),
    "norm": lambda L: L.ones(2, 3).norm(dim=5),
    "squeeze": lambda L: L.ones(2, 3).squeeze(5),
    "cat": lambda L: L.cat([L.ones(2, 3)] * 2, 5),
    "stack": lambda L: L.stack([L.ones(2, 3)] * 2, 5),
    "scalar_sum": lambda L: L.tensor(1.0).sum(1),
    "transpose": lambda L: L.ones(2, 3).transpose(0, 5),
    "transpose_negative": lambda L: L.ones(2, 3).transpose(-3, 0),
    "unsqueeze": lambda L: L.ones(2, 3).unsqueeze(5),
    "unsqueeze_negative": lambda L: L.ones(2, 3).unsqueeze(-4),
    "scalar_unsqueeze": lambda L: L.tensor(1.0).unsqueeze(2),
    "permute": lambda L: L.ones(2, 3).permute(0, 5),
    "permute_negative": lambda L: L.ones(2, 3).permute(0, -3),
    "permute_repeated": lambda L: L.ones(2, 3).permute(0, 0),
    "permute_length": lambda L: L.ones(2, 3).permute(0, 1, 2),
    "index": lambda L: L.arange(5.0)[7],
    "index_negative": lambda L: L.arange(5.0)[-6],
    "index_second": lambda L: L.ones(2, 3)[0, 5],
    "index_tensor": lambda L: L.arange(5.0)[L.tensor([7])],
    "step": lambda L: L.arange(5.0)[::-1],
    "step_second": lambda L: L.ones(2, 3)[:, ::-2],
    "step_zero": lambda L: L.arange(5.0)[::0],
    "step_write": lambda L: L.arange(5.0).__setitem__(slice(None, None, -1), 0),
    "add_list": lambda L: L.arange(5.0) + [1, 2],
    "radd_list": lambda L: [1, 2] + L.arange(5.0),
    "sub_list": lambda L: L.arange(5.0) - [1.0] * 5,
    "pow_list": lambda L: L.arange(5.0) ** [1.0] * 5,
    "matmul_list": lambda L: L.arange(5.0) @ [1.0] * 5,
    "rmatmul_list": lambda L: [1.0] * 5 @ L.arange(5.0),
    "lt_list": lambda L: L.arange(5.0) < [1.0] * 5,
    "and_list": lambda L: L.arange(5) & [1] * 5,
    "in_place_list": lambda L: L.arange(5.0).__iadd__([1.0] * 5) + 1,
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_errors_in_torch_words(name):
    same_error(lambda: CALLS[name](gradjit), lambda: CALLS[name](torch))


def test_in_place_operator_with_a_list():
    def add_in_place(L):
        x = L.arange(3.0)
        x += [1.0, 2.0, 3.0]
    same_error(lambda: add_in_place(gradjit), lambda: add_in_place(torch))


def test_equality_with_a_list_is_identity():
    for L in (gradjit, torch):
        assert (L.arange(3.0) == [0.0, 1.0, 2.0]) is False
        assert (L.arange(3.0) != [0.0, 1.0, 2.0]) is True


def test_positive_steps_and_numpy_operands_still_work():
    for L in (gradjit, torch):
        np.testing.assert_array_equal(L.arange(6.0)[1::2].numpy(), [1.0, 3.0, 5.0])
        np.testing.assert_array_equal((L.arange(3.0) + np.ones(3)).numpy(), [1.0, 2.0, 3.0])


@pytest.mark.parametrize("clamp", [
    lambda L, x, b: x.clamp(min=b), lambda L, x, b: x.clamp(max=b),
    lambda L, x, b: x.clamp(b, b + 1), lambda L, x, b: L.clamp(x, min=b.detach()),
    lambda L, x, b: x.clamp(min=0.5), lambda L, x, b: x.clamp_min(b),
    lambda L, x, b: L.where(x > 0, x, b), lambda L, x, b: L.where(x > 0, 1.0, b),
    lambda L, x, b: x.where(x > 0, 2.0)])
def test_next_functions_as_torch(clamp):
    shown = []
    for L in (gradjit, torch):
        x = L.ones(3, requires_grad=True)
        b = L.zeros(3, requires_grad=True)
        out = clamp(L, x, b)
        shown.append([(None if f is None else type(f).__name__, i)
                      for f, i in out.grad_fn.next_functions])
    assert shown[0] == shown[1]


def test_where_gradients_with_a_number():
    grads = []
    for L in (gradjit, torch):
        x = L.tensor([1.0, -2.0, 3.0], requires_grad=True)
        L.where(x > 0, 1.0, x * 2).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(*grads)


@pytest.mark.parametrize("fn, args", [
    (lambda x: x.sum(axis=5), (np.ones((2, 3)),)),
    (lambda x: np.expand_dims(x, 5), (np.ones((2, 3)),)),
    (lambda x: x.reshape(4, 2), (np.ones((2, 3)),)),
    (lambda x: x[7], (np.ones(5),)),
    (lambda x: np.transpose(x, (0, 0)), (np.ones((2, 3)),))])
def test_traced_numpy_code_keeps_numpy_words(fn, args):
    with pytest.raises(Exception) as info:
        gradjit.jit(fn)(*args)
    assert "Dimension out of range" not in str(info.value)
    assert "dimension 0" not in str(info.value)
    assert not isinstance(info.value, RuntimeError)
