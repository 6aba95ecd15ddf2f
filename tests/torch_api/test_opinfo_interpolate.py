"""F.interpolate against torch on the modes PyTorch's operator database (op_db) samples over
three spatial dims (trilinear, area), bicubic and the antialiased filters: values, gradients,
grad_fn names and errors."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error, weighted_gradients

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


def _agree(call, shape, dtype=np.float64, tolerance=1e-12):
    x = np.random.default_rng(1).standard_normal(shape)
    (t_out, t_grads), (g_out, g_grads) = (weighted_gradients(lib, call, [x], dtype)
                                          for lib in (torch, gradjit))
    assert type(g_out.grad_fn).__name__ == type(t_out.grad_fn).__name__
    np.testing.assert_allclose(g_out.detach().numpy(), t_out.detach().numpy(), rtol=tolerance,
                               atol=tolerance)
    np.testing.assert_allclose(g_grads[0].numpy(), t_grads[0].numpy(), rtol=tolerance,
                               atol=tolerance)


# sizes and scale factors that shrink, grow, and do both at once
_RESIZES = [dict(size=(3, 3)), dict(size=(9, 4)), dict(size=(1, 1)), dict(scale_factor=1.7),
            dict(scale_factor=0.6), dict(scale_factor=(0.3, 2.5)),
            dict(scale_factor=0.6, recompute_scale_factor=True)]


@pytest.mark.parametrize("resize", _RESIZES)
@pytest.mark.parametrize("align_corners", [False, True, None])
@pytest.mark.parametrize("mode, antialias", [("bicubic", False), ("bicubic", True),
                                             ("bilinear", True)])
def test_bicubic_and_antialiased_modes(resize, align_corners, mode, antialias):
    _agree(lambda t, x: t.nn.functional.interpolate(
        x, mode=mode, align_corners=align_corners, antialias=antialias, **resize), (2, 3, 7, 10))


@pytest.mark.parametrize("mode, antialias, tolerance", [
    ("bicubic", False, 1e-5), ("bicubic", True, 1e-6), ("bilinear", True, 1e-6)])
def test_float32_antialias_weights_round_as_torch_computes_them(mode, antialias, tolerance):
    _agree(lambda t, x: t.nn.functional.interpolate(
        x, scale_factor=(1.7, 0.9), mode=mode, antialias=antialias), (6, 3, 10, 20),
        np.float32, tolerance)


@pytest.mark.parametrize("name", ["_upsample_bilinear2d_aa", "_upsample_bicubic2d_aa"])
@pytest.mark.parametrize("args, kwargs", [
    (((4, 6), False), {}), (((4, 6), True, 1.7, 0.9), {}),
    ((None, False, [1.7, 0.9]), {}), ((None,), dict(align_corners=True, scale_factors=[0.8, 1]))])
def test_antialiased_kernels_in_both_overloads(name, args, kwargs):
    _agree(lambda t, x: (getattr(t.ops.aten, name) if t is torch else getattr(t, name))(
        x, *args, **kwargs), (2, 3, 10, 20))


@pytest.mark.parametrize("kwargs", [dict(mode="bicubic"), dict(mode="bicubic", antialias=True),
                                    dict(mode="bilinear", antialias=True)])
def test_integer_inputs_are_refused_by_the_kernel(kwargs):
    x = np.arange(32).reshape(1, 2, 4, 4)
    same_error(lambda: gradjit.nn.functional.interpolate(gradjit.tensor(x), size=3, **kwargs),
               lambda: torch.nn.functional.interpolate(torch.tensor(x), size=3, **kwargs))


@pytest.mark.parametrize("shape, mode", [((1, 2, 4), "linear"), ((1, 2, 4, 4, 4), "trilinear"),
                                         ((1, 2, 4, 4), "nearest"), ((1, 2, 4, 4, 4), "bicubic")])
def test_antialias_only_for_bilinear_and_bicubic_on_4d(shape, mode):
    x = np.zeros(shape)
    same_error(lambda: gradjit.nn.functional.interpolate(gradjit.tensor(x), scale_factor=2,
                                                         mode=mode, antialias=True),
               lambda: torch.nn.functional.interpolate(torch.tensor(x), scale_factor=2,
                                                       mode=mode, antialias=True))


@pytest.mark.parametrize("shape, mode", [((1, 2, 5), "nearest"), ((1, 2, 5), "nearest-exact"),
                                         ((1, 2, 5), "linear"), ((1, 2, 5, 3), "bilinear"),
                                         ((1, 2, 5, 3, 2), "trilinear")])
def test_grad_fn_names_the_upsampling_kernel(shape, mode):
    _agree(lambda t, x: t.nn.functional.interpolate(x, scale_factor=1.5, mode=mode), shape)
