"""torch.utils.checkpoint against PyTorch 2.13: the function runs again in backward, the
gradients (to inputs and to parameters it reads) equal the plain ones and torch's, random
draws repeat, checkpoint_sequential, and the warnings and errors."""
import warnings

import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

INPUT = np.linspace(-1.0, 1.0, 8).reshape(2, 4)


def _model(L):
    L.manual_seed(0)
    return L.nn.Linear(4, 4).double()


def _block(L, lin, calls):
    def f(x, scale=1.0):
        calls.append(1)
        h = L.nn.functional.dropout(lin(x).tanh(), 0.5, training=True)
        return (h * h * scale).sin()
    return f


def _run(L, checkpointed, use_reentrant=False, **options):
    """Output, input and weight gradients, calls of the function, draws after backward."""
    lin, calls = _model(L), []
    x = L.tensor(INPUT, requires_grad=True)
    f = _block(L, lin, calls)
    y = L.utils.checkpoint.checkpoint(f, x, use_reentrant=use_reentrant, **options) \
        if checkpointed else f(x)
    y.sum().backward()
    return [y.detach().numpy(), x.grad.numpy(), lin.weight.grad.numpy(), L.rand(3).numpy()], \
        len(calls)


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_gradients_equal_the_plain_ones_and_torchs(use_reentrant):
    plain, plain_calls = _run(gradjit, False)
    ours, calls = _run(gradjit, True, use_reentrant)
    theirs, torch_calls = _run(torch, True, use_reentrant)
    assert (plain_calls, calls) == (1, torch_calls) == (1, 2)
    for a, b, c in zip(plain[:3], ours[:3], theirs[:3]):
        np.testing.assert_allclose(b, a, rtol=1e-12)
        np.testing.assert_allclose(b, c, rtol=1e-12)
    np.testing.assert_array_equal(ours[3], theirs[3])  # backward's rerun left the state alone


def test_without_preserve_rng_state_the_rerun_draws_on_as_torchs():
    ours, _ = _run(gradjit, True, preserve_rng_state=False)
    theirs, _ = _run(torch, True, preserve_rng_state=False)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_keyword_arguments_reach_the_function():
    results = []
    for L in (gradjit, torch):
        lin, calls = _model(L), []
        x = L.tensor(INPUT, requires_grad=True)
        y = L.utils.checkpoint.checkpoint(_block(L, lin, calls), x, use_reentrant=False,
                                          scale=3.0)
        results.append(L.autograd.grad(y.sum(), [x, lin.bias]))
    for a, b in zip(*results):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


def test_retained_graph_reruns_for_each_backward():
    lin, calls = _model(gradjit), []
    x = gradjit.tensor(INPUT, requires_grad=True)
    y = gradjit.utils.checkpoint.checkpoint(_block(gradjit, lin, calls), x,
                                            use_reentrant=False)
    y.sum().backward(retain_graph=True)
    first = x.grad.clone()
    y.sum().backward()
    assert len(calls) == 3
    np.testing.assert_allclose(x.grad.numpy(), 2 * first.numpy())


def test_nested_checkpoints():
    results = []
    for L in (gradjit, torch):
        x = L.tensor(INPUT, requires_grad=True)

        def inner(h):
            return (h.exp() * h).cos()

        def outer(h):
            return L.utils.checkpoint.checkpoint(inner, h * 2, use_reentrant=False).tanh()
        y = L.utils.checkpoint.checkpoint(outer, x, use_reentrant=False)
        y.pow(2).sum().backward()
        results.append(x.grad.numpy())
    np.testing.assert_allclose(*results, rtol=1e-12)


def test_context_fn_wraps_forward_and_rerun():
    entered = []

    class Note:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            entered.append(self.name)

        def __exit__(self, *exc):
            return False
    x = gradjit.tensor(INPUT, requires_grad=True)
    y = gradjit.utils.checkpoint.checkpoint(lambda h: h.sin() * h, x, use_reentrant=False,
                                            context_fn=lambda: (Note("f"), Note("r")))
    assert entered == ["f"]
    y.sum().backward()
    assert entered == ["f", "r"]


@pytest.mark.parametrize("segments", [1, 2, 3])
def test_checkpoint_sequential_matches_plain_and_torch(segments):
    results = []
    for L, checkpointed in ((gradjit, False), (gradjit, True), (torch, True)):
        L.manual_seed(1)
        model = L.nn.Sequential(L.nn.Linear(4, 5), L.nn.Tanh(), L.nn.Linear(5, 3),
                                L.nn.Sigmoid(), L.nn.Linear(3, 2)).double()
        x = L.tensor(INPUT, requires_grad=True)
        y = L.utils.checkpoint.checkpoint_sequential(model, segments, x, use_reentrant=False) \
            if checkpointed else model(x)
        y.sum().backward()
        results.append([y.detach().numpy(), x.grad.numpy(), model[0].weight.grad.numpy()])
    for plain, ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, plain, rtol=1e-12)
        np.testing.assert_allclose(ours, theirs, rtol=1e-5)  # float32 initial weights differ


@pytest.mark.parametrize("call", [
    lambda L, x: L.utils.checkpoint.checkpoint(L.sin, x),
    lambda L, x: L.utils.checkpoint.checkpoint_sequential([L.sin, L.cos], 2, x)])
def test_unset_use_reentrant_warns_as_torch(call):
    messages = []
    for L in (gradjit, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call(L, L.ones(2, requires_grad=True))
        messages.append([str(w.message) for w in caught if "use_reentrant" in str(w.message)])
    assert messages[0] == messages[1] and messages[0]


@pytest.mark.parametrize("call", [
    lambda L: L.utils.checkpoint.checkpoint(L.sin, L.ones(2), use_reentrant=True, extra=1),
    lambda L: L.utils.checkpoint.checkpoint(L.sin, L.ones(2), use_reentrant=True, debug=True),
    lambda L: L.utils.checkpoint.checkpoint_sequential([L.sin], 1, L.ones(2),
                                                       use_reentrant=False, extra=1)])
def test_errors_match_torch(call):
    same_error(lambda: call(gradjit), lambda: call(torch))
