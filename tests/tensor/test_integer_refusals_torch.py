"""Integer inputs that torch's CPU kernels refuse: gradjit raises the same error type and
words, eager and on traced numpy values alike."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error


def _f(lib):
    return lib.nn.functional


def _ints(lib, *shape):
    return lib.ones(*shape, dtype=lib.int64)


CALLS = {
    "frac": lambda lib: lib.tensor([1, 2]).frac(),
    "logcumsumexp": lambda lib: lib.tensor([1, 2]).logcumsumexp(0),
    "special.round": lambda lib: lib.special.round(lib.tensor([1, 2])),
    "max_pool1d": lambda lib: _f(lib).max_pool1d(_ints(lib, 1, 1, 4), 2),
    "interpolate-nearest": lambda lib: _f(lib).interpolate(_ints(lib, 1, 1, 4), scale_factor=2),
    "interpolate-linear": lambda lib: _f(lib).interpolate(_ints(lib, 1, 1, 4), scale_factor=2,
                                                          mode="linear"),
    "nll_loss": lambda lib: _f(lib).nll_loss(_ints(lib, 2, 3), lib.tensor([0, 1])),
    "bce_with_logits": lambda lib: _f(lib).binary_cross_entropy_with_logits(
        _ints(lib, 2), _ints(lib, 2)),
    "unfold": lambda lib: _f(lib).unfold(_ints(lib, 1, 1, 4, 4), 2),
    "kl_div": lambda lib: _f(lib).kl_div(_ints(lib, 2), _ints(lib, 2)),
    "kl_div-target": lambda lib: _f(lib).kl_div(lib.ones(2), _ints(lib, 2)),
    "lerp": lambda lib: lib.tensor([1, 2]).lerp(lib.tensor([1, 2]), 0.5),
    "lerp-tensor-weight": lambda lib: lib.tensor([1, 2]).lerp(lib.tensor([1, 2]),
                                                              lib.tensor([1, 2])),
    "lerp-float-end": lambda lib: lib.tensor([1, 2]).lerp(lib.tensor([1.0, 2.0]), 0.5),
    "huber-float-target": lambda lib: _f(lib).huber_loss(_ints(lib, 2), lib.ones(2)),
    "bce-float-target": lambda lib: _f(lib).binary_cross_entropy(_ints(lib, 2), lib.ones(2)),
    "bce": lambda lib: _f(lib).binary_cross_entropy(_ints(lib, 2), _ints(lib, 2)),
    "huber": lambda lib: _f(lib).huber_loss(_ints(lib, 2), _ints(lib, 2)),
    "soft_margin": lambda lib: _f(lib).soft_margin_loss(_ints(lib, 2), _ints(lib, 2)),
    "layer_norm": lambda lib: _f(lib).layer_norm(_ints(lib, 2, 3), (3,)),
    "group_norm": lambda lib: _f(lib).group_norm(_ints(lib, 2, 4), 2),
    "batch_norm": lambda lib: _f(lib).batch_norm(_ints(lib, 2, 3), None, None, training=True),
    "rms_norm": lambda lib: _f(lib).rms_norm(_ints(lib, 2, 3), (3,)),
    "eigvalsh": lambda lib: lib.linalg.eigvalsh(_ints(lib, 2, 2)),
    "eigh": lambda lib: lib.linalg.eigh(_ints(lib, 2, 2)),
}


@pytest.mark.parametrize("name", CALLS)
def test_integer_input_raises_as_torch_does(name):
    same_error(lambda: CALLS[name](gradjit), lambda: CALLS[name](torch))


@pytest.mark.parametrize("name", ["max_pool1d", "interpolate-nearest", "lerp", "huber"])
def test_floating_inputs_still_compute(name):
    np.testing.assert_allclose(CALLS[name](_Floats(gradjit)).numpy(),
                               CALLS[name](_Floats(torch)).numpy())


class _Floats:
    """A namespace like lib whose ones() and tensor() give float64 values."""

    def __init__(self, lib):
        self._lib = lib

    def __getattr__(self, name):
        return getattr(self._lib, name)

    def ones(self, *shape, dtype=None):
        return self._lib.ones(*shape, dtype=self._lib.float64)

    def tensor(self, data):
        return self._lib.tensor(data, dtype=self._lib.float64)


def test_torch_round_still_passes_integers_through():
    np.testing.assert_array_equal(gradjit.round(gradjit.tensor([1, 2])).numpy(), [1, 2])


def test_traced_integer_values_raise_too():
    same_error(lambda: gradjit.jit(lambda a: a.frac())(np.arange(3)),
               lambda: torch.tensor(np.arange(3)).frac())
