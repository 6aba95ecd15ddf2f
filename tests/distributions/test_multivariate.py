"""MultivariateNormal (by covariance, precision or Cholesky factor), Independent and the MVN
KL divergence against torch.distributions: densities, entropies, moments, derived matrices,
seeded samples, shapes and gradients."""
import numpy as np
import pytest
import torch

import gradjit

rng = np.random.default_rng(0)
_M = rng.standard_normal((3, 3))
COV = _M @ _M.T + np.eye(3)
LOC = rng.standard_normal((2, 3))
VALUES = rng.standard_normal((4, 2, 3))


@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_multivariate_normal_matches_torch(kind):
    matrix = np.linalg.cholesky(COV) if kind == "scale_tril" else COV
    results = []
    for lib in (torch, gradjit):
        loc, mat = lib.tensor(LOC, requires_grad=True), lib.tensor(matrix, requires_grad=True)
        d = lib.distributions.MultivariateNormal(loc, **{kind: mat})
        out = [d.log_prob(lib.tensor(VALUES)), d.entropy(), d.variance, d.covariance_matrix,
               d.precision_matrix, d.scale_tril, d.mean]
        sum(o.sum() for o in out).backward()
        lib.manual_seed(0)
        sample = d.rsample((5,))
        results.append(([o.detach().numpy() for o in out] + [sample.detach().numpy()],
                        [loc.grad.numpy(), mat.grad.numpy()],
                        (tuple(d.batch_shape), tuple(d.event_shape))))
    (want, want_grads, want_shapes), (got, got_grads, got_shapes) = results
    assert got_shapes == want_shapes == ((2,), (3,))
    for g, w in zip(got + got_grads, want + want_grads):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-10)


def test_independent_and_kl_match_torch():
    results = []
    for lib in (torch, gradjit):
        D = lib.distributions
        p = D.MultivariateNormal(lib.tensor(LOC), lib.tensor(COV))
        q = D.MultivariateNormal(lib.zeros(3, dtype=lib.float64),
                                 scale_tril=lib.tensor(np.linalg.cholesky(2 * COV)))
        ind = D.Independent(D.Normal(lib.tensor(LOC), lib.ones(2, 3, dtype=lib.float64)), 1)
        results.append((D.kl_divergence(p, q).numpy(), ind.log_prob(lib.tensor(VALUES)).numpy(),
                        ind.entropy().numpy(), tuple(ind.batch_shape), tuple(ind.event_shape),
                        tuple(ind.sample((7,)).shape)))
    for g, w in zip(results[1], results[0]):
        np.testing.assert_allclose(g, w, rtol=1e-10)


ERRORS = {
    "no-matrix": lambda L: L.distributions.MultivariateNormal(L.zeros(3)),
    "two-matrices": lambda L: L.distributions.MultivariateNormal(
        L.zeros(3), L.eye(3), precision_matrix=L.eye(3)),
    "scalar-loc": lambda L: L.distributions.MultivariateNormal(L.tensor(0.0), L.eye(1)),
    "vector-matrix": lambda L: L.distributions.MultivariateNormal(L.zeros(3), L.ones(3)),
    "independent-dims": lambda L: L.distributions.Independent(
        L.distributions.Normal(L.zeros(3), L.ones(3)), 2),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    with pytest.raises(ValueError) as want:
        ERRORS[name](torch)
    with pytest.raises(ValueError) as got:
        ERRORS[name](gradjit)
    assert str(got.value) == str(want.value)
