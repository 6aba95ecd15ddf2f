"""nn.CrossMapLRN2d against torch: values and gradients (its windows are Lua Torch's, not
LocalResponseNorm's), grad_fn, repr and errors."""
import numpy as np
import pytest

import gradjit
from tests.nn.helpers import check, randn, same_error, torch


@pytest.mark.parametrize("size", [2, 3, 4, 5, 9])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_and_gradients_match_torch(size, dtype):
    x = randn(2, 7, 3, 4, seed=size).astype(dtype)
    args = (size, 0.3, 0.75, 1.5)
    g_out, t_out = check(gradjit.nn.CrossMapLRN2d(*args), torch.nn.CrossMapLRN2d(*args), x,
                         rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)
    assert type(g_out.grad_fn).__name__ == type(t_out.grad_fn).__name__


def test_defaults_differ_from_local_response_norm_as_in_torch():
    x = randn(1, 6, 2, 2) * 10
    check(gradjit.nn.CrossMapLRN2d(3), torch.nn.CrossMapLRN2d(3), x, rtol=1e-6)
    ours = gradjit.nn.CrossMapLRN2d(3)(gradjit.tensor(x)).numpy()
    assert not np.allclose(ours, gradjit.nn.LocalResponseNorm(3)(gradjit.tensor(x)).numpy())
    assert repr(gradjit.nn.CrossMapLRN2d(5, beta=0.5)) == repr(torch.nn.CrossMapLRN2d(5,
                                                                                      beta=0.5))


def test_input_must_be_4d():
    same_error(lambda: gradjit.nn.CrossMapLRN2d(3)(gradjit.ones(2, 3, 4)),
               lambda: torch.nn.CrossMapLRN2d(3)(torch.ones(2, 3, 4)))
