"""F.interpolate and the Upsample layers against torch: every supported mode, size and
scale_factor (with and without recomputing the scale), align_corners, values, gradients,
reprs and errors."""
import numpy as np
import pytest

import gradjit
from tests.nn.helpers import check, randn, same_error, torch

IMAGES, SIGNALS = randn(2, 3, 5, 4), randn(2, 3, 7)
CASES = [
    (IMAGES, dict(scale_factor=2)), (IMAGES, dict(size=(7, 3))),
    (IMAGES, dict(scale_factor=1.7, mode="bilinear")),
    (IMAGES, dict(size=(9, 2), mode="bilinear", align_corners=True)),
    (IMAGES, dict(size=(9, 2), mode="bilinear")),
    (SIGNALS, dict(scale_factor=2.5, mode="linear")),
    (SIGNALS, dict(size=4, mode="linear", align_corners=True)),
    (IMAGES, dict(size=(3, 3), mode="nearest-exact")), (IMAGES, dict(size=(2, 2), mode="area")),
    (IMAGES, dict(scale_factor=(0.5, 1.5), mode="bilinear", recompute_scale_factor=True)),
    (SIGNALS, dict(scale_factor=3)),
]


@pytest.mark.parametrize("x, options", CASES, ids=[str(i) for i in range(len(CASES))])
def test_interpolate_matches_torch(x, options):
    check(lambda t: gradjit.nn.functional.interpolate(t, **options),
          lambda t: torch.nn.functional.interpolate(t, **options), x.astype(np.float64),
          rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("make", [
    lambda L: L.nn.Upsample(scale_factor=2), lambda L: L.nn.Upsample(size=(4, 5),
                                                                     mode="bilinear"),
    lambda L: L.nn.UpsamplingNearest2d(scale_factor=2), lambda L: L.nn.UpsamplingBilinear2d(
        size=3)])
def test_upsample_layers_match_torch(make):
    assert repr(make(gradjit)) == repr(make(torch))
    check(make(gradjit), make(torch), IMAGES)


ERRORS = {
    "neither": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 2)),
    "both": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 2), size=3, scale_factor=2),
    "align-nearest": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 2), size=3,
                                                           align_corners=True),
    "sizes": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 2, 2), size=(3, 3, 3)),
    "empty-output": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 4, 5), size=(0, 2)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


def test_unsupported_modes_say_so():
    with pytest.raises(NotImplementedError, match="mode 'lanczos' is not supported"):
        gradjit.nn.functional.interpolate(gradjit.ones(1, 1, 2, 2), size=3, mode="lanczos",
                                          antialias=True)
    for shape, mode in (((1, 1, 2), "bilinear"), ((1, 1, 2, 2), "foo"), ((2,), "nearest"),
                        ((1, 1, 2), "bicubic")):
        same_error(lambda: gradjit.nn.functional.interpolate(gradjit.ones(shape), size=3,
                                                             mode=mode),
                   lambda: torch.nn.functional.interpolate(torch.ones(shape), size=3,
                                                           mode=mode))
