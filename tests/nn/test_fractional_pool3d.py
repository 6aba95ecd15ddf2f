"""Fractional max pooling over three spatial dims (F.fractional_max_pool3d, its
_with_indices form, nn.FractionalMaxPool3d) against torch: values, indices, gradients,
grad_fn names, the draws of its samples, reprs and errors."""
import numpy as np
import pytest

import gradjit
from gradjit.nn import functional as F
from tests.nn.helpers import check, randn, same_error, torch

TF = torch.nn.functional
X = randn(2, 3, 6, 7, 8).astype(np.float64)

CASES = {
    "size": lambda F, x, s: F.fractional_max_pool3d(x, 2, output_size=3, _random_samples=s),
    "uneven": lambda F, x, s: F.fractional_max_pool3d(x, (2, 3, 2), output_size=(4, 3, 5),
                                                      _random_samples=s),
    "ratio": lambda F, x, s: F.fractional_max_pool3d(x, 2, output_ratio=(0.5, 0.5, 0.7),
                                                     _random_samples=s),
    "one-plane": lambda F, x, s: F.fractional_max_pool3d(x, 2, output_size=(1, 5, 2),
                                                         _random_samples=s),
    "indices": lambda F, x, s: F.fractional_max_pool3d_with_indices(
        x, 3, (3, 4, 5), _random_samples=s)[1].to(x.dtype) + x.sum(),
    "unbatched": lambda F, x, s: F.fractional_max_pool3d(x[0], 2, 3, _random_samples=s[:1]),
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_indices_and_gradients_match_torch(name, dtype):
    samples = np.random.default_rng(1).random((2, 3, 3)).astype(dtype)
    g_out, t_out = check(lambda x: CASES[name](F, x, gradjit.tensor(samples)),
                         lambda x: CASES[name](TF, x, torch.tensor(samples)),
                         X.astype(dtype), rtol=1e-6, atol=1e-6)
    if name != "indices":
        assert type(g_out.grad_fn).__name__ == type(t_out.grad_fn).__name__ == \
            "FractionalMaxPool3DBackward0"


def test_the_module_draws_torchs_samples():
    outs = []
    for lib in (torch, gradjit):
        lib.manual_seed(3)
        pool = lib.nn.FractionalMaxPool3d(2, output_ratio=0.5, return_indices=True)
        outs.append((pool(lib.tensor(X))[1].numpy(), repr(pool)))
    np.testing.assert_array_equal(outs[1][0], outs[0][0])
    assert outs[1][1] == outs[0][1]


ERRORS = {
    "neither": lambda L: L.nn.functional.fractional_max_pool3d(L.ones(1, 2, 5, 5, 5), 3),
    "too-long": lambda L: L.nn.functional.fractional_max_pool3d(
        L.ones(1, 2, 5, 5, 5), (5, 2, 2), output_size=3),
    "too-tall": lambda L: L.nn.functional.fractional_max_pool3d(
        L.ones(1, 2, 5, 5, 5), (2, 5, 2), output_size=2),
    "too-wide": lambda L: L.nn.functional.fractional_max_pool3d(
        L.ones(1, 2, 5, 5, 5), (2, 2, 5), output_size=2),
    "samples": lambda L: L.nn.functional.fractional_max_pool3d(
        L.ones(1, 2, 5, 5, 5), 2, output_size=2, _random_samples=L.rand(1, 1, 3)),
    "module-neither": lambda L: L.nn.FractionalMaxPool3d(3),
    "module-both": lambda L: L.nn.FractionalMaxPool3d(3, 2, 0.5),
    "module-ratio": lambda L: L.nn.FractionalMaxPool3d(3, output_ratio=1.5),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))
