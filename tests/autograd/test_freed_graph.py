"""A backward without retain_graph frees the saved values of the nodes it ran through, as
PyTorch 2.13 does: going through such a node again, or reading its _saved_* tensors, raises;
nodes that saved nothing (sums, views, additions) can be run through again."""
import pytest
import torch as real

import gradjit
from tests.torch_reference import same_error

OPS = {
    "mul_number": lambda t, x: x * 3, "div_number": lambda t, x: x / 3,
    "number_div": lambda t, x: 3 / x, "mul_tensor": lambda t, x: x * x.detach(),
    "add_number": lambda t, x: x + 3, "sub_tensor": lambda t, x: x - x.detach(),
    "neg": lambda t, x: -x, "view": lambda t, x: x.view(2, 2), "slice": lambda t, x: x[1:3],
    "cat": lambda t, x: t.cat([x, x]), "exp": lambda t, x: x.exp(), "relu": lambda t, x: x.relu(),
    "clamp": lambda t, x: x.clamp(0, 2), "leaky_relu": lambda t, x: t.nn.functional.leaky_relu(x),
    "where": lambda t, x: t.where(x > 2, x, 0.0), "pow": lambda t, x: x ** 2,
    "matmul": lambda t, x: x.view(2, 2) @ x.view(2, 2).detach(),
    "softmax": lambda t, x: x.softmax(0),
    "mse": lambda t, x: t.nn.functional.mse_loss(x, x.detach() * 2),
    "mean_dim": lambda t, x: x.view(2, 2).mean(0), "index": lambda t, x: x[t.tensor([0, 2])],
    "masked": lambda t, x: x[x > 2], "flip": lambda t, x: x.flip(0), "roll": lambda t, x: x.roll(1),
    "tril": lambda t, x: x.view(2, 2).tril(),
    "embedding": lambda t, x: t.nn.functional.embedding(t.tensor([0, 1]), x.view(2, 2)),
    "take_along_dim": lambda t, x: t.take_along_dim(x, t.tensor([1, 0])),
}


def _loss(t, op):
    x = t.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = OPS[op](t, x)
    return x, y, y.sum()


def _outcome(call):
    try:
        call()
    except RuntimeError as error:
        return str(error)
    return None


@pytest.mark.parametrize("op", sorted(OPS))
def test_second_backward_raises_where_torch_does(op):
    outcomes = []
    for t in (real, gradjit):
        x, _, loss = _loss(t, op)
        loss.backward()
        outcomes.append((_outcome(loss.backward), x.grad.tolist()))
    assert outcomes[1][0] == outcomes[0][0]
    assert outcomes[1][1] == pytest.approx(outcomes[0][1], rel=1e-6)


@pytest.mark.parametrize("op", sorted(OPS))
def test_autograd_grad_frees_as_backward_does(op):
    outcomes = []
    for t in (real, gradjit):
        x, _, loss = _loss(t, op)
        t.autograd.grad(loss, x)
        outcomes.append(_outcome(lambda: t.autograd.grad(loss, x)))
    assert outcomes[1] == outcomes[0]


@pytest.mark.parametrize("op,name", [("exp", "_saved_result"), ("relu", "_saved_result"),
                                     ("mul_tensor", "_saved_other"), ("pow", "_saved_self")])
def test_saved_tensors_are_freed_after_backward(op, name):
    def read(t):
        _, y, loss = _loss(t, op)
        getattr(y.grad_fn, name)  # readable before backward
        loss.backward()
        return getattr(y.grad_fn, name)
    same_error(lambda: read(gradjit), lambda: read(real))


@pytest.mark.parametrize("keep", [{"retain_graph": True}, {"create_graph": True}])
def test_retain_graph_or_create_graph_keeps_the_graph(keep):
    grads = []
    for t in (real, gradjit):
        x, _, loss = _loss(t, "exp")
        loss.backward(**keep)
        loss.backward()
        grads.append(x.grad.tolist())
    assert grads[1] == pytest.approx(grads[0])


def test_create_graph_false_with_retain_graph_false_frees_a_higher_order_graph():
    def second(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        (g,) = t.autograd.grad((x ** 3).sum(), x, create_graph=True)
        g.sum().backward()
        g.sum().backward()
    same_error(lambda: second(gradjit), lambda: second(real))
