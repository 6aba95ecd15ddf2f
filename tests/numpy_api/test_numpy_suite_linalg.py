"""numpy's linalg/tests/test_linalg.py scenarios: solve, inv, det, slogdet, eig/eigvals,
eigh/eigvalsh (both UPLO), svd/svdvals (hermitian too), pinv (rtol, hermitian), cond of every
order, matrix_rank, lstsq (rcond, empty), matrix_power of every sign, qr of every mode,
cholesky (upper), norm of every order and axis, multi_dot, outer, tensorsolve/tensorinv; on
square, non-square, stacked, empty and 0-size operands of float32/64 and complex dtypes,
with numpy's LinAlgError and ValueError refusals; eager, compiled and differentiated."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import case, suite_tests

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

L = np.linalg
rng = np.random.default_rng(11)


def well(shape, dtype="f8"):
    """A well-conditioned matrix (or stack): a random one plus a multiple of the identity."""
    x = rng.standard_normal(shape) + (1j * rng.standard_normal(shape)
                                      if np.dtype(dtype).kind == "c" else 0)
    return (x + 3 * np.eye(shape[-1], shape[-2]).T).astype(dtype)


def hermitian(shape, dtype="f8"):
    x = well(shape, dtype)
    return ((x + np.conj(np.swapaxes(x, -1, -2))) / 2 + shape[-1] * np.eye(shape[-1])).astype(
        dtype)


def plain(shape, dtype="f8"):
    x = rng.standard_normal(shape) + (1j * rng.standard_normal(shape)
                                      if np.dtype(dtype).kind == "c" else 0)
    return x.astype(dtype)


DTYPES = ("f4", "f8", "c8", "c16")
SQUARE_SHAPES = {"1x1": (1, 1), "3x3": (3, 3), "stack": (2, 3, 3), "deep": (2, 1, 2, 2)}
NONSQUARE_SHAPES = {"3x2": (3, 2), "2x4": (2, 4), "stack": (2, 4, 3)}


def _square_cases():
    out = []
    for dtype in DTYPES:
        for name, shape in SQUARE_SHAPES.items():
            a, b = well(shape, dtype), plain(shape[:-1] + (2,), dtype)
            h = hermitian(shape, dtype)
            tag = f"{dtype}-{name}"
            out += [
                case(f"solve-{tag}", L.solve, a, b),
                case(f"solve-vector-{tag}", lambda a, b: L.solve(a, b[..., 0]), a, b)
                if len(shape) == 2 else case(f"solve-broadcast-{tag}", lambda a, b: L.solve(
                    a, b[0]), a, b),
                case(f"inv-{tag}", L.inv, a),
                case(f"det-{tag}", L.det, a),
                case(f"slogdet-{tag}", lambda a: tuple(L.slogdet(a)), a),
                case(f"eigvals-{tag}", lambda a: np.sort_complex(L.eigvals(a)), a),
                case(f"eigvalsh-{tag}", L.eigvalsh, h),
                case(f"eigvalsh-upper-{tag}", lambda a: L.eigvalsh(a, UPLO="U"), h),
                case(f"eigh-values-{tag}", lambda a: L.eigh(a)[0], h),
                case(f"eigh-reconstruct-{tag}", lambda a: _from_eigh(*L.eigh(a)), h),
                case(f"eigh-upper-{tag}", lambda a: _from_eigh(*L.eigh(a, UPLO="U")), h),
                case(f"svdvals-{tag}", L.svdvals, a),
                case(f"svd-reconstruct-{tag}", lambda a: _from_svd(*L.svd(a)), a),
                case(f"svd-hermitian-{tag}", lambda a: L.svd(a, compute_uv=False,
                                                             hermitian=True), h),
                case(f"pinv-{tag}", L.pinv, a),
                case(f"pinv-hermitian-{tag}", lambda a: L.pinv(a, hermitian=True), h),
                case(f"cholesky-{tag}", L.cholesky, h),
                case(f"cholesky-upper-{tag}", lambda a: L.cholesky(a, upper=True), h),
                case(f"matrix-rank-{tag}", L.matrix_rank, a),
                case(f"qr-{tag}", lambda a: _from_qr(*L.qr(a)), a),
            ]
            if dtype in ("f8", "c16"):
                out += [case(f"cond-{o}-{tag}", lambda a, o=o: L.cond(a, o), a)
                        for o in (None, 1, -1, 2, -2, "fro", np.inf, -np.inf)]
        for p in (0, 1, 2, 3, -1, -2, 5):
            out.append(case(f"matrix-power-{p}-{dtype}", lambda a, p=p: L.matrix_power(a, p),
                            well((3, 3), dtype) / 3))
    return out


def _from_eigh(w, v):
    """The matrix the decomposition gives back (eigenvectors are defined up to a phase)."""
    return (v * w[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2))


def _from_svd(u, s, vh):
    k = s.shape[-1]
    return (u[..., :k] * s[..., None, :]) @ vh[..., :k, :]


def _from_qr(q, r):
    return q @ r, np.abs(np.diagonal(r, axis1=-2, axis2=-1))


def _nonsquare_cases():
    out = []
    for dtype in DTYPES:
        for name, shape in NONSQUARE_SHAPES.items():
            a = plain(shape, dtype)
            tag = f"{dtype}-{name}"
            out += [
                case(f"svdvals-{tag}", L.svdvals, a),
                case(f"svd-full-{tag}", lambda a: _from_svd(*L.svd(a)), a),
                case(f"svd-reduced-{tag}", lambda a: _from_svd(*L.svd(a, full_matrices=False)),
                     a),
                case(f"pinv-{tag}", L.pinv, a),
                case(f"matrix-rank-{tag}", L.matrix_rank, a),
                case(f"qr-reduced-{tag}", lambda a: _from_qr(*L.qr(a)), a),
                case(f"qr-complete-{tag}", lambda a: _from_qr(*L.qr(a, mode="complete")), a),
                case(f"qr-r-{tag}", lambda a: np.abs(L.qr(a, mode="r")), a),
                case(f"lstsq-{tag}", lambda a, b: L.lstsq(a, b)[0], a,
                     plain(shape[:-1] + (2,), dtype)) if len(shape) == 2 else
                case(f"lstsq-stacked-{tag}", lambda a, b: L.lstsq(a, b), a, plain(
                    shape[:-1] + (2,), dtype)),
            ]
        out += [
            case(f"lstsq-full-{dtype}", lambda a, b: (L.lstsq(a, b, rcond=None)[0],
                                                      L.lstsq(a, b, rcond=None)[2:]),
                 plain((5, 3), dtype), plain((5, 2), dtype)),
            case(f"lstsq-residuals-vector-{dtype}", lambda a, b: L.lstsq(a, b)[1],
                 plain((5, 3), dtype), plain(5, dtype)),
            case(f"lstsq-underdetermined-{dtype}", lambda a, b: L.lstsq(a, b)[:3],
                 plain((2, 4), dtype), plain((2, 3), dtype)),
        ]
    return out


def _empty_cases():
    out = []
    for shape in ((0, 0), (2, 0, 0), (0, 3, 3)):
        a = np.zeros(shape)
        out += [
            case(f"inv-empty-{shape}", L.inv, a),
            case(f"det-empty-{shape}", L.det, a),
            case(f"slogdet-empty-{shape}", lambda a: tuple(L.slogdet(a)), a),
            case(f"solve-empty-{shape}", L.solve, a, np.zeros(shape[:-1] + (2,))),
            case(f"eigvalsh-empty-{shape}", L.eigvalsh, a),
            case(f"eigvals-empty-{shape}", L.eigvals, a),
            case(f"svdvals-empty-{shape}", L.svdvals, a),
            case(f"pinv-empty-{shape}", L.pinv, a),
            case(f"cholesky-empty-{shape}", L.cholesky, a),
            case(f"norm-empty-{shape}", L.norm, a),
        ]
    for m, n, k in ((0, 0, 0), (4, 0, 1), (4, 0, 0), (0, 4, 1), (0, 4, 0)):
        out.append(case(f"lstsq-empty-{m}-{n}-{k}", lambda a, b: L.lstsq(a, b)[:3],
                        np.ones((m, n)), np.ones((m, k))))
    for m, n in ((0, 0), (0, 2), (2, 0)):
        out.append(case(f"qr-empty-{m}-{n}", lambda a: L.qr(a), np.zeros((m, n))))
    return out + [
        case("solve-0-size-k", L.solve, np.zeros((2, 3, 3)) + np.eye(3), np.zeros((2, 3, 0))),
        case("svd-empty-identity", lambda a: L.svd(a), np.zeros((0, 2))),
    ]


def _norm_cases():
    v, m, t = plain(7), plain((3, 4)), plain((2, 3, 4))
    out = [case(f"norm-vector-{o}", lambda a, o=o: L.norm(a, o), v)
           for o in (None, 0, 1, 2, 3.5, -1, -2, np.inf, -np.inf)]
    out += [case(f"norm-matrix-{o}", lambda a, o=o: L.norm(a, o), m)
            for o in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)]
    out += [case(f"norm-axes-{o}", lambda a, o=o: [L.norm(a, o, axis=x)
                                                    for x in ((0, 1), (2, 1), (-1, 0))], t)
            for o in (None, "fro", "nuc", 1, 2, np.inf)]
    return out + [
        case("norm-axis-vectors", lambda a: [L.norm(a, 3, axis=x) for x in (0, 1, 2, -1)], t),
        case("norm-keepdims", lambda a: [L.norm(a, o, axis=x, keepdims=True)
                                         for o, x in ((None, None), (2, 1), ("fro", (0, 2)))], t),
        case("norm-int", lambda a: (L.norm(a), L.norm(a, 1), L.norm(a, axis=0)),
             np.arange(12).reshape(3, 4) - 5),
        case("norm-int-min", L.norm, np.array([np.iinfo(np.int64).min, 1])),
        case("norm-f32", lambda a: (L.norm(a), L.norm(a, 2), L.norm(a[0], 4)), m.astype("f4")),
        case("norm-complex-high-ord", lambda a: L.norm(a, 3), plain(5, "c16")),
        case("norm-complex-matrix", lambda a: (L.norm(a, "nuc"), L.norm(a, 2)), plain((3, 3),
                                                                                      "c16")),
        case("norm-bad-vector-ord", lambda a: L.norm(a, "fro"), v),
        case("norm-bad-matrix-ord", lambda a: L.norm(a, 3), m),
        case("norm-bad-axes", lambda a: L.norm(a, axis=(0, 0)), m),
        case("norm-bad-axis", lambda a: L.norm(a, axis=3), m),
        case("norm-three-axes", lambda a: L.norm(a, axis=(0, 1, 2)), t),
        case("vector-norm", lambda a: [L.vector_norm(a, ord=o, axis=x)
                                       for o, x in ((2, None), (1, 1), (np.inf, (0, 2)))], t),
        case("matrix-norm", lambda a: [L.matrix_norm(a, ord=o) for o in ("fro", "nuc", 2, 1)],
             t),
    ]


def _other_cases():
    a = well((3, 3))
    return [
        case("multi-dot-three", lambda a, b, c: L.multi_dot([a, b, c]), plain((6, 2)),
             plain((2, 6)), plain((6, 2))),
        case("multi-dot-two", lambda a, b: L.multi_dot([a, b]), plain((6, 2)), plain((2, 6))),
        case("multi-dot-chain", lambda *m: L.multi_dot(m), plain((4, 10)), plain((10, 3)),
             plain((3, 7)), plain((7, 2)), plain((2, 5))),
        case("multi-dot-vector-first", lambda a, b, c: L.multi_dot([a, b, c]), plain(6),
             plain((6, 2)), plain((2, 6))),
        case("multi-dot-vector-last", lambda a, b, c: L.multi_dot([a, b, c]), plain((6, 2)),
             plain((2, 6)), plain(6)),
        case("multi-dot-vectors", lambda a, b, c: L.multi_dot([a, b, c]), plain(6),
             plain((6, 2)), plain(2)),
        case("multi-dot-one", lambda a: L.multi_dot([a]), plain((2, 2))),
        case("multi-dot-3d", lambda a, b: L.multi_dot([a, b]), plain((2, 2, 2)), plain((2, 2))),
        case("outer", L.outer, plain(3), plain(4)),
        case("outer-2d", L.outer, plain((2, 2)), plain(4)),
        case("tensorsolve", lambda a, b: L.tensorsolve(a, b), well((6, 6)).reshape(6, 2, 3),
             plain(6)),
        case("tensorsolve-axes", lambda a, b: L.tensorsolve(a, b, axes=(0,)),
             np.moveaxis(well((6, 6)).reshape(6, 2, 3), 0, 2), plain(6)),
        case("tensorinv", lambda a: L.tensorinv(a, ind=1), well((6, 6)).reshape(6, 2, 3)),
        case("tensorinv-bad-ind", lambda a: L.tensorinv(a, ind=0), well((6, 6)).reshape(6, 2, 3)),
        case("pinv-rtol", lambda a: (L.pinv(a, rtol=0.5), L.pinv(a, rcond=0.5)),
             np.diag([1.0, 0.4, 0.1])),
        case("pinv-rtol-and-rcond", lambda a: L.pinv(a, rtol=0.5, rcond=0.5), a),
        case("lstsq-rcond", lambda a, b: L.lstsq(a, b, rcond=0.5)[2:],
             np.array([[0.0, 1.0, 0.0, 1.0, 2.0, 0.0], [0.0, 2.0, 0.0, 0.0, 1.0, 0.0],
                       [1.0, 0.0, 1.0, 0.0, 0.0, 4.0], [0.0, 0.0, 0.0, 2.0, 3.0, 0.0]]).T,
             np.array([1.0, 0, 0, 0, 0, 0])),
        case("lstsq-incompatible", L.lstsq, plain((3, 2)), plain((4, 1))),
        case("matrix-rank-reduced", L.matrix_rank, plain((40, 10)) @ plain((10, 20))),
        case("matrix-rank-tol", lambda a: [L.matrix_rank(a, tol=t) for t in (0.05, 0.2, 2.0)],
             np.diag([1.0, 0.1, 0.01])),
        case("matrix-rank-hermitian", lambda a: L.matrix_rank(a, hermitian=True),
             np.diag([1.0, 1.0, 0.0])),
        case("matrix-rank-vector", L.matrix_rank, np.array([1.0, 0.0])),
        case("matrix-rank-zeros", L.matrix_rank, np.zeros((4, 4))),
        case("det-zero", L.det, np.array([[0.0, 0.0], [0.0, 0.0]])),
        case("slogdet-zero", lambda a: tuple(L.slogdet(a)), np.array([[0.0, 0.0], [0.0, 0.0]])),
        case("slogdet-complex-zero", lambda a: tuple(L.slogdet(a)), np.zeros((2, 2), complex)),
        case("cond-singular", lambda a: [L.cond(a, o) for o in (None, 1, 2, "fro")],
             np.array([[1.0, 1.0], [1.0, 1.0]])),
        case("cond-nan", lambda a: [L.cond(a, o) for o in (None, 1, 2)],
             np.array([[1.0, np.nan], [1.0, 1.0]])),
        case("cond-stacked-singular", lambda a: L.cond(a), np.array(
            [[[1.0, 0], [0, 1]], [[1, 1], [1, 1]], [[2, 0], [0, 3]]])),
        case("matrix-power-large", lambda a: L.matrix_power(a, 2 ** 5 + 1),
             np.array([[0.0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 1], [0, 0, -1, 0]])),
        case("matrix-power-int", lambda a: [L.matrix_power(a, p) for p in (0, 1, 2, 3)],
             np.array([[1, 2], [3, 4]])),
        case("matrix-power-int-inverse", lambda a: L.matrix_power(a, -1),
             np.array([[2, 0], [0, 1]])),
        case("matrix-power-bad-power", lambda a: L.matrix_power(a, 1.5), a),
        case("matrix-power-non-square", lambda a: L.matrix_power(a, 1), plain((2, 3))),
        case("matrix-power-singular", lambda a: L.matrix_power(a, -1),
             np.array([[1.0, 1], [1, 1]])),
        case("matrix-power-stack", lambda a: L.matrix_power(a, 3), plain((2, 3, 3)) / 2),
        case("eigh-bad-uplo", lambda a: L.eigh(a, UPLO="lrong"), hermitian((2, 2))),
        case("eigvalsh-bad-uplo", lambda a: L.eigvalsh(a, UPLO="lrong"), hermitian((2, 2))),
        case("qr-bad-mode", lambda a: L.qr(a, mode="wrong"), plain((3, 2))),
        case("solve-1d", L.solve, a, plain(3)),
        case("solve-1d-stack", L.solve, well((2, 3, 3)), plain(3)),
        case("solve-bad-b", L.solve, a, plain(4)),
        case("solve-singular", L.solve, np.ones((2, 2)), plain(2)),
        case("inv-singular", L.inv, np.ones((3, 3))),
        case("inv-non-square", L.inv, plain((2, 3))),
        case("det-1d", L.det, plain(3)),
        case("cholesky-not-pd", L.cholesky, np.array([[1.0, 2.0], [2.0, 1.0]])),
        case("eigvals-int", L.eigvals, np.array([[2, 1], [1, 3]])),
        case("inv-int", L.inv, np.array([[2, 1], [1, 3]])),
        case("det-int", L.det, np.array([[2, 1], [1, 3]])),
        case("svd-int", L.svdvals, np.array([[2, 1], [1, 3]])),
        case("solve-f4-f8", L.solve, well((3, 3), "f4"), plain(3)),
    ]


# Decompositions of repeated or complex eigenvalues, ranks and sorted complex eigenvalues have
# no derivative (or none central differences of the real inputs see): the values compare only.
# pinv's gradient is Golub and Pereyra's closed form for a constant rank: not the derivative
# of a truncation that drops nonzero singular values (pinv-rtol).
NO_GRAD_PREFIXES = ("pinv-rtol", "eigvals-", "matrix-rank", "cond-singular",
                    "cond-nan", "cond-stacked",
                    "norm-empty", "lstsq-empty", "qr-empty", "svd-empty", "slogdet-zero",
                    "det-zero", "svd-full", "norm-int-min", "qr-complete", "matrix-power-int")
CASES = [c._replace(grad=()) if c.name.startswith(NO_GRAD_PREFIXES) else c
         for c in _square_cases() + _nonsquare_cases() + _empty_cases() + _norm_cases()
         + _other_cases()]


test_eager, test_jit, test_grad = suite_tests(CASES)
