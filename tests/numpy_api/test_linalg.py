"""np.linalg compiled (CPU and the PTX grid emulator): values, result types and errors against
numpy, gradients against central differences and PyTorch."""
import numpy as np
import pytest

import gradjit
from gradjit import ops
from tests.numpy_api.check import BACKENDS, check_grad, check_values

rng = np.random.default_rng(7)
TOL = {np.float32: dict(rtol=2e-5, atol=2e-5), np.float64: dict(rtol=1e-9, atol=1e-11)}


def spd(shape, dtype=np.float64):
    """Symmetric positive definite and well conditioned."""
    x = rng.standard_normal(shape)
    return (x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def normal(shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


def values(fn, *args, dtype=np.float64):
    check_values(fn, *args, **TOL[dtype])


# ---- values ----

def test_every_function_of_the_area_is_tested_here():
    from gradjit.ops.numpy_api import linalg
    source = open(__file__).read()
    assert {f for f in linalg.FUNCTIONS if f"np.linalg.{f.__name__}(" not in source} == set()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 2, 2), (0, 0)])
def test_inverse_determinants_and_solves(shape, dtype):
    a, b = spd(shape, dtype), normal(shape[:-1] + (2,), dtype)
    values(lambda a, b: (np.linalg.inv(a), np.linalg.det(a), np.linalg.slogdet(a),
                         np.linalg.solve(a, b), np.linalg.solve(a, b[..., 0])
                         if a.ndim == 2 else np.linalg.solve(a, b)), a, b, dtype=dtype)


def test_solve_follows_numpy2_broadcasting_and_promotion():
    a, b = spd((2, 1, 3, 3)), normal((4, 3, 2)).astype(np.float32)
    values(lambda a, b: np.linalg.solve(a, b), a, b)  # batch (2, 1) with (4,): float64
    values(lambda a, b: np.linalg.solve(a, b), a[0, 0], b[0, :, 0])  # (M,) is a vector
    ints = rng.integers(-3, 4, (3, 3)) + 8 * np.eye(3, dtype=np.int64)
    values(lambda a: (np.linalg.inv(a), np.linalg.det(a), np.linalg.eigvalsh(a)), ints)


def test_general_eigenvalues_are_complex_unless_all_are_real():
    """More in tests/complex/test_eig.py."""
    a = normal((2, 4, 4))
    check_values(lambda a: (np.linalg.eig(a), np.linalg.eigvals(a)), a, backends=("cpu",))
    symmetric = a + np.swapaxes(a, -1, -2)
    check_values(lambda a: (np.linalg.eig(a), np.linalg.eigvals(a)), symmetric,
                 backends=("cpu",))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_factorizations(dtype):
    a, tall, wide = spd((2, 4, 4), dtype), normal((2, 5, 3), dtype), normal((3, 4), dtype)
    junk = np.tril(np.full((4, 4), 5.0, dtype), -1)  # below the triangle 'U' reads
    values(lambda a: (np.linalg.cholesky(a), np.linalg.cholesky(a, upper=True),
                      np.linalg.eigh(a), np.linalg.eigh(a + junk, "U"),
                      np.linalg.eigvalsh(a, UPLO="U")), a, dtype=dtype)
    for m in (tall, wide, a):
        values(lambda m: (np.linalg.svd(m), np.linalg.svd(m, full_matrices=False),
                          np.linalg.svd(m, compute_uv=False), np.linalg.svdvals(m),
                          np.linalg.qr(m), np.linalg.qr(m, "complete"), np.linalg.qr(m, "r")),
               m, dtype=dtype)


def test_result_types_are_numpys_named_tuples():
    a = spd((3, 3))
    got = gradjit.jit(lambda a: (np.linalg.eigh(a), np.linalg.slogdet(a), np.linalg.svd(a),
                                 np.linalg.qr(a)))(a)
    for g, w in zip(got, (np.linalg.eigh(a), np.linalg.slogdet(a), np.linalg.svd(a),
                          np.linalg.qr(a))):
        assert type(g) is type(w) and g._fields == w._fields


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_functions_of_the_svd(dtype):
    tall, square = normal((5, 3), dtype), normal((2, 3, 3), dtype)
    deficient = (normal((4, 2)) @ normal((2, 3))).astype(dtype)  # rank 2
    for m in (tall, square, deficient, tall.T):
        values(lambda m: (np.linalg.pinv(m), np.linalg.pinv(m, rtol=None),
                          np.linalg.pinv(m, rcond=0.3), np.linalg.matrix_rank(m),
                          np.linalg.matrix_rank(m, tol=0.5), np.linalg.matrix_rank(m, rtol=0.1),
                          np.linalg.cond(m)),
               m, dtype=dtype)
    values(lambda m: np.linalg.pinv(m, hermitian=True), spd((3, 3), dtype), dtype=dtype)
    values(lambda m: (np.linalg.cond(m, 2), np.linalg.cond(m, -2), np.linalg.cond(m, 1),
                      np.linalg.cond(m, -1), np.linalg.cond(m, np.inf), np.linalg.cond(m, "fro"),
                      np.linalg.cond(m, "nuc")), square, dtype=dtype)
    values(lambda v: np.linalg.matrix_rank(v), np.array([0.0, 1.0], dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lstsq(dtype):
    tall = normal((6, 3), dtype)
    deficient = np.concatenate([tall[:5, :2], tall[:5, :1]], 1)  # rank 2 exactly
    for a in (tall, deficient, tall.T):
        b = normal((a.shape[0], 2), dtype)
        values(lambda a, b: (np.linalg.lstsq(a, b), np.linalg.lstsq(a, b[:, 0]),
                             np.linalg.lstsq(a, b, rcond=0.5)), a, b, dtype=dtype)


def test_lstsq_of_empty_matrices():
    values(lambda a, b: np.linalg.lstsq(a, b), np.zeros((3, 0)), normal((3, 2)))
    values(lambda a, b: np.linalg.lstsq(a, b), np.zeros((0, 3)), np.zeros((0, 2)))


def test_lstsq_residuals_follow_the_rank_seen_when_tracing():
    fn = gradjit.jit(lambda a, b: np.linalg.lstsq(a, b)[1])
    a, b = normal((5, 2)), normal((5,))
    np.testing.assert_allclose(fn(a, b), np.linalg.lstsq(a, b)[1])
    deficient = np.ones((5, 2))
    assert np.linalg.lstsq(deficient, b)[1].shape == (0,)
    assert fn(deficient, b).shape == (0,)  # a guard retraces for the other rank


def test_tensor_forms():
    a = np.eye(6).reshape(6, 2, 3) + 0.1 * normal((6, 2, 3))
    values(lambda a: np.linalg.tensorinv(a, ind=1), a)
    b = np.eye(6).reshape(2, 3, 6) + 0.1 * normal((2, 3, 6))
    values(lambda a, x: np.linalg.tensorsolve(a, x), b, normal((2, 3)))
    c = np.transpose(b, (2, 0, 1))
    values(lambda a, x: np.linalg.tensorsolve(a, x, axes=(0,)), c, normal((2, 3)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.bool_])
def test_transpose_diagonal_trace(dtype):
    x = rng.integers(-3, 4, (2, 3, 4)).astype(dtype)
    values(lambda x: (np.linalg.matrix_transpose(x), np.linalg.diagonal(x),
                      np.linalg.diagonal(x, offset=2), np.linalg.diagonal(x, offset=-1),
                      np.linalg.diagonal(x, offset=9), np.linalg.trace(x),
                      np.linalg.trace(x, offset=1, dtype=np.float32)), x)
    if dtype is np.float64:
        check_grad(lambda x: np.linalg.trace(x, offset=-1) + np.linalg.diagonal(x).sum(), x)


@pytest.mark.parametrize("ord", [2, -2, "nuc"])
def test_matrix_norms_by_singular_values(ord):
    x = normal((3, 2, 4))
    for axis, keepdims in (((-2, -1), False), ((0, 2), True), ((2, 0), False)):
        def fn(x):
            return ops.linalg.matrix_norm_svd(x, ord, axis, keepdims)
        for backend in BACKENDS:
            np.testing.assert_allclose(gradjit.jit(fn, backend=backend)(x),
                                       np.linalg.norm(x, ord, axis, keepdims), rtol=1e-12)
    check_grad(lambda x: ops.linalg.matrix_norm_svd(x, ord, (-2, -1), False), x)


# ---- errors, from the compiled program too ----

@pytest.mark.parametrize("backend", BACKENDS)
def test_singular_and_indefinite_matrices_raise_linalgerror(backend):
    inv = gradjit.jit(np.linalg.inv, backend=backend)
    inv(spd((2, 3, 3)))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        inv(np.zeros((2, 3, 3)))
    chol = gradjit.jit(np.linalg.cholesky, backend=backend)
    chol(spd((3, 3)))
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        chol(-spd((3, 3)))
    assert gradjit.jit(np.linalg.det, backend=backend)(np.ones((3, 3))) == 0.0


X = np.ones((2, 3))
# name -> (function of arrays, arrays, error, message, whether numpy raises it too)
ERRORS = {
    "rank-1": (np.linalg.inv, [np.ones(3)], np.linalg.LinAlgError,
               "1-dimensional array given. Array must be at least two-dimensional", True),
    "not-square": (np.linalg.det, [X], np.linalg.LinAlgError,
                   "Last 2 dimensions of the array must be square", True),
    "solve-shapes": (np.linalg.solve, [np.eye(3), np.ones((2, 2))], ValueError,
                     "3 unknowns, 2 equations", True),
    "uplo": (lambda a: np.linalg.eigh(a, "X"), [np.eye(2)], ValueError,
             "UPLO argument must be", True),
    "qr-mode": (lambda a: np.linalg.qr(a, "raw"), [X], ValueError, "Unrecognized mode 'raw'",
                False),
    "qr-complete-gradient": (gradjit.grad(lambda a: np.linalg.qr(a, "complete")[0].sum()),
                             [np.ones((3, 2))], ValueError, "needs M <= N", False),
    "pinv-rcond-rtol": (lambda a: np.linalg.pinv(a, rcond=0.1, rtol=0.1), [X], ValueError,
                        "can't be both set", True),
    "svd-hermitian": (lambda a: np.linalg.svd(a, hermitian=True), [np.eye(2)], TypeError,
                      "hermitian=True", False),
    "cond-order": (lambda a: np.linalg.cond(a, 3), [np.eye(2)], ValueError,
                   "Invalid norm order for matrices", True),
    "lstsq-rank": (np.linalg.lstsq, [np.ones((2, 2, 2)), np.ones(2)], np.linalg.LinAlgError,
                   "3-dimensional array given", True),
    "lstsq-b-rank": (np.linalg.lstsq, [np.ones((2, 2)), np.ones((2, 2, 2))],
                     np.linalg.LinAlgError, "3-dimensional array given", True),
    "lstsq-rows": (np.linalg.lstsq, [np.ones((2, 2)), np.ones(3)], np.linalg.LinAlgError,
                   "Incompatible dimensions", True),
    "tensorinv-ind": (lambda a: np.linalg.tensorinv(a, ind=0), [np.ones((2, 2))], ValueError,
                      "Invalid ind argument", True),
    "transpose-rank": (np.linalg.matrix_transpose, [np.ones(2)], ValueError,
                       "Input array must be at least 2-dimensional, but it is 1", True),
    "diagonal-rank": (np.linalg.diagonal, [np.ones(2)], ValueError,
                      "diag requires an array of at least two dimensions", True),
    "tensorsolve-shapes": (np.linalg.tensorsolve, [np.ones((2, 3)), np.ones(2)],
                           np.linalg.LinAlgError, "Input arrays must satisfy", True),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    fn, args, kind, message, numpy_too = ERRORS[name]
    if numpy_too:
        with pytest.raises(kind):
            fn(*args)
    with pytest.raises(kind, match=message):
        gradjit.jit(fn)(*args) if "gradient" not in name else fn(*args)


def test_errors_of_the_operations_themselves():
    with pytest.raises(ValueError, match="ord must be 2, -2 or 'nuc'"):
        ops.linalg.matrix_norm_svd(X, 1)
    with pytest.raises(ValueError, match="solve_triangular: the matrices"):
        ops.linalg.solve_triangular(np.eye(3), np.ones((2, 2)))
    from gradjit.ir import ShapeError, linalg
    for call, message in [(lambda: linalg.solve(np.ones(3), np.ones(3)), "stack of float"),
                          (lambda: linalg.solve(X, X), "must be square"),
                          (lambda: linalg.solve(np.eye(3), X), "do not match")]:
        with pytest.raises(ShapeError, match=message):
            call()


# ---- gradients: central differences in float64 on both backends ----

def _sign_free(*parts):
    """Squares: invariant to the signs LAPACK picks for singular/eigen vectors."""
    return [p * p for p in parts]


GRADIENTS = {
    "inv": (lambda a: np.linalg.inv(a), [spd((2, 3, 3))]),
    "solve": (lambda a, b: np.linalg.solve(a, b), [spd((2, 3, 3)), normal((2, 3, 2))]),
    "solve-vector": (lambda a, b: np.linalg.solve(a, b), [spd((3, 3)), normal((3,))]),
    "det": (lambda a: np.linalg.det(a), [normal((2, 3, 3))]),
    "slogdet": (lambda a: np.linalg.slogdet(a).logabsdet, [normal((2, 3, 3))]),
    "cholesky": (lambda a: np.linalg.cholesky(a), [spd((2, 3, 3))]),
    "cholesky-upper": (lambda a: np.linalg.cholesky(a, upper=True), [spd((3, 3))]),
    "eigh": (lambda a: np.concatenate([p.reshape(2, -1) for p in _sign_free(*np.linalg.eigh(a))],
                                      -1), [normal((2, 3, 3))]),
    "eigh-upper": (lambda a: np.linalg.eigh(a, "U").eigenvectors ** 2, [normal((3, 3))]),
    "eigvalsh": (lambda a: np.linalg.eigvalsh(a), [normal((2, 4, 4))]),
    "svd-tall": (lambda a: np.concatenate([p.reshape(-1) for p in _sign_free(
        *np.linalg.svd(a, full_matrices=False))]), [normal((5, 3))]),
    "svd-wide-batched": (lambda a: np.concatenate([p.reshape(2, -1) for p in _sign_free(
        *np.linalg.svd(a, full_matrices=False))], -1), [normal((2, 2, 4))]),
    "svd-full": (lambda a: (lambda u, s, vh: (u[:, :3] * s) @ vh)(*np.linalg.svd(a)),
                 [normal((5, 3))]),
    "svdvals": (lambda a: np.linalg.svdvals(a), [normal((2, 3, 4))]),
    "qr-tall": (lambda a: np.concatenate([p.reshape(2, -1) for p in _sign_free(
        *np.linalg.qr(a))], -1), [normal((2, 5, 3))]),
    "qr-wide": (lambda a: np.concatenate([p.reshape(-1) for p in _sign_free(*np.linalg.qr(a))]),
                [normal((3, 5))]),
    "qr-square-complete": (lambda a: np.linalg.qr(a, "complete").R ** 2, [normal((3, 3))]),
    "pinv": (lambda a: np.linalg.pinv(a), [normal((2, 4, 3))]),
    "lstsq": (lambda a, b: np.linalg.lstsq(a, b)[0], [normal((5, 3)), normal((5, 2))]),
    "cond": (lambda a: np.linalg.cond(a), [normal((3, 3))]),
    "cond-orders": (lambda a: np.stack([np.linalg.cond(a, p) for p in (1, -np.inf, "fro")]),
                    [normal((3, 3))]),
}


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradient_matches_central_differences(name):
    fn, args = GRADIENTS[name]
    check_grad(fn, *args, argnums=tuple(range(len(args))) if len(args) > 1 else 0)


def _cofactors(a):
    return np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(a, i, 0), j, 1))
                      for j in range(len(a))] for i in range(len(a))])


@pytest.mark.parametrize("rank", [3, 2, 1, 0])
def test_det_gradient_is_the_cofactor_matrix_at_any_rank(rank):
    """d det / dA is adj(A)^T, computed from the SVD: finite and exact at singular A too."""
    a = normal((3, rank)) @ normal((rank, 3)) if rank else np.zeros((3, 3))
    for backend in BACKENDS:
        np.testing.assert_allclose(gradjit.grad(np.linalg.det, backend=backend)(a),
                                   _cofactors(a), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("shape", [(0, 3, 3), (2, 0, 0), (2, 0, 3), (2, 3, 0)])
def test_gradients_of_empty_stacks_are_empty(shape):
    square = shape[-1] == shape[-2]
    fns = [lambda a: sum((p * p).sum() for p in np.linalg.svd(a)),
           lambda a: sum((p * p).sum() for p in np.linalg.qr(a)), lambda a: np.linalg.pinv(a)]
    fns += [lambda a: (np.linalg.eigh(a)[1] ** 2).sum(), lambda a: np.linalg.inv(a),
            lambda a: np.linalg.det(a), lambda a: np.linalg.cholesky(a)] if square else []
    for fn in fns:
        for backend in BACKENDS:
            g = gradjit.grad(lambda a: np.sum(fn(a)), backend=backend)(np.zeros(shape))
            assert g.shape == shape


@pytest.mark.parametrize("name", ["logdet", "eigvalsh", "cholesky", "svd", "qr"])
def test_second_derivatives(name):
    """The gradient rules are written with primitives, so they differentiate again."""
    w = rng.uniform(0.5, 1.5, (3, 3))
    fn = {"logdet": lambda a: np.linalg.slogdet(a)[1],
          "eigvalsh": lambda a: (np.linalg.eigvalsh(a) ** 3).sum(),
          "cholesky": lambda a: (np.linalg.cholesky(a) ** 2 * w).sum(),
          "svd": lambda a: (np.linalg.svd(a)[0] ** 2 * w).sum(),
          "qr": lambda a: (np.linalg.qr(a)[1] ** 2 * w).sum()}[name]
    check_grad(lambda a: (gradjit.grad(fn, backend="interpreter")(a) * w).sum(), spd((3, 3)),
               backends=("cpu",), rtol=1e-5, atol=1e-7, eps=1e-5)


def test_degenerate_spectra_give_exact_or_finite_gradients():
    """At repeated eigenvalues / singular values the gaps are masked: functions of the
    spectrum, and of degenerate eigenspaces through their projectors, get their exact
    gradient; other functions of the vectors get a finite one."""
    eye = np.eye(3)
    q = np.linalg.qr(normal((3, 3)))[0]
    double = q @ np.diag([1.0, 1.0, 3.0]) @ q.T
    check_grad(lambda a: (lambda v: v[:, :2] @ v[:, :2].T)(np.linalg.eigh(a)[1]), double)
    for backend in BACKENDS:
        g = gradjit.grad(lambda a: np.linalg.eigvalsh(a).sum(), backend=backend)(eye)
        np.testing.assert_allclose(g, eye, atol=1e-12)  # d trace = I
        g = gradjit.grad(lambda a: np.linalg.svdvals(a).sum(), backend=backend)(2 * eye)
        np.testing.assert_allclose(g, eye, atol=1e-12)  # d nuclear norm = U Vh
        w = rng.uniform(0.5, 1.5, (3, 3))
        g = gradjit.grad(lambda a: (lambda u, s, vh: ((u * s) @ vh * w).sum())(
            *np.linalg.svd(a)), backend=backend)(2 * eye)
        assert np.isfinite(g).all()


# ---- against PyTorch ----

def _torch_grad(torch_fn, *arrays):
    torch = pytest.importorskip("torch")
    tensors = [torch.tensor(a, requires_grad=True) for a in arrays]
    torch_fn(torch, *tensors).backward()
    return [t.grad.numpy() for t in tensors]


def _fold(sym):
    """PyTorch's symmetric gradient counted on the lower triangle that numpy reads."""
    return np.tril(sym + np.swapaxes(sym, -1, -2)) - sym * np.eye(sym.shape[-1])


WEIGHTS = rng.uniform(0.5, 1.5, (2, 4, 4))
TORCH = {
    "inv": (lambda a: (np.linalg.inv(a) * WEIGHTS[0, :3, :3]).sum(),
            lambda t, a: (t.linalg.inv(a) * t.tensor(WEIGHTS[0, :3, :3])).sum(), normal((3, 3)),
            False),
    "det": (lambda a: np.linalg.det(a).sum(), lambda t, a: t.linalg.det(a).sum(),
            normal((2, 3, 3)), False),
    "slogdet": (lambda a: np.linalg.slogdet(a)[1].sum(),
                lambda t, a: t.linalg.slogdet(a)[1].sum(), normal((2, 3, 3)), False),
    "cholesky": (lambda a: (np.linalg.cholesky(a) * WEIGHTS).sum(),
                 lambda t, a: (t.linalg.cholesky(a) * t.tensor(WEIGHTS)).sum(), spd((2, 4, 4)),
                 True),
    "eigh": (lambda a: (np.linalg.eigh(a)[1] ** 2 * WEIGHTS).sum() + np.linalg.eigh(a)[0].sum(),
             lambda t, a: (t.linalg.eigh(a)[1] ** 2 * t.tensor(WEIGHTS)).sum()
             + t.linalg.eigh(a)[0].sum(), spd((2, 4, 4)), True),
    "svd": (lambda a: sum((p ** 2).sum() * k for k, p in enumerate(
        np.linalg.svd(a, full_matrices=False), 1)),
            lambda t, a: sum((p ** 2).sum() * k for k, p in enumerate(
                t.linalg.svd(a, full_matrices=False), 1)), normal((2, 5, 3)), False),
    "qr": (lambda a: ((np.linalg.qr(a)[0] ** 2) * WEIGHTS[0, :, :3]).sum()
           + (np.linalg.qr(a)[1] ** 3).sum(),
           lambda t, a: ((t.linalg.qr(a)[0] ** 2) * t.tensor(WEIGHTS[0, :, :3])).sum()
           + (t.linalg.qr(a)[1] ** 3).sum(), normal((4, 3)), False),
    "pinv": (lambda a: (np.linalg.pinv(a) * WEIGHTS[0, :3]).sum(),
             lambda t, a: (t.linalg.pinv(a) * t.tensor(WEIGHTS[0, :3])).sum(), normal((4, 3)),
             False),
}


@pytest.mark.parametrize("name", sorted(TORCH))
def test_gradient_matches_pytorch(name):
    fn, torch_fn, a, symmetric = TORCH[name]
    (want,) = _torch_grad(torch_fn, a)
    if symmetric:
        want = _fold(want)
    for backend in BACKENDS:
        np.testing.assert_allclose(gradjit.grad(fn, backend=backend)(a), want, rtol=1e-9,
                                   atol=1e-10)


@pytest.mark.parametrize("p", [None, 2, -2, "fro", np.inf, -np.inf, 1, -1])
def test_cond_of_singular_matrices_is_numpys(p):
    """A zero pivot gives inf, as numpy's cond turns its NaN inverse into inf."""
    a = np.stack([[[1.0, 2.0], [0.0, 0.0]], np.eye(2), np.zeros((2, 2))])
    assert not np.isfinite(np.linalg.cond(a, p)).all()
    values(lambda m: (np.linalg.cond(m, p), np.linalg.cond(m[0], p)), a)


def test_cond_nuc_of_a_singular_matrix_fails_as_numpys():
    a = np.array([[1.0, 2.0], [0.0, 0.0]])
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cond(a, "nuc")
    with pytest.raises(np.linalg.LinAlgError):
        gradjit.jit(lambda m: np.linalg.cond(m, "nuc"))(a)
