"""The CSR layout against PyTorch: construction, accessors, printing, conversions, products
and gradients."""
import warnings

import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")
warnings.filterwarnings("ignore", message="Sparse invariant checks")

CROW, COL, VALUES = [0, 1, 3], [1, 0, 2], [1.0, 2.0, 3.0]


def csr(t, **kw):
    return t.sparse_csr_tensor(CROW, COL, VALUES, (2, 3), **kw)


MAKERS = {
    "given_size": csr,
    "inferred_size": lambda t: t.sparse_csr_tensor(t.tensor(CROW), t.tensor(COL),
                                                   t.tensor(VALUES)),
    "double_leaf": lambda t: csr(t, dtype=t.float64, requires_grad=True),
    "integer": lambda t: t.sparse_csr_tensor(CROW, COL, [1, 2, 3], (2, 3)),
    "from_dense": lambda t: t.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]]).to_sparse_csr(),
    "empty": lambda t: t.zeros(2, 3).to_sparse_csr(),
    "from_coo": lambda t: t.sparse_coo_tensor([[0, 1, 1, 0], [1, 0, 2, 1]],
                                              [1.0, 2.0, 3.0, 4.0], (2, 3)).to_sparse_csr(),
    "scaled": lambda t: csr(t) * 2,
    "sum": lambda t: csr(t) + csr(t),
    "neg": lambda t: -csr(t),
    "sin": lambda t: csr(t).sin(),
    "to_sparse_layout": lambda t: t.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse(
        layout=t.sparse_csr),
    "coo_to_sparse_layout": lambda t: t.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse().to_sparse(
        layout=t.sparse_csr),
}


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS)
def test_csr_matches_torch(make):
    t, g = make(torch), make(gradjit)
    assert repr(g) == repr(t)
    assert (str(g.layout), g.is_sparse, g.is_sparse_csr, g._nnz()) == \
        (str(t.layout), t.is_sparse, t.is_sparse_csr, t._nnz())
    for name in ("crow_indices", "col_indices", "values"):
        np.testing.assert_allclose(getattr(g, name)().detach().numpy(),
                                   getattr(t, name)().detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(g.to_dense().detach().numpy(), t.to_dense().detach().numpy(),
                               rtol=1e-6)
    assert repr(g.to_sparse()) == repr(t.to_sparse())
    assert g.to_sparse_csr() is g


PRODUCTS = {
    "mm": lambda t, c: t.mm(c, t.arange(6.0).reshape(3, 2)),
    "matmul": lambda t, c: c @ t.ones(3, 2),
    "matvec": lambda t, c: t.matmul(c, t.ones(3)),
    "dense_plus": lambda t, c: t.ones(2, 3) + c,
}


@pytest.mark.parametrize("op", PRODUCTS.values(), ids=PRODUCTS)
def test_products(op):
    t, g = op(torch, csr(torch)), op(gradjit, csr(gradjit))
    assert repr(g) == repr(t)


def _weighted(t, out):
    dense = out.to_dense() if out.layout != t.strided else out
    return (dense * t.arange(1.0, dense.numel() + 1.0).reshape(dense.shape)).sum()


GRADIENTS = {
    "to_dense": lambda t, c: c.to_dense(),
    "mm": lambda t, c: t.mm(c, t.ones(3, 2)),
    "to_sparse": lambda t, c: c.to_sparse(),
    "values": lambda t, c: c.values(),
    "scaled": lambda t, c: c * 2,
}


@pytest.mark.parametrize("op", GRADIENTS.values(), ids=GRADIENTS)
def test_gradient_of_a_csr_leaf(op):
    def run(t):
        c = csr(t, requires_grad=True)
        out = op(t, c)
        _weighted(t, out).backward()
        return type(out.grad_fn).__name__, c.grad
    (t_name, t_grad), (g_name, g_grad) = run(torch), run(gradjit)
    assert g_name == t_name and str(g_grad.layout) == str(t_grad.layout)
    assert repr(g_grad) == repr(t_grad)


@pytest.mark.parametrize("source", ["dense", "values", "coo"])
def test_gradients_into_csr_sources(source):
    def run(t):
        if source == "dense":
            x = t.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]], requires_grad=True)
            c = x.to_sparse_csr()
        elif source == "values":
            x = t.tensor(VALUES, requires_grad=True)
            c = t.sparse_csr_tensor(CROW, COL, x, (2, 3))
        else:
            x = t.sparse_coo_tensor([[0, 1, 1, 0], [1, 0, 2, 1]], [1.0, 2.0, 3.0, 4.0], (2, 3),
                                    requires_grad=True)
            c = x.to_sparse_csr()
        _weighted(t, c.to_dense()).backward()
        return type(c.grad_fn).__name__, repr(x.grad)
    assert run(gradjit) == run(torch)


@pytest.mark.parametrize("name", ["indices", "coalesce", "is_coalesced"])
def test_coo_only_methods_refuse(name):
    same_error(lambda: getattr(csr(gradjit), name)(), lambda: getattr(csr(torch), name)())


def test_sampled_addmm():
    def run(t):
        c = csr(t, requires_grad=True)
        a = t.arange(4.0).reshape(2, 2).requires_grad_()
        b = t.arange(6.0).reshape(2, 3).requires_grad_()
        out = t.sparse.sampled_addmm(c, a, b, beta=0.5, alpha=2.0)
        _weighted(t, out).backward()
        return repr(out), repr(c.grad), repr(a.grad), repr(b.grad)
    assert run(gradjit) == run(torch)


def test_sampled_addmm_refuses_coo():
    def run(t):
        t.sparse.sampled_addmm(csr(t).to_sparse(), t.ones(2, 2), t.ones(2, 3))
    with pytest.raises(NotImplementedError) as t_info:
        run(torch)
    with pytest.raises(NotImplementedError) as g_info:
        run(gradjit)
    assert str(t_info.value).startswith(str(g_info.value))
