"""PyTorch's checkpoint tests (test_utils.py's TestCheckpoint, test_autograd.py's checkpoint
cases) side by side with torch: torch.utils.checkpoint with and without reentrancy, over
functions, modules and sequences of them, nested, twice differentiated, with dropout's draws
replayed, non-tensor and None outputs, and the refusals of its arguments."""
import importlib
import warnings

import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

X = np.arange(12.0).reshape(4, 3) / 7 - 0.5
W = np.array([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]])
SCENARIOS = scenario = Scenarios()


def checkpointing(lib):
    return importlib.import_module(lib.__name__ + ".utils.checkpoint")


@scenario
def function_of_two_inputs(lib):
    x, w = lib.tensor(X, requires_grad=True), lib.tensor(W, requires_grad=True)
    outs = [checkpointing(lib).checkpoint(lambda a, b: (a @ b).tanh() * 2, x, w,
                                          use_reentrant=reentrant) for reentrant in (False, True)]
    (outs[0].sum() + outs[1].sum() * 2).backward()
    return outs, x.grad, w.grad


@scenario
def keyword_arguments(lib):
    x = lib.ones(2, requires_grad=True)
    return (checkpointing(lib).checkpoint(lambda a, b=1: a * b, x, b=2, use_reentrant=False),
            checkpointing(lib).checkpoint(lambda a, b=1: a * b, x, b=2, use_reentrant=True))


@scenario
def unexpected_keyword_with_reentrancy(lib):
    return checkpointing(lib).checkpoint(lambda a: a * 2, lib.ones(2, requires_grad=True),
                                         use_reentrant=True, foo=1)


@scenario
def context_fn_with_reentrancy(lib):
    return checkpointing(lib).checkpoint(lambda a: a, lib.ones(2, requires_grad=True),
                                         use_reentrant=True, context_fn=lambda: None)


@scenario
def unknown_determinism_check(lib):
    return checkpointing(lib).checkpoint(lambda a: a, lib.ones(2, requires_grad=True),
                                         use_reentrant=False, determinism_check="bad")


@scenario
def use_reentrant_not_passed(lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = checkpointing(lib).checkpoint(lambda a: a * 2, lib.ones(2, requires_grad=True))
    return out, [str(w.message)[:80] for w in caught]


@scenario
def reentrant_without_inputs_that_require_grad(lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = checkpointing(lib).checkpoint(lambda a: a * 2, lib.ones(2), use_reentrant=True)
    return out, out.requires_grad, [str(w.message) for w in caught]


@scenario
def dropout_draws_replayed(lib):
    lib.manual_seed(1)
    x = lib.ones(50, requires_grad=True)
    out = checkpointing(lib).checkpoint(lambda a: lib.nn.functional.dropout(a, 0.5), x,
                                        use_reentrant=False, preserve_rng_state=True)
    out.sum().backward()
    return out, x.grad


@scenario
def outputs_that_are_not_tensors(lib):
    x = lib.ones(2, requires_grad=True)
    a, n, s = checkpointing(lib).checkpoint(lambda t: (t * 3, 5, "s"), x, use_reentrant=False)
    b, none = checkpointing(lib).checkpoint(lambda t: (t * 2, None), x, use_reentrant=True)
    (a.sum() + b.sum()).backward()
    return a, n, s, b, none, x.grad


@scenario
def backward_twice_with_retained_graph(lib):
    x = lib.ones(2, requires_grad=True)
    out = checkpointing(lib).checkpoint(lambda a: a.exp(), x, use_reentrant=False).sum()
    out.backward(retain_graph=True)
    out.backward()
    return x.grad


@scenario
def autograd_grad_and_second_order(lib):
    x = lib.tensor([0.5, 1.5], requires_grad=True)
    out = checkpointing(lib).checkpoint(lambda a: a.pow(3), x, use_reentrant=False).sum()
    g, = lib.autograd.grad(out, x, create_graph=True)
    g.sum().backward()
    return g, x.grad


@scenario
def nested_checkpoints(lib):
    c = checkpointing(lib).checkpoint
    x = lib.tensor([0.5, 1.5], requires_grad=True)
    out = c(lambda a: c(lambda b: b.sin() * b, a, use_reentrant=False).exp(), x,
            use_reentrant=False)
    out.sum().backward()
    return out, x.grad


@scenario
def in_place_inside_the_function(lib):
    def f(a):
        b = a * 2
        b.add_(1)
        return b.exp()
    x = lib.tensor([0.5, 1.5], requires_grad=True)
    out = checkpointing(lib).checkpoint(f, x, use_reentrant=False)
    out.sum().backward()
    return out, x.grad


@scenario
def module_parameters_get_gradients(lib):
    lib.manual_seed(0)
    m = lib.nn.Linear(3, 2)
    outs = [checkpointing(lib).checkpoint(m, lib.ones(4, 3), use_reentrant=reentrant)
            for reentrant in (True, False)]
    (outs[0].sum() + 3 * outs[1].sum()).backward()
    return outs, m.weight.grad, m.bias.grad


@scenario
def sequential_segments(lib):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2), lib.nn.Tanh())
    x = lib.tensor(X, dtype=lib.float32, requires_grad=True)
    outs = [checkpointing(lib).checkpoint_sequential(m, s, x, use_reentrant=False)
            for s in (1, 2, 4, 6)]
    outs[1].sum().backward()
    return outs, x.grad, m[0].weight.grad


@scenario
def sequential_of_a_list(lib):
    lib.manual_seed(0)
    layers = [lib.nn.Linear(3, 3), lib.nn.ReLU()]
    return checkpointing(lib).checkpoint_sequential(layers, 1, lib.ones(2, 3, requires_grad=True),
                                                    use_reentrant=False)


@pytest.mark.parametrize("name", cases(SCENARIOS, {}))
def test_checkpoint_scenario_matches_torch(name):
    check(SCENARIOS[name])
