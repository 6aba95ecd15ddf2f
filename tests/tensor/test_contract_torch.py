"""The eager products and norms against PyTorch 2.13 itself: values, dtypes, gradients and
grad_fn names of torch.einsum, tensordot, kron, outer, inner, vdot, cross and torch.linalg's
norms, multi_dot, matrix_power and vecdot; the same exception types on bad input."""
import math

import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error, weighted_gradients

torch = pytest.importorskip("torch")

rng = np.random.default_rng(11)
pytestmark = pytest.mark.filterwarnings("ignore:Using torch.cross without:UserWarning")


def r(*shape):
    return rng.standard_normal(shape)


run = weighted_gradients


PROGRAMS = {
    "einsum matmul": (lambda t, a, b: t.einsum("ij,jk->ik", a, b), (2, 3), (3, 4)),
    "einsum list": (lambda t, a, b: t.einsum("bij,bjk", [a, b]), (2, 2, 3), (2, 3, 4)),
    "einsum chain": (lambda t, a, b: t.einsum("ij,jk,kl->il", a, b, b.T), (2, 3), (3, 3)),
    "einsum diag": (lambda t, a: t.einsum("ii->i", a), (3, 3)),
    "einsum trace": (lambda t, a: t.einsum("ii", a), (3, 3)),
    "einsum transpose": (lambda t, a: t.einsum("ij->ji", a), (2, 3)),
    "einsum ellipsis": (lambda t, a, b: t.einsum("...ij,...jk", a, b), (2, 1, 2, 3), (4, 3, 2)),
    "einsum outer": (lambda t, a, b: t.einsum("i,j->ij", a, b), (3,), (2,)),
    "tensordot": (lambda t, a, b: t.tensordot(a, b, dims=([1, 0], [0, 1])), (3, 4, 2),
                  (4, 3)),
    "tensordot ones against twos": (lambda t, a, b: t.tensordot(a, b, dims=([0, 1], [2, 0])),
                                    (1, 1, 1), (2, 1, 2)),
    "tensordot int ones": (lambda t, a, b: t.tensordot(a, b, 1), (3, 1), (4, 2)),
    "tensordot int": (lambda t, a, b: t.tensordot(a, b, 1), (2, 3), (3, 4)),
    "kron": (lambda t, a, b: t.kron(a, b), (2, 3), (2, 2)),
    "kron method": (lambda t, a, b: a.kron(b), (2,), (3,)),
    "outer": (lambda t, a, b: t.outer(a, b), (3,), (4,)),
    "ger": (lambda t, a, b: t.ger(a, b), (3,), (4,)),
    "outer method": (lambda t, a, b: a.outer(b), (3,), (4,)),
    "inner": (lambda t, a, b: t.inner(a, b), (2, 3), (4, 3)),
    "inner 1d": (lambda t, a, b: a.inner(b), (3,), (3,)),
    "vdot": (lambda t, a, b: t.vdot(a, b), (5,), (5,)),
    "dot": (lambda t, a, b: t.dot(a, b), (5,), (5,)),
    "cross": (lambda t, a, b: t.cross(a, b, dim=1), (4, 3), (4, 3)),
    "linalg.cross": (lambda t, a, b: t.linalg.cross(a, b), (2, 3), (1, 3)),
    "multi_dot": (lambda t, a, b: t.linalg.multi_dot([a, b, b.T, a.T]), (3, 4), (4, 5)),
    "multi_dot 1d": (lambda t, a, b: t.linalg.multi_dot([a[0], b, b.T]), (2, 4), (4, 5)),
    "matrix_power 3": (lambda t, a: t.linalg.matrix_power(a, 3), (3, 3)),
    "matrix_power 1": (lambda t, a: t.linalg.matrix_power(a, 1), (3, 3)),
    "matrix_power batch": (lambda t, a: t.linalg.matrix_power(a, 4), (2, 3, 3)),
    "matrix_power method": (lambda t, a: a.matrix_power(2), (3, 3)),
    "vecdot": (lambda t, a, b: t.linalg.vecdot(a, b), (2, 3), (3,)),
    "vecdot dim": (lambda t, a, b: t.linalg.vecdot(a, b, dim=0), (3, 2), (3, 2)),
    "linalg.matmul": (lambda t, a, b: t.linalg.matmul(a, b), (2, 3), (3,)),
    "vector_norm": (lambda t, a: t.linalg.vector_norm(a), (3, 4)),
    "vector_norm 3": (lambda t, a: t.linalg.vector_norm(a, 3, dim=1, keepdim=True), (3, 4)),
    "vector_norm -1.5": (lambda t, a: t.linalg.vector_norm(a, -1.5, dim=(0, 1)), (3, 4)),
    "vector_norm inf": (lambda t, a: t.linalg.vector_norm(a, math.inf, dim=0), (3, 4)),
    "vector_norm -inf": (lambda t, a: t.linalg.vector_norm(a, -math.inf), (3, 4)),
    "vector_norm 1": (lambda t, a: t.linalg.vector_norm(a, 1, dim=-1), (3, 4)),
    "vector_norm 0": (lambda t, a: t.linalg.vector_norm(a, 0), (3, 4)),
    "matrix_norm fro": (lambda t, a: t.linalg.matrix_norm(a), (2, 3, 4)),
    "matrix_norm 1": (lambda t, a: t.linalg.matrix_norm(a, 1), (2, 3, 4)),
    "matrix_norm -1": (lambda t, a: t.linalg.matrix_norm(a, -1, dim=(0, 2)), (2, 3, 4)),
    "matrix_norm inf": (lambda t, a: t.linalg.matrix_norm(a, math.inf, keepdim=True),
                        (2, 3, 4)),
    "matrix_norm -inf": (lambda t, a: t.linalg.matrix_norm(a, -math.inf), (3, 4)),
    "matrix_norm 2": (lambda t, a: t.linalg.matrix_norm(a, 2), (2, 3, 4)),
    "matrix_norm -2": (lambda t, a: t.linalg.matrix_norm(a, -2), (3, 4)),
    "matrix_norm nuc": (lambda t, a: t.linalg.matrix_norm(a, "nuc"), (2, 3, 4)),
    "norm": (lambda t, a: t.linalg.norm(a), (2, 3, 4)),
    "norm ord": (lambda t, a: t.linalg.norm(a, 1), (3, 4)),
    "norm vector ord": (lambda t, a: t.linalg.norm(a, 3), (4,)),
    "norm dim": (lambda t, a: t.linalg.norm(a, math.inf, dim=1), (3, 4)),
    "norm dims": (lambda t, a: t.linalg.norm(a, dim=(0, 2)), (2, 3, 4)),
    "torch.norm": (lambda t, a: t.norm(a), (3, 4)),
    "torch.norm p": (lambda t, a: t.norm(a, p=3, dim=1), (3, 4)),
    "Tensor.norm inf": (lambda t, a: a.norm(p=math.inf), (3, 4)),
}


@pytest.mark.parametrize("name", PROGRAMS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_matches_torch(name, dtype):
    fn, *shapes = PROGRAMS[name]
    arrays = [r(*s) for s in shapes]
    got, got_grads = run(gradjit, fn, arrays, dtype)
    want, want_grads = run(torch, fn, arrays, dtype)
    assert tuple(got.shape) == tuple(want.shape)
    assert str(got.dtype) == str(want.dtype)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), **tol)
    assert (got.grad_fn is None) == (want.grad_fn is None)
    if want.grad_fn is not None:
        assert got.grad_fn.name() == want.grad_fn.name()
    for g, w in zip(got_grads, want_grads):
        if w is None:  # PyTorch leaves the count of nonzeros' gradient undefined; ours is 0
            assert g is None or not g.numpy().any()
        else:
            np.testing.assert_allclose(g.numpy(), w.numpy(), **tol)


def test_integer_products_keep_their_dtype():
    a = np.arange(6).reshape(2, 3)
    for fn in (lambda t, x: t.einsum("ij,kj->ik", x, x), lambda t, x: t.kron(x, x),
               lambda t, x: t.tensordot(x, x.T, 1), lambda t, x: t.outer(x[0], x[1])):
        got, want = fn(gradjit, gradjit.tensor(a)), fn(torch, torch.tensor(a))
        assert str(got.dtype) == str(want.dtype)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_norm_gradient_at_zero_matches_torch():
    for ord in (2, 3, 0.5, math.inf):
        x = np.array([0.0, -3.0, 3.0, 0.0])
        grads = []
        for t in (gradjit, torch):
            v = t.tensor(x, requires_grad=True)
            t.linalg.vector_norm(v, ord).backward()
            grads.append(v.grad.numpy())
        np.testing.assert_allclose(*grads, rtol=1e-12)
    zero = gradjit.zeros(3, requires_grad=True)
    gradjit.linalg.vector_norm(zero).backward()
    np.testing.assert_array_equal(zero.grad.numpy(), 0.0)


def test_matrix_power_zero_is_the_identity_with_zero_gradient():
    a = r(2, 3, 3)
    got = gradjit.linalg.matrix_power(gradjit.tensor(a, requires_grad=True), 0)
    want = torch.linalg.matrix_power(torch.tensor(a, requires_grad=True), 0)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    assert got.requires_grad and want.requires_grad


F, D = np.ones((2, 3), np.float32), np.ones((3, 2))
ERRORS = [
    lambda t: t.einsum("ij,jk", t.tensor(F), t.tensor(D)),
    lambda t: t.einsum("ij,jk", t.tensor(F), t.tensor(F)),
    lambda t: t.tensordot(t.tensor(F), t.tensor(F), 1),
    lambda t: t.inner(t.tensor(F), t.tensor(F[:, :2])),
    lambda t: t.vdot(t.tensor(F), t.tensor(F)),
    lambda t: t.linalg.multi_dot([t.tensor(F)]),
    lambda t: t.linalg.multi_dot([t.tensor(F), t.tensor(D, dtype=t.float32)[None]]),
    lambda t: t.linalg.matrix_power(t.tensor(F), 2),
    lambda t: t.linalg.vecdot(t.tensor(F), t.tensor(D.T)),
    lambda t: t.linalg.vector_norm(t.tensor([1, 2])),
    lambda t: t.linalg.matrix_norm(t.tensor(F), 3),
    lambda t: t.linalg.matrix_norm(t.tensor(F[0])),
    lambda t: t.linalg.norm(t.ones(2, 2, 2), 1),
    lambda t: t.cross(t.ones(2), t.ones(2)),
    lambda t: t.linalg.cross(t.ones(2, 2), t.ones(2, 2)),
    lambda t: t.einsum("ij", t.ones(2, 2, 2)),
    lambda t: t.linalg.vecdot(t.ones(3), t.ones(4)),
]


@pytest.mark.parametrize("dim", [(0,), (0, 1, 2), (0, -2), (1, 1), (0, 2)])
def test_matrix_norm_dims_refused_in_torch_words(dim):
    same_error(lambda: gradjit.linalg.matrix_norm(gradjit.ones(2, 2), dim=dim),
               lambda: torch.linalg.matrix_norm(torch.ones(2, 2), dim=dim))


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_have_torch_types(index):
    call = ERRORS[index]
    with pytest.raises(Exception) as want:
        call(torch)
    with pytest.raises(want.type):
        call(gradjit)


def test_vector_norm_rejects_a_string_order():
    with pytest.raises(TypeError, match="must be Number, not str"):
        gradjit.linalg.vector_norm(gradjit.ones(3), "fro")


@pytest.mark.parametrize("ord", ["nuc", 2, -2])
def test_singular_value_norms_match_torch(ord):
    torch = pytest.importorskip("torch")
    a = np.array([[2.0, 1.0, 0.0], [0.5, 3.0, 1.0]])
    mine, theirs = gradjit.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    got, want = gradjit.linalg.matrix_norm(mine, ord), torch.linalg.matrix_norm(theirs, ord)
    got.backward()
    want.backward()
    np.testing.assert_allclose(got.item(), want.item(), rtol=1e-12)
    np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-10)
    if ord == "nuc":
        np.testing.assert_allclose(gradjit.norm(gradjit.tensor(a), p="nuc").item(),
                                   torch.norm(torch.tensor(a), p="nuc").item(), rtol=1e-12)


@pytest.mark.parametrize("expr", [
    "L.nn.functional.linear(L.ones(2, 3), L.ones(4, 3), L.ones(4, dtype=L.float64))",
    "L.addmm(L.ones(2, dtype=L.float64), L.ones(2, 3), L.ones(3, 2))",
    "L.zeros(3).index_copy_(0, L.tensor([0]), L.ones(1, dtype=L.bfloat16))",
    "L.zeros(3).index_copy(0, L.tensor([0]), L.ones(1, dtype=L.float64))"])
def test_a_bias_or_source_of_another_dtype_is_refused_as_torch_refuses_it(expr):
    same_error(lambda: eval(expr, {"L": gradjit}), lambda: eval(expr, {"L": torch}))


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
def test_einsum_contracts_in_torchs_order(enabled, compiled):
    """Three operands or more contract in opt_einsum's order where torch.backends.opt_einsum
    is enabled (left to right where not): here (b @ c) first, which stays finite in float32,
    where a @ b overflows (gradjit contracted left to right whatever the setting)."""
    a = np.full((30, 4), 1e20, np.float32)
    b = np.full((4, 50), 1e20, np.float32)
    c = np.full((50, 3), 1e-30, np.float32)

    def run(L):
        L.backends.opt_einsum.enabled = enabled
        try:
            f = lambda *xs: L.einsum("ij,jk,kl->il", *xs)  # noqa: E731
            f = gradjit.compile(f) if compiled and L is gradjit else f
            return np.asarray(f(*(L.tensor(x) for x in (a, b, c))))
        finally:
            L.backends.opt_einsum.enabled = True
    ours, theirs = run(gradjit), run(torch)
    assert np.isfinite(theirs).all() == enabled
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
