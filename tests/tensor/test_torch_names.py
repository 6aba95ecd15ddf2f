"""Names of torch's top level that programs reach for: the constants, torch.functional, the
complex casts and the stft/istft methods, against PyTorch 2.13."""
import math

import numpy as np
import pytest
import torch

import gradjit


@pytest.mark.parametrize("name", ["pi", "e", "inf", "newaxis"])
def test_constants_equal_torch(name):
    assert getattr(gradjit, name) == getattr(torch, name)
    assert type(getattr(gradjit, name)) is type(getattr(torch, name))


def test_nan_is_a_float_nan():
    assert isinstance(gradjit.nan, float) and math.isnan(gradjit.nan)


def test_newaxis_inserts_a_dimension():
    for L in (gradjit, torch):
        assert tuple(L.zeros(2, 3)[:, L.newaxis].shape) == (2, 1, 3)


def test_torch_functional_names_are_gradjits():
    for name in torch.functional.__all__:
        assert getattr(gradjit.functional, name) is getattr(gradjit, name)
    assert sorted(gradjit.functional.__all__) == sorted(torch.functional.__all__)
    a = np.arange(6.0).reshape(2, 3)
    ours = gradjit.functional.einsum("ij->ji", gradjit.tensor(a))
    np.testing.assert_array_equal(ours.numpy(), torch.functional.einsum(
        "ij->ji", torch.tensor(a)).numpy())


def test_grad_scaler_is_amps():
    assert gradjit.GradScaler is gradjit.amp.GradScaler


@pytest.mark.parametrize("method", ["cfloat", "cdouble"])
@pytest.mark.parametrize("values", [[1.5, -2.0], [1, 2], [True, False]])
def test_complex_casts(method, values):
    ours, theirs = (getattr(L.tensor(values), method)() for L in (gradjit, torch))
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_complex_cast_passes_gradients():
    grads = []
    for L in (gradjit, torch):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = x.cdouble()
        (y * y).real.sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(*grads)


def test_stft_and_istft_methods_match_the_functions():
    signal = np.sin(np.arange(64) / 3.0)
    results = []
    for L in (gradjit, torch):
        x = L.tensor(signal, requires_grad=True)
        window = L.hann_window(16, dtype=L.float64)
        spec = x.stft(16, hop_length=4, window=window, return_complex=True)
        back = spec.istft(16, hop_length=4, window=window, length=64)
        back.pow(2).sum().backward()
        results.append((spec.detach().numpy(), back.detach().numpy(), x.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, atol=1e-10)
