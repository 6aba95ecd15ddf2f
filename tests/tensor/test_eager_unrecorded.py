"""Operations that record nothing (grad mode off, or no history) computed by numpy on the
tensor's array directly (`hot_path.unrecorded`): relu, sum/mean/max/min, views, slices and
clone against the general path bit for bit (values, dtypes, views and versions) and PyTorch."""
import numpy as np
import pytest

import gradjit
from gradjit.tensor import arith, math_methods, reductions, shape

torch = pytest.importorskip("torch")

EXPRESSIONS = ["a.relu()", "torch.relu(b)", "a.sum()", "a.sum(1)", "a.sum((0, -1), keepdim=True)",
               "a.sum(-1, True)", "a.mean()", "a.mean(0)", "a.mean([1], keepdim=True)",
               "e.mean()", "a.max()", "a.min()", "s.max()", "s.sum()", "a.view(4, 3)",
               "a.view(-1)", "a.view(2, -1, 2)", "a.reshape(-1)", "a.t().reshape(12)",
               "a.t()", "b.t()", "a.transpose(0, 1)", "a.transpose(-1, 0)", "a.permute(1, 0)",
               "a.unsqueeze(0)", "a.unsqueeze(-1)", "a.clone()", "a.t().clone()", "a[1]",
               "a[1:3]", "a[:, 1]", "a[..., ::2]", "a[None, 1, 2:]", "a[-1, -2]", "a[()]",
               "b[2:5]", "b[3]", "a.t()[1:, 0]", "a.view(12)[3:7].view(2, 2)", "i.view(2, 6)",
               "i[2:5]", "i.t()", "a.argmax(1)", "a.argmin(0, keepdim=True)", "a.argmax()",
               "b.argmin()", "a.argmax(-1, True)", "s.argmax()", "s.argmax(0)", "b.argmax(0)",
               "a[:2].argmin(1)", "a.clamp(min=0)", "a.clamp(-0.5, 0.5)", "b.clamp(max=1)",
               "a.clamp(0.25)", "a.clamp(-2 ** 40, 3)", "a.clamp(1, -1)", "b.to(torch.int32)",
               "b.half().double()", "b.to(torch.int64)", "b.half()", "i.float()",
               "i.to(torch.float64)", "a.to(torch.float32, copy=True)", "b.to(torch.bool)",
               "i.to(torch.int8)", "a.t().to(torch.float64)", "b.bfloat16().float()",
               "b.half().float()"]


def _operands(lib, dtype, grad=False):
    rng = np.random.default_rng(5)
    values = rng.standard_normal((3, 4)).astype(dtype)
    values[0, :2] = [0.0, -0.0]
    values[2, 3] = np.nan
    a = lib.tensor(values, requires_grad=grad)
    return {"a": a, "b": lib.tensor(values[1], requires_grad=grad), "torch": lib,
            "e": lib.zeros((0, 2), dtype=a.dtype), "s": lib.tensor(values[1, 1]),
            "i": lib.arange(12).view(3, 4)}


def _general(monkeypatch):
    for module in (math_methods, reductions, shape):
        monkeypatch.setattr(module, "unrecorded", lambda *args, **kwargs: None)


def _same_arrays(x, y):
    assert x.dtype == y.dtype and x.shape == y.shape
    bits = [np.ascontiguousarray(v).reshape(-1).view(np.uint8) for v in (x, y)]
    np.testing.assert_array_equal(*bits)  # as bits: -0.0 and nan payloads too


def _run(expr, dtype, grad):
    names = _operands(gradjit, dtype, grad)
    base = names["b" if expr.startswith("torch") else expr[0]]
    with gradjit.no_grad():
        out = eval(expr, {}, names)
        shares = out._base is not None and (out._base is base or out._base is base._base)
        version = out._version
        if shares:  # a view sees its base's writes and bumps the shared counter
            base.add_(1) if base.dtype.is_floating_point else base.mul_(2)
    return out, shares, out._version - version


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_unrecorded_is_the_general_path_bit_for_bit(expr, dtype, grad, monkeypatch):
    fast, fast_shares, fast_bump = _run(expr, dtype, grad)
    _general(monkeypatch)
    general, general_shares, general_bump = _run(expr, dtype, grad)
    _same_arrays(fast.detach().numpy(), general.detach().numpy())
    strides = [[s for s, n in zip(t._value.strides, t.shape) if n > 1] for t in (fast, general)]
    assert strides[0] == strides[1]  # numpy's strides of length-1 axes say nothing
    assert (fast_shares, fast_bump) == (general_shares, general_bump)
    # a view of a tensor that requires grad requires it too (torch's rule), with no history
    assert fast.grad_fn is None and fast.requires_grad == general.requires_grad


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_unrecorded_matches_torch(expr):
    out = {}
    for lib in (gradjit, torch):
        out[lib] = eval(expr, {}, _operands(lib, np.float32))
    ours, theirs = out[gradjit], out[torch]
    assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)
    assert ours.is_contiguous() == theirs.is_contiguous()
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("expr", ["a.relu()", "a.sum(1)", "a.mean()", "a.max()", "a.view(12)",
                                  "a.t()", "a[1:3]", "a[1]", "a.clone()", "a.unsqueeze(1)"])
def test_with_history_the_general_path_records_as_torch(expr, monkeypatch):
    calls = []
    for module in (math_methods, reductions, shape):
        monkeypatch.setattr(module, "unrecorded", lambda *args, **kwargs: calls.append(1))
    out, grads = {}, {}
    for lib in (gradjit, torch):
        names = _operands(lib, np.float64, True)
        y = eval(expr, {}, names)
        (y * lib.arange(y.numel(), dtype=y.dtype).view(y.shape)).nan_to_num().sum().backward()
        out[lib], grads[lib] = y, names["a"].grad
    assert out[gradjit].grad_fn.name() == out[torch].grad_fn.name()
    np.testing.assert_allclose(grads[gradjit].numpy(), grads[torch].numpy(), rtol=1e-12)


@pytest.mark.parametrize("expr", ["a.view(5)", "a.t().view(12)", "a.view(-1, -1)",
                                  "a.sum(2)", "a.sum((0, 0))", "a.mean(-3)", "a[3]",
                                  "a[:, 9]", "a[1, 2, 3]", "a.transpose(0, 2)", "a.permute(0, 0)",
                                  "a.unsqueeze(3)", "e.max()", "a.reshape(5, -1)", "e.argmax()",
                                  "e.argmax(0)", "a.argmin(2)"])
def test_refused_operands_raise_as_the_general_path(expr, monkeypatch):
    def error():
        with pytest.raises(Exception) as info:
            eval(expr, {}, _operands(gradjit, np.float32))
        return type(info.value), str(info.value)
    fast = error()
    _general(monkeypatch)
    assert fast == error()


@pytest.mark.parametrize("expr", ["a.t().view(12)", "e.max()"])
def test_refused_operands_raise_as_torch(expr):
    from tests.torch_reference import same_error
    same_error(lambda: eval(expr, {}, _operands(gradjit, np.float32)),
               lambda: eval(expr, {}, _operands(torch, np.float32)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_with_history_is_the_general_path_bit_for_bit(dtype, monkeypatch):
    """The recorded relu: ops.relu's primitives straight on the tensor (`direct`)."""
    def run():
        names = _operands(gradjit, dtype, True)
        y = names["a"].relu()
        (y * gradjit.arange(12.0, dtype=y.dtype).view(3, 4)).sum().backward()
        return y, names["a"].grad
    fast, fast_grad = run()
    monkeypatch.setattr(arith, "direct", lambda *args: None)
    general, general_grad = run()
    assert fast.grad_fn.name() == general.grad_fn.name() == "ReluBackward0"
    _same_arrays(fast.detach().numpy(), general.detach().numpy())
    _same_arrays(fast_grad.numpy(), general_grad.numpy())


def test_argmax_of_a_tensor_with_history_takes_numpy_and_is_no_view(monkeypatch):
    names = _operands(gradjit, np.float32, True)
    y = names["a"].argmax(1)
    assert y._base is None and not y.requires_grad and y.dtype == gradjit.int64
    theirs = _operands(torch, np.float32, True)["a"].argmax(1)
    np.testing.assert_array_equal(y.numpy(), theirs.numpy())
    _general(monkeypatch)
    np.testing.assert_array_equal(y.numpy(), names["a"].argmax(1).numpy())
