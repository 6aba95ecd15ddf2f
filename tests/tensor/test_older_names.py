"""PyTorch's older linear-algebra names (torch.svd, qr, cholesky, cholesky_solve,
cholesky_inverse, triangular_solve), the signal windows, and small namespace functions
(rsub, scalar_tensor, randint_like, real/conj and friends, precision and anomaly flags)
against PyTorch 2.13."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
rng = np.random.default_rng(5)
A = rng.standard_normal((4, 3))
SPD = A.T @ A + np.eye(3)
B = rng.standard_normal((3, 2))
LOWER = np.linalg.cholesky(SPD)

CALLS = {
    "qr": lambda L, a: L.qr(a),
    "qr-complete": lambda L, a: L.qr(a.mT, some=False),
    "cholesky": lambda L, a: L.cholesky(a.mT @ a + L.eye(3, dtype=L.float64)),
    "cholesky-upper": lambda L, a: (a.mT @ a + L.eye(3, dtype=L.float64)).cholesky(upper=True),
    "cholesky_solve": lambda L, a: L.cholesky_solve(L.tensor(B), L.linalg.cholesky(
        a.mT @ a + L.eye(3, dtype=L.float64))),
    "cholesky_solve-upper": lambda L, a: L.tensor(B).cholesky_solve(L.linalg.cholesky(
        a.mT @ a + L.eye(3, dtype=L.float64)).mT, upper=True),
    "cholesky_inverse": lambda L, a: L.cholesky_inverse(L.linalg.cholesky(
        a.mT @ a + L.eye(3, dtype=L.float64))),
    "svd-values": lambda L, a: L.svd(a).S,
    "svd-reconstructs": lambda L, a: (lambda r: r.U @ L.diag(r.S) @ r.V.mT)(L.svd(a)),
    "svd-no-uv": lambda L, a: L.svd(a, compute_uv=False),
}


@pytest.mark.parametrize("name", CALLS)
def test_older_linalg_names_match_pytorch(name):
    results = []
    for lib in (torch, gradjit):
        a = lib.tensor(A, requires_grad=True)
        out = CALLS[name](lib, a)
        parts = list(out) if isinstance(out, tuple) else [out]
        sum((p * p).sum() for p in parts).backward()
        results.append(([p.detach().numpy() for p in parts], a.grad.numpy(), type(out).__name__))
    (want, want_grad, want_type), (got, got_grad, got_type) = results
    assert got_type == want_type
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, atol=1e-10)
    np.testing.assert_allclose(got_grad, want_grad, atol=1e-8)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("unit", [False, True])
def test_triangular_solve_matches_pytorch(upper, transpose, unit):
    triangle = np.triu(SPD) if upper else np.tril(SPD)
    got, want = (lib.triangular_solve(lib.tensor(B), lib.tensor(triangle), upper=upper,
                                      transpose=transpose, unitriangular=unit)
                 for lib in (gradjit, torch))
    np.testing.assert_allclose(got.solution.numpy(), want.solution.numpy(), rtol=1e-12)
    np.testing.assert_allclose(got.cloned_coefficient.numpy(), triangle)


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window",
                                  "bartlett_window", "kaiser_window"])
@pytest.mark.parametrize("length", [0, 1, 2, 7, 16])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_pytorch(name, length, periodic):
    for dt, tol in (("float32", 1e-6), ("float64", 1e-12)):
        got = getattr(gradjit, name)(length, periodic, dtype=getattr(gradjit, dt))
        want = getattr(torch, name)(length, periodic, dtype=getattr(torch, dt))
        assert str(got.dtype) == str(want.dtype)
        np.testing.assert_allclose(got.numpy(), want.numpy(), atol=tol)
    np.testing.assert_allclose(gradjit.hamming_window(9, False, 0.5, 0.5).numpy(),
                               torch.hamming_window(9, False, 0.5, 0.5).numpy())
    np.testing.assert_allclose(gradjit.kaiser_window(9, True, 5.0).numpy(),
                               torch.kaiser_window(9, True, 5.0).numpy(), atol=1e-6)


def test_small_namespace_functions_match_pytorch():
    results = []
    for lib in (torch, gradjit):
        lib.manual_seed(0)
        x = lib.arange(6.0).reshape(2, 3)
        results.append((lib.rsub(x, 10, alpha=2).tolist(), str(lib.scalar_tensor(3).dtype),
                        lib.randint_like(x, 5).tolist(), str(lib.randint_like(x, 2, 9).dtype),
                        lib.real(x).tolist(), x.real.tolist(), lib.conj(x).tolist(),
                        lib.resolve_neg(x).tolist(), x.is_conj(), lib.is_neg(x),
                        x.is_signed(), lib.tensor([1], dtype=lib.uint8).is_signed(),
                        [t.shape for t in x.split_with_sizes([1, 2], 1)],
                        lib.get_float32_matmul_precision(), str(lib.get_default_device()),
                        lib.is_anomaly_enabled()))
    assert [str(r) for r in results[0]] == [str(r) for r in results[1]]
    gradjit.set_float32_matmul_precision("high")
    assert gradjit.get_float32_matmul_precision() == "high"
    with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
        gradjit.set_float32_matmul_precision("low")
    assert gradjit.get_float32_matmul_precision() == "high"
    gradjit.set_float32_matmul_precision("highest")


ERRORS = {
    "imag": lambda L: L.arange(3.0).imag,
    "window-length": lambda L: L.hann_window(-1),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_pytorch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


def test_integer_windows_and_other_devices_are_refused():
    with pytest.raises(RuntimeError, match="hann_window expects floating point dtypes"):
        gradjit.hann_window(4, dtype=gradjit.int64)
    with pytest.raises(RuntimeError, match="tensors live on the CPU"):
        gradjit.set_default_device("cuda")
