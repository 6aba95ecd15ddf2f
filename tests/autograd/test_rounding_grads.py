"""Autograd of rounding and discontinuous operations against PyTorch 2.13: whether the result
requires grad, its grad_fn graph down to the leaves, and the gradients (or error) backward gives."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")


def _in_place(x, method, *args, **kwargs):
    getattr(x, method)(*args, **kwargs)
    return x


def _floor_assign(x, y):
    x //= y
    return x


# name -> fn(lib, a, b) of two leaves that require grad (a of shape (2, 3), b of shape (3,))
CASES = {
    "div-floor": lambda t, a, b: a.div(b, rounding_mode="floor"),
    "div-trunc": lambda t, a, b: t.div(a, b, rounding_mode="trunc"),
    "divide-floor": lambda t, a, b: t.divide(a, b, rounding_mode="floor"),
    "div-none-given": lambda t, a, b: a.div(b, rounding_mode=None),
    "div-plain": lambda t, a, b: t.div(a, b),
    "div-number-floor": lambda t, a, b: a.div(2.0, rounding_mode="floor"),
    "div-number-trunc": lambda t, a, b: t.div(a, -2, rounding_mode="trunc"),
    "div_-floor": lambda t, a, b: _in_place(a * 1, "div_", b, rounding_mode="floor"),
    "div_-trunc-number": lambda t, a, b: _in_place(a * 1, "div_", 2, rounding_mode="trunc"),
    "div_-none-given": lambda t, a, b: _in_place(a * 1, "div_", b, rounding_mode=None),
    "floordiv": lambda t, a, b: a // b,
    "floordiv-number": lambda t, a, b: a // 2,
    "rfloordiv-number": lambda t, a, b: 2 // b,
    "floor_divide": lambda t, a, b: t.floor_divide(a, b),
    "floor_divide-number-first": lambda t, a, b: t.floor_divide(2.0, b),
    "floor_divide_": lambda t, a, b: _in_place(a * 1, "floor_divide_", b),
    "ifloordiv": lambda t, a, b: _floor_assign(a * 1, b),
    "remainder": lambda t, a, b: t.remainder(a, b),
    "remainder-number": lambda t, a, b: a.remainder(0.7),
    "mod": lambda t, a, b: a % b,
    "rmod-number": lambda t, a, b: 2 % b,
    "remainder-number-first": lambda t, a, b: t.remainder(2.0, b),
    "remainder_": lambda t, a, b: _in_place(a * 1, "remainder_", b),
    "fmod": lambda t, a, b: t.fmod(a, b),
    "fmod-number": lambda t, a, b: a.fmod(0.7),
    "fmod_": lambda t, a, b: _in_place(a * 1, "fmod_", b),
    **{f"{name}": (lambda name: lambda t, a, b: getattr(a, name)())(name)
       for name in ("floor", "ceil", "round", "trunc", "fix", "frac", "sign")},
    **{f"{name}_": (lambda name: lambda t, a, b: _in_place(a * 1, name + "_"))(name)
       for name in ("floor", "ceil", "round", "trunc", "frac", "sign")},
    "round-decimals": lambda t, a, b: a.round(decimals=1),
    "round_-decimals": lambda t, a, b: _in_place(a * 1, "round_", decimals=2),
    "clamp-numbers": lambda t, a, b: a.clamp(-0.5, 1.5),
    "clamp-at-bounds": lambda t, a, b: a.clamp(-2.5, 1.5),
    "clamp-tensors": lambda t, a, b: t.clamp(a, b - 1, b + 1),
    "clamp-tensor-none": lambda t, a, b: a.clamp(b, None),
    "clamp-none-tensor": lambda t, a, b: t.clamp(a, None, b),
    "clamp-number-none": lambda t, a, b: a.clamp(-0.5, None),
    "clip-none-number": lambda t, a, b: a.clip(None, 1.5),
    "clamp_-tensor-none": lambda t, a, b: _in_place(a * 1, "clamp_", b, None),
    "clamp_min": lambda t, a, b: a.clamp_min(-0.5),
    "clamp_max-tensor": lambda t, a, b: a.clamp_max(b),
    "clip": lambda t, a, b: a.clip(max=1.5),
    "clamp_": lambda t, a, b: _in_place(a * 1, "clamp_", -0.5, 1.5),
    "lt": lambda t, a, b: a < b,
    "eq": lambda t, a, b: t.eq(a, b),
    "ge-number": lambda t, a, b: a.ge(0),
    "ne_": lambda t, a, b: _in_place(a * 1, "ne_", b),
    "lt_-number": lambda t, a, b: _in_place(a * 1, "lt_", 0.5),
    "greater_equal_": lambda t, a, b: _in_place(a * 1, "greater_equal_", b),
    "eq_-integer-tensor": lambda t, a, b: _in_place(a * 1, "eq_", t.tensor([1, 6, 3])),
}

A = np.array([[1.5, -2.5, 3.7], [-0.3, 6.0, -4.5]])
B = np.array([0.7, 1.3, -2.0])


def _chain(fn):
    """A grad_fn as (name, children): the whole graph down to the leaves, in order."""
    if fn is None:
        return None
    return fn.name(), tuple(_chain(nxt) for nxt, _ in fn.next_functions)


def _leaves(lib, dtype):
    return [lib.tensor(x, dtype=dtype, requires_grad=True) for x in (A, B)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES)
def test_graph_and_gradients_as_torch(case, dtype):
    results = []
    for lib in (torch, gradjit):
        a, b = _leaves(lib, getattr(lib, dtype))
        out = CASES[case](lib, a, b)
        results.append((out, a, b))
    (t_out, t_a, t_b), (g_out, g_a, g_b) = results
    np.testing.assert_array_equal(g_out.detach().numpy(), t_out.detach().numpy())
    assert g_out.dtype == getattr(gradjit, str(t_out.dtype).split(".")[1])
    assert g_out.requires_grad == t_out.requires_grad
    assert _chain(g_out.grad_fn) == _chain(t_out.grad_fn)
    if not t_out.requires_grad:
        return
    weights = np.linspace(0.5, 1.5, A.size)[:t_out.numel()].reshape(tuple(t_out.shape))
    backward = [lambda lib=lib, out=out: out.backward(lib.tensor(weights, dtype=out.dtype))
                for lib, out in ((torch, t_out), (gradjit, g_out))]
    t_error, g_error = _raised(backward[0]), _raised(backward[1])
    assert (type(g_error), str(g_error)) == (type(t_error), str(t_error))
    if t_error is not None:
        return
    for g, t in ((g_a, t_a), (g_b, t_b)):
        assert (g.grad is None) == (t.grad is None)
        if t.grad is not None:
            np.testing.assert_allclose(g.grad.numpy(), t.grad.numpy(), rtol=1e-6)


def _raised(call):
    """The RuntimeError `call` raises, or None."""
    try:
        call()
    except RuntimeError as error:
        return error
    return None


def test_floor_divide_backward_says_it_has_no_derivative():
    a, b = _leaves(gradjit, gradjit.float32)
    with pytest.raises(RuntimeError, match=r"^derivative for aten::floor_divide is not impl"):
        (a // b).sum().backward()
    x = a * 1
    x //= b
    with pytest.raises(RuntimeError, match=r"^derivative for aten::floor_divide_ is not imp"):
        x.sum().backward()
    assert repr((a // b).grad_fn).startswith("<NotImplemented object at ")
    assert "grad_fn=<NotImplemented>" in repr(a // b)


@pytest.mark.parametrize("case", ["div-floor", "floordiv", "rmod-number", "floor_divide_"])
def test_no_grad_records_nothing(case):
    for lib in (torch, gradjit):
        a, b = _leaves(lib, lib.float32)
        with lib.no_grad():
            out = CASES[case](lib, a, b)
        assert not out.requires_grad and out.grad_fn is None


def test_integer_rounding_division_has_no_grad_fn():
    for mode in ("floor", "trunc"):
        t = torch.tensor([7, -7]).div(2, rounding_mode=mode)
        g = gradjit.tensor([7, -7]).div(2, rounding_mode=mode)
        assert g.tolist() == t.tolist() and g.dtype == gradjit.int64
        assert not g.requires_grad


def test_unknown_rounding_mode_raises_as_torch():
    same_error(lambda: gradjit.ones(2).div(2, rounding_mode="round"),
               lambda: torch.ones(2).div(2, rounding_mode="round"))


# fn(lib, x, y) -> a scalar, for torch.func.grad and gradjit.grad alike
TRACED = {
    "div-floor": lambda t, x, y: (x.div(y, rounding_mode="floor") * x).sum(),
    "div-trunc": lambda t, x, y: (t.div(x, 2.0, rounding_mode="trunc") + x * y).sum(),
    "rounding": lambda t, x, y: (x.floor() * x + x.ceil() + x.round() + x.trunc() + x.frac()
                                 + x.sign() * y + x.round(decimals=1) * y).sum(),
    "clamp": lambda t, x, y: (x.clamp(-1.0, 1.5) * y + t.clamp(x, y - 1, y + 1)).sum(),
    "remainder-fmod": lambda t, x, y: (t.remainder(x, y) + x.fmod(y) + (x % 0.7) * y).sum(),
    "comparison": lambda t, x, y: ((x < y) * x + (x >= 0) * y).sum(),
}


@pytest.mark.parametrize("case", TRACED)
def test_traced_gradients_as_torch_func(case):
    fn = TRACED[case]
    x, y = np.array([1.5, -2.5, 3.7, -0.3]), np.array([0.7, 1.3, -1.0, 0.9])
    expected = torch.func.grad(lambda a, b: fn(torch, a, b), argnums=(0, 1))(
        torch.tensor(x), torch.tensor(y))
    got = gradjit.grad(lambda a, b: fn(gradjit, a, b), argnums=(0, 1))(
        gradjit.tensor(x), gradjit.tensor(y))
    for g, t in zip(got, expected):
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-12)
    value = gradjit.jit(lambda a, b: fn(gradjit, a, b))(gradjit.tensor(x), gradjit.tensor(y))
    np.testing.assert_allclose(value.numpy(), fn(torch, torch.tensor(x), torch.tensor(y)))


@pytest.mark.parametrize("values", [[1.5 + 1j], [True]], ids=["complex", "bool"])
@pytest.mark.parametrize("call", [
    lambda t, x: x.div(x, rounding_mode="floor"), lambda t, x: x.div(2, rounding_mode="trunc"),
    lambda t, x: x // x, lambda t, x: t.remainder(x, x), lambda t, x: x.fmod(x),
    lambda t, x: 2 % x, lambda t, x: 2 // x])
def test_rounding_divisions_refuse_complex_and_bool_as_torch(call, values):
    try:
        expected = call(torch, torch.tensor(values))
    except NotImplementedError:
        same_error(lambda: call(gradjit, gradjit.tensor(values)),
                   lambda: call(torch, torch.tensor(values)))
        return
    np.testing.assert_array_equal(call(gradjit, gradjit.tensor(values)).numpy(), expected)
