"""The COO layout against PyTorch: construction, coalescing, reprs, arithmetic and errors."""
import warnings

import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")
warnings.filterwarnings("ignore", message="Sparse invariant checks")

INDICES = [[0, 1, 1, 0], [2, 0, 2, 2]]
VALUES = [3.0, 4.0, 5.0, 6.0]


def both(fn):
    return fn(torch), fn(gradjit)


def uncoalesced(t, **kw):
    return t.sparse_coo_tensor(t.tensor(INDICES), t.tensor(VALUES), (2, 3), **kw)


def hybrid(t):
    return t.sparse_coo_tensor(t.tensor([[2, 0, 2]]), t.tensor([[1.0, 2.0], [3.0, 4.0],
                                                                [5.0, -6.0]]), (3, 2))


def empty(t):
    return t.sparse_coo_tensor(t.zeros(2, 0, dtype=t.long), t.zeros(0), (2, 3))


MAKERS = {
    "uncoalesced": uncoalesced,
    "coalesced": lambda t: uncoalesced(t).coalesce(),
    "double": lambda t: uncoalesced(t, dtype=t.float64),
    "requires_grad": lambda t: uncoalesced(t, requires_grad=True),
    "hybrid": hybrid,
    "empty": empty,
    "inferred_size": lambda t: t.sparse_coo_tensor(INDICES, VALUES),
    "integer": lambda t: t.tensor([[0, 1], [2, 0]]).to_sparse(),
    "to_sparse": lambda t: t.tensor([[0.0, 1.5], [2.0, 0.0]]).to_sparse(),
    "to_sparse_1": lambda t: t.tensor([[0.0, 1.5], [0.0, 0.0]]).to_sparse(1),
    "to_sparse_coo": lambda t: t.tensor([[0.0, 1.5], [2.0, 0.0]]).to_sparse_coo(),
    "scalar": lambda t: t.tensor(3.0).to_sparse(),
    "flagged": lambda t: t.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (2,), is_coalesced=True),
}


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS)
def test_metadata_and_repr(make):
    t, g = both(make)
    assert repr(g) == repr(t)
    assert (g.is_sparse, g.is_coalesced(), g.sparse_dim(), g.dense_dim(), g._nnz()) == \
        (t.is_sparse, t.is_coalesced(), t.sparse_dim(), t.dense_dim(), t._nnz())
    assert str(g.layout) == str(t.layout) and tuple(g.shape) == tuple(t.shape)
    np.testing.assert_array_equal(g.to_dense().detach().numpy(), t.to_dense().detach().numpy())
    c_t, c_g = t.coalesce(), g.coalesce()
    assert repr(c_g) == repr(c_t)
    np.testing.assert_array_equal(c_g.indices().numpy(), c_t.indices().numpy())


def test_coalesce_keeps_a_coalesced_tensor():
    s = uncoalesced(gradjit).coalesce()
    assert s.coalesce() is s and s.is_coalesced()


@pytest.mark.parametrize("what", ["indices", "values"])
def test_uncoalesced_refuses_indices_and_values(what):
    same_error(lambda: getattr(uncoalesced(gradjit), what)(),
               lambda: getattr(uncoalesced(torch), what)())


def _pair(t):
    a = t.sparse_coo_tensor([[0, 1, 0]], [1.0, 2.0, 3.0], (4,))
    return a, t.sparse_coo_tensor([[2, 1, 3]], [10.0, 20.0, 30.0], (4,))


OPS = {
    "add": lambda t, a, b: a + b,
    "add_coalesced": lambda t, a, b: a.coalesce() + b.coalesce(),
    "add_same": lambda t, a, b: a + a,
    "sub": lambda t, a, b: a - b,
    "add_alpha": lambda t, a, b: t.add(a, b, alpha=2),
    "mul_number": lambda t, a, b: a * 2,
    "rmul_number": lambda t, a, b: 3 * a,
    "mul_dense": lambda t, a, b: a * t.arange(4.0),
    "dense_mul": lambda t, a, b: t.arange(4.0) * a,
    "mul_broadcast": lambda t, a, b: a * t.tensor([2.0]),
    "mul_wider_dense": lambda t, a, b: a * t.ones(4, dtype=t.float64),
    "int_times_float": lambda t, a, b: a.int() * 2.5,
    "int_over_int": lambda t, a, b: a.int() / 2,
    "mul_0d_int": lambda t, a, b: a * t.tensor(2),
    "div_0d_double": lambda t, a, b: a / t.tensor(2.0, dtype=t.float64),
    "floordiv_int": lambda t, a, b: a.long() // 2,
    "mul_sparse": lambda t, a, b: a * b,
    "mul_coalesced": lambda t, a, b: a.coalesce() * b.coalesce(),
    "div": lambda t, a, b: a / 2,
    "floordiv": lambda t, a, b: a // 2,
    "neg": lambda t, a, b: -a,
    "pow": lambda t, a, b: a ** 2,
    "sin": lambda t, a, b: a.sin(),
    "abs": lambda t, a, b: (-a).abs(),
    "relu": lambda t, a, b: (a - b).relu(),
    "sqrt": lambda t, a, b: a.sqrt(),
    "tanh": lambda t, a, b: a.tanh(),
    "to_float64": lambda t, a, b: a.to(t.float64),
    "double": lambda t, a, b: a.double(),
    "clone": lambda t, a, b: a.clone(),
    "detach": lambda t, a, b: a.detach(),
    "sum_dim": lambda t, a, b: torch_sum(t, a),
    "add_": lambda t, a, b: a.clone().add_(b),
    "mul_": lambda t, a, b: a.clone().mul_(2),
}


def torch_sum(t, a):
    return t.sparse.sum(t.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [1.0, 2.0, 3.0]), 1)


@pytest.mark.parametrize("op", OPS.values(), ids=OPS)
def test_elementwise(op):
    t, g = (op(lib, *_pair(lib)) for lib in (torch, gradjit))
    assert repr(g) == repr(t)
    assert g.is_coalesced() == t.is_coalesced()


def test_dense_plus_sparse_is_strided():
    t, g = (lib.ones(4) + _pair(lib)[0] for lib in (torch, gradjit))
    assert not g.is_sparse and repr(g) == repr(t)
    for op in (lambda lib, s: lib.ones(4).add(s, alpha=-0.5),
               lambda lib, s: lib.ones(4).sub(s, alpha=2), lambda lib, s: lib.ones(4) - s):
        t, g = (op(lib, _pair(lib)[0]) for lib in (torch, gradjit))
        np.testing.assert_array_equal(g.numpy(), t.numpy())


ERRORS = {
    "add_dense": lambda t, a, b: a + t.ones(4),
    "add_number": lambda t, a, b: a + 1,
    "div_sparse": lambda t, a, b: a / b,
    "size": lambda t, a, b: t.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (2, 3)),
    "nnz": lambda t, a, b: t.sparse_coo_tensor([[0, 1]], [1.0, 2.0, 3.0], (2,)),
    "grad_int": lambda t, a, b: t.sparse_coo_tensor([[0, 1]], [1, 2], (2,),
                                                     requires_grad=True),
    "to_sparse_dim": lambda t, a, b: t.ones(2, 2).to_sparse(3),
    "numpy": lambda t, a, b: a.numpy(),
    "size_mismatch": lambda t, a, b: a + t.sparse_coo_tensor([[0]], [1.0], (5,)),
    "mm_shapes": lambda t, a, b: t.mm(t.ones(2, 2).to_sparse(), t.ones(3, 2)),
    "t_3d": lambda t, a, b: t.ones(2, 2, 2).to_sparse().t(),
    "transpose_dense": lambda t, a, b: t.ones(2, 2).to_sparse(1).transpose(0, 1),
    "product_shapes": lambda t, a, b: t.ones(2, 3).to_sparse() @ t.ones(2, 3).to_sparse(),
    "resize_shrink": lambda t, a, b: a.sparse_resize_((2,), 1, 0),
    "resize_dims": lambda t, a, b: a.sparse_resize_((4, 2), 1, 1),
    "resize_count": lambda t, a, b: a.sparse_resize_((4, 2), 1, 0),
}


@pytest.mark.parametrize("op", ERRORS.values(), ids=ERRORS)
def test_errors(op):
    same_error(lambda: op(gradjit, *_pair(gradjit)), lambda: op(torch, *_pair(torch)))


def test_sparse_resize_grows():
    t, g = (_pair(lib)[0].sparse_resize_((6,), 1, 0) for lib in (torch, gradjit))
    assert repr(g) == repr(t)
    t, g = (empty(lib).sparse_resize_((4, 3), 1, 1) for lib in (torch, gradjit))
    assert repr(g) == repr(t)


RESHAPES = {
    "t": lambda t, s: s.t(),
    "transpose": lambda t, s: s.transpose(0, 1),
    "narrow_copy": lambda t, s: s.narrow_copy(1, 0, 2),
    "narrow_copy_rows": lambda t, s: s.narrow_copy(0, 1, 1),
    "index_select": lambda t, s: s.index_select(1, t.tensor([2, 0])),
    "index_select_rows": lambda t, s: s.index_select(0, t.tensor([1, 1, 0])),
    "sparse_mask": lambda t, s: t.arange(6.0).reshape(2, 3).sparse_mask(s),
    "hybrid_narrow": lambda t, s: hybrid(t).narrow_copy(1, 1, 1),
    "hybrid_sum": lambda t, s: t.sparse.sum(hybrid(t), 1),
    "hybrid_sum_all": lambda t, s: t.sparse.sum(hybrid(t), 0),
    "softmax": lambda t, s: t.sparse.softmax(s, 1),
    "softmax_rows": lambda t, s: t.sparse.softmax(s, 0),
    "softmax_empty": lambda t, s: t.sparse.softmax(empty(t), 1),
    "log_softmax": lambda t, s: t.sparse.log_softmax(s, 1),
    "sum": lambda t, s: t.sparse.sum(s),
    "sum_0": lambda t, s: t.sparse.sum(s, 0),
    "method_sum": lambda t, s: s.sum(1),
    "mm": lambda t, s: t.mm(s, t.arange(6.0).reshape(3, 2)),
    "matmul_vector": lambda t, s: t.matmul(s, t.arange(3.0)),
    "addmm": lambda t, s: t.addmm(t.ones(2, 2), s, t.ones(3, 2), beta=2, alpha=0.5),
    "sparse_product": lambda t, s: t.sparse.mm(s, s.t()),
    "sparse_matmul": lambda t, s: s.t() @ s,
    "getitem": lambda t, s: s[1],
    "getitem_negative": lambda t, s: s[-2],
    "select_column": lambda t, s: s.select(1, 2),
    "select_hybrid_dense": lambda t, s: hybrid(t).select(1, 0),
    "getitem_hybrid": lambda t, s: hybrid(t)[2],
    "zero_": lambda t, s: s.zero_(),
    "copy_": lambda t, s: s.copy_(t.sparse_coo_tensor([[0], [0]], [7.0], (2, 3),
                                                      dtype=t.float64)),
}


@pytest.mark.parametrize("op", RESHAPES.values(), ids=RESHAPES)
def test_reshaping_and_products(op):
    t, g = (op(lib, uncoalesced(lib)) for lib in (torch, gradjit))
    assert repr(g) == repr(t)


def test_sparse_type_names():
    assert uncoalesced(gradjit).type() == uncoalesced(torch).type()
    assert uncoalesced(gradjit).double().type() == uncoalesced(torch).double().type()


def test_namespace_imports():
    import gradjit.sparse as sparse
    assert sparse is gradjit.sparse and callable(sparse.mm) and callable(sparse.softmax)


UNSUPPORTED = {
    "rpow": lambda t, s: 2 ** s,
    "slice": lambda t, s: s[0:1],
    "rdiv": lambda t, s: 2 / s,
    "primitive": None,
}


@pytest.mark.parametrize("name", UNSUPPORTED)
def test_operators_without_a_sparse_kernel(name):
    """PyTorch's message goes on to list its backends; gradjit's is its first sentences."""
    from gradjit.ir import elementwise as E
    op = UNSUPPORTED[name]
    with pytest.raises(NotImplementedError) as t_info:
        op(torch, _pair(torch)[0]) if op else torch.exp(_pair(torch)[0])
    with pytest.raises(NotImplementedError) as g_info:
        op(gradjit, _pair(gradjit)[0]) if op else E.exp(_pair(gradjit)[0])
    assert str(t_info.value).startswith(str(g_info.value))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("coalesce", [(False, False), (True, True), (True, False)],
                         ids=["uncoalesced", "coalesced", "mixed"])
def test_random_sums_follow_torchs_merge(seed, coalesce):
    rng = np.random.default_rng(seed)
    pairs = [(rng.integers(0, 4, size=(2, n)), rng.standard_normal((n, 2)))
             for n in rng.integers(0, 7, size=2)]

    def run(t):
        a, b = (t.sparse_coo_tensor(t.tensor(i), t.tensor(v), (4, 4, 2)) for i, v in pairs)
        a, b = (x.coalesce() if c else x for x, c in zip((a, b), coalesce))
        out = t.add(a, b, alpha=0.5)
        return repr(out), out.is_coalesced()
    assert run(gradjit) == run(torch)


IN_PLACE = {
    "add_": lambda s: s.add_(s.detach()),
    "mul_": lambda s: s.mul_(2),
    "zero_": lambda s: s.zero_(),
    "copy_": lambda s: s.copy_(s.detach()),
}


@pytest.mark.parametrize("op", IN_PLACE.values(), ids=IN_PLACE)
def test_in_place_on_a_leaf_that_requires_grad_refuses(op):
    same_error(lambda: op(uncoalesced(gradjit, requires_grad=True)),
               lambda: op(uncoalesced(torch, requires_grad=True)))


def test_in_place_on_a_computed_tensor_keeps_its_history():
    def run(t):
        s = uncoalesced(t, requires_grad=True)
        out = s * 2
        out.mul_(3).add_(s)
        (out.to_dense() * t.arange(6.0).reshape(2, 3)).sum().backward()
        return type(out.grad_fn).__name__, repr(s.grad.coalesce())
    assert run(gradjit) == run(torch)


INVARIANTS = {
    "too_large": ([[0, 5]], (2,)),
    "negative": ([[0, -1]], (2,)),
    "second_dim": ([[0, 1], [3, 0]], (2, 2)),
}


@pytest.mark.parametrize("indices,size", INVARIANTS.values(), ids=INVARIANTS)
def test_check_invariants(indices, size):
    values = [1.0, 2.0]
    same_error(lambda: gradjit.sparse_coo_tensor(indices, values, size, check_invariants=True),
               lambda: torch.sparse_coo_tensor(indices, values, size, check_invariants=True))

    def within(t):
        with t.sparse.check_sparse_tensor_invariants():
            t.sparse_coo_tensor(indices, values, size)
    same_error(lambda: within(gradjit), lambda: within(torch))
    assert not gradjit.sparse.check_sparse_tensor_invariants.is_enabled()
    unchecked = gradjit.sparse_coo_tensor(indices, values, size)  # as torch: not checked
    assert unchecked._nnz() == 2


SPDIAGS = {
    "square": ([[1.0, 2, 3], [4, 5, 6]], [0, -1], (3, 3), None),
    "wide": ([[1.0, 2, 3], [4, 5, 6]], [0, 1], (2, 4), None),
    "shifted": ([[1.0, 2, 3], [4, 5, 6]], [2, -1], (3, 5), None),
    "csr": ([[1.0, 2, 3]], [0], (3, 3), "csr"),
}


@pytest.mark.parametrize("diagonals,offsets,shape,layout", SPDIAGS.values(), ids=SPDIAGS)
def test_spdiags(diagonals, offsets, shape, layout):
    def run(t):
        out = t.sparse.spdiags(t.tensor(diagonals), t.tensor(offsets), shape,
                               layout=t.sparse_csr if layout else None)
        return repr(out), out.is_coalesced() if out.is_sparse else None
    assert run(gradjit) == run(torch)


@pytest.mark.parametrize("offsets", [[0, 0], [0]], ids=["duplicate", "count"])
def test_spdiags_errors(offsets):
    diagonals = [[1.0, 2, 3], [4, 5, 6]]
    same_error(lambda: gradjit.sparse.spdiags(gradjit.tensor(diagonals), gradjit.tensor(offsets),
                                              (3, 3)),
               lambda: torch.sparse.spdiags(torch.tensor(diagonals), torch.tensor(offsets),
                                            (3, 3)))


def test_spdiags_gradient_is_not_implemented():
    def run(t):
        d = t.tensor([[1.0, 2, 3]], requires_grad=True)
        out = t.sparse.spdiags(d, t.tensor([0]), (3, 3))
        name = type(out.grad_fn).__name__
        with pytest.raises(RuntimeError) as info:
            out.to_dense().sum().backward()
        return name, str(info.value)
    assert run(gradjit) == run(torch)


LIKE = {
    "zeros_layout": lambda t: t.zeros(2, 3, layout=t.sparse_coo),
    "empty_layout": lambda t: t.empty(2, 3, layout=t.sparse_coo, dtype=t.float64),
    "zeros_like": lambda t: t.zeros_like(uncoalesced(t)),
    "zeros_like_double": lambda t: t.zeros_like(uncoalesced(t), dtype=t.float64),
    "zeros_like_strided": lambda t: t.zeros_like(uncoalesced(t), layout=t.strided),
    "empty_like_hybrid": lambda t: t.empty_like(hybrid(t)),
}


@pytest.mark.parametrize("make", LIKE.values(), ids=LIKE)
def test_empty_sparse_factories(make):
    assert repr(make(gradjit)) == repr(make(torch))


def test_ones_like_refuses_a_sparse_tensor():
    with pytest.raises(NotImplementedError) as t_info:
        torch.ones_like(uncoalesced(torch))
    with pytest.raises(NotImplementedError) as g_info:
        gradjit.ones_like(uncoalesced(gradjit))
    assert str(t_info.value).startswith(str(g_info.value))
