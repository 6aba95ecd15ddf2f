"""torch.cond and torch.while_loop against PyTorch 2.13: values, gradients and grad_fn through
the branch taken, pytrees of operands and carries, their errors, and the same functions
compiled by gradjit.jit (a traced predicate guards each path)."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import message, same_error

X = np.array([0.5, -1.5, 2.0], np.float32)


def _branches(L):
    def true_fn(args):
        return {"out": args["a"].sin() * args["b"], "n": args["a"].sum()}

    def false_fn(args):
        return {"out": args["a"].cos() + args["b"] ** 2, "n": args["b"].prod()}
    return true_fn, false_fn


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_cond_values_gradients_and_grad_fn_as_torch(sign):
    def run(L):
        a = L.tensor(X * sign, requires_grad=True)
        b = L.tensor(X[::-1].copy(), requires_grad=True)
        out = L.cond(a.sum() > 0, *_branches(L), ({"a": a, "b": b},))
        (out["out"] * L.tensor([1.0, 2.0, 3.0])).sum().add(out["n"]).backward()
        return out, a.grad, b.grad
    (g_out, *g_grads), (t_out, *t_grads) = run(gradjit), run(torch)
    assert g_out.keys() == t_out.keys()
    for key in g_out:
        np.testing.assert_allclose(g_out[key].detach().numpy(), t_out[key].detach().numpy(),
                                   rtol=1e-6)
        assert type(g_out[key].grad_fn).__name__ == type(t_out[key].grad_fn).__name__ == \
            "CondAutogradOpBackward"
    for g, t in zip(g_grads, t_grads):
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-6)


def test_cond_on_a_python_predicate_runs_the_branch_as_torch():
    def run(L, pred):
        x = L.tensor(X, requires_grad=True)
        return L.cond(pred, lambda x, y: x + y, lambda x, y: x - y, [x, x * 2])
    for pred in (True, 0):
        g, t = run(gradjit, pred), run(torch, pred)
        assert repr(g) == repr(t)


def test_cond_of_a_one_element_predicate_and_tuples_as_torch():
    def run(L):
        x = L.tensor(X)
        return L.cond(L.tensor([False]), lambda x: (x * 1, x * 2), lambda x: (x * 3, x + 1), (x,))
    assert repr(run(gradjit)) == repr(run(torch))


def _x(L):
    return L.tensor(X, requires_grad=True)


@pytest.mark.parametrize("call", [
    lambda L: L.cond(_x(L) > 0, lambda x: x + 1, lambda x: x - 1, (_x(L),)),
    lambda L: L.cond("a", lambda x: x + 1, lambda x: x - 1, (_x(L),)),
    lambda L: L.cond(_x(L).sum() > 0, 1, lambda x: x - 1, (_x(L),)),
    lambda L: L.cond(_x(L).sum() > 0, lambda x: x + 1, lambda x: x - 1, (_x(L), 1)),
    lambda L: L.cond(_x(L).sum() > 0, lambda x: x + 1, lambda x: x - 1, _x(L)),
    lambda L: L.while_loop(1, lambda i: i + 1, (L.zeros(2),)),
    lambda L: L.while_loop(lambda i: i < 3, lambda i: (i + 1,), (1.5,)),
])
def test_argument_errors_as_torch(call):
    same_error(lambda: call(gradjit), lambda: call(torch))


@pytest.mark.parametrize("false_fn", [lambda x: x.sum(), lambda x: x.double()])
def test_mismatched_branches_raise_torchs_message(false_fn):
    """torch reports the mismatch from inside its compiler, wrapped in its own words; the
    message gradjit raises is the one inside."""
    with pytest.raises(RuntimeError) as t_info:
        torch.cond(_x(torch).sum() > 0, lambda x: x + 1, false_fn, (_x(torch),))
    with pytest.raises(RuntimeError) as g_info:
        gradjit.cond(_x(gradjit).sum() > 0, lambda x: x + 1, false_fn, (_x(gradjit),))
    assert message(g_info.value).startswith("When merging two branches' output in torch.cond")
    assert message(g_info.value) in str(t_info.value)


def test_branches_of_two_structures_are_refused_as_torch():
    prefix = "Unmatched output spec from torch.cond branches: "
    for L in (gradjit, torch):
        with pytest.raises(RuntimeError, match=prefix):
            L.cond(_x(L).sum() > 0, lambda x: x + 1, lambda x: (x + 1, x - 1), (_x(L),))


def test_while_loop_values_gradients_and_grad_fn_as_torch():
    def run(L):
        x = L.tensor(X, requires_grad=True)
        count, total = L.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s * 1.5 + x.sin()),
                                    (L.tensor(0), x * 1))
        total.sum().backward()
        return count, total, x.grad
    g, t = run(gradjit), run(torch)
    assert repr(g[0]) == repr(t[0])
    assert type(g[1].grad_fn).__name__ == type(t[1].grad_fn).__name__ == \
        "WhileLoopAutogradOpBackward"
    for a, b in zip(g[1:], t[1:]):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6)


def test_while_loop_carries_ints_and_pytrees_as_torch():
    def run(L):
        return L.while_loop(lambda k, d: k < 7, lambda k, d: (k + 2, {"v": d["v"] * 2}),
                            (1, {"v": L.tensor(X)}))
    (g_k, g_d), (t_k, t_d) = run(gradjit), run(torch)
    assert g_k == t_k == 7 and repr(g_d) == repr(t_d)


def test_while_loop_of_no_iteration_gives_new_tensors_as_torch():
    for L in (gradjit, torch):
        x = L.tensor(X)
        (out,) = L.while_loop(lambda v: v.sum() > 100, lambda v: (v * 2,), (x,))
        assert out is not x and out.tolist() == x.tolist()


@pytest.mark.parametrize("body,words", [
    (lambda i, s: (i + 1, s.sum()), "Expected body_fn_output and carried_inputs to have same "
                                    "metadata but found:\npair[1] differ in 'shape: "),
    (lambda i, s: (i + 1,), "Expected body_fn_output and carried_inputs to have same number "
                            "of outputs but got lhs:"),
])
def test_while_loop_body_mismatches_raise_torchs_words(body, words):
    for L in (gradjit, torch):
        with pytest.raises(RuntimeError) as info:
            L.while_loop(lambda i, s: i < 3, body, (L.tensor(0), L.tensor(X)))
        assert words in str(info.value)


def test_while_loop_refuses_a_predicate_that_is_no_boolean():
    with pytest.raises(RuntimeError, match="cond_fn must return a boolean scalar tensor or a "
                                           "boolean but got"):
        gradjit.while_loop(lambda v: v.sum(), lambda v: (v + 1,), (gradjit.zeros(2),))
    with pytest.raises(RuntimeError, match="cond_fn"):
        torch.while_loop(lambda v: v.sum(), lambda v: (v + 1,), (torch.zeros(2),))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_cond_and_while_loop_compile_in_jit(sign):
    def f(L, x):
        y = L.cond(x.sum() > 0, lambda x: x.sin() * 2, lambda x: x.cos() - 1, (x,))
        _, y = L.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 1.5 + x), (L.tensor(0), y))
        return y.sum()
    x = X * sign
    compiled = gradjit.jit(lambda x: f(gradjit, x))
    np.testing.assert_allclose(compiled(gradjit.tensor(x)).numpy(),
                               f(torch, torch.tensor(x)).numpy(), rtol=1e-6)
    grad = gradjit.grad(lambda x: f(gradjit, x))(gradjit.tensor(x))
    t = torch.tensor(x, requires_grad=True)
    f(torch, t).backward()
    np.testing.assert_allclose(grad.numpy(), t.grad.numpy(), rtol=1e-6)
