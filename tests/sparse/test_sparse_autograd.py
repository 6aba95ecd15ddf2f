"""Gradients through sparse operations against PyTorch: grad_fn names, the layout of each
gradient (sparse at the operand's pattern, or strided) and its values."""
import warnings

import numpy as np
import pytest

import gradjit

torch = pytest.importorskip("torch")
warnings.filterwarnings("ignore", message="Sparse invariant checks")

INDICES = [[0, 1, 1, 0], [2, 0, 2, 2]]


def leaf(t, coalesced=False):
    s = t.sparse_coo_tensor(t.tensor(INDICES), t.tensor([3.0, 4.0, 5.0, 6.0]), (2, 3))
    return (s.coalesce() if coalesced else s).requires_grad_()


def weighted(t, out):
    """A scalar of out whose gradient differs element by element."""
    dense = out.to_dense() if out.is_sparse else out
    return (dense * t.arange(1.0, dense.numel() + 1.0).reshape(dense.shape)).sum()


OPS = {
    "to_dense": lambda t, s: s.to_dense(),
    "to_dense_unmasked": lambda t, s: s.to_dense(masked_grad=False),
    "coalesce_values": lambda t, s: s.coalesce().values(),
    "sparse_mm": lambda t, s: t.sparse.mm(s, t.ones(3, 2)),
    "method_sum": lambda t, s: s.sum(),
    "mul_dense": lambda t, s: s * t.arange(6.0).reshape(2, 3),
    "mm": lambda t, s: t.mm(s, t.arange(6.0).reshape(3, 2)),
    "matmul": lambda t, s: t.matmul(s, t.ones(3, 2)),
    "addmm": lambda t, s: t.addmm(t.zeros(2, 2), s, t.ones(3, 2)),
    "sparse_addmm": lambda t, s: t.sparse.addmm(t.zeros(2, 2), s, t.ones(3, 2)),
    "sum": lambda t, s: t.sparse.sum(s),
    "sum_dim": lambda t, s: t.sparse.sum(s, 1),
    "t": lambda t, s: s.t(),
    "transpose": lambda t, s: s.transpose(0, 1),
    "clone": lambda t, s: s.clone(),
    "mul": lambda t, s: s * 2,
    "neg": lambda t, s: -s,
    "to": lambda t, s: s.to(t.float64),
    "add": lambda t, s: s + s,
    "softmax": lambda t, s: t.sparse.softmax(s, 1),
    "log_softmax": lambda t, s: t.sparse.log_softmax(s, 1),
    "relu": lambda t, s: s.relu(),
    "abs": lambda t, s: s.abs(),
    "pow": lambda t, s: s.pow(2),
    "sparse_product": lambda t, s: t.sparse.mm(s, t.sparse_coo_tensor(
        [[0, 1, 2], [1, 0, 1]], [1.0, -2.0, 3.0], (3, 2))),
}


def _grads(lib, op, coalesced):
    s = leaf(lib, coalesced)
    out = op(lib, s)
    weighted(lib, out).backward()
    return out, s.grad


@pytest.mark.parametrize("coalesced", [False, True], ids=["uncoalesced", "coalesced"])
@pytest.mark.parametrize("op", OPS.values(), ids=OPS)
def test_gradient_of_a_sparse_leaf(op, coalesced):
    (t_out, t_grad), (g_out, g_grad) = (_grads(lib, op, coalesced) for lib in (torch, gradjit))
    assert type(g_out.grad_fn).__name__ == type(t_out.grad_fn).__name__
    assert g_grad.is_sparse == t_grad.is_sparse
    if t_grad.is_sparse:
        assert g_grad.is_coalesced() == t_grad.is_coalesced()
        assert repr(g_grad.coalesce()) == repr(t_grad.coalesce())
    np.testing.assert_allclose(g_grad.to_dense().numpy(), t_grad.to_dense().numpy(),
                               rtol=1e-6)


def test_gradient_reaches_the_values_of_a_constructed_tensor():
    def run(t):
        values = t.tensor([3.0, 4.0, 5.0, 6.0], requires_grad=True)
        s = t.sparse_coo_tensor(t.tensor(INDICES), values, (2, 3))
        weighted(t, s).backward()
        return s, values.grad
    (t_s, t_grad), (g_s, g_grad) = run(torch), run(gradjit)
    assert type(g_s.grad_fn).__name__ == type(t_s.grad_fn).__name__ and not g_s.is_leaf
    np.testing.assert_array_equal(g_grad.numpy(), t_grad.numpy())


def test_to_sparse_gradient_is_strided():
    def run(t):
        x = t.tensor([[0.0, 1.0], [2.0, 0.0]], requires_grad=True)
        y = x.to_sparse()
        y.to_dense().sum().backward()
        return y, x.grad
    (t_y, t_grad), (g_y, g_grad) = run(torch), run(gradjit)
    assert type(g_y.grad_fn).__name__ == type(t_y.grad_fn).__name__
    np.testing.assert_array_equal(g_grad.numpy(), t_grad.numpy())


def test_mm_gradient_of_the_dense_operand():
    def run(t):
        d = t.arange(6.0).reshape(3, 2).requires_grad_()
        t.mm(leaf(t), d).sum().backward()
        return d.grad
    np.testing.assert_array_equal(run(gradjit).numpy(), run(torch).numpy())


@pytest.mark.parametrize("op", [lambda t, s: s.narrow_copy(1, 0, 2),
                                lambda t, s: s.index_select(1, t.tensor([2, 0])),
                                lambda t, s: s.sum(0), lambda t, s: s[1]],
                         ids=["narrow_copy", "index_select", "sum", "select"])
def test_backwards_torch_cannot_form(op):
    def fails(lib):
        out = op(lib, leaf(lib))
        with pytest.raises(Exception) as info:
            weighted(lib, out).backward()
        return type(out.grad_fn).__name__, info.type, str(info.value)
    t_name, t_type, t_message = fails(torch)
    g_name, g_type, g_message = fails(gradjit)
    assert (g_name, g_type) == (t_name, t_type) and t_message.startswith(g_message)


def test_sparse_product_gradient_of_the_second_operand():
    def run(t):
        b = t.sparse_coo_tensor([[0, 1, 2], [1, 0, 1]], [1.0, -2.0, 3.0], (3, 2),
                                requires_grad=True)
        weighted(t, t.sparse.mm(leaf(t), b)).backward()
        return repr(b.grad.coalesce())
    assert run(gradjit) == run(torch)


def test_leaf_values_alias_has_no_history():
    g = leaf(gradjit)
    assert g._values().grad_fn is None and not g._values().requires_grad
    assert repr(g) == repr(leaf(torch))


def hybrid_leaf(t):
    return t.sparse_coo_tensor(t.tensor([[2, 0, 2]]), t.tensor([[1.0, 2.0], [3.0, 4.0],
                                                                [5.0, -6.0]]), (3, 2),
                               requires_grad=True)


HYBRID = {
    "to_dense": lambda t, s: s.to_dense(),
    "sum_dense_dim": lambda t, s: t.sparse.sum(s, 1),
    "sum_sparse_dim": lambda t, s: t.sparse.sum(s, 0),
    "sum": lambda t, s: t.sparse.sum(s),
    "softmax_dense_dim": lambda t, s: t.sparse.softmax(s, 1),
    "softmax_sparse_dim": lambda t, s: t.sparse.log_softmax(s, 0),
    "values": lambda t, s: s.coalesce().values(),
    "scaled": lambda t, s: s * 3,
}


@pytest.mark.parametrize("op", HYBRID.values(), ids=HYBRID)
def test_gradient_of_a_hybrid_leaf(op):
    def run(t):
        s = hybrid_leaf(t)
        out = op(t, s)
        weighted(t, out).backward()
        dense = out.to_dense() if out.is_sparse else out
        return type(out.grad_fn).__name__, repr(s.grad.coalesce()), dense.detach().numpy()
    (t_name, t_grad, t_out), (g_name, g_grad, g_out) = run(torch), run(gradjit)
    assert (g_name, g_grad) == (t_name, t_grad)
    np.testing.assert_allclose(g_out, t_out, rtol=1e-6)


def test_autograd_grad_and_hooks_see_sparse_gradients():
    def run(t):
        w = t.tensor([[1.0, 2], [3, 4], [5, 6]], requires_grad=True)
        out = t.nn.functional.embedding(t.tensor([2, 0, 2]), w, sparse=True)
        first, = t.autograd.grad(out.sum(), [w])
        seen = []
        w.register_hook(lambda grad: seen.append(grad.is_sparse))
        t.nn.functional.embedding(t.tensor([1]), w, sparse=True).sum().backward()
        s = t.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,), requires_grad=True)
        of_leaf, = t.autograd.grad(s.to_dense(), s, t.ones(3))
        return repr(first), seen, repr(w.grad), repr(of_leaf)
    assert run(gradjit) == run(torch)
