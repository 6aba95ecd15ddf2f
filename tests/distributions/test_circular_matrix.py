"""VonMises, LKJCholesky and Wishart against PyTorch: densities, entropies and moments with their
gradients, reprs and errors; von Mises draws equal PyTorch's for a seed, the gamma-based LKJ
and Wishart draws are tested by their law, and Wishart's redrawing of singular samples."""
import warnings

import numpy as np
import pytest
import torch
from scipy import stats

import gradjit
from tests.torch_reference import same_error

CORR = [[[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [-0.3, 0.4, np.sqrt(0.75)]],
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, np.sqrt(0.5)]]]
SPD = [[1.5, 0.2], [0.2, 0.8]]
MAKE = {
    "VonMises": (lambda D, t: D.VonMises(t([0.5, -2.0, 3.0]), t([0.7, 4.0, 12.0])),
                 [0.1, 2.9, -3.0], ("mean", "mode", "variance")),
    "LKJCholesky": (lambda D, t: D.LKJCholesky(3, t([0.5, 2.0])), CORR, ()),
    "WishartCov": (lambda D, t: D.Wishart(t([4.0, 3.5]), t([[2.0, 0.5], [0.5, 1.0]])),
                   SPD, ("entropy", "mean", "mode", "variance")),
    "WishartPrecision": (lambda D, t: D.Wishart(t(2.5), precision_matrix=t(
        [[[2.0, 0.5], [0.5, 1.0]], [[1.0, -0.3], [-0.3, 0.5]]])), [SPD, SPD],
        ("entropy", "mean", "mode", "variance")),
    "WishartTril": (lambda D, t: D.Wishart(t([[3.0], [5.0]]), scale_tril=t(
        [[2.0, 0.0], [0.5, 1.0]])), SPD, ("entropy", "mean", "variance")),
}


def _evaluate(lib, name):
    make, value, methods = MAKE[name]
    params = []

    def t(values):
        params.append(lib.tensor(values, dtype=lib.float64, requires_grad=True))
        return params[-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = make(lib.distributions, t)
    out = [d.log_prob(lib.tensor(value, dtype=lib.float64))]
    out += [getattr(d, m)() if m == "entropy" else getattr(d, m) for m in methods]
    if isinstance(d, lib.distributions.ExponentialFamily):
        out.append(lib.distributions.ExponentialFamily.entropy(d))
    total = sum((o * lib.linspace(0.5, 1.5, o.numel(), dtype=lib.float64).reshape(o.shape))
                .sum() for o in out)
    grads = lib.autograd.grad(total, params, allow_unused=True)
    return out, grads, repr(d), (tuple(d.batch_shape), tuple(d.event_shape))


@pytest.mark.parametrize("name", MAKE)
def test_values_gradients_and_reprs_equal_pytorch(name):
    ours, ours_grads, ours_repr, ours_shapes = _evaluate(gradjit, name)
    theirs, their_grads, their_repr, their_shapes = _evaluate(torch, name)
    assert (ours_repr, ours_shapes) == (their_repr, their_shapes)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)
    for a, b in zip(ours_grads, their_grads):
        a, b = a.numpy(), b.numpy()
        if name == "WishartTril" and a.ndim == 2:
            # gradjit's cholesky_solve gives no gradient to the (unused) upper triangle of the
            # factor; PyTorch's gives one
            a, b = np.tril(a), np.tril(b)
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_von_mises_draws_equal_pytorch_for_a_seed(dtype):
    draws = []
    for lib in (gradjit, torch):
        d = lib.distributions.VonMises(lib.tensor([0.5, -2.0, 3.0], dtype=getattr(lib, dtype)),
                                       lib.tensor([0.7, 4.0, 1e-6], dtype=getattr(lib, dtype)))
        lib.manual_seed(3)
        draws.append(d.sample((50,)))
    assert str(draws[0].dtype) == str(draws[1].dtype)
    # the same uniforms; float64 results may differ in the last bit (cos, acos, remainder)
    np.testing.assert_allclose(draws[0].numpy(), draws[1].numpy(), rtol=1e-14, atol=1e-14)


def test_von_mises_draws_follow_the_law():
    gradjit.manual_seed(0)
    draws = gradjit.distributions.VonMises(gradjit.tensor(1.0, dtype=gradjit.float64),
                                           gradjit.tensor(2.5, dtype=gradjit.float64)) \
        .sample((4000,)).numpy()
    assert stats.kstest(draws, stats.vonmises(2.5, loc=1.0).cdf).pvalue > 1e-3


def test_lkj_cholesky_draws_follow_pytorch_law():
    """The first correlation is Beta(eta - 1 + dim / 2, same) on (-1, 1); the later ones are
    compared with PyTorch's own draws."""
    conc = [0.5, 2.0]
    gradjit.manual_seed(0)
    torch.manual_seed(0)
    ours = gradjit.distributions.LKJCholesky(3, gradjit.tensor(conc)).sample((4000,))
    theirs = torch.distributions.LKJCholesky(3, torch.tensor(conc)).sample((4000,))
    assert tuple(ours.shape) == tuple(theirs.shape) == (4000, 2, 3, 3)
    assert bool(gradjit.distributions.constraints.corr_cholesky.check(ours).all())
    ours_corr, their_corr = (ours @ ours.mT).numpy(), (theirs @ theirs.mT).numpy()
    for k, eta in enumerate(conc):
        a = eta - 1 + 1.5
        law = stats.beta(a, a, loc=-1, scale=2)
        assert stats.kstest(ours_corr[:, k, 1, 0], law.cdf).pvalue > 1e-3
        for i, j in ((2, 0), (2, 1)):
            assert stats.ks_2samp(ours_corr[:, k, i, j], their_corr[:, k, i, j]).pvalue > 1e-3


def test_wishart_draws_follow_the_law_and_are_reparameterized():
    df = gradjit.tensor([4.0, 6.5], dtype=gradjit.float64, requires_grad=True)
    cov = gradjit.tensor([[2.0, 0.5], [0.5, 1.0]], dtype=gradjit.float64)
    d = gradjit.distributions.Wishart(df, cov)
    gradjit.manual_seed(0)
    draws = d.rsample((6000,))
    mean = draws.mean(0)
    np.testing.assert_allclose(mean.detach().numpy(), d.mean.detach().numpy(), rtol=0.05)
    np.testing.assert_allclose(draws.detach().var(0).numpy(), d.variance.detach().numpy(),
                               rtol=0.12)
    # d E[X] / d df = cov per matrix, through the chi-square draws
    (grad,) = gradjit.autograd.grad(mean.sum(), df)
    np.testing.assert_allclose(grad.numpy(), [cov.sum().item()] * 2, rtol=0.05)
    # the 1,1 entry of a Wishart(df, cov) is cov_11 * Chi2(df)
    gradjit.manual_seed(1)
    corner = d.sample((4000,))[:, 1, 0, 0].numpy() / 2.0
    assert stats.kstest(corner, stats.chi2(6.5).cdf).pvalue > 1e-3


def test_wishart_redraws_singular_samples_and_says_so(monkeypatch):
    d = gradjit.distributions.Wishart(gradjit.tensor(4.0), gradjit.eye(2))
    singular = gradjit.zeros(2, 2)
    draws = iter([singular, singular, gradjit.eye(2)])
    monkeypatch.setattr(d, "_bartlett_sample", lambda shape: next(draws))
    with pytest.warns(UserWarning, match="Singular sample detected."):
        assert bool((d.rsample() == gradjit.eye(2)).all())
    draws = iter([singular, singular, gradjit.eye(2)])
    with pytest.warns(UserWarning, match="Singular sample detected."):
        assert bool((d.rsample(max_try_correction=1) == 0).all())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a regular draw is kept as it is, without a warning
        gradjit.distributions.Wishart(gradjit.tensor(4.0), gradjit.eye(2)).rsample((3,))


def test_wishart_warns_of_low_df_as_pytorch():
    for lib in (gradjit, torch):
        with pytest.warns(UserWarning, match="Low df values detected"):
            lib.distributions.Wishart(lib.tensor(1.5), lib.eye(2))


@pytest.mark.parametrize("make", [
    lambda lib, D: D.VonMises(0.0, -1.0),
    lambda lib, D: D.LKJCholesky(1, 1.0),
    lambda lib, D: D.LKJCholesky(2, 1.0).log_prob(lib.eye(3)),
    lambda lib, D: D.LKJCholesky(2, 1.0).log_prob(lib.tensor([[1.0, 0.0], [0.5, 0.5]])),
    lambda lib, D: D.Wishart(3.0),
    lambda lib, D: D.Wishart(3.0, lib.eye(2), scale_tril=lib.eye(2)),
    lambda lib, D: D.Wishart(3.0, lib.ones(2)),
    lambda lib, D: D.Wishart(0.5, lib.eye(2)),
    lambda lib, D: D.Wishart(lib.tensor([3.0, 0.2]), lib.eye(2)),
    lambda lib, D: D.Wishart(3.0, -lib.eye(2)),
    lambda lib, D: D.Wishart(3.0, scale_tril=lib.ones(2, 2)),
    lambda lib, D: D.Wishart(3.0, lib.eye(2)).log_prob(-lib.eye(2)),
])
def test_errors_equal_pytorch(make):
    same_error(lambda: make(gradjit, gradjit.distributions),
               lambda: make(torch, torch.distributions))


def test_multivariate_digamma_checks_its_domain():
    from gradjit.distributions.wishart import _mvdigamma
    with pytest.raises(AssertionError, match="Wrong domain for multivariate digamma function."):
        _mvdigamma(gradjit.tensor([0.2]), 2)
