"""numpy's products, einsum and norms, compiled (CPU and the PTX grid emulator) against numpy
itself, gradients against central differences, errors against numpy's types."""
import math

import numpy as np
import pytest

import gradjit
from gradjit import ops
from tests.numpy_api.check import check_grad, check_values

RNG = np.random.default_rng(7)
# numpy's own warnings on inputs these tests use on purpose (2-vectors in cross, |0|^-p).
pytestmark = pytest.mark.filterwarnings(
    "ignore:Arrays of 2-dimensional vectors:DeprecationWarning",
    "ignore:divide by zero:RuntimeWarning")


def r(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


# (subscripts, operand shapes): numpy's documented examples and the corners of the grammar.
EINSUM = [
    ("ii", (4, 4)), ("ii->i", (4, 4)), ("ij->ji", (2, 3)), ("ji", (2, 3)), ("ij->", (2, 3)),
    ("ij->j", (2, 3)), ("...,...", (2, 3), (3,)), ("i,i", (5,), (5,)), ("i,i->i", (5,), (5,)),
    ("ij,j", (4, 5), (5,)), ("...j,j", (4, 5), (5,)), ("i,j", (2,), (3,)), (",ij", (), (2, 3)),
    ("ij,jk", (2, 3), (3, 4)), ("ij,jk->ki", (2, 3), (3, 4)), ("ij,kj->ik", (2, 3), (4, 3)),
    ("bij,bjk->bik", (3, 2, 4), (3, 4, 5)), ("...ij,...jk", (2, 1, 2, 3), (4, 3, 2)),
    ("ijk,jil->kl", (3, 4, 5), (4, 3, 2)), ("iij->ij", (3, 3, 2)), ("iii->i", (3, 3, 3)),
    ("ij,ij->", (0, 3), (0, 3)), ("ij,jk", (2, 0), (0, 3)), ("i,i", (3,), (1,)),
    ("ij...,jk...->ik...", (2, 3, 4), (3, 5, 4)), ("Ba", (2, 3)), ("i,j,k->", (2,), (3,), (4,)),
    ("ij,jk,kl->il", (2, 3), (3, 4), (4, 5)), ("bn,anm,bm->ba", (2, 3), (4, 3, 5), (2, 5)),
    ("ea,fb,abcd,gc,hd->efgh", (2, 3), (2, 3), (3, 3, 3, 3), (2, 3), (2, 3)),
    ("ii,jj->ij", (3, 3), (2, 2)), ("ij,ij->ij", (2, 3), (2, 3)), ("i,->i", (3,), ()),
]


def _id(case):
    return case[0] or "scalar"


@pytest.mark.parametrize("case", EINSUM, ids=_id)
def test_einsum_values_and_gradients(case):
    subscripts, *shapes = case
    args = [r(*s) for s in shapes]
    fn = lambda *a: np.einsum(subscripts, *a, optimize="greedy")  # noqa: E731
    check_values(fn, *args)
    if any(math.prod(s) == 0 for s in shapes):
        return
    check_grad(fn, *args, argnums=tuple(range(len(args))), backends=("cpu",))


@pytest.mark.parametrize("optimize", [False, True, "optimal",
                                      ["einsum_path", (0, 2), (0, 1)], ("greedy", 10 ** 6)])
def test_einsum_optimize_orders_agree(optimize):
    a, b, c = r(3, 4), r(4, 5), r(5, 2)
    check_values(lambda x, y, z: np.einsum("ij,jk,kl->il", x, y, z, optimize=optimize),
                 a, b, c, backends=("cpu",))


@pytest.mark.parametrize("dtypes", [(np.float32, np.float32), (np.int32, np.int32),
                                    (np.int64, np.float32), (np.bool_, np.bool_),
                                    (np.int32, np.float64)], ids=str)
def test_einsum_dtypes(dtypes):
    a = (r(3, 4) * 3).astype(dtypes[0])
    b = (r(4, 2) * 3).astype(dtypes[1])
    check_values(lambda x, y: np.einsum("ij,jk->ik", x, y), a, b, rtol=1e-5, atol=1e-5)


def test_einsum_interleaved_form():
    a, b = r(2, 3), r(3, 4)
    check_values(lambda x, y: np.einsum(x, [0, 1], y, [1, 2], [0, 2]), a, b,
                 backends=("cpu",))
    check_values(lambda x, y: np.einsum(x, [Ellipsis, 1], y, [1, 2]), a, b, backends=("cpu",))


def test_optimize_false_still_avoids_outer_products():
    """Left to right, 'ij,kl,jk' would build an (i, j, k, l) outer product first."""
    a, b, c = r(2, 3), r(4, 5), r(3, 4)
    lowered = gradjit.lower(gradjit.jit(lambda x, y, z: np.einsum("ij,kl,jk->il", x, y, z)),
                            a, b, c)
    assert "f64[2,3,4,5]" not in str(lowered.traced)
    check_values(lambda x, y, z: np.einsum("ij,kl,jk->il", x, y, z), a, b, c,
                 backends=("cpu",))


def test_contractions_lower_to_one_matmul_per_pair():
    """A chain of three operands is two batched matmuls, with no broadcast of a product."""
    a, b, c = r(2, 3, 4), r(2, 4, 5), r(5, 6)
    lowered = gradjit.lower(gradjit.jit(lambda x, y, z: np.einsum("bij,bjk,kl->bil", x, y, z,
                                                                     optimize=True)), a, b, c)
    text = str(lowered.traced)
    assert text.count("matmul(") == 2, text
    assert "mul(" not in text.replace("matmul(", ""), text


@pytest.mark.parametrize("case", EINSUM[:20] + EINSUM[-6:], ids=_id)
@pytest.mark.parametrize("optimize", ["greedy", "optimal"])
def test_einsum_path_matches_numpy(case, optimize):
    subscripts, *shapes = case
    args = [np.ones(s) for s in shapes]
    want = np.einsum_path(subscripts, *args, optimize=optimize)[0]
    path, report = ops.einsum_path(subscripts, *args, optimize=optimize)
    assert path == want
    want_report = np.einsum_path(subscripts, *args, optimize=optimize)[1].splitlines()
    # the same layout; the naive figures are the same numbers
    assert report.splitlines()[:3] == want_report[:3] or "..." in subscripts
    assert report.splitlines()[8] == want_report[8]


@pytest.mark.parametrize("optimize", ["greedy", "optimal", True, ("greedy", 64)])
def test_einsum_path_of_random_subscripts_is_numpys(optimize):
    """numpy's own order (its greedy search differed in ties and memory limits, and the
    optimal one in the tree it picked among equal costs)."""
    pick = np.random.default_rng(3)
    for _ in range(40):
        terms = ["".join(pick.choice(list("abcdefg"), pick.integers(1, 4), replace=False))
                 for _ in range(pick.integers(3, 6))]
        sizes = {label: int(pick.integers(2, 9)) for label in "abcdefg"}
        args = [np.ones([sizes[c] for c in t]) for t in terms]
        subscripts = ",".join(terms)
        assert ops.einsum_path(subscripts, *args, optimize=optimize)[0] == \
            np.einsum_path(subscripts, *args, optimize=optimize)[0], subscripts


def test_einsum_contracts_in_numpys_order():
    """(b @ c) first, as numpy's path has it, stays finite in float32 where a @ b
    overflows."""
    a, b = np.full((30, 4), 1e20, np.float32), np.full((4, 50), 1e20, np.float32)
    c = np.full((50, 3), 1e-30, np.float32)
    want = np.einsum("ij,jk,kl->il", a, b, c, optimize=True)
    got = gradjit.jit(lambda a, b, c: np.einsum("ij,jk,kl->il", a, b, c, optimize=True))(a, b, c)
    assert np.isfinite(want).all()
    np.testing.assert_allclose(got, want, rtol=1e-5)


EINSUM_ERRORS = [
    ("ij,jk", [(2, 3), (4, 5)], "'j' has sizes 3 and 4 in operand 1"),
    ("ii", [(1, 3)], "'i' has sizes 1 and 3 in operand 0"),
    ("ij->k", [(2, 3)], "output subscript 'k' appears in no input"),
    ("ii->ii", [(2, 2)], "'i' appears more than once"),
    ("ijk", [(2, 3)], "operand 0 has 2 dimension"),
    ("i", [(2, 3)], "no '...' covers the rest"),
    ("i,j", [(2,)], "name 2 operand"),
    ("i1", [(2, 2)], "invalid subscript '1'"),
    ("i.->i", [(2, 2)], "not part of an ellipsis"),
    ("i->i->i", [(2,)], "'->' more than once"),
    ("...i->i", [(2, 3)], "the output has no '...'"),
]


@pytest.mark.parametrize("subscripts, shapes, message", EINSUM_ERRORS,
                         ids=[e[0] for e in EINSUM_ERRORS])
def test_einsum_errors_are_numpy_value_errors(subscripts, shapes, message):
    args = [np.ones(s) for s in shapes]
    with pytest.raises(ValueError):
        np.einsum(subscripts, *args)
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        gradjit.jit(lambda *a: np.einsum(subscripts, *a))(*args)


def test_einsum_bad_path_and_optimize():
    a = np.ones((2, 2))
    with pytest.raises(ValueError, match="does not name distinct operands"):
        ops.einsum("ij,jk", a, a, optimize=["einsum_path", (0, 0)])
    with pytest.raises(RuntimeError, match="leaves 2 operands"):
        ops.einsum("ij,jk,kl", a, a, a, optimize=["einsum_path", (0, 1)])
    with pytest.raises(TypeError, match="did not understand optimize='fast'"):
        ops.einsum("ij,jk,kl", a, a, a, optimize="fast")
    with pytest.raises(TypeError, match="neither an integer"):
        ops.einsum(a, [0, "x"])
    with pytest.raises(ValueError, match="not within the valid range"):
        ops.einsum(a, [0, 52])
    with pytest.raises(ValueError, match="no subscripts"):
        ops.einsum()
    with pytest.raises(TypeError, match="according to the rule 'safe'"):
        gradjit.jit(lambda x: np.einsum("ij", x, dtype=np.float32))(a)


# ---- the other products ----

PRODUCTS = [
    ("dot 3d", lambda a, b: np.dot(a, b), (2, 3, 4), (5, 4, 6)),
    ("dot 2d1d", lambda a, b: np.dot(a, b), (2, 3), (3,)),
    ("dot 1d2d", lambda a, b: np.dot(a, b), (3,), (3, 2)),
    ("dot 0d", lambda a, b: np.dot(a, b), (), (2, 3)),
    ("dot 1d", lambda a, b: np.dot(a, b), (4,), (4,)),
    ("dot empty", lambda a, b: np.dot(a, b), (0, 3), (3, 2)),
    ("inner empty sum", np.inner, (2, 0), (3, 0)),
    ("kron empty", np.kron, (2, 0), (3,)),
    ("vdot", np.vdot, (2, 3), (6,)),
    ("inner", np.inner, (2, 3), (4, 3)),
    ("inner 0d", np.inner, (2,), ()),
    ("outer", np.outer, (2, 3), (4,)),
    ("linalg.outer", np.linalg.outer, (2,), (4,)),
    ("tensordot 2", np.tensordot, (2, 3, 4), (3, 4, 5)),
    ("tensordot pairs", lambda a, b: np.tensordot(a, b, ([1, 0], [0, 1])), (3, 4, 5), (4, 3, 2)),
    ("tensordot 0", lambda a, b: np.tensordot(a, b, 0), (2, 3), (3,)),
    ("linalg.tensordot", lambda a, b: np.linalg.tensordot(a, b, axes=1), (2, 3), (3, 2)),
    ("kron", np.kron, (2, 3), (4,)),
    ("kron 3d", np.kron, (2, 2, 2), (3, 1)),
    ("cross", np.cross, (4, 3), (3,)),
    ("cross 2x3", np.cross, (2,), (3,)),
    ("cross axes", lambda a, b: np.cross(a, b, axisa=0, axisb=1, axisc=0), (3, 4), (4, 3)),
    ("linalg.cross", np.linalg.cross, (5, 3), (5, 3)),
    ("matmul batch", np.matmul, (2, 1, 3, 4), (5, 4, 2)),
    ("matmul 1d", np.matmul, (4,), (2, 4, 3)),
    ("@ 2d1d", lambda a, b: a @ b, (3, 4), (4,)),
    ("linalg.matmul", np.linalg.matmul, (3, 4), (4, 2)),
    ("vecdot", np.vecdot, (2, 3), (3,)),
    ("vecdot axis", lambda a, b: np.vecdot(a, b, axis=0), (3, 2), (3, 1)),
    ("linalg.vecdot", lambda a, b: np.linalg.vecdot(a, b, axis=-2), (4, 3, 2), (3, 2)),
    ("matvec", np.matvec, (2, 4, 3), (3,)),
    ("vecmat", np.vecmat, (3,), (5, 3, 2)),
    ("multi_dot", lambda a, b: np.linalg.multi_dot([a, b, b.T, a.T]), (3, 4), (4, 5)),
    ("multi_dot 2", lambda a, b: np.linalg.multi_dot([a, b]), (2, 3, 4), (4, 2)),
    ("multi_dot 1d", lambda a, b: np.linalg.multi_dot([a[0], b, b.T, a[1]]), (2, 4), (4, 5)),
]


@pytest.mark.parametrize("name, fn, sa, sb", PRODUCTS, ids=[p[0] for p in PRODUCTS])
def test_products(name, fn, sa, sb):
    a, b = r(*sa), r(*sb)
    check_values(fn, a, b)
    check_grad(fn, a, b, argnums=(0, 1), backends=("cpu",))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_], ids=str)
def test_products_keep_numpy_dtypes(dtype):
    a, b = (r(3, 4) * 3).astype(dtype), (r(4, 3) * 3).astype(dtype)
    check_values(lambda x, y: (np.dot(x, y), np.tensordot(x, y, 1), np.kron(x, y),
                               np.inner(x, y.T), np.linalg.matrix_power(x @ y, 2)),
                 a, b, rtol=1e-5, atol=1e-4)


def test_dot_of_python_scalar_and_integers():
    check_values(lambda x: np.dot(x, 2), np.arange(6).reshape(2, 3), backends=("cpu",))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8])
def test_matrix_power(n):
    a = r(2, 3, 3) / 2
    check_values(lambda x: np.linalg.matrix_power(x, n), a)
    if n:
        check_grad(lambda x: np.linalg.matrix_power(x, n), a, backends=("cpu",))


def test_multi_dot_picks_the_cheap_order():
    """numpy's doc example: (A B) C costs 10*100*5 + 10*5*50, A (B C) ten times more."""
    from gradjit.ops.contract import _chain_order
    split = _chain_order([10, 100, 5, 50])
    assert split[0][2] == 1
    a, b, c = r(10, 100), r(100, 5), r(5, 50)
    check_values(lambda x, y, z: np.linalg.multi_dot([x, y, z]), a, b, c, backends=("cpu",))


# Each case builds its operands with `o(*shape)`: np.ones for numpy's own error, a traced
# array of ones for gradjit's.
PRODUCT_ERRORS = [
    (lambda o: np.dot(o(2, 3), o(4, 5)), ValueError, "not aligned"),
    (lambda o: np.inner(o(2, 3), o(4, 5)), ValueError, "not aligned"),
    (lambda o: np.vdot(o(2, 3), o(5)), ValueError, "different sizes"),
    (lambda o: np.tensordot(o(2, 3), o(4, 5), 1), ValueError, "shape-mismatch"),
    (lambda o: np.tensordot(o(2, 3), o(3, 5), 3), IndexError, "does not fit"),
    (lambda o: np.tensordot(o(2, 3), o(3, 5), ([0, 1], [0])), ValueError,
     "2 axes of a paired with 1"),
    (lambda o: np.cross(o(4), o(3)), ValueError, "incompatible dimensions"),
    (lambda o: np.cross(o(), o(3)), ValueError, "is 0-d"),
    (lambda o: np.linalg.multi_dot([o(2, 2)]), ValueError, "at least two arrays"),
    (lambda o: np.linalg.multi_dot([o(2, 2), o(2, 2), o(2, 2, 2)]), np.linalg.LinAlgError,
     "3-dimensional array given"),
    (lambda o: np.linalg.multi_dot([o(2, 3), o(2, 2)]), ValueError, "not aligned"),
    (lambda o: np.linalg.matrix_power(o(2, 3), 2), np.linalg.LinAlgError, "square"),
    (lambda o: np.linalg.matrix_power(o(2, 2), 1.5), TypeError, "must be an integer"),
    (lambda o: np.vecdot(o(3), o(4)), ValueError, "core dimensions differ"),
    (lambda o: np.vecdot(o(), o(3)), ValueError, "at least one dimension"),
    (lambda o: np.matvec(o(2, 3), o(4)), ValueError, "core dimension n differs"),
    (lambda o: np.matvec(o(3), o(3)), ValueError, "too few dimensions"),
    (lambda o: np.linalg.outer(o(2, 2), o(2)), ValueError, "takes 1-d vectors"),
]


@pytest.mark.parametrize("index", range(len(PRODUCT_ERRORS)))
def test_product_errors(index):
    call, kind, message = PRODUCT_ERRORS[index]
    with pytest.raises(kind):
        call(lambda *shape: np.ones(shape))
    with pytest.raises(kind, match=message):
        gradjit.jit(lambda one: call(lambda *shape: one * np.ones(shape)))(np.float64(1.0))


def test_multi_dot_writes_into_out():
    x = np.arange(6.0).reshape(2, 3)
    check_values(lambda v, w: (np.linalg.multi_dot([v, v.T], out=w), w), x, np.zeros((2, 2)))


def test_matrix_power_of_negative_exponents_inverts():
    a = np.array([[2.0, 1.0], [0.5, 3.0]])
    check_values(lambda v: np.linalg.matrix_power(v, -3), a, rtol=1e-12)
    check_grad(lambda v: np.linalg.matrix_power(v, -2), a)


# ---- norms ----

VECTOR_ORDS = [None, 2, 1, 0, 3, 0.5, -1, -2.5, np.inf, -np.inf]
MATRIX_ORDS = [None, "fro", 1, -1, np.inf, -np.inf, 2, -2, "nuc"]


@pytest.mark.parametrize("ord", VECTOR_ORDS, ids=str)
@pytest.mark.parametrize("axis, keepdims", [(None, False), (-1, True), (0, False)])
def test_vector_norms(ord, axis, keepdims):
    x = r(3, 4) if axis is not None else r(5)
    fn = lambda v: np.linalg.norm(v, ord, axis, keepdims)  # noqa: E731
    check_values(fn, x)
    check_values(fn, x.astype(np.float32), rtol=1e-5, atol=1e-6, backends=("cpu",))
    if ord != 0:
        check_grad(fn, x, backends=("cpu",))


@pytest.mark.parametrize("ord", MATRIX_ORDS, ids=str)
@pytest.mark.parametrize("axis, keepdims", [(None, False), ((2, 0), True), ((-1, -2), False)])
def test_matrix_norms(ord, axis, keepdims):
    x = r(3, 4) if axis is None else r(3, 2, 4)
    fn = lambda v: np.linalg.norm(v, ord, axis, keepdims)  # noqa: E731
    check_values(fn, x)
    check_grad(fn, x, backends=("cpu",))


def test_norm_axis_is_taken_as_numpy_takes_it():
    check_values(lambda v: np.linalg.norm(v, 3, axis=1.7), r(2, 3), backends=("cpu",))


@pytest.mark.parametrize("x", [np.float64(-2.5), r(2, 3, 4), np.arange(6).reshape(2, 3),
                               np.zeros((0, 3)), np.array([True, False, True])],
                         ids=["0d", "3d", "int", "empty", "bool"])
def test_norm_of_whole_arrays(x):
    check_values(lambda v: np.linalg.norm(v), x)
    check_values(lambda v: np.linalg.norm(v, keepdims=True), x)


@pytest.mark.parametrize("ord", [2, 3, 1, np.inf, 0.5, "fro"], ids=str)
def test_norm_gradient_at_zero_is_zero(ord):
    """A subgradient (0) instead of 0 * inf = nan: a zero vector, and zero entries of |x|^p,
    as PyTorch's norm backward masks them."""
    shape = (2, 2) if ord == "fro" else (4,)
    zero = gradjit.grad(lambda v: np.linalg.norm(v, ord))(np.zeros(shape))
    np.testing.assert_array_equal(zero, np.zeros(shape))
    if ord == "fro":
        return
    x = np.array([0.0, -3.0, 4.0, 0.0])
    got = gradjit.grad(lambda v: np.linalg.norm(v, ord))(x)
    assert np.all(np.isfinite(got)) and got[0] == 0 and got[3] == 0
    torch = pytest.importorskip("torch")
    t = torch.tensor(x, requires_grad=True)
    torch.linalg.vector_norm(t, float(ord)).backward()
    np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-12)


def test_inf_norm_splits_ties_evenly():
    """The max entry's cotangent is shared by tied entries, as in PyTorch and JAX."""
    got = gradjit.grad(lambda v: np.linalg.norm(v, np.inf))(np.array([1.0, -3.0, 3.0]))
    np.testing.assert_allclose(got, [0.0, -0.5, 0.5])


def test_negative_order_with_a_zero_entry():
    """numpy gives 0 (|0|^-1 = inf); the gradient is 0, finite."""
    x = np.array([0.0, 2.0, -1.0])
    check_values(lambda v: np.linalg.norm(v, -1), x)
    np.testing.assert_array_equal(gradjit.grad(lambda v: np.linalg.norm(v, -1))(x), 0.0)


def test_norm_of_centred_data():
    """std-like: the norm of x - mean(x) where the data are constant is 0 with 0 gradient."""
    fn = lambda v: np.linalg.norm(v - v.mean())  # noqa: E731
    np.testing.assert_array_equal(gradjit.grad(fn)(np.full(4, 2.0)), 0.0)
    check_grad(fn, r(5), backends=("cpu",))


NORM_ERRORS = [
    (dict(ord=3, axis=(0, 1)), ValueError, "Invalid norm order for matrices"),
    (dict(ord="fro", axis=0), ValueError, "Invalid norm order 'fro' for vectors"),
    (dict(axis=(0, 0)), ValueError, "Duplicate axes"),
    (dict(axis=(0, 1, 2)), ValueError, "Improper number of dimensions"),
    (dict(ord=1), ValueError, "Improper number of dimensions"),
    (dict(axis=5), np.exceptions.AxisError, None),
    (dict(axis="a"), TypeError, "'axis' must be None"),
]


@pytest.mark.parametrize("kwargs, kind, message", NORM_ERRORS, ids=lambda v: str(v)[:20])
def test_norm_errors(kwargs, kind, message):
    x = np.ones((2, 3, 4)) if kwargs.get("ord") == 1 or kwargs.get("axis") == (0, 1, 2) \
        else np.ones((2, 3))
    if "singular" not in (message or ""):  # numpy computes SVD norms
        with pytest.raises(kind):
            np.linalg.norm(x, **kwargs)
    with pytest.raises(kind, match=message):
        gradjit.jit(lambda v: np.linalg.norm(v, **kwargs))(x)


@pytest.mark.parametrize("fn", [
    lambda v: np.linalg.vector_norm(v), lambda v: np.linalg.vector_norm(v, ord=1, axis=0),
    lambda v: np.linalg.vector_norm(v, axis=(0, 2), keepdims=True, ord=3),
    lambda v: np.linalg.vector_norm(v, axis=(2, 0)), lambda v: np.linalg.vector_norm(
        v, ord=np.inf, keepdims=True), lambda v: np.linalg.vector_norm(v.astype(np.float32)),
    lambda v: np.linalg.matrix_norm(v), lambda v: np.linalg.matrix_norm(v, ord=1),
    lambda v: np.linalg.matrix_norm(v, ord=-np.inf, keepdims=True),
])
def test_vector_norm_and_matrix_norm(fn):
    x = r(2, 3, 4)
    check_values(fn, x, backends=("cpu",), rtol=1e-6)
    if np.asarray(fn(x)).dtype == np.float64:
        check_grad(fn, x, backends=("cpu",))


def test_norm_of_an_empty_axis_with_inf_order():
    """numpy's inf norm of an empty axis is 0 (its max starts from 0); -inf has no identity."""
    got = gradjit.jit(lambda v: np.linalg.norm(v, np.inf))(np.zeros(0))
    assert got == np.linalg.norm(np.zeros(0), np.inf)
    with pytest.raises(ValueError):
        np.linalg.norm(np.zeros(0), -np.inf)
    with pytest.raises(ValueError, match="cannot reduce an empty axis"):
        gradjit.jit(lambda v: np.linalg.norm(v, -np.inf))(np.zeros(0))


def test_every_name_in_the_table_is_tested():
    from gradjit.ops.numpy_api import contract
    tested = {np.einsum, np.einsum_path, np.dot, np.vdot, np.inner, np.outer, np.linalg.outer,
              np.tensordot, np.linalg.tensordot, np.kron, np.cross, np.linalg.cross,
              np.linalg.matmul, np.linalg.vecdot, np.linalg.multi_dot, np.linalg.matrix_power,
              np.linalg.norm, np.linalg.vector_norm, np.linalg.matrix_norm}
    assert set(contract.FUNCTIONS) == tested
    assert set(contract.UFUNCS) == {np.matmul, np.vecdot, np.matvec, np.vecmat}


def test_einsum_path_through_numpy_dispatch():
    """np.einsum_path on a traced value answers from the shapes alone."""
    seen = []
    gradjit.jit(lambda x: seen.append(np.einsum_path("ij,jk,kl", x, x.T, x)) or x)(r(3, 3))
    assert seen[0][0] == np.einsum_path("ij,jk,kl", *[np.ones((3, 3))] * 3)[0]
