"""Max pooling with indices, max unpooling, power-average (LP) and fractional max pooling
against torch: values, indices, gradients, grad_fn names, reprs and errors."""
import numpy as np
import pytest

import gradjit
from gradjit.nn import functional as F
from tests.nn.helpers import check, check_module, randn, same_error, torch

TF = torch.nn.functional
X = randn(2, 3, 7, 8).astype(np.float64)


def _pair(L, out):
    """A (values, indices) result as one differentiable tensor: the values plus the indices
    (as values' dtype), so `check` compares both and back-propagates through the values."""
    values, indices = out
    return values + indices.to(values.dtype)


INDEXED = {
    "max1d": lambda L, F, x: F.max_pool1d_with_indices(x[0], 3, 2, 1),
    "max1d-return": lambda L, F, x: F.max_pool1d(x[:, 0], 2, return_indices=True),
    "max2d": lambda L, F, x: F.max_pool2d_with_indices(x, (3, 2), (2, 1), (1, 1), 1, True),
    "max2d-dilated": lambda L, F, x: F.max_pool2d(x, 2, 1, 0, 2, return_indices=True),
    "max2d-unbatched": lambda L, F, x: F.max_pool2d_with_indices(x[1], 3),
    "adaptive1d": lambda L, F, x: F.adaptive_max_pool1d_with_indices(x[0], 3),
    "adaptive1d-return": lambda L, F, x: F.adaptive_max_pool1d(x[0], 5, return_indices=True),
    "adaptive2d": lambda L, F, x: F.adaptive_max_pool2d_with_indices(x, (3, 5)),
    "adaptive2d-unbatched": lambda L, F, x: F.adaptive_max_pool2d(x[0], 4, True),
    "torch-adaptive1d": lambda L, F, x: L.adaptive_max_pool1d(x[0], 3),
    "torch-max1d": lambda L, F, x: L.max_pool1d_with_indices(x[0], 2),
}


@pytest.mark.parametrize("name", INDEXED)
def test_pools_with_indices_match_torch(name):
    g_out, t_out = check(lambda x: _pair(gradjit, INDEXED[name](gradjit, F, x)),
                         lambda x: _pair(torch, INDEXED[name](torch, TF, x)), X,
                         rtol=1e-12, atol=1e-12)
    g_values, _ = INDEXED[name](gradjit, F, gradjit.tensor(X, requires_grad=True))
    t_values, _ = INDEXED[name](torch, TF, torch.tensor(X, requires_grad=True))
    assert type(g_values.grad_fn).__name__ == type(t_values.grad_fn).__name__


UNPOOLS = {
    "1d": (lambda F, x: F.max_pool1d(x[0], 2, return_indices=True),
           lambda F, v, i: F.max_unpool1d(v, i, 2)),
    "2d": (lambda F, x: F.max_pool2d(x, 2, return_indices=True),
           lambda F, v, i: F.max_unpool2d(v, i, 2)),
    "2d-size": (lambda F, x: F.max_pool2d(x, 2, return_indices=True),
                lambda F, v, i: F.max_unpool2d(v, i, 2, output_size=(2, 3, 7, 8))),
    "2d-stride-pad": (lambda F, x: F.max_pool2d(x, 3, 2, 1, return_indices=True),
                      lambda F, v, i: F.max_unpool2d(v, i, 3, 2, 1, (7, 8))),
    "3d": (lambda F, x: F.max_pool3d(x, 2, return_indices=True),
           lambda F, v, i: F.max_unpool3d(v, i, 2, output_size=(3, 7, 8))),
    "2d-unbatched": (lambda F, x: F.max_pool2d(x[0], 2, return_indices=True),
                     lambda F, v, i: F.max_unpool2d(v, i, 2)),
}


@pytest.mark.parametrize("name", UNPOOLS)
def test_max_unpool_matches_torch(name):
    pool, unpool = UNPOOLS[name]
    results = []
    for lib, functional in ((torch, TF), (gradjit, F)):
        values, indices = pool(functional, lib.tensor(X))
        values = values.detach().requires_grad_(True)
        out = unpool(functional, values, indices)
        (out * lib.tensor(np.linspace(0, 1, out.numel()).reshape(tuple(out.shape)))).sum() \
            .backward()
        results.append((out.detach().numpy(), values.grad.numpy(), type(out.grad_fn).__name__))
    (want, want_grad, want_node), (got, got_grad, node) = results
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-12)
    if name != "1d":  # PyTorch's 1-d unpool squeezes a 2-d one
        assert node == want_node


def test_max_unpool_keeps_infinite_values_and_repeated_indices_as_torch():
    weights = np.arange(16.0).reshape(1, 1, 4, 4)
    cases = ((np.array([[[[1.0, np.inf], [-np.inf, 4.0]]]]), np.array([[[[0, 3], [5, 15]]]])),
             (np.array([[[[1.0, 2.0], [3.0, 2.0]]]]), np.array([[[[0, 3], [5, 3]]]])),
             (np.array([[[[1.0, np.inf], [3.0, np.inf]]]]), np.array([[[[0, 3], [5, 3]]]])))
    for values, indices in cases:
        results = []
        for lib, functional in ((torch, TF), (gradjit, F)):
            x = lib.tensor(values, requires_grad=True)
            out = functional.max_unpool2d(x, lib.tensor(indices), 2)
            (out * lib.tensor(weights)).sum().backward()
            results.append((out.detach().numpy(), x.grad.numpy()))
        (want, want_grad), (got, got_grad) = results
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got_grad, want_grad)


LP = {
    "1d": lambda F, x: F.lp_pool1d(x[0], 2, 3),
    "1d-stride-ceil": lambda F, x: F.lp_pool1d(x[0], 3.0, 3, 2, True),
    "2d": lambda F, x: F.lp_pool2d(x, 2, (2, 3)),
    "2d-p": lambda F, x: F.lp_pool2d(x.abs(), 1.5, 2, 1),
    "2d-inf": lambda F, x: F.lp_pool2d(x, float("inf"), 3, 2),
    "3d": lambda F, x: F.lp_pool3d(x, 2, 2, (1, 2, 2)),
    "3d-ceil": lambda F, x: F.lp_pool3d(x, 4, (2, 3, 3), 2, True),
}


@pytest.mark.parametrize("name", LP)
def test_lp_pool_matches_torch(name):
    check(lambda x: LP[name](F, x), lambda x: LP[name](TF, x), X, rtol=1e-10, atol=1e-12)


MODULES = {
    "LPPool1d": (lambda L: L.nn.LPPool1d(2, 3), (2, 3, 8)),
    "LPPool2d": (lambda L: L.nn.LPPool2d(2.5, (2, 3), 1, True), (2, 3, 7, 8)),
    "LPPool3d": (lambda L: L.nn.LPPool3d(1, 2), (2, 3, 4, 5, 6)),
    "MaxPool3d": (lambda L: L.nn.MaxPool3d(2, return_indices=True), (2, 3, 4, 5, 6)),
    "AdaptiveMaxPool2d": (lambda L: L.nn.AdaptiveMaxPool2d(3, return_indices=True),
                          (2, 3, 7, 8)),
    "FractionalMaxPool2d": (lambda L: L.nn.FractionalMaxPool2d(
        3, output_size=4, return_indices=True,
        _random_samples=L.tensor([[[0.2, 0.7]] * 3] * 2)), (2, 3, 7, 8)),
}


@pytest.mark.parametrize("name", MODULES)
def test_pooling_modules_match_torch(name):
    make, shape = MODULES[name]
    g, t = make(gradjit), make(torch)
    assert repr(g) == repr(t)
    if "return_indices=True" in repr(g) or getattr(t, "return_indices", False):
        got, want = g(gradjit.tensor(randn(*shape))), t(torch.tensor(randn(*shape)))
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    else:
        check_module(g, t, randn(*shape), rtol=1e-5, atol=1e-6)


def test_unpool_module_reprs_and_values_match_torch():
    for make in (lambda L: L.nn.MaxUnpool1d(2), lambda L: L.nn.MaxUnpool2d(2, 1, 1),
                 lambda L: L.nn.MaxUnpool3d((2, 2, 1))):
        assert repr(make(gradjit)) == repr(make(torch))
    x = randn(2, 3, 6, 6)
    got = gradjit.nn.MaxUnpool2d(2)(*gradjit.nn.MaxPool2d(2, return_indices=True)(
        gradjit.tensor(x)))
    want = torch.nn.MaxUnpool2d(2)(*torch.nn.MaxPool2d(2, return_indices=True)(
        torch.tensor(x)))
    np.testing.assert_array_equal(got.numpy(), want.numpy())


FRACTIONAL = {
    "size": lambda F, x, s: F.fractional_max_pool2d(x, (3, 2), output_size=(4, 5),
                                                    _random_samples=s),
    "ratio": lambda F, x, s: F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5),
                                                     _random_samples=s),
    "one-row": lambda F, x, s: F.fractional_max_pool2d(x, 2, output_size=(1, 6),
                                                       _random_samples=s),
    "indices": lambda F, x, s: _pair(None, F.fractional_max_pool2d_with_indices(
        x, 3, (5, 5), _random_samples=s)),
    "unbatched": lambda F, x, s: F.fractional_max_pool2d(x[0], 2, 3, _random_samples=s[:1]),
}


@pytest.mark.parametrize("name", FRACTIONAL)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fractional_max_pool_matches_torch_for_given_samples(name, dtype):
    samples = np.random.default_rng(1).random((2, 3, 2)).astype(dtype)
    g_out, t_out = check(lambda x: FRACTIONAL[name](F, x, gradjit.tensor(samples)),
                         lambda x: FRACTIONAL[name](TF, x, torch.tensor(samples)),
                         X.astype(dtype), rtol=1e-6, atol=1e-6)
    if name != "indices":
        assert type(g_out.grad_fn).__name__ == type(t_out.grad_fn).__name__


def test_fractional_max_pool_draws_torchs_samples():
    outs = []
    for lib in (torch, gradjit):
        lib.manual_seed(3)
        outs.append(lib.nn.functional.fractional_max_pool2d(
            lib.tensor(X), 2, output_size=(3, 4), return_indices=True)[1].numpy())
    np.testing.assert_array_equal(outs[1], outs[0])


ERRORS = {
    "fractional-neither": lambda L: L.nn.functional.fractional_max_pool2d(L.ones(1, 2, 5, 5),
                                                                          3),
    "fractional-too-large": lambda L: L.nn.functional.fractional_max_pool2d(
        L.ones(1, 2, 5, 5), 3, output_size=4),
    "fractional-too-wide": lambda L: L.nn.functional.fractional_max_pool2d(
        L.ones(1, 2, 7, 5), 3, output_size=(4, 4)),
    "fractional-samples": lambda L: L.nn.functional.fractional_max_pool2d(
        L.ones(1, 2, 5, 5), 3, output_size=2, _random_samples=L.rand(1, 1, 2)),
    "fractional-module-neither": lambda L: L.nn.FractionalMaxPool2d(3),
    "fractional-module-both": lambda L: L.nn.FractionalMaxPool2d(3, 2, 0.5),
    "fractional-module-ratio": lambda L: L.nn.FractionalMaxPool2d(3, output_ratio=1.5),
    "unpool-index": lambda L: L.nn.functional.max_unpool2d(
        L.ones(1, 2, 2, 2), L.full((1, 2, 2, 2), 20), 2),
    "unpool-size-length": lambda L: L.nn.functional.max_unpool2d(
        L.ones(1, 2, 2, 2), L.full((1, 2, 2, 2), 1), 2, output_size=(1, 2, 3)),
    "unpool-size-range": lambda L: L.nn.functional.max_unpool2d(
        L.ones(1, 2, 2, 2), L.full((1, 2, 2, 2), 1), 2, output_size=(9, 9)),
    "max-rank": lambda L: L.nn.functional.max_pool2d_with_indices(L.ones(4), 2),
    "max-pad": lambda L: L.nn.functional.max_pool2d(L.ones(1, 4, 4), 2, padding=2),
    "max-small": lambda L: L.nn.functional.max_pool2d(L.ones(1, 2, 1, 4), 2),
    "adaptive-rank": lambda L: L.nn.functional.adaptive_max_pool2d(L.ones(4), 2, True),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


def test_negative_unpool_size_is_refused():
    with pytest.raises(ValueError, match=r"output_size\[0\]=-1"):
        F.max_unpool1d(gradjit.ones(1, 2, 1), gradjit.zeros(1, 2, 1, dtype=gradjit.int64), 1,
                       padding=1)
