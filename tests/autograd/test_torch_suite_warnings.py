"""PyTorch's autograd suite, warnings and argument forms, side by side with torch: the
warnings autograd gives (non-leaf .grad, create_graph cycles, anomaly mode, checkpoint
without use_reentrant) and the forms backward and grad accept for their gradients."""
import warnings

import pytest

from tests.autograd.torch_suite import A, Scenarios, cases, check

SCENARIOS = scenario = Scenarios()


def caught(call):
    """call()'s result and the messages of the warnings it gave."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = call()
    return result, [str(w.message) for w in seen]


@scenario
def nonleaf_grad_access_warns(lib):
    x = lib.tensor(A, requires_grad=True)
    y = x * 2
    y.sum().backward()
    return caught(lambda: y.grad is None)


@scenario
def retained_nonleaf_grad_does_not_warn(lib):
    x = lib.tensor(A, requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.sum().backward()
    return caught(lambda: y.grad)


@scenario
def detect_anomaly_warns(lib):
    def run():
        with lib.autograd.detect_anomaly():
            pass
    return caught(run)[1]


@scenario
def checkpoint_without_use_reentrant_warns(lib):
    from importlib import import_module
    cp = import_module(f"{lib.__name__}.utils.checkpoint")
    x = lib.tensor(A, requires_grad=True)
    return caught(lambda: cp.checkpoint(lambda a: a * 2, x))[1]


@scenario
def gradient_forms(lib):
    out = []
    for gradient in (lib.tensor(2.0), None):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward(gradient)
        out.append(x.grad)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    lib.autograd.backward((x * 3).sum(), grad_tensors=lib.tensor(0.5))
    out.append(x.grad)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    g = lib.autograd.grad([(x * 3).sum(), x * x], x, grad_outputs=[None, lib.ones(2)])
    out.append(g)
    return out


@scenario
def gradient_none_for_vector_output(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    return lib.autograd.grad([(x * 3).sum(), x * x], x, grad_outputs=[None, None])


@scenario
def gradient_as_number(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    return x.sum().backward(2.0)


@scenario
def too_few_gradients(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    return lib.autograd.grad([x.sum(), x.sum()], x, grad_outputs=[lib.tensor(1.0)])


@scenario
def extra_gradients_ignored(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    return lib.autograd.grad([x.sum()], x, grad_outputs=[lib.tensor(2.0), lib.tensor(1.0)])


@scenario
def gradient_as_list(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    return (x * x).backward([1.0, 2.0])


@scenario
def backward_on_leaf(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    x.backward(lib.tensor([3.0, 4.0]))
    s = lib.tensor(5.0, requires_grad=True)
    s.backward()
    return x.grad, s.grad


@scenario
def grad_of_intermediate_wrt_later(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y * 3
    return lib.autograd.grad(y.sum(), z)


@scenario
def hook_modifying_grad_in_place(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2

    def hook(g):
        g.mul_(10)
    y.register_hook(hook)
    (y * y).sum().backward()
    return x.grad


@scenario
def hook_handle_as_context(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with x.register_hook(lambda g: g * 100):
        (x * 1).sum().backward()
    first = x.grad.clone()
    (x * 1).sum().backward()
    return first, x.grad


@scenario
def grad_dtype_none_accumulates_other_dtype(lib):
    x = lib.tensor([1.0, 2.0], dtype=lib.float32, requires_grad=True)
    x.grad_dtype = lib.float64
    (x * 2).sum().backward()
    return x.grad, x.grad_dtype


@pytest.mark.parametrize("name", cases(SCENARIOS, {}))
def test_warning_scenario_matches_torch(name):
    check(SCENARIOS[name])
