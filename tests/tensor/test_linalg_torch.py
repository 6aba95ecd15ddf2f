"""torch.linalg (and torch.det, inverse, logdet, slogdet) on eager Tensors against PyTorch
itself: values, gradients, grad_fn names, result types and errors."""
import numpy as np
import pytest

import gradjit

torch = pytest.importorskip("torch")
rng = np.random.default_rng(11)


def spd(shape):
    x = rng.standard_normal(shape)
    return x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])


def normal(*shape):
    return rng.standard_normal(shape)


def sign_free(*parts):
    """A scalar of squares, weighted per part: invariant to the signs LAPACK chooses."""
    return sum((p * p).sum() * k for k, p in enumerate(parts, 1))


W = rng.uniform(0.5, 1.5, (2, 4, 4))
# name -> (function of the library module (torch or gradjit) and arrays, arrays, grad_fn)
CASES = {
    "inv": (lambda t, a: t.linalg.inv(a), [normal(2, 3, 3)], "LinalgInvExBackward0"),
    "inverse": (lambda t, a: t.inverse(a), [normal(3, 3)], "LinalgInvExBackward0"),
    "solve": (lambda t, a, b: t.linalg.solve(a, b), [spd((2, 3, 3)), normal(2, 3, 2)],
              "LinalgSolveExBackward0"),
    "solve-batch-of-vectors": (lambda t, a, b: t.linalg.solve(a, b), [spd((2, 3, 3)),
                                                                       normal(2, 3)],
                               "LinalgSolveExBackward0"),
    "solve-right": (lambda t, a, b: t.linalg.solve(a, b, left=False), [spd((3, 3)),
                                                                        normal(2, 3)],
                    "LinalgSolveExBackward0"),
    "solve_triangular": (lambda t, a, b: t.linalg.solve_triangular(a, b, upper=True),
                         [spd((2, 3, 3)), normal(2, 3, 2)], "LinalgSolveTriangularBackward0"),
    "solve_triangular-right-unit": (
        lambda t, a, b: t.linalg.solve_triangular(a, b, upper=False, left=False,
                                                  unitriangular=True),
        [spd((3, 3)), normal(2, 3)], "LinalgSolveTriangularBackward0"),
    "det": (lambda t, a: t.linalg.det(a), [normal(2, 3, 3)], "LinalgDetBackward0"),
    "torch.det": (lambda t, a: t.det(a), [normal(3, 3)], "LinalgDetBackward0"),
    "slogdet": (lambda t, a: t.linalg.slogdet(a).logabsdet, [normal(2, 3, 3)],
                "LinalgSlogdetBackward0"),
    "torch.slogdet": (lambda t, a: t.slogdet(a)[1], [normal(3, 3)], "LinalgSlogdetBackward0"),
    "logdet": (lambda t, a: t.logdet(a), [np.stack([spd((3, 3)), -spd((3, 3))])],
               "WhereBackward0"),
    "cholesky": (lambda t, a: t.linalg.cholesky(a) * t.tensor(W), [spd((2, 4, 4))],
                 "MulBackward0"),
    "cholesky-upper": (lambda t, a: t.linalg.cholesky(a, upper=True), [spd((3, 3))],
                       "LinalgCholeskyExBackward0"),
    "eigh": (lambda t, a: sign_free(*t.linalg.eigh(a)), [spd((2, 4, 4)) + normal(2, 4, 4)],
             "AddBackward0"),
    "eigh-upper": (lambda t, a: t.linalg.eigh(a, UPLO="U").eigenvectors ** 2 * t.tensor(W),
                   [spd((2, 4, 4))], "MulBackward0"),
    "eigvalsh": (lambda t, a: t.linalg.eigvalsh(a), [normal(2, 4, 4)], "LinalgEighBackward0"),
    "qr": (lambda t, a: sign_free(*t.linalg.qr(a)), [normal(2, 5, 3)], "AddBackward0"),
    "qr-wide": (lambda t, a: sign_free(*t.linalg.qr(a)), [normal(3, 5)], "AddBackward0"),
    "qr-complete": (lambda t, a: sign_free(*t.linalg.qr(a, mode="complete")), [normal(3, 5)],
                    "AddBackward0"),
    "svd": (lambda t, a: sign_free(*t.linalg.svd(a, full_matrices=False)), [normal(2, 5, 3)],
            "AddBackward0"),
    "svd-wide": (lambda t, a: sign_free(*t.linalg.svd(a, full_matrices=False)), [normal(3, 4)],
                 "AddBackward0"),
    "svdvals": (lambda t, a: t.linalg.svdvals(a), [normal(2, 3, 4)], "LinalgSvdBackward0"),
    "pinv": (lambda t, a: t.linalg.pinv(a), [normal(2, 4, 3)], "LinalgPinvBackward0"),
    "pinverse": (lambda t, a: t.pinverse(a, rcond=0.1), [normal(3, 4)], "LinalgPinvBackward0"),
    "methods": (lambda t, a: a.det() + a.inverse().sum() + a.slogdet()[1] + a.pinverse().sum()
                + a.logdet(), [spd((3, 3))], "AddBackward0"),
    "cond": (lambda t, a: t.linalg.cond(a), [normal(2, 3, 4)], "SqueezeBackward1"),
    "cond-inverse": (lambda t, a: t.linalg.cond(a, -2), [normal(3, 3)], "SqueezeBackward1"),
    "tensorinv": (lambda t, a: t.linalg.tensorinv(a, ind=1), [np.eye(6).reshape(6, 2, 3)
                                                              + 0.1 * normal(6, 2, 3)],
                  "ReshapeAliasBackward0"),
    "tensorsolve": (lambda t, a, b: t.linalg.tensorsolve(a, b), [np.eye(6).reshape(2, 3, 6)
                                                                 + 0.1 * normal(2, 3, 6),
                                                                 normal(2, 3)], "ViewBackward0"),
    "diagonal": (lambda t, a: t.linalg.diagonal(a, offset=1, dim1=0, dim2=2), [normal(3, 2, 4)],
                 "DiagonalBackward0"),
    "pinv-hermitian": (lambda t, a: t.linalg.pinv(a, hermitian=True), [spd((3, 3))],
                       "LinalgPinvBackward0"),
    "lstsq": (lambda t, a, b: t.linalg.lstsq(a, b).solution, [normal(2, 5, 3), normal(2, 5, 2)],
              "LinalgLstsqBackward0"),
}


def _run(lib, fn, arrays):
    tensors = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = fn(lib, *tensors)
    out.backward(lib.tensor(np.resize(W, tuple(out.shape))))
    return out, [t.grad for t in tensors]


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_gradients_and_grad_fn_match_pytorch(name):
    fn, arrays, grad_fn = CASES[name]
    want, want_grads = _run(torch, fn, arrays)
    got, got_grads = _run(gradjit, fn, arrays)
    assert got.grad_fn.name() == want.grad_fn.name() == grad_fn
    assert got.dtype == gradjit.float64 and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-9,
                               atol=1e-10)
    for g, w in zip(got_grads, want_grads):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-8, atol=1e-10)


def test_float32_and_result_types():
    a = spd((2, 3, 3)).astype(np.float32)
    for name, fields in [("eigh", ("eigenvalues", "eigenvectors")), ("qr", ("Q", "R")),
                         ("svd", ("U", "S", "Vh")), ("slogdet", ("sign", "logabsdet"))]:
        got = getattr(gradjit.linalg, name)(gradjit.tensor(a))
        want = getattr(torch.linalg, name)(torch.tensor(a))
        assert got._fields == fields and type(got).__name__ == f"linalg_{name}"
        assert repr(got).startswith(f"torch.return_types.linalg_{name}(")
        for g, w in zip(got, want):
            assert g.dtype == gradjit.float32
            np.testing.assert_allclose(np.abs(g.numpy()), np.abs(w.numpy()), rtol=1e-4,
                                       atol=1e-5)
    assert type(gradjit.slogdet(gradjit.tensor(a))).__name__ == "slogdet"
    q, r = gradjit.linalg.qr(gradjit.tensor(a), mode="r")
    assert tuple(q.shape) == (0,)
    np.testing.assert_allclose(np.abs(r.numpy()), np.abs(torch.linalg.qr(torch.tensor(a),
                                                                         mode="r")[1].numpy()),
                               rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
def test_lstsq_reports_what_the_driver_reports(driver):
    a, b = normal(2, 5, 3), normal(2, 5, 2)
    got = gradjit.linalg.lstsq(gradjit.tensor(a), gradjit.tensor(b), driver=driver)
    want = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
    assert got._fields == ("solution", "residuals", "rank", "singular_values")
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape) and str(g.dtype) == str(w.dtype)
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-9, atol=1e-10)


def test_matrix_rank_tolerances():
    a = np.concatenate([normal(2, 4, 2), np.zeros((2, 4, 1))], -1) + [[[0, 0, 1e-3]]]
    for kwargs in [{}, {"atol": 0.01}, {"rtol": 1e-2}, {"atol": 1e-5, "rtol": 1e-6},
                   {"hermitian": True}]:
        x = a[..., :3, :] if kwargs.get("hermitian") else a
        x = x @ np.swapaxes(x, -1, -2) if kwargs.get("hermitian") else x
        got = gradjit.linalg.matrix_rank(gradjit.tensor(x), **kwargs)
        want = torch.linalg.matrix_rank(torch.tensor(x), **kwargs)
        assert got.dtype == gradjit.int64
        np.testing.assert_array_equal(got.numpy(), want.numpy())


ERRORS = {
    "singular": (lambda t: t.linalg.inv(t.zeros(2, 2)), "LinAlgError", "singular"),
    "indefinite": (lambda t: t.linalg.cholesky(-t.eye(2)), "LinAlgError",
                   "not positive-definite"),
    "integers": (lambda t: t.linalg.inv(t.ones(2, 2, dtype=t.int64)), "RuntimeError",
                 "Expected a floating point or complex tensor as input. Got Long"),
    "not-square": (lambda t: t.linalg.det(t.ones(2, 3)), "RuntimeError",
                   "A must be batches of square matrices, but they are 2 by 3 matrices"),
    "rank-1": (lambda t: t.linalg.svd(t.ones(3)), "RuntimeError",
               "The input tensor A must have at least 2 dimensions"),
    "qr-mode": (lambda t: t.linalg.qr(t.ones(3, 3), mode="x"), "RuntimeError",
                "unrecognized mode 'x'"),
    "solve-right-vector": (lambda t: t.linalg.solve(t.eye(2), t.ones(2), left=False),
                           "RuntimeError",
                           "Incompatible shapes of A and B for the equation XA = B \\(2x2 and "
                           "2x1\\)"),
    "lstsq-driver": (lambda t: t.linalg.lstsq(t.eye(2), t.ones(2, 1), driver="x"),
                     "RuntimeError", "parameter `driver` should be one of"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_pytorchs(name):
    call, kind, message = ERRORS[name]
    for lib in (torch, gradjit):
        error = lib.linalg.LinAlgError if kind == "LinAlgError" else RuntimeError
        with pytest.raises(error, match=message):
            call(lib)
    assert issubclass(gradjit.linalg.LinAlgError, RuntimeError)


def test_compiled_torch_code():
    """The same functions traced: jit and grad on Tensors, against eager PyTorch."""
    def f(lib, a):
        return lib.linalg.eigh(a).eigenvalues.sum() + lib.linalg.det(a).sum()
    a = spd((2, 3, 3))
    t_a = torch.tensor(a, requires_grad=True)
    f(torch, t_a).backward()
    x = gradjit.tensor(a)
    np.testing.assert_allclose(gradjit.jit(lambda a: f(gradjit, a))(x).numpy(),
                               f(torch, t_a).detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(gradjit.grad(lambda a: f(gradjit, a))(x).numpy(),
                               t_a.grad.numpy(), rtol=1e-9)


SINGULAR = np.stack([[[1.0, 2.0], [0.0, 0.0]], np.eye(2), np.zeros((2, 2)),
                     [[3.0, 1.0], [6.0, 2.0]]])


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", np.inf, -np.inf, 1, -1])
@pytest.mark.parametrize("batched", [False, True])
def test_cond_of_singular_matrices_is_pytorchs(p, batched):
    """A zero pivot gives inf, not LinAlgError; a zero matrix's 0/0 or 0*inf stays NaN for the
    singular-value orders and nuc, as in PyTorch."""
    a = SINGULAR if batched else SINGULAR[0]
    want = torch.linalg.cond(torch.tensor(a), p).numpy()
    got = gradjit.linalg.cond(gradjit.tensor(a), p).numpy()
    assert not (np.isfinite(want) & (want != 0)).all()  # the singular cases do not invert
    np.testing.assert_allclose(got, want, rtol=1e-12)
