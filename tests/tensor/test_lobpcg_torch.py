"""torch.lobpcg against numpy.linalg.eigh (eigenvalues, eigenvectors' residuals) and against
PyTorch 2.13 (the draws of its random start, gradients, grad_fn, errors)."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error


def _spd(m, seed, batch=()):
    a = np.random.default_rng(seed).standard_normal(batch + (m, m))
    return a @ np.swapaxes(a, -1, -2) + np.eye(m)


@pytest.mark.parametrize("m, k, n", [(12, 1, None), (12, 3, None), (20, 4, 6), (9, 3, None)])
@pytest.mark.parametrize("largest", [True, False])
def test_eigenpairs_match_eigh(m, k, n, largest):
    A = _spd(m, m + k)
    gradjit.manual_seed(1)
    E, X = gradjit.lobpcg(gradjit.tensor(A), k=k, n=n, largest=largest)
    want = np.linalg.eigh(A)[0]
    want = want[::-1][:k] if largest else want[:k]
    np.testing.assert_allclose(E.numpy(), want, rtol=1e-9)
    assert tuple(X.shape) == (m, k)
    x = X.numpy()
    np.testing.assert_allclose(A @ x, x * E.numpy(), atol=1e-6 * np.abs(want).max())
    np.testing.assert_allclose(x.T @ x, np.eye(k), atol=1e-9)


def test_float32_batches_and_a_given_start():
    A = _spd(15, 3, (2,)).astype(np.float32)
    E, X = gradjit.lobpcg(gradjit.tensor(A), k=2)
    assert E.dtype == gradjit.float32 and tuple(X.shape) == (2, 15, 2)
    want = np.linalg.eigh(A.astype(np.float64))[0][..., ::-1][..., :2]
    np.testing.assert_allclose(E.numpy(), want, rtol=1e-4)
    start = np.random.default_rng(5).standard_normal((15, 3))
    E, X = gradjit.lobpcg(gradjit.tensor(A[0].astype(np.float64)), X=gradjit.tensor(start),
                          largest=False)
    assert tuple(E.shape) == (3,)
    np.testing.assert_allclose(E.numpy(), np.linalg.eigh(A[0].astype(np.float64))[0][:3],
                               rtol=1e-6)


def test_generalized_problem_and_a_preconditioner():
    A, Bm = _spd(14, 7), _spd(14, 8) / 10
    L = np.linalg.cholesky(Bm)
    reduced = np.linalg.solve(L, np.linalg.solve(L, A).T).T  # L^-1 A L^-T
    want = np.linalg.eigh(reduced)[0][::-1][:2]
    E, X = gradjit.lobpcg(gradjit.tensor(A), k=2, B=gradjit.tensor(Bm),
                          iK=gradjit.tensor(np.diag(1 / np.diag(A))))
    np.testing.assert_allclose(E.numpy(), want, rtol=1e-8)
    x = X.numpy()
    np.testing.assert_allclose(x.T @ Bm @ x, np.eye(2), atol=1e-9)


def test_the_random_start_draws_what_torch_draws():
    A = _spd(12, 0)
    for t in (gradjit, torch):
        t.manual_seed(7)
        t.lobpcg(t.tensor(A), k=2)
    np.testing.assert_array_equal(gradjit.rand(4).numpy(), torch.rand(4).numpy())


@pytest.mark.parametrize("batch", [(), (2,)])
def test_gradients_match_torch(batch):
    A = _spd(12, 4, batch)
    W = np.random.default_rng(4).standard_normal(batch + (12, 2))
    grads = []
    for t in (gradjit, torch):
        t.manual_seed(0)
        a = t.tensor(A, requires_grad=True)
        E, U = t.lobpcg(a, k=2)
        assert type(E.grad_fn).__name__ == "LOBPCGAutogradFunctionBackward"
        # eigenvectors are known up to sign: the loss reads them through squares
        loss = (E * t.tensor([1.0, 2.0], dtype=t.float64)).sum() + (U * U * t.tensor(W)).sum()
        loss.backward()
        grads.append(a.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-8)


def test_errors_as_torch():
    same_error(lambda: gradjit.lobpcg(gradjit.tensor(_spd(12, 0)), k=5),
               lambda: torch.lobpcg(torch.tensor(_spd(12, 0)), k=5))
    same_error(lambda: gradjit.lobpcg(gradjit.zeros(3, 4)),
               lambda: torch.lobpcg(torch.zeros(3, 4)))
    same_error(lambda: gradjit.lobpcg(gradjit.eye(12), B=gradjit.eye(11)),
               lambda: torch.lobpcg(torch.eye(12), B=torch.eye(11)))

    def backward_with_B(t):
        a = t.tensor(_spd(12, 0), requires_grad=True)
        t.lobpcg(a, B=t.eye(12, dtype=t.float64))[0].sum().backward()
    same_error(lambda: backward_with_B(gradjit), lambda: backward_with_B(torch))


def test_a_tracker_is_refused():
    with pytest.raises(NotImplementedError, match="tracker"):
        gradjit.lobpcg(gradjit.tensor(_spd(12, 0)), tracker=lambda worker: None)
