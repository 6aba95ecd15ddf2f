"""Padding, convolutions and pooling against torch: every option, values and gradients."""
import numpy as np
import pytest

import gradjit
from gradjit import nn
from gradjit.nn import functional as F
from tests.nn.helpers import check, check_module, randn, same_error, torch


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("amounts", [(1, 2), (2, 0, 1, 1), (0, 1, 2, 1, 1, 0)])
def test_pad_matches_torch(mode, amounts):
    shape = (2, 3, 4, 5)[:len(amounts) // 2 + 2] if mode != "constant" else (2, 3, 4, 5)
    check(lambda x: F.pad(x, amounts, mode), lambda x: torch.nn.functional.pad(x, amounts, mode),
          randn(*shape))


def test_constant_pad_values_and_cropping():
    for amounts, value in [((1, 1), 2.5), ((-1, 2), 0.0), ((1, -2, -1, 0), -1.0)]:
        check(lambda x: F.pad(x, amounts, value=value),
              lambda x: torch.nn.functional.pad(x, amounts, value=value), randn(3, 4))
    for amounts in ((1,), (1, 1, 1, 1)):
        same_error(lambda: F.pad(gradjit.ones(2), amounts),
                   lambda: torch.nn.functional.pad(torch.ones(2), amounts))
    same_error(lambda: F.pad(gradjit.ones(2, 2, 2, 2), (1, 1), "reflect"),
               lambda: torch.nn.functional.pad(torch.ones(2, 2, 2, 2), (1, 1), "reflect"))
    same_error(lambda: F.pad(gradjit.ones(2, 2), (1, 1), "wrap"),
               lambda: torch.nn.functional.pad(torch.ones(2, 2), (1, 1), "wrap"))


@pytest.mark.parametrize("kwargs", [
    {}, {"stride": 2}, {"padding": 1}, {"padding": "same"}, {"padding": "valid"},
    {"dilation": 2, "padding": 2}, {"groups": 2}, {"bias": False},
    {"stride": 2, "padding": 1, "dilation": 2, "groups": 2}, {"padding": "same", "dilation": 2},
    {"padding": 1, "padding_mode": "reflect"}, {"padding": 2, "padding_mode": "replicate"},
    {"padding": "same", "dilation": 2, "padding_mode": "circular"},
    {"padding": "valid", "padding_mode": "reflect", "stride": 2},
])
def test_convolutions_match_torch(kwargs):
    assert repr(nn.Conv1d(4, 6, 3, **kwargs)) == repr(torch.nn.Conv1d(4, 6, 3, **kwargs))
    check_module(nn.Conv1d(4, 6, 3, **kwargs), torch.nn.Conv1d(4, 6, 3, **kwargs),
                 randn(2, 4, 9), rtol=1e-4, atol=1e-5)
    check_module(nn.Conv2d(4, 6, (3, 2), **kwargs), torch.nn.Conv2d(4, 6, (3, 2), **kwargs),
                 randn(2, 4, 7, 6), rtol=1e-4, atol=1e-5)


def test_unbatched_convolution_and_functional():
    check_module(nn.Conv2d(2, 3, 2), torch.nn.Conv2d(2, 3, 2), randn(2, 5, 5), rtol=1e-4)
    check(lambda x, w: F.conv2d(x, w, stride=(1, 2), padding=(1, 0)),
          lambda x, w: torch.nn.functional.conv2d(x, w, stride=(1, 2), padding=(1, 0)),
          randn(1, 2, 5, 6), randn(3, 2, 3, 3), rtol=1e-4, atol=1e-5)
    check(F.conv1d, torch.nn.functional.conv1d, randn(1, 2, 5), randn(3, 2, 2), randn(3),
          rtol=1e-4, atol=1e-5)


def test_convolution_errors_match_torch():
    same_error(lambda: nn.Conv2d(3, 4, 2, groups=2), lambda: torch.nn.Conv2d(3, 4, 2, groups=2))
    same_error(lambda: nn.Conv2d(2, 3, 2, groups=2), lambda: torch.nn.Conv2d(2, 3, 2, groups=2))
    same_error(lambda: nn.Conv1d(2, 2, 3, stride=2, padding="same"),
               lambda: torch.nn.Conv1d(2, 2, 3, stride=2, padding="same"))
    same_error(lambda: nn.Conv1d(2, 2, 3, padding="full"),
               lambda: torch.nn.Conv1d(2, 2, 3, padding="full"))
    for kwargs in ({"stride": 2, "padding": "same"}, {"padding": "full"}):
        same_error(lambda: F.conv1d(gradjit.ones(1, 2, 5), gradjit.ones(2, 2, 3), **kwargs),
                   lambda: torch.nn.functional.conv1d(torch.ones(1, 2, 5), torch.ones(2, 2, 3),
                                                      **kwargs))
    w, tw = gradjit.ones(3, 2, 2, 2), torch.ones(3, 2, 2, 2)
    same_error(lambda: F.conv2d(gradjit.ones(1, 3, 4, 4), w),
               lambda: torch.nn.functional.conv2d(torch.ones(1, 3, 4, 4), tw))


@pytest.mark.parametrize("kwargs", [
    {"kernel_size": 2}, {"kernel_size": 3, "stride": 2}, {"kernel_size": 3, "padding": 1},
    {"kernel_size": (2, 3), "stride": (1, 2)}, {"kernel_size": 3, "stride": 2, "ceil_mode": True},
    {"kernel_size": 2, "stride": 2, "padding": 1, "ceil_mode": True},
])
def test_pooling_matches_torch(kwargs):
    x = randn(2, 3, 7, 6)
    check_module(nn.MaxPool2d(**kwargs), torch.nn.MaxPool2d(**kwargs), x)
    check_module(nn.MaxPool2d(dilation=2, **kwargs), torch.nn.MaxPool2d(dilation=2, **kwargs), x)
    for include in (True, False):
        check_module(nn.AvgPool2d(count_include_pad=include, **kwargs),
                     torch.nn.AvgPool2d(count_include_pad=include, **kwargs), x)
    check_module(nn.AvgPool2d(divisor_override=5, **kwargs),
                 torch.nn.AvgPool2d(divisor_override=5, **kwargs), x)


def test_max_pool_gradient_goes_to_one_element_of_ties_and_unbatched_input():
    check(lambda x: F.max_pool2d(x, 2), lambda x: torch.nn.functional.max_pool2d(x, 2),
          np.ones((1, 4, 4), np.float32))
    same_error(lambda: F.max_pool2d(gradjit.ones(1, 4, 4), 2, padding=2),
               lambda: torch.nn.functional.max_pool2d(torch.ones(1, 4, 4), 2, padding=2))
    same_error(lambda: F.max_pool2d(gradjit.ones(4, 4), 2),
               lambda: torch.nn.functional.max_pool2d(torch.ones(4, 4), 2))
    same_error(lambda: F.conv1d(gradjit.ones(4), gradjit.ones(1, 1, 2)),
               lambda: torch.nn.functional.conv1d(torch.ones(4), torch.ones(1, 1, 2)))


def test_pooling_and_layer_option_errors():
    same_error(lambda: F.max_pool2d(gradjit.ones(1, 4, 4), 2, padding=2),
               lambda: torch.nn.functional.max_pool2d(torch.ones(1, 4, 4), 2, padding=2))
    same_error(lambda: F.avg_pool2d(gradjit.ones(1, 4, 4), 2, padding=2),
               lambda: torch.nn.functional.avg_pool2d(torch.ones(1, 4, 4), 2, padding=2))
    with pytest.raises(ValueError, match="padding_mode must be one of .* got padding_mode='wrap'"):
        nn.Conv2d(1, 1, 3, padding_mode="wrap")
    same_error(lambda: nn.ConvTranspose2d(1, 1, 3, padding_mode="reflect"),
               lambda: torch.nn.ConvTranspose2d(1, 1, 3, padding_mode="reflect"))
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero"):
        F.conv1d(gradjit.ones(1, 1, 3), gradjit.ones(1, 1, 0))
