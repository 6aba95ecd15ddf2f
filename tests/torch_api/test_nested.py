"""torch.nested against torch, in the strided and the jagged layout: construction, reprs,
sizes, padding, elementwise ops, softmax, transpose, matmul, attention, gradients through
to_padded_tensor and unbind, and torch's refusals."""
import re

import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
SHAPES = [(2, 3), (4, 3), (1, 3)]
ARRAYS = [RNG.uniform(0.1, 0.9, s) for s in SHAPES]
LAYOUTS = ["strided", "jagged"]


def make(t, layout="strided", arrays=ARRAYS, **kwargs):
    return t.nested.nested_tensor([t.tensor(a) for a in arrays], layout=getattr(t, layout),
                                  **kwargs)


def padded(t, nt):
    return t.nested.to_padded_tensor(nt, 0.0).detach().numpy()


def same_values(call, layout, rtol=1e-12):
    got, want = (call(t, make(t, layout)) for t in (gradjit, torch))
    assert got.is_nested and want.is_nested and got.dim() == want.dim()
    for g, w in zip(got.unbind(), want.unbind(), strict=True):
        assert str(g.dtype) == str(w.dtype)
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=rtol)


def plain(text):
    """A jagged repr without its ragged symbol's number, which counts every offsets made."""
    return re.sub(r"j\d+", "j", text)


@pytest.mark.parametrize("build", [
    lambda t: make(t), lambda t: make(t, dtype=t.float32),
    lambda t: make(t, requires_grad=True), lambda t: make(t, requires_grad=True) * 2,
    lambda t: t.nested.nested_tensor([[1, 2], [3]]),
    lambda t: t.nested.nested_tensor([t.ones(2), t.ones(3, dtype=t.float64)]),
    lambda t: t.nested.nested_tensor([]), lambda t: t.nested.as_nested_tensor(t.ones(2, 2, 2)),
    lambda t: t.nested.as_nested_tensor([t.ones(2, requires_grad=True), t.zeros(1)]),
])
def test_strided_repr(build):
    got, want = build(gradjit), build(torch)
    assert repr(got) == repr(want) and got.is_leaf == want.is_leaf


@pytest.mark.parametrize("build", [
    lambda t: make(t, "jagged"), lambda t: make(t, "jagged", requires_grad=True),
    lambda t: make(t, "jagged").transpose(1, 2), lambda t: make(t, "jagged").exp(),
])
def test_jagged_repr(build):
    assert plain(repr(build(gradjit))) == plain(repr(build(torch)))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_sizes(layout):
    got, want = make(gradjit, layout), make(torch, layout)
    assert got.dim() == want.dim() and got.numel() == want.numel() and got.is_nested
    assert str(got.layout) == str(want.layout)
    for d in (0, 2, -1, -3):
        assert got.size(d) == want.size(d)
    if layout == "jagged":
        assert plain(repr(got.shape)) == plain(repr(want.shape)) and len(got) == len(want)
        assert plain(repr(got.size(1))) == plain(repr(want.size(1)))
        np.testing.assert_array_equal(got.offsets().numpy(), want.offsets().numpy())
        np.testing.assert_array_equal(got.values().numpy(), want.values().numpy())
    for g, w in zip(got.unbind(), want.unbind()):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("padding, size", [(0.0, None), (-1.5, (3, 5, 4)), (2, (4, 4, 3)),
                                           (1, (3, 2, 3))])
def test_to_padded_tensor(layout, padding, size):
    if layout == "strided" and size == (3, 2, 3):  # jagged ones truncate, strided refuse
        same_error(lambda: make(gradjit).to_padded_tensor(padding, size),
                   lambda: make(torch).to_padded_tensor(padding, size))
        return
    got = gradjit.nested.to_padded_tensor(make(gradjit, layout), padding, size)
    want = torch.nested.to_padded_tensor(make(torch, layout), padding, size)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    method = make(gradjit, layout).to_padded_tensor(padding, size)
    np.testing.assert_array_equal(method.numpy(), want.numpy())


UNARY = ["abs", "neg", "sqrt", "sin", "cos", "tanh", "relu", "exp", "log", "sigmoid",
         "reciprocal", "erf", "square", "double"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", UNARY)
def test_unary(name, layout):
    call = lambda t, nt: getattr(nt, name)()  # noqa: E731
    try:
        call(torch, make(torch, layout))
    except NotImplementedError as error:  # strided kernels cover fewer ops: refused alike
        with pytest.raises(NotImplementedError) as info:
            call(gradjit, make(gradjit, layout))
        assert str(error).startswith(str(info.value))
        return
    same_values(call, layout)


BINARY = {
    "add": lambda t, a: a + a, "sub": lambda t, a: a - a * 2, "mul": lambda t, a: a * a,
    "div": lambda t, a: t.div(a, a + 1), "add_number": lambda t, a: a + 1.5,
    "rmul_number": lambda t, a: 3 * a, "rsub_number": lambda t, a: 1 - a,
    "rdiv_number": lambda t, a: 1 / a,
    "gt_number": lambda t, a: a > 0.5, "lt": lambda t, a: a < a.sqrt(),
    "pow_number": lambda t, a: a ** 2, "maximum": lambda t, a: t.maximum(a, a.cos()),
    "sin_function": lambda t, a: t.sin(a),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", BINARY)
def test_binary(name, layout):
    call = BINARY[name]
    try:
        call(torch, make(torch, layout))
    except NotImplementedError as error:
        with pytest.raises(NotImplementedError) as info:
            call(gradjit, make(gradjit, layout))
        assert str(error).startswith(str(info.value))
        return
    same_values(call, layout)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("call", [
    lambda t, a: a.softmax(-1), lambda t, a: a.softmax(1),
    lambda t, a: t.nn.functional.softmax(a, 2), lambda t, a: a.transpose(1, 2),
    lambda t, a: a.transpose(-1, -2).softmax(1), lambda t, a: t.nn.functional.relu(a - 0.5),
])
def test_softmax_and_transpose(call, layout):
    same_values(call, layout)


def test_matmul_per_component():
    others = [RNG.standard_normal((3, k)) for k in (2, 2, 2)]
    for method in ("matmul", "bmm"):
        got, want = (getattr(make(t), method)(make(t, arrays=others)) for t in (gradjit, torch))
        np.testing.assert_allclose(padded(gradjit, got), padded(torch, want), rtol=1e-12)
    dense = RNG.standard_normal((3, 4))
    got, want = (t.matmul(make(t, "jagged"), t.tensor(dense)) for t in (gradjit, torch))
    np.testing.assert_allclose(padded(gradjit, got), padded(torch, want), rtol=1e-12)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("causal", [False, True])
def test_scaled_dot_product_attention(layout, causal):
    lengths, heads, width = (3, 5), 2, 4
    arrays = [RNG.standard_normal((3, n, heads, width)) for n in lengths]

    def attend(t):
        # torch's CPU kernels take jagged (batch, heads, ragged, width) views and contiguous
        # strided inputs
        q, k, v = (t.nested.nested_tensor([t.tensor(a[i]) for a in arrays],
                                          layout=getattr(t, layout)).transpose(1, 2)
                   if layout == "jagged" else t.nested.nested_tensor(
                       [t.tensor(a[i].transpose(1, 0, 2)) for a in arrays]) for i in range(3))
        return t.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    if causal:  # no CPU kernel of torch's takes a causal mask over nested inputs
        same_error(lambda: attend(gradjit), lambda: attend(torch))
        return
    got, want = attend(gradjit), attend(torch)
    for g, w in zip(got.unbind(), want.unbind()):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_gradients_through_to_padded_tensor_and_unbind(layout):
    weights = RNG.standard_normal((3, 4, 3))
    grads = {}
    for t in (gradjit, torch):
        leaves = [t.tensor(a, requires_grad=True) for a in ARRAYS]
        nt = t.nested.as_nested_tensor(leaves, layout=getattr(t, layout))
        out = t.nested.to_padded_tensor(nt.softmax(-1) * 2 + nt, 0.0)
        parts = (nt * nt).unbind()
        loss = (out * t.tensor(weights)).sum() + parts[0].sum() + 3 * parts[2].sum()
        loss.backward()
        grads[t] = [leaf.grad.numpy() for leaf in leaves]
    for g, w in zip(grads[gradjit], grads[torch]):
        np.testing.assert_allclose(g, w, rtol=1e-10)


def test_leaf_nested_tensor_gets_a_nested_gradient():
    grads = {}
    for t in (gradjit, torch):
        nt = make(t, requires_grad=True)
        assert nt.is_leaf and nt.requires_grad
        (t.nested.to_padded_tensor(nt * nt + nt.sin(), 0.0) ** 2).sum().backward()
        grads[t] = nt.grad
    assert grads[gradjit].is_nested
    np.testing.assert_allclose(padded(gradjit, grads[gradjit]), padded(torch, grads[torch]),
                               rtol=1e-12)


ERRORS = {
    "not_a_list": lambda t: t.nested.nested_tensor(t.ones(2, 2)),
    "mixed_ranks": lambda t: t.nested.nested_tensor([t.ones(2, 2), t.ones(3)]),
    "mixed_ranks_jagged": lambda t: t.nested.nested_tensor([t.ones(2, 2), t.ones(3)],
                                                           layout=t.jagged),
    "empty_jagged": lambda t: t.nested.nested_tensor([], layout=t.jagged),
    "scalars_jagged": lambda t: t.nested.nested_tensor([t.tensor(1.0)], layout=t.jagged),
    "bad_layout": lambda t: t.nested.nested_tensor([t.ones(2)], layout=t.sparse_coo),
    "as_nested_of_numbers": lambda t: t.nested.as_nested_tensor([1, 2]),
    "as_nested_of_a_vector": lambda t: t.nested.as_nested_tensor(t.ones(3)),
    "as_nested_other_layout": lambda t: t.nested.as_nested_tensor(make(t), layout=t.jagged),
    "sizes": lambda t: make(t).size(), "shape": lambda t: make(t).shape,
    "len": lambda t: len(make(t)), "irregular_size": lambda t: make(t).size(1),
    "size_out_of_range": lambda t: make(t).size(3),
    "unbind_dim_1": lambda t: make(t).unbind(1),
    "unbind_dim_1_jagged": lambda t: make(t, "jagged").unbind(1),
    "softmax_dim_0": lambda t: make(t).softmax(0),
    "softmax_dim_0_jagged": lambda t: make(t, "jagged").softmax(0),
    "transpose_dim_0": lambda t: make(t).transpose(0, 1),
    "transpose_dim_0_jagged": lambda t: make(t, "jagged").transpose(1, 0),
    "matmul_dense": lambda t: make(t).matmul(t.ones(3, 2)),
    "add_dense": lambda t: make(t) + t.ones(3),
    "eq_nested": lambda t: make(t) == make(t),
    "padded_size_length": lambda t: make(t).to_padded_tensor(0.0, (3, 4)),
    "padded_size_truncates": lambda t: make(t).to_padded_tensor(0.0, (3, 3, 3)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


@pytest.mark.parametrize("call", [
    lambda t: make(t, "jagged").matmul(make(t, "jagged").transpose(1, 2)),
    lambda t: make(t, "jagged") + t.ones(4, 3),
    lambda t: make(t, "jagged").transpose(1, 2).softmax(-1),
    lambda t: make(t).transpose(1, 2).to_padded_tensor(0.0),
    lambda t: t.nn.functional.scaled_dot_product_attention(*[make(t).transpose(1, 2)] * 3),
])
def test_refusals_naming_a_ragged_size(call):
    """Refused as torch refuses, the ragged symbols' numbers aside."""
    messages = []
    for t in (gradjit, torch):
        with pytest.raises(RuntimeError) as info:
            call(t)
        messages.append(plain(str(info.value)))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("call", [lambda nt: nt.sum(), lambda nt: nt.mean(),
                                  lambda nt: nt.amax(-1), lambda nt: nt[:, 0],
                                  lambda nt: nt.new_zeros(3)])
def test_strided_refusals_name_the_kernel(call):
    """torch's dispatcher names the kernel a strided nested tensor lacks (then lists the
    backends that have it, which gradjit leaves out)."""
    with pytest.raises(NotImplementedError) as want:
        call(make(torch))
    with pytest.raises(NotImplementedError) as got:
        call(make(gradjit))
    assert str(want.value).startswith(str(got.value))


def test_missing_attribute():
    for t in (gradjit, torch):
        with pytest.raises(AttributeError):
            make(t).no_such_method()


def _dense(t, value):
    return [c.detach().numpy() for c in value.unbind()] if value.is_nested else \
        [value.detach().numpy()]


# (reduction, whether torch can differentiate it: its jagged sums over a dim have no backward)
JAGGED_REDUCTIONS = [
    (lambda nt: nt.sum(-1, keepdim=True), False), (lambda nt: nt.sum(2), False),
    (lambda nt: nt.mean(-1), True), (lambda nt: nt.amax(-1, keepdim=True), True),
    (lambda nt: nt.amin(2), True), (lambda nt: nt.sum(1), False),
    (lambda nt: nt.mean(1, keepdim=True), False), (lambda nt: nt.amax(1), True),
    (lambda nt: nt.sum((0, 1)), False), (lambda nt: nt.mean((1, 0), keepdim=True), False),
    (lambda nt: nt.sum(), True), (lambda nt: nt.mean(), True),
    (lambda nt: nt.transpose(1, 2).sum(1), False), (lambda nt: nt.transpose(1, 2).amax(2), True),
]


@pytest.mark.parametrize("call, differentiable", JAGGED_REDUCTIONS)
def test_jagged_reductions_and_their_gradients(call, differentiable):
    results = {}
    for t in (gradjit, torch):
        leaves = [t.tensor(a, requires_grad=differentiable) for a in ARRAYS]
        out = call(t.nested.as_nested_tensor(leaves, layout=t.jagged))
        results[t] = _dense(t, out), []
        if differentiable:
            total = sum((c * (i + 1)).sum() for i, c in enumerate(out.unbind())) \
                if out.is_nested else (out * t.arange(1, out.numel() + 1)
                                       .reshape(out.shape)).sum()
            total.backward()
            results[t] = results[t][0], [leaf.grad.numpy() for leaf in leaves]
    for got, want in zip(*(sum(results[t], []) for t in (gradjit, torch)), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-10)


def test_strided_sum_of_the_last_dim():
    got, want = (make(t).sum(-1, keepdim=True) for t in (gradjit, torch))
    assert repr(got) == repr(want)


REDUCTION_ERRORS = {
    "strided_not_last": lambda t: make(t).sum(1, keepdim=True),
    "strided_two_dims": lambda t: make(t).sum((1, 2), keepdim=True),
    "strided_no_keepdim": lambda t: make(t).sum(-1),
    "jagged_batch_alone": lambda t: make(t, "jagged").sum(0),
    "jagged_batch_and_other": lambda t: make(t, "jagged").mean((0, 2)),
    "jagged_ragged_and_other": lambda t: make(t, "jagged").amax((1, 2)),
}


@pytest.mark.parametrize("name", REDUCTION_ERRORS)
def test_reduction_errors(name):
    same_error(lambda: REDUCTION_ERRORS[name](gradjit), lambda: REDUCTION_ERRORS[name](torch))


@pytest.mark.parametrize("call", [lambda nt: nt.mean(-1, keepdim=True), lambda nt: nt.amax(-1)])
def test_strided_reductions_refused(call):
    with pytest.raises(NotImplementedError) as want:
        call(make(torch))
    with pytest.raises(NotImplementedError) as got:
        call(make(gradjit))
    assert str(want.value).startswith(str(got.value))
