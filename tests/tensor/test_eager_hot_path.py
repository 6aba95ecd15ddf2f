"""The eager hot path (float32/float64 operands of one dtype and shape evaluated by numpy
directly, numbers lifted only for backward, fill_ without history) against PyTorch 2.13:
values bit for bit, dtypes, gradients, grad_fn names, versions and the errors around it."""
import numpy as np
import pytest

import gradjit
from gradjit.ir import primitive
from gradjit.tensor import arith, base, fused, hot_path, math_methods

torch = pytest.importorskip("torch")

EXPRESSIONS = ["a + b", "a - b", "a * b", "a / b", "a + 2", "a - 2.5", "3 * a", "1 - a",
               "2.5 / a", "a / 3", "a * -1", "(a * b + 1.5) / (a - b)", "a ** 2", "2 ** a",
               "a.clamp(min=0)", "a.clamp(-0.5, 0.5)", "a.clamp(max=1)", "(a * b).clamp(0.25)",
               "a.clamp(min=b)", "a.mm(b.T)", "b[0, :3].addmm(a, b.T)", "(a @ b.T).addmm(a, b.T)",
               "a.take_along_dim(b.argsort(1)[:, :2], 1)", "a.take_along_dim(b.argmax(0)[None], 0)",
               "lib.nn.functional.cross_entropy(a, b.argmax(1))", "a.log_softmax(1)",
               "(a + b).softmax(0) * b",
               "lib.nn.functional.nll_loss(a, b.argmax(1), ignore_index=0, reduction='none')",
               "lib.nn.functional.nll_loss(a.log_softmax(1), b.argmax(1), reduction='sum')"]


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
    # numpy's power, exp and BLAS products may differ from PyTorch's in the last bits; + - * /
    # and clamp may not
    inexact = any(k in expr for k in ("**", "mm", "cross", "softmax"))
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(),
                               rtol=1e-5 if inexact else 0)
    if "mm" in expr:  # the products' operands, in torch's order
        assert [type(n).__name__ for n, _ in y.grad_fn.next_functions] == \
            [type(n).__name__ for n, _ in ty.grad_fn.next_functions]
    np.testing.assert_allclose(ga.numpy(), tga.numpy(), rtol=1e-6, atol=1e-7 if inexact else 0)
    assert (gb is None) == (tgb is None)


def test_hot_path_skips_the_general_evaluation_and_agrees_with_it(monkeypatch):
    a, b = _pair(gradjit, np.float32, True)
    calls = []
    for name in ("evaluate_plain", "evaluate_general"):  # numpy's evaluation, as bind runs it
        evaluate = getattr(primitive, name)
        monkeypatch.setattr(primitive, name, lambda *args, evaluate=evaluate:
                            calls.append(args) or evaluate(*args))

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
    _general(monkeypatch)
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
            "a /= 7", "a.add_(a)", "a.sub_(b)", "a.mul_(-1.5)", "a.add_(b, alpha=-0.01)",
            "a.sub_(b, alpha=0.3)", "a.add_(b, alpha=4)", "a.add_(b, alpha=-1.0)",
            "a.sub_(b, alpha=-1)", "a.add_(a, alpha=1)", "a.sub_(b, alpha=1e-40)"]


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


@pytest.mark.parametrize("shape", [(257, 300), (2, 40001), (70001,), ()])
@pytest.mark.parametrize("layout", ["contiguous", "transposed target", "transposed other"])
def test_scaled_in_place_on_many_blocks_is_the_general_path_and_torch(layout, shape,
                                                                      monkeypatch):
    """add_ with alpha on float32 goes through float64 a block of rows at a time: a parameter
    larger than a block (not a multiple of it, rows longer than it, any strides) rounds as
    the whole-array general path."""
    rng = np.random.default_rng(5)
    w, g = (rng.standard_normal(shape).astype(np.float32) for _ in range(2))

    def run(lib):
        a, b = lib.tensor(w), lib.tensor(g)
        if layout != "contiguous" and len(shape) == 2:
            a, b = (a.T, b.T.contiguous()) if layout == "transposed target" else \
                (a.T.contiguous(), b.T)
        a.add_(b, alpha=-0.0123)
        a.sub_(b, alpha=3.7)
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
    for name in ("evaluate_plain", "evaluate_general"):  # numpy's evaluation, as bind runs it
        evaluate = getattr(primitive, name)
        monkeypatch.setattr(primitive, name, lambda *args, evaluate=evaluate:
                            calls.append(args) or evaluate(*args))
    _ = a * b + 2.0
    assert calls == [] and str(gradjit.zeros(1).device) == "cpu"


# ---- the flat path of single-ufunc operations: bit for bit the general path and PyTorch ----

ELEMENTWISE = ["a + b", "a - b", "a * b", "a / b", "a == b", "a != b", "a < b", "a <= b",
               "a > b", "a >= b", "a + 2", "2 + a", "a - 2.5", "1 - a", "3 * a", "a / 3",
               "a * -1", "a < 0.1", "0.1 < a", "a == 0", "a + 2 ** 62", "-a", "abs(a)",
               "a.exp()", "a.expm1()", "a.log()", "a.log1p()", "a.sqrt()", "a.sin()",
               "a.cos()", "a.tan()", "a.tanh()", "a.neg()", "a + row", "row * a", "a > row",
               "a + s", "s * a", "s - s", "s.exp()", "(s + 1) / a", "a[1] * b[0]", "a.T + b.T",
               "a + b[::2]", "a + True", "a + b.double()", "a.double() - s", "a + 2 ** 70",
               "a + odd", "odd < a", "a.int() + 1", "a.int() * b.int()", "a.bool() + 1",
               "a.half() + b", "(a > 0) * a", "a + b.numpy()", "a + [1.0, 2, 3, 4]",
               # operations whose primitives take the flat path inside their scope
               "a.clamp(-0.5, 0.5)", "a.relu()", "lib.sigmoid(b)", "(b * b + 1).rsqrt()",
               "a.square()",
               # the methods and torch functions of the arithmetic operators
               "lib.add(a, b)", "lib.sub(2, a)", "lib.mul(a, row)", "lib.div(a, 3)",
               "lib.true_divide(1.5, a)", "lib.multiply(i, j)", "lib.subtract(a, b[::2])",
               "lib.add(a, [1.0, 2, 3, 4])", "a.add(b)", "a.sub(b, alpha=2)", "a.mul(s)",
               "a.div(b)", "lib.add(i, a)",
               "lib.nn.functional.mse_loss(a, b)", "lib.nn.functional.softplus(b)",
               "lib.nn.functional.softmax(b, 1)", "lib.nn.functional.gelu(b)",
               "lib.nn.functional.silu(row) * s", "b.pow(3) - a.exp()", "b.sum(1) * row[:3]",
               # int64: + - * and comparisons with ints of its range take the flat path
               "i + 1", "1 - i", "i * 3", "i * j", "i - j", "i == 2", "i != j", "i < j",
               "2 >= i", "-i", "abs(i)", "i + 2 ** 63 - 1", "i + 2 ** 63", "i - 2 ** 70",
               "i + 2.5", "i / 2", "i * True", "i + a", "i.exp()", "i + j[0]", "i + j.int()"]


def _operands(lib, dtype, grad, finite=False):
    """a and b (3 x 4) with signed zeros, infinities, nan and negatives (finite: nan and
    infinities replaced); a row (4,), a 0-d s and a (2, 4) odd that broadcasts with none of
    them; a and b require grad if `grad`."""
    a = np.array([[0.0, -0.0, 1.5, -2.25], [np.inf, -np.inf, np.nan, 3.0],
                  [1e-3, -7.0, 0.5, 100.0]], dtype)
    b = np.array([[1.0, 2.0, -0.0, 0.0], [3.0, np.inf, -1.0, 0.25], [-2.5, 1e3, 0.5, -0.1]],
                 dtype)
    if finite:
        a, b = np.nan_to_num(a, posinf=5.0, neginf=-4.0), np.nan_to_num(b, posinf=6.0)
    row, s, odd = np.array([0.5, -1.0, 2.0, 0.0], dtype), np.array(1.25, dtype), \
        np.ones((2, 4), dtype)
    i, j = np.array([[3, -2, 0, 7], [1, 5, -9, 2], [0, 0, 4, -1]]), np.arange(-6, 6).reshape(3, 4)
    made = {k: lib.tensor(v) for k, v in dict(a=a, b=b, row=row, s=s, odd=odd, i=i, j=j).items()}
    if grad:
        made["a"].requires_grad_()
        made["b"].requires_grad_()
    return made


def _run(lib, expr, dtype, grad, finite=False):
    """expr's result with its dtype, requires_grad, grad_fn and next_functions names, and the
    gradients of its weighted sum, or the error it raises."""
    names = _operands(lib, dtype, grad, finite)
    try:
        y = eval(expr, {"lib": lib}, names)
    except Exception as error:  # noqa: BLE001 (compared with the other library's)
        return type(error), str(error)
    fn = y.grad_fn
    seen = (str(y.dtype), y.requires_grad, y.is_leaf, fn and fn.name(),
            fn and [n and n.name() for n, _ in fn.next_functions])
    grads = ()
    if y.requires_grad:
        weights = lib.linspace(0.5, 1.5, y.numel()).reshape(tuple(y.shape)).to(y.dtype)
        (y * weights).sum().backward()
        grads = tuple(None if names[k].grad is None else names[k].grad.numpy()
                      for k in ("a", "b"))
    return y.detach().numpy(), seen, grads


def _general(monkeypatch):
    """Operators and bare primitives (VJP rules in backward) through the general path."""
    monkeypatch.setattr(arith, "elementwise", lambda *args: None)
    monkeypatch.setattr(math_methods, "kept", lambda *args: None)
    monkeypatch.setattr(hot_path, "bound", lambda *args: None)


def _no_evaluation(monkeypatch):
    """Fail where a primitive is evaluated by numpy through bind (the general path)."""
    for name in ("evaluate_plain", "evaluate_general"):
        monkeypatch.setattr(primitive, name, lambda *args: pytest.fail("general path"))


def _same_arrays(x, y):
    assert x.dtype == y.dtype and x.shape == y.shape
    bits = [np.ascontiguousarray(v).reshape(-1).view(np.uint8) for v in (x, y)]
    np.testing.assert_array_equal(*bits)  # as bits: -0.0 and nan payloads too


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("expr", ELEMENTWISE)
def test_flat_elementwise_is_the_general_path_bit_for_bit(expr, dtype, grad, monkeypatch):
    fast = _run(gradjit, expr, dtype, grad)
    _general(monkeypatch)
    general = _run(gradjit, expr, dtype, grad)
    if isinstance(general[0], type):  # an error: the same one
        assert fast == general
        return
    _same_arrays(fast[0], general[0])
    assert fast[1] == general[1]
    assert len(fast[2]) == len(general[2])
    for f, g in zip(fast[2], general[2]):
        assert (f is None) == (g is None)
        if f is not None:
            _same_arrays(f, g)


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("expr", [e for e in ELEMENTWISE if "numpy" not in e and "[1.0" not in e])
def test_flat_elementwise_matches_torch(expr, grad):
    """On finite operands (casting nan to int and abs' gradient at nan are PyTorch's own
    business); errors by type (the general path words a broadcasting error its own way)."""
    ours, theirs = (_run(lib, expr, np.float32, grad, finite=True) for lib in (gradjit, torch))
    if isinstance(theirs[0], type):
        assert ours[0] is theirs[0]
        return
    assert ours[1] == theirs[1]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=2e-6)
    for f, g in zip(ours[2], theirs[2]):
        assert (f is None) == (g is None)
        if f is not None:  # tan's and exp's derivatives at 7 to 100 differ in libm's bits
            np.testing.assert_allclose(f, g, rtol=1e-4)


@pytest.mark.parametrize("expr", ["lib.add(a, b)", "lib.sub(2.5, a)", "a.mul(b)", "a.div(3)",
                                  "lib.true_divide(a, b)", "a.add(b, alpha=1)"])
def test_arithmetic_methods_and_functions_take_the_operators_path(expr, monkeypatch):
    def general(*args, **kwargs):
        raise AssertionError("the general path ran")
    monkeypatch.setattr(arith, "apply", general)
    a, b = _pair(gradjit, np.float32, True)
    y = eval(expr, {"lib": gradjit, "a": a, "b": b})
    a, b = _pair(torch, np.float32, True)
    ty = eval(expr, {"lib": torch, "a": a, "b": b})
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    assert y.grad_fn.name() == ty.grad_fn.name() and \
        [n and n.name() for n, _ in y.grad_fn.next_functions] == \
        [n and n.name() for n, _ in ty.grad_fn.next_functions]


def test_flat_results_of_views_and_in_place_writes_keep_histories_and_versions(monkeypatch):
    """A view whose base was written in place is cut from the new history; a saved operand
    written in place afterwards is caught at backward; parameters give plain Tensors."""
    def run():
        x = gradjit.tensor([1.0, -2.0, 3.0, 0.5], requires_grad=True)
        base = x * 1
        view = base[1:3]
        base.mul_(x)
        y = view.exp() + view
        y.sum().backward(retain_graph=True)
        grad = x.grad.numpy().copy()
        with gradjit.no_grad():
            y.add_(1)  # y's Add record saved nothing of y; exp's output is still current
        z = y.sin()
        with gradjit.no_grad():
            y.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation") as error:
            z.sum().backward()
        p = gradjit.nn.Parameter(gradjit.ones(4))
        q = p * 2 + p
        return (y.detach().numpy(), grad, y._version, view._version, type(q).__name__,
                q.grad_fn.name(), str(error.value))
    fast = run()
    _general(monkeypatch)
    general = run()
    for f, g in zip(fast, general):
        if isinstance(f, np.ndarray):
            _same_arrays(f, g)
        else:
            assert f == g


def test_flat_path_inside_modes(monkeypatch):
    """no_grad, inference_mode and a dual level see the same results as the general path."""
    def run():
        a = gradjit.tensor([0.5, -1.5], requires_grad=True)
        with gradjit.no_grad():
            plain = a * 3
        with gradjit.inference_mode():
            inferred = a + 1
        import gradjit.autograd.forward_ad as fwAD
        with fwAD.dual_level():
            dual = fwAD.make_dual(gradjit.tensor([1.0, 2.0]), gradjit.tensor([0.5, 0.25]))
            tangent = fwAD.unpack_dual((dual * dual).sin()).tangent.numpy()
        return (plain.requires_grad, inferred.is_inference(), inferred.requires_grad,
                tangent.tolist())
    fast = run()
    _general(monkeypatch)
    assert fast == run()


def test_a_bare_primitive_on_tensors_is_the_general_path(monkeypatch):
    """Primitives bound to tensors outside a named operation (VJP rules in backward) keep
    their shape rule's refusal of shapes that differ and their own grad_fn names."""
    from gradjit.ir import elementwise as E
    from gradjit.ir.primitive import ShapeError

    def run():
        a = gradjit.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
        with pytest.raises(ShapeError) as info:
            E.add(a, gradjit.ones(3))
        y = E.cos(E.mul(2.0, a))
        y.sum().backward()
        return (str(info.value), y.grad_fn.name(),
                [n.name() for n, _ in y.grad_fn.next_functions], y.detach().numpy().tobytes(),
                a.grad.numpy().tobytes())
    fast = run()
    _general(monkeypatch)
    assert fast == run()


WHERE = ["E.where(a > 0, a, 0)", "E.where(a > 0, 0.5, a)", "E.where(a > 0, b, a)",
         "E.where(c, a, b)", "E.where(c, b.detach(), a)", "E.where(a > 0, a, -2 ** 70)",
         "E.where(c, a, b.numpy())", "E.where(c.numpy(), b.numpy(), a)", "E.where(c, a, True)",
         "E.where(a > 0, a, b[0])", "E.where(a.T > 0, a, b)", "E.where(c, a, b.double())",
         "E.where(c, lib.nn.Parameter(a.detach()), 1)", "E.where(c, a[1:], 0)",
         "E.where(c, a[:, :1].expand(3, 4), b)", "E.where(lib.tensor([1, 0, 1]) > 0, 2, 3)"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("expr", WHERE)
def test_where_bound_to_tensors_is_the_general_path_bit_for_bit(expr, dtype, monkeypatch):
    """The where primitive on tensors (relu's and VJP rules' masks) as np.where: values,
    classes, grad_fn names, operands and gradients as the general path gives them."""
    from gradjit.ir import elementwise as E

    def run():
        a, b = _pair(gradjit, dtype, True)
        c = gradjit.tensor(np.arange(12).reshape(3, 4) % 3 == 0)
        try:
            y = eval(expr, {"lib": gradjit, "E": E}, dict(a=a, b=b, c=c))
        except Exception as error:  # noqa: BLE001 (compared with the general path's)
            return (type(error), str(error))
        if y.grad_fn is None:
            return type(y), y.numpy().tobytes(), y.dtype
        (y * y).sum().backward()
        return (type(y), y.detach().numpy().tobytes(), y.dtype, y.grad_fn.name(),
                [n and n.name() for n, _ in y.grad_fn.next_functions],
                [t.grad.numpy().tobytes() for t in (a, b) if t.grad is not None])
    fast = run()
    _general(monkeypatch)
    assert fast == run()


def test_where_takes_the_flat_path(monkeypatch):
    from gradjit.ir import elementwise as E
    _no_evaluation(monkeypatch)
    a, _ = _pair(gradjit, np.float32, True)
    y = E.where(a > 0, a, 0)
    assert y.grad_fn.name() == "WhereBackward0"


TAKEN = [[1, 0], [3, 3], [0, -4]], [[2, 0, 1, 1], [0, 0, 2, 1]]
DIRECT = ["gradjit.addmm(c, a, b.T)", "gradjit.addmm(c[0], a, b.T)",
          "gradjit.nn.functional.linear(a, b, c[0])", "a.mm(b.T)",
          "a.take_along_dim(lib.tensor(TAKEN[0]), 1)", "a.take_along_dim(lib.tensor(TAKEN[1]), -2)",
          "a.take_along_dim(lib.tensor(TAKEN[1])[:, None, 1:3], 0)",
          "lib.nn.functional.cross_entropy(a, lib.tensor([3, 0, 1]))", "a.softmax(1)",
          "b.softmax(-2)", "a.log_softmax(1)", "b.log_softmax(0)", "c.log_softmax(3)",
          "(a * c[0, 0]).softmax(1.0)", "(lib.tensor(EDGES, dtype=a.dtype) + a).log_softmax(1)",
          "(lib.tensor(EDGES, dtype=a.dtype) + a).softmax(0)", "a.log_softmax(1, lib.float64)",
          "lib.nn.functional.nll_loss(a, lib.tensor([3, -100, 1]))",
          "lib.nn.functional.nll_loss(a, lib.tensor([3, 0, 1]), reduction='sum')",
          "lib.nn.functional.nll_loss(a, lib.tensor([2, 2, 0]), ignore_index=2, reduction='none')",
          "lib.nn.functional.nll_loss(a, lib.tensor([-100, -100, -100]))",
          "lib.nn.functional.nll_loss(a, lib.tensor([3, 4, 1]))",
          "lib.nn.functional.nll_loss(a, lib.tensor([3, -1, 1]))",
          "lib.nn.functional.nll_loss(a, lib.tensor([3, 0]))",
          "lib.nn.functional.nll_loss(a, lib.tensor([3, 0, 1]), reduction='max')",
          "a.relu()", "(a - a).relu()", "a.clamp(-0.5, 0.5)", "a.clamp(max=1)", "a.clamp(0, 0)",
          "a.clamp(1, -1)", "(lib.tensor(EDGES, dtype=a.dtype) + a).relu()",
          "(lib.tensor(EDGES, dtype=a.dtype) + a).clamp(0.25, 3)", "a.sum()", "a.sum(1)",
          "b.sum((0, 1), keepdim=True)", "a.sum(-1, True)", "c[0, 0].sum()", "a.t().sum(0)"]
EDGES = [[-np.inf] * 4, [0.0, np.inf, 1.0, -np.inf], [np.nan, 2.0, 3.0, 4.0]]


# The fused operations' VJPs are closed forms, which round differently from the general
# path's composition: their gradients are compared within rounding (and with torch's below).
FUSED_WORDS = ("softmax", "cross_entropy")


def _direct(lib, expr, dtype):
    """expr's result and the gradients of its squares' sum, or the error it raises."""
    a, b = _pair(lib, dtype, True)
    c = lib.tensor(np.linspace(-1, 1, 9, dtype=dtype).reshape(3, 3), requires_grad=True)
    try:
        y = eval(expr, {"lib": lib, "TAKEN": TAKEN, "EDGES": EDGES},
                 dict(a=a, b=b, c=c, gradjit=lib))
    except Exception as error:  # noqa: BLE001 (compared with the general path's)
        return (type(error), str(error)), []
    (y * y).sum().backward()
    return y, [t.grad.numpy() for t in (a, b, c) if t.grad is not None]


def _general_direct(monkeypatch):
    from gradjit.tensor import contract, reductions
    monkeypatch.setattr(contract, "direct_floats", lambda *args: None)
    monkeypatch.setattr(reductions, "_flat_positions", lambda *args: None)
    monkeypatch.setattr(arith, "direct", lambda *args: None)
    monkeypatch.setattr(math_methods, "normalized", lambda *args: None)
    monkeypatch.setattr(math_methods, "kept", lambda *args: None)
    monkeypatch.setattr(fused, "class_picks", lambda *args: None)
    monkeypatch.setattr(fused, "addmm", lambda *args: None)
    monkeypatch.setattr(fused, "fused", lambda *args: None)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("expr", DIRECT)
def test_direct_operations_are_the_general_path_bit_for_bit(expr, dtype, monkeypatch):
    fast, fast_grads = _direct(gradjit, expr, dtype)
    _general_direct(monkeypatch)
    general, general_grads = _direct(gradjit, expr, dtype)
    if isinstance(fast, tuple):
        assert fast == general
        return
    _same_arrays(fast.detach().numpy(), general.detach().numpy())
    assert fast.grad_fn.name() == general.grad_fn.name() and len(fast_grads) == len(general_grads)
    closed_form = any(word in expr for word in FUSED_WORDS)
    for f, g in zip(fast_grads, general_grads):
        if closed_form:
            np.testing.assert_allclose(f, g, rtol=1e-5, atol=1e-7)
        else:
            _same_arrays(f, g)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("expr", [e for e in DIRECT if any(w in e for w in FUSED_WORDS + (
    "nll", "relu", "clamp", "sum", ".t()"))])
def test_fused_operations_match_torch(expr, dtype):
    """Values, grad_fn names and operands, gradients and errors, rows holding infinities and
    nan (log_softmax's +inf rows are nan throughout) and means over no kept target (nan, with
    a zero gradient) among them."""
    (ours, grads), (theirs, their_grads) = (_direct(lib, expr, dtype) for lib in (gradjit, torch))
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and ours[0] is theirs[0]
        return
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6)
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    assert [n and n.name() for n, _ in ours.grad_fn.next_functions] == \
        [n and n.name() for n, _ in theirs.grad_fn.next_functions]
    assert len(grads) == len(their_grads)
    for f, g in zip(grads, their_grads):
        np.testing.assert_allclose(f, g, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("expr", ["a.log_softmax(1)", "a.softmax(0)", "a.relu() * a",
                                  "a.clamp(-0.5, 0.5).exp()",
                                  "lib.nn.functional.cross_entropy(a, lib.tensor([3, 0, 1]))",
                                  "lib.nn.functional.nll_loss(a.softmax(1), lib.tensor([3, 0, "
                                  "-100]), reduction='none')"])
def test_fused_operations_differentiate_twice_and_forward_as_torch(expr):
    """create_graph=True records the closed-form VJPs, so second derivatives (and forward-mode
    tangents, pushed by double backward) are torch's."""
    results = []
    for lib in (gradjit, torch):
        a, b = _pair(lib, np.float64, True)
        y = eval(expr, {"lib": lib}, dict(a=a))
        (g,) = lib.autograd.grad((y * y).sum(), a, create_graph=True)
        (h,) = lib.autograd.grad((g * b).sum(), a)
        with lib.autograd.forward_ad.dual_level():
            dual = lib.autograd.forward_ad.make_dual(a.detach(), b.detach())
            tangent = lib.autograd.forward_ad.unpack_dual(eval(expr, {"lib": lib},
                                                               dict(a=dual))).tangent
        results.append([t.detach().numpy() for t in (g, h, tangent)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_fused_operations_are_one_record_each(monkeypatch):
    """log_softmax and nll_loss of class indices evaluate no primitive forward; the general
    path's primitives remain for traced values."""
    _no_evaluation(monkeypatch)
    a, _ = _pair(gradjit, np.float32, True)
    loss = gradjit.nn.functional.cross_entropy(a, gradjit.tensor([3, 0, 1]))
    assert loss.grad_fn.name() == "NllLossBackward0"
    assert [len(n._records) for n in (loss.grad_fn, loss.grad_fn.next_functions[0][0])] == [1, 1]
    with gradjit.device("meta"):
        placed = gradjit.ones(3, 4)
    target = gradjit.tensor([3, 0, 1])
    assert fused.class_picks(a, target, -100) is not None
    assert fused.class_picks(placed, target, -100) is None  # the general path places it


def test_a_fused_transpose_is_a_view_of_its_base():
    """w.t() of a leaf that requires grad: one record, sharing w's storage and version; an
    in-place write through it is refused as PyTorch refuses it."""
    seen = []
    for lib in (gradjit, torch):
        w = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        v = w.t()
        names = v.grad_fn.name(), [n.name() for n, _ in v.grad_fn.next_functions]
        with lib.no_grad():
            w.mul_(2)
        with pytest.raises(RuntimeError) as error:
            v.add_(1)
        (v * v).sum().backward()
        seen.append((names, v._version, v.detach().numpy().tolist(), w.grad.numpy().tolist(),
                     str(error.value)))
    assert seen[0] == seen[1]


def test_fused_operations_trace_as_their_primitives():
    """Under gradjit.value_and_grad the tensors hold traced values: the primitives are traced
    and differentiated as before."""
    def loss(x, t):
        return gradjit.nn.functional.cross_entropy(x.softmax(1) * x, t)
    x0 = np.random.default_rng(4).standard_normal((5, 3)).astype(np.float32)
    target = [2, 0, 1, 1, 0]
    compiled = gradjit.value_and_grad(loss)
    value, grad = compiled(gradjit.tensor(x0), gradjit.tensor(target))
    t = torch.tensor(x0, requires_grad=True)
    expected = torch.nn.functional.cross_entropy(t.softmax(1) * t, torch.tensor(target))
    expected.backward()
    assert compiled.cache_info().misses == 1
    np.testing.assert_allclose(value.numpy(), expected.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-6)


LOGICAL = ["E.logical_or(a > 0, b > 0)", "E.logical_and(a > 0, b < 0)", "E.logical_not(a > 0)",
           "E.logical_or(a > 0, (b > 0).numpy())", "E.logical_or(a > 0, 1)",
           "E.logical_and(a > 0, 0)", "E.logical_or(a > 0, b[0] > 0)", "E.logical_or(a > 0, b)",
           "E.logical_and(a > 0, a.T[:3, :3] > 0)", "E.logical_not(a)"]


@pytest.mark.parametrize("expr", LOGICAL)
def test_logical_primitives_on_bool_tensors_are_the_general_path(expr, monkeypatch):
    """The bool masks of VJP rules' guards take the flat path: the general path's values,
    dtypes, classes and errors."""
    from gradjit.ir import elementwise as E

    def run():
        a, b = _pair(gradjit, np.float32, True)
        try:
            y = eval(expr, {"E": E}, dict(a=a, b=b))
        except Exception as error:  # noqa: BLE001 (compared with the general path's)
            return (type(error), str(error))
        return type(y), y.dtype, y.requires_grad, y.numpy().tobytes()
    fast = run()
    _general(monkeypatch)
    assert fast == run()


def test_logical_primitives_take_the_flat_path(monkeypatch):
    from gradjit.ir import elementwise as E
    monkeypatch.setattr(primitive, "evaluate_plain", lambda *args: pytest.fail("general path"))
    a, b = _pair(gradjit, np.float32, True)
    assert E.logical_or(a > 0, b > 0).dtype is gradjit.bool
