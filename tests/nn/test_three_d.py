"""3-d convolutions, pools, adaptive pools, instance norm, padding and their lazy forms
against torch: values, gradients, grad_fn names, reprs and errors."""
import numpy as np
import pytest

import gradjit
from gradjit import nn
from gradjit.nn import functional as F
from tests.nn.helpers import check, check_module, randn, same_error, torch

TF = torch.nn.functional
X = randn(2, 4, 5, 6, 7)


@pytest.mark.parametrize("kwargs", [
    {}, {"stride": 2}, {"padding": 1}, {"padding": "same"}, {"padding": "valid"},
    {"dilation": (1, 2, 1), "padding": (0, 2, 1)}, {"groups": 2}, {"bias": False},
    {"padding": 1, "padding_mode": "reflect"}, {"padding": "same", "padding_mode": "circular"},
    {"padding": 2, "padding_mode": "replicate", "stride": (1, 2, 2)},
])
def test_conv3d_matches_torch(kwargs):
    assert repr(nn.Conv3d(4, 6, (3, 2, 3), **kwargs)) == \
        repr(torch.nn.Conv3d(4, 6, (3, 2, 3), **kwargs))
    check_module(nn.Conv3d(4, 6, (3, 2, 3), **kwargs),
                 torch.nn.Conv3d(4, 6, (3, 2, 3), **kwargs), X, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kwargs", [
    {}, {"stride": 2}, {"stride": (2, 1, 3), "padding": 1, "output_padding": (1, 0, 2)},
    {"groups": 2, "dilation": 2}, {"bias": False, "padding": (0, 1, 0)},
])
def test_conv_transpose3d_matches_torch(kwargs):
    g, t = nn.ConvTranspose3d(4, 6, (2, 3, 2), **kwargs), \
        torch.nn.ConvTranspose3d(4, 6, (2, 3, 2), **kwargs)
    assert repr(g) == repr(t)
    check_module(g, t, X[:, :, :3, :4, :3], rtol=1e-4, atol=1e-5)


def test_functional_and_unbatched_3d_convolutions():
    check(lambda x, w, b: F.conv3d(x, w, b, 1, 1, 1, 2),
          lambda x, w, b: TF.conv3d(x, w, b, 1, 1, 1, 2), X[0], randn(4, 2, 2, 2, 2),
          randn(4), rtol=1e-4, atol=1e-5)
    check(lambda x, w: gradjit.conv_transpose3d(x, w, stride=2),
          lambda x, w: torch.conv_transpose3d(x, w, stride=2), X[:1, :, :2, :3, :2],
          randn(4, 3, 2, 1, 2), rtol=1e-4, atol=1e-5)
    check(lambda x, w: gradjit.conv3d(x, w), lambda x, w: torch.conv3d(x, w), X,
          randn(2, 4, 1, 2, 3), rtol=1e-4, atol=1e-5)


def test_conv3d_errors_match_torch():
    same_error(lambda: F.conv3d(gradjit.ones(1, 2, 4, 4), gradjit.ones(1, 2, 1, 1, 1)),
               lambda: TF.conv3d(torch.ones(1, 2, 4, 4), torch.ones(1, 2, 1, 1, 1)))
    same_error(lambda: F.conv3d(gradjit.ones(1, 2, 1, 4, 4), gradjit.ones(1, 2, 2, 2, 2)),
               lambda: TF.conv3d(torch.ones(1, 2, 1, 4, 4), torch.ones(1, 2, 2, 2, 2)))
    same_error(lambda: F.conv_transpose3d(gradjit.ones(1, 2, 1, 4, 4),
                                          gradjit.ones(2, 2, 2, 2, 2), output_padding=2),
               lambda: TF.conv_transpose3d(torch.ones(1, 2, 1, 4, 4),
                                           torch.ones(2, 2, 2, 2, 2), output_padding=2))
    same_error(lambda: nn.Conv3d(2, 2, 3, stride=2, padding="same"),
               lambda: torch.nn.Conv3d(2, 2, 3, stride=2, padding="same"))


def test_lazy_3d_layers_draw_and_become_torch_layers():
    x = X[:, :, :3, :4, :3]
    for make in (lambda L: L.nn.LazyConv3d(5, 2, padding=1),
                 lambda L: L.nn.LazyConvTranspose3d(3, (1, 2, 2), stride=2),
                 lambda L: L.nn.LazyInstanceNorm3d()):
        outs = []
        for lib in (torch, gradjit):
            lib.manual_seed(0)
            module = make(lib)
            outs.append((module(lib.tensor(x)).detach().numpy(), type(module).__name__,
                         repr(module), {k: v.detach().numpy() for k, v
                                        in module.state_dict().items()}))
        (want, want_cls, want_repr, want_state), (got, cls, text, state) = outs
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
        assert (cls, text) == (want_cls, want_repr)
        assert list(state) == list(want_state)
        for name in state:
            np.testing.assert_allclose(state[name], want_state[name], rtol=1e-6, atol=1e-7)


POOLS = {
    "max": lambda F, x: F.max_pool3d(x, 2),
    "max-options": lambda F, x: F.max_pool3d(x, (3, 2, 2), (2, 1, 2), (1, 0, 1), (1, 2, 1),
                                             True),
    "max-unbatched": lambda F, x: F.max_pool3d(x[0], 3, 2, 1),
    "avg": lambda F, x: F.avg_pool3d(x, 2),
    "avg-options": lambda F, x: F.avg_pool3d(x, 3, 2, 1, True),
    "avg-exclude-pad": lambda F, x: F.avg_pool3d(x, (2, 3, 3), 2, 1, True, False),
    "avg-divisor": lambda F, x: F.avg_pool3d(x, 2, 1, 1, divisor_override=3),
    "adaptive-avg": lambda F, x: F.adaptive_avg_pool3d(x, (2, 4, 3)),
    "adaptive-avg-none": lambda F, x: F.adaptive_avg_pool3d(x[0], (None, 1, 5)),
    "adaptive-avg-one": lambda F, x: F.adaptive_avg_pool3d(x, 1),
    "adaptive-max": lambda F, x: F.adaptive_max_pool3d(x, (3, 2, 4)),
    "instance-norm": lambda F, x: F.instance_norm(x),
}


@pytest.mark.parametrize("name", POOLS)
def test_3d_pools_match_torch_with_grad_fn(name):
    g_out, t_out = check(lambda x: POOLS[name](F, x), lambda x: POOLS[name](TF, x),
                         X.astype(np.float64), rtol=1e-10, atol=1e-12)
    assert type(g_out.grad_fn).__name__ == type(t_out.grad_fn).__name__


def test_3d_pool_indices_match_torch():
    for call in (lambda F, x: F.max_pool3d(x, 2, 1, 1, return_indices=True),
                 lambda F, x: F.adaptive_max_pool3d(x, (2, 3, 3), return_indices=True)):
        got = call(F, gradjit.tensor(X))
        want = call(TF, torch.tensor(X))
        np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
        np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())


MODULES = {
    "MaxPool3d": lambda L: L.nn.MaxPool3d((2, 1, 2), 1, (1, 0, 1), 2, ceil_mode=True),
    "AvgPool3d": lambda L: L.nn.AvgPool3d(2, 1, 1, True, False),
    "AdaptiveAvgPool3d": lambda L: L.nn.AdaptiveAvgPool3d((1, None, 2)),
    "AdaptiveMaxPool3d": lambda L: L.nn.AdaptiveMaxPool3d(2),
    "InstanceNorm3d": lambda L: L.nn.InstanceNorm3d(4, affine=True),
    "ReflectionPad3d": lambda L: L.nn.ReflectionPad3d((1, 2, 0, 1, 2, 1)),
    "ReplicationPad3d": lambda L: L.nn.ReplicationPad3d(2),
    "ZeroPad3d": lambda L: L.nn.ZeroPad3d((1, 2, 3, 4, 5, 6)),
    "ConstantPad3d": lambda L: L.nn.ConstantPad3d(1, 2.5),
    "CircularPad3d": lambda L: L.nn.CircularPad3d((2, 1, 1, 0, 1, 2)),
}


@pytest.mark.parametrize("name", MODULES)
def test_3d_modules_match_torch(name):
    g, t = MODULES[name](gradjit), MODULES[name](torch)
    assert repr(g) == repr(t)
    check_module(g, t, X, rtol=1e-5, atol=1e-6)


ERRORS = {
    "max-rank": lambda L: L.nn.functional.max_pool3d(L.ones(2, 2, 2), 2),
    "avg-rank": lambda L: L.nn.functional.avg_pool3d(L.ones(2, 2, 2), 2),
    "max-pad": lambda L: L.nn.functional.max_pool3d(L.ones(1, 2, 4, 4, 4), 2, padding=2),
    "avg-pad": lambda L: L.nn.functional.avg_pool3d(L.ones(1, 2, 4, 4, 4), 2, padding=2),
    "max-small": lambda L: L.nn.functional.max_pool3d(L.ones(1, 2, 1, 4, 4), 2),
    "max2d-small": lambda L: L.nn.functional.max_pool2d(L.ones(1, 2, 1, 4), 2),
    "adaptive-avg-rank": lambda L: L.nn.functional.adaptive_avg_pool3d(L.ones(4, 4), 2),
    "adaptive-max-rank": lambda L: L.nn.functional.adaptive_max_pool3d(L.ones(4, 4), 2),
    "adaptive-max2d-rank": lambda L: L.nn.functional.adaptive_max_pool2d(L.ones(4), 2),
    "instance-norm-rank": lambda L: L.nn.InstanceNorm3d(2)(L.ones(2, 2, 2)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_3d_errors_match_torch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))
