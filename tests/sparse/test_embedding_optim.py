"""Sparse gradients of embedding tables and the optimizers that take them, against PyTorch."""
import copy
import pickle

import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")

IDS = [[0, 1, 3], [3, 3, 4]]


def _embedding_grads(t, **kw):
    t.manual_seed(0)
    e = t.nn.Embedding(5, 3, sparse=True, **kw)
    out = e(t.tensor(IDS))
    (out * t.arange(18.0).reshape(2, 3, 3)).sum().backward()
    first = repr(e.weight.grad)
    e(t.tensor([[4, 0]])).sum().backward()  # accumulated: the patterns merge
    return type(out.grad_fn).__name__, first, e.weight.grad


@pytest.mark.parametrize("kw", [{}, {"padding_idx": 3}, {"max_norm": 1.0}],
                         ids=["plain", "padding", "max_norm"])
def test_embedding_gradient_is_sparse(kw):
    (t_fn, t_first, t_grad), (g_fn, g_first, g_grad) = (_embedding_grads(lib, **kw)
                                                        for lib in (torch, gradjit))
    assert g_fn == t_fn and g_first == t_first
    assert g_grad.is_sparse and repr(g_grad.coalesce()) == repr(t_grad.coalesce())


def test_functional_embedding_sparse_and_mixed_accumulation():
    def run(t):
        w = t.tensor(np.arange(8.0).reshape(4, 2).astype(np.float32), requires_grad=True)
        t.nn.functional.embedding(t.tensor([1, 3]), w, sparse=True).sum().backward()
        sparse = repr(w.grad)
        (t.nn.functional.embedding(t.tensor([2]), w, sparse=True) * w[:1]).sum().backward()
        return sparse, w.grad
    (t_sparse, t_grad), (g_sparse, g_grad) = run(torch), run(gradjit)
    assert g_sparse == t_sparse and not g_grad.is_sparse
    np.testing.assert_array_equal(g_grad.numpy(), t_grad.numpy())


def test_scale_grad_by_freq_is_refused_with_sparse_gradients():
    def run(t):
        e = t.nn.Embedding(5, 3, sparse=True, scale_grad_by_freq=True)
        e(t.tensor(IDS)).sum().backward()
    same_error(lambda: run(gradjit), lambda: run(torch))


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_gradient_is_sparse(mode):
    def run(t):
        t.manual_seed(0)
        bag = t.nn.EmbeddingBag(5, 2, sparse=True, mode=mode, padding_idx=3)
        out = bag(t.tensor([0, 2, 2, 4, 3, 1]), t.tensor([0, 1, 4]))
        (out * t.arange(6.0).reshape(3, 2)).sum().backward()
        return type(out.grad_fn).__name__, repr(bag.weight.grad)
    assert run(gradjit) == run(torch)


def test_embedding_bag_max_refuses_sparse():
    same_error(lambda: gradjit.nn.EmbeddingBag(5, 2, sparse=True, mode="max")(
        gradjit.tensor([0, 1]), gradjit.tensor([0])),
        lambda: torch.nn.EmbeddingBag(5, 2, sparse=True, mode="max")(
        torch.tensor([0, 1]), torch.tensor([0])))


def _trained(t, name, kw, steps=20):
    rng = np.random.default_rng(0)
    e = t.nn.Embedding(6, 4, sparse=True)
    with t.no_grad():
        e.weight.copy_(t.tensor(rng.standard_normal((6, 4)).astype(np.float32)))
    optimizer = getattr(t.optim, name)(e.parameters(), **kw)
    for _ in range(steps):
        ids = t.tensor(rng.integers(0, 6, size=(3, 2)))
        target = t.tensor(rng.standard_normal((3, 2, 4)).astype(np.float32))
        optimizer.zero_grad()
        ((e(ids) - target) ** 2).sum().backward()
        optimizer.step()
    return e.weight.detach().numpy()


@pytest.mark.parametrize("name,kw", [
    ("SparseAdam", {"lr": 0.01}),
    ("SparseAdam", {"lr": 0.05, "betas": (0.8, 0.99), "maximize": True}),
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "maximize": True}),
], ids=["sparse_adam", "sparse_adam_max", "sgd", "sgd_momentum", "sgd_nesterov", "adagrad",
        "adagrad_decay"])
def test_optimizers_follow_torch_on_sparse_gradients(name, kw):
    np.testing.assert_allclose(_trained(gradjit, name, kw), _trained(torch, name, kw),
                               rtol=1e-5, atol=1e-5)


def _step_with_sparse_grad(t, name, **kw):
    e = t.nn.Embedding(5, 3, sparse=True)
    e(t.tensor(IDS)).sum().backward()
    getattr(t.optim, name)(e.parameters(), **kw).step()


@pytest.mark.parametrize("name,kw", [
    ("Adam", {}), ("AdamW", {}), ("RMSprop", {}), ("Adadelta", {}), ("Adamax", {}),
    ("NAdam", {}), ("RAdam", {}), ("ASGD", {}), ("Rprop", {}), ("Adafactor", {}),
    ("SGD", {"lr": 0.1, "weight_decay": 0.1}), ("Adagrad", {"weight_decay": 0.1})])
def test_optimizers_refuse_sparse_gradients(name, kw):
    same_error(lambda: _step_with_sparse_grad(gradjit, name, **kw),
               lambda: _step_with_sparse_grad(torch, name, **kw))


def test_zero_grad_keeps_an_empty_sparse_gradient():
    def run(t):
        e = t.nn.Embedding(4, 2, sparse=True)
        e(t.tensor([1, 2])).sum().backward()
        t.optim.SGD(e.parameters(), lr=0.1).zero_grad(set_to_none=False)
        return repr(e.weight.grad)
    assert run(gradjit) == run(torch)


def test_sparse_adam_refuses_dense_gradients():
    def run(t):
        e = t.nn.Embedding(5, 3)
        e(t.tensor(IDS)).sum().backward()
        t.optim.SparseAdam(e.parameters()).step()
    same_error(lambda: run(gradjit), lambda: run(torch))


def test_sparse_adam_refuses_sparse_parameters():
    same_error(lambda: gradjit.optim.SparseAdam([gradjit.ones(2, 2).to_sparse()]),
               lambda: torch.optim.SparseAdam([torch.ones(2, 2).to_sparse()]))


@pytest.mark.parametrize("sparse_first", [True, False], ids=["sparse_first", "dense_first"])
def test_sparse_and_strided_gradients_of_one_backward_sum(sparse_first):
    def run(t):
        w = t.tensor(np.arange(8.0).reshape(4, 2).astype(np.float32), requires_grad=True)
        looked_up = t.nn.functional.embedding(t.tensor([1, 3, 1]), w, sparse=True).sum()
        dense = (w * w).sum()
        (looked_up + dense if sparse_first else dense + looked_up).backward()
        return w.grad
    t_grad, g_grad = run(torch), run(gradjit)
    assert not g_grad.is_sparse
    np.testing.assert_array_equal(g_grad.numpy(), t_grad.numpy())


@pytest.mark.parametrize("bag", [False, True], ids=["embedding", "embedding_bag"])
def test_traced_lookup_keeps_a_dense_gradient(bag):
    """gradjit.grad traces no sparse values: the table's gradient is the dense form of
    torch's sparse one."""
    ids = np.array([1, 2, 2, 4])

    def loss(t, w):
        i = t.tensor(ids)
        out = t.nn.functional.embedding_bag(i, w, t.tensor([0, 2]), sparse=True) if bag else \
            t.nn.functional.embedding(i, w, sparse=True)
        return (out * t.arange(1.0, out.numel() + 1.0).reshape(out.shape)).sum()
    table = np.arange(15.0, dtype=np.float32).reshape(5, 3)
    w = torch.tensor(table, requires_grad=True)
    loss(torch, w).backward()
    got = gradjit.grad(lambda v: loss(gradjit, v))(gradjit.tensor(table))
    assert not got.is_sparse
    np.testing.assert_allclose(got.numpy(), w.grad.to_dense().numpy())


def test_sparse_parameter():
    def run(t):
        p = t.nn.Parameter(t.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,)))
        shown = repr(p), isinstance(p, t.nn.Parameter), p.is_leaf, p.is_sparse
        (p.to_dense() * t.arange(3.0)).sum().backward()
        t.optim.SGD([p], lr=0.1).step()
        m = t.nn.Module()
        m.w = p
        return shown, repr(p.grad), repr(p), repr(m.state_dict()["w"]), repr(p * 2)
    assert run(gradjit) == run(torch)
    csr = [0, 1, 2], [1, 0], [1.0, 2.0]
    assert repr(gradjit.nn.Parameter(gradjit.sparse_csr_tensor(*csr), requires_grad=False)) == \
        repr(torch.nn.Parameter(torch.sparse_csr_tensor(*csr), requires_grad=False))


def test_sparse_parameter_copies_and_saves(tmp_path):
    p = gradjit.nn.Parameter(gradjit.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,)))
    for copied in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert repr(copied) == repr(p) and isinstance(copied, gradjit.nn.Parameter)
    gradjit.save({"p": p}, tmp_path / "p.pt")
    loaded = torch.load(tmp_path / "p.pt")["p"]
    assert isinstance(loaded, torch.nn.Parameter) and repr(loaded).replace(
        "requires_grad=True", "") == repr(p).replace("requires_grad=True", "")
