"""torch.signal.windows against PyTorch 2.13: values for every window, length, symmetry and
dtype, the window options, gradients through requires_grad windows, and the errors."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

NAMES = torch.signal.windows.__all__
OPTIONS = {"general_cosine": [{"a": [0.5, 0.3, 0.2]}, {"a": (1.0,)}],
           "exponential": [{}, {"tau": 2.5}, {"tau": 0.5, "center": 1.0, "sym": False}],
           "gaussian": [{}, {"std": 0.3}, {"std": 4.0}],
           "kaiser": [{}, {"beta": 0.0}, {"beta": 3.5}],
           "general_hamming": [{}, {"alpha": 0.7}]}


def _window(L, name, M, dtype="float32", **options):
    return getattr(L.signal.windows, name)(M, dtype=getattr(L, dtype), **options)


def _both(name, M, **options):
    return [_window(L, name, M, **options) for L in (gradjit, torch)]


def test_every_torch_window_is_here():
    assert sorted(gradjit.signal.windows.__all__) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("M", [0, 1, 2, 5, 8, 33])
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_match_torch(name, M, sym, dtype):
    for options in OPTIONS.get(name, [{}]):
        options = {"sym": sym, **options}
        if name == "exponential" and "center" in options:
            options["sym"] = False
        ours, theirs = _both(name, M, dtype=dtype, **options)
        assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == theirs.shape
        tolerance = 1e-6 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=tolerance * 10,
                                   atol=tolerance)


@pytest.mark.parametrize("name", ["exponential", "gaussian", "cosine", "hann", "bartlett"])
def test_requires_grad_windows_carry_gradients(name):
    ours, theirs = _both(name, 6, requires_grad=True, dtype="float64")
    assert ours.requires_grad and theirs.requires_grad
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


def test_default_dtype_is_followed():
    gradjit.set_default_dtype(gradjit.float64)
    try:
        assert gradjit.signal.windows.hann(4).dtype is gradjit.float64
    finally:
        gradjit.set_default_dtype(gradjit.float32)


ERRORS = [("hann", -1, {}), ("blackman", -2, {}), ("kaiser", 3, {"dtype": "int64"}),
          ("gaussian", 4, {"std": 0.0}), ("exponential", 4, {"tau": -1.0}),
          ("exponential", 4, {"center": 1.0}), ("kaiser", 4, {"beta": -1.0}),
          ("general_cosine", 4, {"a": []}), ("general_cosine", 4, {"a": 3}),
          ("cosine", 3, {"dtype": "float16"}), ("hamming", -3, {})]


@pytest.mark.parametrize("name, M, options", ERRORS)
def test_errors_match_torch(name, M, options):
    same_error(lambda: _window(gradjit, name, M, **options),
               lambda: _window(torch, name, M, **options))


def test_sparse_layout_is_refused():
    same_error(lambda: gradjit.signal.windows.bartlett(3, layout=gradjit.sparse_coo),
               lambda: torch.signal.windows.bartlett(3, layout=torch.sparse_coo))
