"""The eager hot path (float32/float64 operands of one dtype and shape evaluated by numpy
directly, numbers lifted only for backward, fill_ without history) against PyTorch 2.13:
values bit for bit, dtypes, gradients, grad_fn names, versions and the errors around it."""
import numpy as np
import pytest

import gradjit
from gradjit.ir import primitive
from gradjit.tensor import arith, base, hot_path

torch = pytest.importorskip("torch")

EXPRESSIONS = ["a + b", "a - b", "a * b", "a / b", "a + 2", "a - 2.5", "3 * a", "1 - a",
               "2.5 / a", "a / 3", "a * -1", "(a * b + 1.5) / (a - b)", "a ** 2", "2 ** a",
               "a.clamp(min=0)", "a.clamp(-0.5, 0.5)", "a.clamp(max=1)", "(a * b).clamp(0.25)",
               "a.clamp(min=b)", "a.mm(b.T)"]


def _pair(lib, dtype, requires_grad):
    rng = np.random.default_rng(3)
    values = [rng.standard_normal((3, 4)).astype(dtype) for _ in range(2)]
    return [lib.tensor(v, requires_grad=requires_grad) for v in values]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_values_gradients_and_names_match_torch(expr, dtype):
    results = {}
    for lib in (gradjit, torch):
        a, b = _pair(lib, dtype, True)
        y = eval(expr)
        y.sum().backward()
        results[lib] = (y, a.grad, b.grad)
    (y, ga, gb), (ty, tga, tgb) = results[gradjit], results[torch]
    assert str(y.dtype) == str(ty.dtype) and y.grad_fn.name() == ty.grad_fn.name()
    # numpy's power and BLAS products may differ from PyTorch's in the last bits; + - * /
    # and clamp may not
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(),
                               rtol=1e-5 if "**" in expr or "mm" in expr else 0)
    np.testing.assert_allclose(ga.numpy(), tga.numpy(), rtol=1e-6)
    assert (gb is None) == (tgb is None)


def test_hot_path_skips_the_general_evaluation_and_agrees_with_it(monkeypatch):
    a, b = _pair(gradjit, np.float32, True)
    calls = []
    evaluate = primitive.evaluate
    monkeypatch.setattr(primitive, "evaluate", lambda *args: calls.append(args) or
                        evaluate(*args))

    def run():
        calls.clear()
        y = (a * b + 2.0) / (1 - a)
        forward = len(calls)
        y.sum().backward()
        grads = a.grad.numpy().copy(), b.grad.numpy().copy()
        a.grad = b.grad = None
        return y, grads, forward
    fast, fast_grads, forward = run()
    assert forward == 0
    monkeypatch.setattr(arith, "direct", lambda *args: None)
    monkeypatch.setattr(base, "evaluate_plain", lambda *args: None)
    general, general_grads, forward = run()
    assert forward == 4
    np.testing.assert_array_equal(fast.detach().numpy(), general.detach().numpy())
    for f, g in zip(fast_grads, general_grads):
        np.testing.assert_array_equal(f, g)
    assert fast.grad_fn.name() == general.grad_fn.name() == "DivBackward0"
    assert [n.name() for n, _ in fast.grad_fn.next_functions] == \
        [n.name() for n, _ in general.grad_fn.next_functions] == ["AddBackward0", "RsubBackward1"]


@pytest.mark.parametrize("expr", ["a.half() + b", "a.bfloat16() * 2", "a.to(torch.int8) + "
                                  "b.to(torch.uint8)", "a + b.double()", "a + b[0, 0].double()",
                                  "a * True", "a + b[0]", "a.to(torch.int64) / 2",
                                  "a.to(torch.int64).clamp(0, 1.5)", "a.half().clamp(0)"])
def test_operands_that_differ_take_pytorchs_promotion(expr):
    out = {}
    for lib in (gradjit, torch):
        a, b = _pair(lib, np.float32, False)
        out[lib] = eval(expr.replace("torch.", "lib."))
    assert str(out[gradjit].dtype) == str(out[torch].dtype)
    np.testing.assert_allclose(out[gradjit].float().numpy(), out[torch].float().numpy(),
                               rtol=1e-2)


def test_a_broadcasting_error_is_pytorchs():
    with pytest.raises(RuntimeError):
        gradjit.ones(3) + gradjit.ones(4)


def test_numbers_are_lifted_for_backward_and_stale_values_are_caught():
    x = gradjit.tensor([1.0, 2.0], requires_grad=True)
    y = (2.0 * x).exp()
    (3 - y).sum().backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), -2 * np.exp([2.0, 4.0]), rtol=1e-6)
    with gradjit.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="which is output 0 of Exp, is at version 1"):
        y.sum().backward()


def test_sub_in_place_rounds_as_torch():
    rng = np.random.default_rng(0)
    w, g = rng.standard_normal(10000).astype(np.float32), rng.standard_normal(10000)
    results = []
    for lib in (gradjit, torch):
        t = lib.tensor(w)
        t -= 1e-3 * lib.tensor(g.astype(np.float32))
        t.sub_(lib.tensor(w), alpha=0.5)
        results.append(t.numpy())
    np.testing.assert_array_equal(*results)


def test_fill_without_history_bumps_the_version_and_keeps_the_checks():
    t = gradjit.ones(3)
    view = t[1:]
    t.zero_()
    assert t._version == 1 and view._version == 1 and view.tolist() == [0.0, 0.0]
    view.fill_(2.5)
    assert t.tolist() == [0.0, 2.5, 2.5] and t._version == 2
    t.bfloat16().fill_(1.1)  # bfloat16 storage is rounded by the general path
    leaf = gradjit.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        leaf.zero_()
    with gradjit.no_grad():
        leaf.zero_()
    assert leaf.tolist() == [0.0, 0.0] and leaf._version == 1
    half = gradjit.ones(2, dtype=gradjit.bfloat16).fill_(1.1)
    assert half.float().tolist() == torch.ones(2, dtype=torch.bfloat16).fill_(1.1).float().tolist()


IN_PLACE = ["a += b", "a -= b", "a *= b", "a /= b", "a += 2", "a -= 0.1", "a *= 3",
            "a /= 7", "a.add_(a)", "a.sub_(b)", "a.mul_(-1.5)"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("stmt", IN_PLACE)
def test_in_place_writes_into_the_storage_as_the_general_path_and_torch(stmt, dtype,
                                                                        monkeypatch):
    def run(lib):
        a, b = _pair(lib, dtype, False)
        storage, view = a.numpy(), a[1]
        exec(stmt)
        assert np.shares_memory(a.numpy(), storage) and a._version == view._version == 1
        return a.numpy().copy()
    fast, expected = run(gradjit), run(torch)
    monkeypatch.setattr(hot_path, "_IN_PLACE", {})
    np.testing.assert_array_equal(fast, run(gradjit))
    np.testing.assert_array_equal(fast, expected)


def test_in_place_with_history_or_on_a_leaf_takes_the_general_path():
    a, b = _pair(gradjit, np.float32, True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        a += 1
    y = a * 1
    y -= b
    assert y.grad_fn.name() == "SubBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), -np.ones((3, 4), np.float32))
    with gradjit.no_grad():
        a.mul_(2)
    assert a._version == 1 and a.grad_fn is None


def test_leaving_a_meta_device_block_keeps_the_hot_path(monkeypatch):
    """The default device restored after `with device('meta')` is the CPU itself: tensors made
    afterwards carry no device of their own and still take the hot path."""
    with gradjit.device("meta"):
        pass
    a, b = _pair(gradjit, np.float32, True)
    calls = []
    evaluate = primitive.evaluate
    monkeypatch.setattr(primitive, "evaluate", lambda *args: calls.append(args) or
                        evaluate(*args))
    _ = a * b + 2.0
    assert calls == [] and str(gradjit.zeros(1).device) == "cpu"
