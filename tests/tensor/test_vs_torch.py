"""Differential tests: the same programs on gradjit and on PyTorch 2.13.0 (CPU) give the same
values, gradients, dtypes, shapes, flags, grad_fn names and printed forms, and raise the same
exception types. Skipped where PyTorch is not installed."""
import math

import numpy as np
import pytest

import gradjit

torch = pytest.importorskip("torch")

rng = np.random.default_rng(7)
A = rng.standard_normal((3, 4)).astype(np.float32)
B = rng.standard_normal((4, 2)).astype(np.float32)
V = rng.standard_normal(4).astype(np.float32)
P = rng.uniform(0.5, 2.0, (3, 4)).astype(np.float32)
I = rng.integers(-5, 6, (3, 4))


def leaf(t, array, grad=True):
    return t.tensor(array.copy(), requires_grad=grad)


def with_grads(t, fn, *arrays):
    """fn's outputs, then the gradient of their weighted sum with respect to each input."""
    xs = [leaf(t, a) for a in arrays]
    outs = fn(t, *xs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    total = sum((o * (1.0 + t.arange(o.numel()).reshape(o.shape))).sum() for o in outs
                if o.requires_grad)
    if not isinstance(total, int):
        total.backward()
    return (*outs, *(x.grad for x in xs))


PROGRAMS = {
    # arithmetic, promotion, broadcasting
    "add_scalar": lambda t: with_grads(t, lambda t, x: (x + 2, 2 + x, x - 1, 1 - x), A),
    "mul_div": lambda t: with_grads(t, lambda t, x, p: (x * 3, 3 * x, x / p, 2 / p, x * p), A, P),
    "pow": lambda t: with_grads(t, lambda t, p, x: (p ** 2, 2 ** x, p ** x, p.pow(0.5)), P, A),
    "alpha": lambda t: with_grads(t, lambda t, x, p: (t.add(x, p, alpha=2),
                                                     t.sub(x, p, alpha=0.5)), A, P),
    "broadcast": lambda t: with_grads(t, lambda t, x, v: (x + v, x * v[None], v - x), A, V),
    "promotion": lambda t: (t.tensor(I) + 1.5, t.tensor(I) / 2, t.tensor(I) * t.tensor(2.5),
                            t.tensor(I) + t.tensor(A, dtype=t.float64), t.tensor([True]) + 1,
                            t.tensor(I, dtype=t.int32) + t.tensor(I), t.tensor(I) // 3,
                            t.tensor(I) % 4, t.tensor(A) + t.tensor(1, dtype=t.float64),
                            t.tensor(I, dtype=t.int32) * 2, t.tensor(I) > 0.5),
    "compare": lambda t: (t.tensor(A) > 0, t.tensor(A) == t.tensor(A), t.tensor(I).eq(2),
                          (t.tensor(A) > 0) & (t.tensor(A) < 1), ~(t.tensor(A) > 0),
                          t.tensor(A).ne(0).all(), (t.tensor(A) > 2).any(),
                          t.tensor(A).gt(0).all(dim=1)),
    # math
    "unary": lambda t: with_grads(t, lambda t, x, p: (x.exp(), p.log(), p.sqrt(), x.sin(),
                                                     x.cos(), x.tanh(), x.sigmoid(), x.relu(),
                                                     x.abs(), -x, x.square(), p.reciprocal(),
                                                     p.rsqrt(), x.expm1(), p.log1p()), A, P),
    "functions": lambda t: with_grads(t, lambda t, x: (t.exp(x), t.abs(x), t.tanh(x),
                                                      t.sigmoid(x), t.relu(x), t.sin(x)), A),
    "clamp_where": lambda t: with_grads(t, lambda t, x: (x.clamp(-0.5, 0.5), x.clamp(min=0),
                                                        t.clamp(x, max=0.2),
                                                        t.where(x > 0, x, 0.0),
                                                        t.where(x > 0, x * 2, x)), A),
    "rounding": lambda t: with_grads(t, lambda t, x: (x.floor(), x.ceil(), x.round(),
                                                     x.trunc(), x.sign(), (x * 3).floor() * x),
                                     A),
    "integer_outputs": lambda t: (lambda x: (x.long(), x > 0, x.argmax(), x.max(1).indices,
                                             x.int().sum()))(leaf(t, A)),
    "int_math": lambda t: (t.tensor(I).exp(), t.tensor(I).abs(), t.tensor(I).clamp(-1, 2),
                           t.tensor(I).sum(), t.tensor(I).max(), t.tensor(I).float().mean()),
    # reductions
    "reductions": lambda t: with_grads(t, lambda t, x: (x.sum(), x.sum(0), x.sum(dim=1,
                                                        keepdim=True), x.mean(), x.mean(1),
                                                        x.norm(), x.norm(dim=0), x.max(),
                                                        x.min(), x.amax(1), x.logsumexp(1),
                                                        x.softmax(0), x.log_softmax(1),
                                                        x.var(), x.std(1)), A),
    "max_dim": lambda t: (lambda r: (r.values, r.indices))(leaf(t, A).max(1)),
    "min_dim": lambda t: (lambda r: (r.values, r.indices))(leaf(t, A).min(0, keepdim=True)),
    "arg": lambda t: (t.tensor(A).argmax(), t.tensor(A).argmin(1), t.tensor(A).argmax(0, True)),
    "max_binary": lambda t: with_grads(t, lambda t, x, p: (t.max(x, p), t.maximum(x, p),
                                                          t.minimum(x, p)), A, P),
    "sum_dtype": lambda t: (t.tensor(A).sum(dtype=t.float64), t.tensor(I).sum(1),
                            t.tensor([True, True]).sum()),
    # products
    "mm": lambda t: with_grads(t, lambda t, a, b: (t.mm(a, b), a @ b, a.matmul(b)), A, B),
    "matvec": lambda t: with_grads(t, lambda t, a, v: (a @ v, v @ a.T, t.dot(v, v), a.mv(v)),
                                   A, V),
    "batched": lambda t: with_grads(t, lambda t, a, b: t.matmul(a.reshape(1, 3, 4).expand(2, 3, 4),
                                                                 b), A, B),
    "int_mm": lambda t: (t.mm(t.tensor(I), t.tensor(I).T), t.tensor(I) @ t.tensor(I)[0]),
    # shapes and views
    "views": lambda t: with_grads(t, lambda t, x: (x.view(12), x.view(-1, 6), x.reshape(2, 6),
                                                  x.T, x.t(), x.transpose(0, 1),
                                                  x.permute(1, 0), x.unsqueeze(0),
                                                  x.unsqueeze(-1).squeeze(), x[None].squeeze(0),
                                                  x.flatten(), x.t().reshape(12),
                                                  x.expand(2, 3, 4), x.clone(),
                                                  x.t().contiguous()), A),
    "indexing": lambda t: with_grads(t, lambda t, x: (x[0], x[1:], x[:, 1], x[0, 1:3],
                                                     x[..., ::2], x[None, 1], x[[0, 2]],
                                                     x[x > 0], x[t.tensor([2, 0])],
                                                     x[1, -1], x[-2:, :-1]), A),
    "cat_stack": lambda t: with_grads(t, lambda t, x, p: (t.cat((x, p)), t.cat([x, p], dim=1),
                                                         t.stack((x, p)), t.stack([x, p], 1)),
                                      A, P),
    "to_dtype": lambda t: with_grads(t, lambda t, x: (x.to(t.float64), x.double(), x.float(),
                                                     x.to(t.float64).sum()), A),
    "conversions": lambda t: (t.tensor(A).long(), t.tensor(I).float(), t.tensor(I).bool(),
                              t.tensor(A).int(), t.tensor(I).to(t.float64)),
    # in-place operations and their autograd
    "inplace_nonleaf": lambda t: with_grads(t, _inplace_nonleaf, A, P),
    "setitem_nonleaf": lambda t: with_grads(t, _setitem_nonleaf, A, V),
    "view_inplace": lambda t: with_grads(t, _view_inplace, A),
    "base_inplace": lambda t: with_grads(t, _base_inplace, A),
    "t_": lambda t: with_grads(t, lambda t, x: (lambda y: (y.t_(), y * 2))(x * 1), A),
    "inplace_plain": lambda t: _inplace_plain(t),
    # autograd
    "retain_grad": lambda t: _retain_grad(t),
    "higher_order": lambda t: _higher_order(t),
    "autograd_grad": lambda t: _autograd_grad(t),
    "accumulate": lambda t: _accumulate(t),
    "no_grad": lambda t: _no_grad(t),
}


def _inplace_nonleaf(t, x, p):
    y = x * 1
    y.add_(p)
    y.mul_(2)
    z = p.exp() + 0
    z.sub_(1, alpha=2)
    w = x.sigmoid() * 1
    w.tanh_()
    return y, z, w


def _setitem_nonleaf(t, x, v):
    y = x * 1
    y[0] = 5.0
    y[1, 1:3] = v[:2]
    y[:, 0] = y[:, 1] * 2
    return y


def _view_inplace(t, x):
    y = x * 1
    view = y[1:]
    view.mul_(3)
    other = y.view(-1)
    other[2] = 0.0
    return y, view, other


def _base_inplace(t, x):
    y = x * 1
    view = y[:, 1]
    y.mul_(2)
    return view * 1, y


def _inplace_plain(t):
    z = t.zeros(3, 4)
    z += t.tensor(A)
    z.sub_(1).clamp_(min=-0.5)
    z[0].fill_(3)
    z[1:, 2:].zero_()
    q = t.tensor(I)
    q.mul_(2).add_(t.tensor(I))
    q.copy_(t.tensor(A))
    r = t.tensor(A).t_()
    s = t.ones(2, 3).unsqueeze_(0)
    return z, q, r, s, z._version, q._version


def _retain_grad(t):
    x = leaf(t, A)
    y = x * 2
    y.retain_grad()
    z = (y * y).sum()
    z.backward()
    return y.grad, x.grad, y.retains_grad


def _higher_order(t):
    x = leaf(t, P)
    y = (x ** 3 * x.sin()).sum()
    (g,) = t.autograd.grad(y, x, create_graph=True)
    (h,) = t.autograd.grad(g.sum(), x, create_graph=True)
    h.sum().backward()
    return g, h, x.grad


def _autograd_grad(t):
    x, w = leaf(t, A), leaf(t, V)
    y = (x @ w).tanh()
    gx, gw = t.autograd.grad(y, (x, w), grad_outputs=t.ones(3), retain_graph=True)
    (gx2,) = t.autograd.grad(y.sum(), x, retain_graph=True)
    unused = t.autograd.grad(y.sum(), [x, leaf(t, V)], allow_unused=True)
    return gx, gw, gx2, unused[0], x.grad


def _accumulate(t):
    x = leaf(t, A)
    grad = None
    for _ in range(3):
        (x * x).sum().backward()
        grad = grad if grad is not None else x.grad
    same = grad is x.grad
    x.grad.zero_()
    (x.exp() * 2).mean().backward()
    return x.grad, same


def _no_grad(t):
    x = leaf(t, A)
    with t.no_grad():
        a = x * 2
    with t.enable_grad():
        b = x * 2
    t.set_grad_enabled(False)
    c = x * 2
    t.set_grad_enabled(True)
    d = x.detach() * 2
    return a, b, c, d, x.detach().requires_grad, x.data.requires_grad


def summary(value):
    """What a program shows about a value: for a tensor its printed form, dtype, shape,
    flags, grad_fn name and values."""
    if isinstance(value, (tuple, list)):
        return [summary(v) for v in value]
    if hasattr(value, "requires_grad"):
        fn = value.grad_fn
        return {"repr": repr(value), "dtype": str(value.dtype), "shape": tuple(value.shape),
                "requires_grad": value.requires_grad, "is_leaf": value.is_leaf,
                "grad_fn": None if fn is None else type(fn).__name__,
                "values": value.detach().numpy().copy()}
    return value


def compare(ours, theirs, where="result"):
    if isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), where
        for i, (o, t) in enumerate(zip(ours, theirs)):
            compare(o, t, f"{where}[{i}]")
        return
    if isinstance(theirs, dict):
        assert isinstance(ours, dict), f"{where}: {ours!r} is not a tensor"
        for key in ("dtype", "shape", "requires_grad", "is_leaf", "grad_fn"):
            assert ours[key] == theirs[key], f"{where} {key}: {ours[key]} != {theirs[key]}"
        np.testing.assert_allclose(ours["values"], theirs["values"], rtol=2e-5, atol=1e-5,
                                   err_msg=where)
        if ours["values"].dtype.kind != "f" or np.allclose(ours["values"], theirs["values"],
                                                            rtol=1e-7, atol=0):
            assert ours["repr"] == theirs["repr"], where
        return
    assert ours == theirs, where


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_pytorch(name):
    program = PROGRAMS[name]
    compare(summary(program(gradjit)), summary(program(torch)), name)


PRINTED = [
    lambda t: t.tensor([1e-5, 1.0]), lambda t: t.tensor([1e10, 1.0]),
    lambda t: t.tensor([math.nan, 1.5, math.inf]), lambda t: t.tensor([100.0, 1e5]),
    lambda t: t.tensor(3.0), lambda t: t.tensor([-0.0, 2.0]), lambda t: t.tensor([]),
    lambda t: t.zeros(0, 3), lambda t: t.tensor([], dtype=t.int64),
    lambda t: t.ones(2, dtype=t.int32), lambda t: t.arange(2000.0),
    lambda t: t.arange(1200).reshape(30, 40), lambda t: t.tensor([True, False]),
    lambda t: t.tensor([[1, -200], [3, 4]]), lambda t: t.tensor(5),
    lambda t: t.tensor(2.5, dtype=t.float64), lambda t: t.ones(3, 30),
    lambda t: t.tensor([123456.789, 0.001]), lambda t: t.tensor([[0.1, 0.25], [1e-3, 5.0]]),
    lambda t: t.tensor([1.0, 2.0, 3.0]) * 1e8, lambda t: t.tensor([1e-4, 1.0]),
    lambda t: t.tensor([0.5, 1000.0]), lambda t: t.tensor([[math.inf, -math.inf]]),
    lambda t: t.tensor([math.nan]), lambda t: t.arange(24).reshape(2, 3, 4) * 1.5,
    lambda t: t.tensor(A).reshape(2, 2, 3) * 1000, lambda t: t.linspace(0, 1, 7),
    lambda t: t.arange(10, dtype=t.float64) / 3, lambda t: t.tensor([[1e-8]]),
    lambda t: t.ones(40, 40), lambda t: t.arange(1001) - 500,
    lambda t: t.ones(2, 2, requires_grad=True) * 1e-3, lambda t: t.tensor(-7),
    lambda t: t.tensor([1, 2], dtype=t.int32).reshape(1, 2, 1),
    lambda t: t.tensor([[0.5, 2.0], [8.0, 16.0]], dtype=t.float64, requires_grad=True),
    lambda t: t.zeros(2, 0, dtype=t.float64), lambda t: t.ones(12) * 123.456,
]


@pytest.mark.parametrize("index", range(len(PRINTED)))
def test_printing_matches_pytorch(index):
    assert repr(PRINTED[index](gradjit)) == repr(PRINTED[index](torch))


ERRORS = {
    "broadcast": lambda t: t.ones(2, 3) + t.ones(4),
    "mm_shapes": lambda t: t.mm(t.ones(3, 4), t.ones(3, 4)),
    "mm_dtypes": lambda t: t.mm(t.ones(3, 3), t.ones(3, 3, dtype=t.long)),
    "matmul_shapes": lambda t: t.ones(3, 4) @ t.ones(3, 4),
    "dot_sizes": lambda t: t.dot(t.ones(3), t.ones(4)),
    "view_size": lambda t: t.ones(6).view(4, 2),
    "view_stride": lambda t: t.ones(2, 3).t().view(6),
    "int_requires_grad": lambda t: t.ones(2, dtype=t.long, requires_grad=True),
    "int_requires_grad_set": lambda t: t.arange(3).requires_grad_(),
    "nonscalar_backward": lambda t: (t.ones(3, requires_grad=True) * 2).backward(),
    "no_grad_backward": lambda t: t.ones(2).sum().backward(),
    "leaf_inplace": lambda t: t.ones(3, requires_grad=True).add_(1),
    "leaf_setitem": lambda t: t.ones(3, requires_grad=True).__setitem__(0, 5.0),
    "leaf_view_inplace": lambda t: t.ones(3, requires_grad=True)[:2].mul_(2),
    "second_backward": lambda t: _twice(t, lambda x: (x * x).sum()),
    "second_backward_mm": lambda t: _twice(t, lambda x: t.mm(x.T, x).sum()),
    "version_output": lambda t: _modified(t, lambda x: x.exp(), lambda y: y.add_(1)),
    "version_input": lambda t: _modified(t, lambda x: (x * 1) * (x * 1), None),
    "int_iadd_float": lambda t: t.arange(3).__iadd__(1.5),
    "out_requires_grad": lambda t: t.add(t.ones(3, requires_grad=True), 1, out=t.empty(3)),
    "nonleaf_requires_grad": lambda t: setattr(t.ones(2, requires_grad=True) * 2,
                                               "requires_grad", False),
    "grad_unused": lambda t: t.autograd.grad((t.ones(2, requires_grad=True) * 2).sum(),
                                             [t.ones(2, requires_grad=True)]),
    "grad_no_requires": lambda t: t.autograd.grad((t.ones(2, requires_grad=True) * 2).sum(),
                                                  [t.ones(2)]),
    "gradient_shape": lambda t: (t.ones(3, requires_grad=True) * 2).backward(t.ones(2)),
    "item_many": lambda t: t.ones(2).item(),
    "bool_many": lambda t: bool(t.ones(2)),
    "index_range": lambda t: t.ones(2)[5],
    "mean_int": lambda t: t.arange(3).mean(),
    "norm_int": lambda t: t.arange(3).norm(),
    "cat_shapes": lambda t: t.cat([t.ones(2, 3), t.ones(2, 4)]),
    "stack_shapes": lambda t: t.stack([t.ones(2, 3), t.ones(2, 4)]),
    "max_empty": lambda t: t.tensor([]).max(),
    "negative_int_power": lambda t: t.tensor(2) ** -1,
    "numpy_requires_grad": lambda t: t.ones(2, requires_grad=True).numpy(),
    "t_3d": lambda t: t.ones(2, 2, 2).t(),
    "dim_range": lambda t: t.ones(2, 3).sum(2),
}


def _twice(t, f):
    y = f(t.ones(3, 3, requires_grad=True))
    y.backward()
    y.backward()


def _modified(t, f, modify):
    x = t.ones(3, requires_grad=True)
    a = x * 1
    y = f(a) if modify else a * a
    (modify or (lambda _: a.add_(1)))(y)
    y.sum().backward()


def assert_errors_match(call):
    """call(torch) and call(gradjit) both raise, gradjit's exception a torch's type (the test
    of every table of failing calls against PyTorch)."""
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(Exception) as ours:
        call(gradjit)
    assert ours.type is theirs.type or issubclass(ours.type, theirs.type), \
        f"{ours.type.__name__}({ours.value}) vs {theirs.type.__name__}({theirs.value})"


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_pytorch(name):
    assert_errors_match(ERRORS[name])


def test_second_backward_without_saved_tensors_is_allowed():
    """PyTorch only refuses when a freed saved tensor is needed; x + 2 saves none."""
    for t in (gradjit, torch):
        x = t.ones(3, requires_grad=True)
        y = (x + 2).sum()
        y.backward()
        y.backward()
        assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_modified_operand_not_needed_for_gradient_is_allowed():
    for t in (gradjit, torch):
        x = t.ones(3, requires_grad=True)
        a = x * 1
        y = a * t.ones(3)
        a.add_(1)
        y.sum().backward()
        assert x.grad.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("call", [
    lambda t: t.ones(3, 4) + t.ones(2, 5),
    lambda t: t.ones(3, 4) * t.ones(3, 4, 5),
    lambda t: t.ones(2, 1, 3) - t.ones(4, 2),
    lambda t: t.ones(3, 4, requires_grad=True) / t.ones(2, 4),
    lambda t: t.ones(3, 4).mul(t.ones(2, 4)),
    lambda t: t.where(t.ones(3, 4) > 0, t.ones(2, 4), 0.0),
    lambda t: t.ones(5, dtype=t.long) + t.ones(3, dtype=t.long),
])
def test_broadcast_errors_are_worded_as_pytorch_words_them(call):
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(RuntimeError) as ours:
        call(gradjit)
    assert str(ours.value) == str(theirs.value)
