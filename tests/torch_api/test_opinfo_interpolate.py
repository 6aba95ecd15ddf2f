"""F.interpolate against torch on the modes PyTorch's operator database (op_db) samples over
three spatial dims (trilinear, area): values and gradients."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import weighted_gradients

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("kwargs", [dict(size=(3, 3, 3), mode="area"),
                                    dict(size=(6, 7, 5), mode="trilinear"),
                                    dict(scale_factor=1.7, mode="trilinear"),
                                    dict(size=(3, 8, 2), mode="trilinear", align_corners=True)])
def test_interpolate_over_three_dims(kwargs):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5, 3))
    (t_out, t_grads), (g_out, g_grads) = (
        weighted_gradients(lib, lambda t, x: t.nn.functional.interpolate(x, **kwargs), [x],
                           np.float64) for lib in (torch, gradjit))
    np.testing.assert_allclose(g_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(g_grads[0].numpy(), t_grads[0].numpy(), rtol=1e-12, atol=1e-12)
