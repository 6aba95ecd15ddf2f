"""torch.autograd.graph against PyTorch 2.13: gradients computed from what saved-tensor unpack
hooks return, save_on_cpu, disable_saved_tensors_hooks, register_multi_grad_hook in both
modes, the Node type and increment_version."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

X, W = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0])


def _leaves(lib):
    return lib.tensor(X, requires_grad=True), lib.tensor(W, requires_grad=True)


@pytest.mark.parametrize("fn", [lambda x, w: (x * w).sin().sum(),
                                lambda x, w: (x.exp() * w).sum(),
                                lambda x, w: (x[None] @ w[:, None]).sum() * (x ** 2).sum()],
                         ids=["mul-sin", "exp-mul", "matmul-pow"])
@pytest.mark.parametrize("scale", [1.0, 2.0])
def test_gradients_come_from_what_unpack_returns(fn, scale):
    """A pack hook that doubles what it saves changes the gradient as in PyTorch, where the
    operation's primitives read its saved operands themselves (a 1-d x @ w is reshapes and a
    product in gradjit: its product reads the reshaped operands, which PyTorch never saves)."""
    grads = []
    for lib in (gradjit, torch):
        x, w = _leaves(lib)
        unpacked = []

        def unpack(t):
            unpacked.append(t)
            return t
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach() * scale, unpack):
            y = fn(x, w)
        y.backward()
        assert unpacked and all(type(t) is lib.Tensor for t in unpacked)
        grads.append((x.grad.numpy(), w.grad.numpy()))
    for mine, want in zip(*grads):
        np.testing.assert_allclose(mine, want, rtol=1e-12)


def test_hooks_apply_only_inside_the_context_and_the_innermost_wins():
    for lib in (gradjit, torch):
        x, w = _leaves(lib)
        seen = []
        graph = lib.autograd.graph
        with graph.saved_tensors_hooks(lambda t: seen.append("outer") or t, lambda t: t):
            with graph.saved_tensors_hooks(lambda t: seen.append("inner") or t, lambda t: t):
                y = x * w
        z = y * w
        assert set(seen) == {"inner"}
        z.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), W * W)


def test_save_on_cpu_keeps_gradients():
    grads = []
    for lib in (gradjit, torch):
        x, w = _leaves(lib)
        with lib.autograd.graph.save_on_cpu():
            y = (x * w).tanh().sum()
        y.backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_disable_saved_tensors_hooks_as_torch():
    def inside(lib):
        with lib.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass

    def around(lib):
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            with lib.autograd.graph.disable_saved_tensors_hooks("hooks are on"):
                pass
    same_error(lambda: inside(gradjit), lambda: inside(torch))
    same_error(lambda: around(gradjit), lambda: around(torch))
    with gradjit.autograd.graph.disable_saved_tensors_hooks("off"):
        pass
    with gradjit.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        pass  # enabled again after the context


def _multi(lib, mode):
    a, b, c = (lib.ones(2, requires_grad=True) for _ in range(3))
    calls = []

    def record(grads):
        if mode == "any":
            calls.append(grads.tolist())
        else:
            calls.append([None if g is None else g.tolist() for g in grads])
    handle = lib.autograd.graph.register_multi_grad_hook([a, b, c], record, mode=mode)
    (a * 2 + b * 3).sum().backward()
    (c * 4).sum().backward()
    handle.remove()
    (a * 5).sum().backward()
    return calls


@pytest.mark.parametrize("mode", ["all", "any"])
def test_register_multi_grad_hook_as_torch(mode):
    assert _multi(gradjit, mode) == _multi(torch, mode)


def test_multi_grad_hook_mode_error_as_torch():
    same_error(lambda: gradjit.autograd.graph.register_multi_grad_hook(
        [gradjit.ones(1, requires_grad=True)], print, mode="some"),
        lambda: torch.autograd.graph.register_multi_grad_hook(
        [torch.ones(1, requires_grad=True)], print, mode="some"))


def test_node_type_and_increment_version():
    for lib in (gradjit, torch):
        x = lib.ones(2, requires_grad=True)
        y = (x * 2).sum()
        assert isinstance(y.grad_fn, lib.autograd.graph.Node)
        assert isinstance(y.grad_fn.next_functions[0][0], lib.autograd.graph.Node)
        assert not isinstance(x, lib.autograd.graph.Node)
        z = x.detach().clone()
        before = z._version
        lib.autograd.graph.increment_version(z)
        assert z._version == before + 1


def test_increment_version_makes_backward_fail_as_torch():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        saved = x.detach().clone().requires_grad_()
        y = (saved * saved).sum()
        lib.autograd.graph.increment_version(saved)
        y.backward()
    same_error(lambda: run(gradjit), lambda: run(torch))



_SAVING = {"acos": lambda lib, x, w: x.acos(), "cumsum": lambda lib, x, w: x.cumsum(0),
           "atan2": lambda lib, x, w: x.atan2(w), "exp": lambda lib, x, w: x.exp(),
           "square": lambda lib, x, w: x * x, "softmax": lambda lib, x, w: x.softmax(0),
           "dot": lambda lib, x, w: x @ w, "cumprod": lambda lib, x, w: x.cumprod(0),
           "sqrt": lambda lib, x, w: w.abs().sqrt(), "mean": lambda lib, x, w: x.mean(),
           "maximum": lambda lib, x, w: x.maximum(w),
           "expand": lambda lib, x, w: x.expand(2, 3), "cat": lambda lib, x, w: lib.cat([x, w])}


@pytest.mark.parametrize("name", sorted(_SAVING))
def test_pack_hook_sees_what_the_node_saves(name):
    """The pack hook is called once per tensor PyTorch's node saves, on the operand itself or
    the result, never on values passed between the primitives an operation is made of."""
    seen = []
    for lib in (gradjit, torch):
        x, w = _leaves(lib)
        packed = []
        with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t,
                                                    lambda t: t):
            y = _SAVING[name](lib, x, w)
        seen.append(["x" if t is x else "w" if t is w else
                     "result" if t.shape == y.shape and bool((t == y).all()) else "other"
                     for t in packed])
    assert sorted(seen[0]) == sorted(seen[1])
