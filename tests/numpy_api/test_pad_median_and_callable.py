"""np.pad's 'median' mode and a callable mode (numpy's: zeros around the array, then the
function writes each 1-d row in place, axis by axis), on traced values and eager Tensors:
values against numpy, gradients against central differences."""
import numpy as np
import pytest

from tests.numpy_api.check import check_eager, check_grad, check_values

rng = np.random.default_rng(5)
X = rng.standard_normal((4, 3))
I32 = rng.integers(-9, 10, (3, 4)).astype(np.int32)


def _mirror_scaled(vector, pad_width, iaxis, kwargs):
    """Writes both pads from the row's own values, so each row depends on the earlier axes."""
    before, after = pad_width
    scale = kwargs.get("scale", 2.0)
    if before:
        vector[:before] = vector[before] * scale
    if after:
        vector[-after:] = vector[-after - 1] ** 2 + iaxis


def _constant(vector, pad_width, iaxis, kwargs):
    vector[:pad_width[0]] = kwargs.get("value", 10)
    vector[vector.shape[0] - pad_width[1]:] = kwargs.get("value", 10)


CASES = {
    "median": lambda x: np.pad(x, 2, mode="median"),
    "median-stat_length": lambda x: np.pad(x, ((1, 2), (3, 0)), "median", stat_length=2),
    "median-stat_length-pairs": lambda x: np.pad(x, 1, "median", stat_length=((1, 3), (2, 1))),
    "callable": lambda x: np.pad(x, 2, _mirror_scaled),
    "callable-kwargs": lambda x: np.pad(x, ((1, 2), (0, 1)), _mirror_scaled, scale=-0.5),
    "callable-1d": lambda x: np.pad(x[0], (3, 1), _mirror_scaled),
    "callable-constant": lambda x: np.pad(x, 1, _constant, value=7.5),
    "callable-no-op": lambda x: np.pad(x, 2, lambda *args: None),
}


@pytest.mark.parametrize("name", CASES)
def test_pad_values_gradients_and_eager(name):
    check_values(CASES[name], X)
    check_eager(CASES[name], X)
    check_grad(CASES[name], X, backends=("cpu",))


def test_median_pad_of_integers_rounds_half_to_even():
    for fn in (lambda i: np.pad(i, 2, "median"), lambda i: np.pad(i, 1, "median",
                                                                   stat_length=2)):
        check_values(fn, I32)
        check_eager(fn, I32)
    check_values(lambda i: np.pad(i, 1, _constant, value=3), I32)


def test_median_pad_of_an_empty_stat_length_is_nan():
    fn = lambda x: np.pad(x, 1, "median", stat_length=0)  # noqa: E731
    with np.errstate(invalid="ignore"), pytest.warns(RuntimeWarning):
        check_values(fn, X, backends=("cpu",))
