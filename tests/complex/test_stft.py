"""torch.stft and torch.istft against PyTorch: values, grad_fn names and gradients through
both, the round trip, and PyTorch's errors and warnings."""
import warnings

import numpy as np
import pytest
import torch as T

import gradjit as torch
from tests.torch_reference import same_error

rng = np.random.default_rng(0)
X = rng.standard_normal((2, 50))
X1 = rng.standard_normal(40)
HANN = "t.hann_window({}, dtype=t.float64)"

EXPRESSIONS = [
    "t.stft(x, 16, window=t.ones(16, dtype=t.float64), return_complex=True)",
    f"t.stft(x1, 16, hop_length=5, win_length=10, window={HANN.format(10)}, center=False, "
    "return_complex=True, normalized=True)",
    f"t.stft(x, 16, window={HANN.format(16)}, onesided=False, return_complex=True, "
    "pad_mode='constant')",
    f"t.istft(t.stft(x, 16, window={HANN.format(16)}, return_complex=True), 16, "
    f"window={HANN.format(16)}, length=50)",
    f"t.istft(t.stft(x, 16, window={HANN.format(16)}, return_complex=True), 16, "
    f"window={HANN.format(16)})",
    f"t.istft(t.stft(x, 16, hop_length=3, window={HANN.format(16)}, return_complex=True, "
    f"normalized=True), 16, hop_length=3, window={HANN.format(16)}, normalized=True, "
    "length=60)",
    f"t.istft(t.stft(x, 16, window={HANN.format(16)}, onesided=False, return_complex=True), "
    f"16, window={HANN.format(16)}, onesided=False, return_complex=True)",
    f"t.istft(t.stft(x1, 8, window={HANN.format(8)}, return_complex=True), 8, "
    f"window={HANN.format(8)})",
    # no window (none applied), the default one padded to n_fft, frames of a strided signal
    "t.stft(x1, 16, return_complex=True)",
    "t.stft(x, 16, win_length=10, return_complex=True)",
    "t.stft(x[:, ::2], 8, hop_length=3, center=False, return_complex=True)",
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_values_gradients_and_grad_fn_as_torch(expr):
    results = []
    for t in (torch, T):
        x, x1 = t.tensor(X, requires_grad=True), t.tensor(X1, requires_grad=True)
        v = eval(expr, {"t": t, "x": x, "x1": x1})
        weights = t.tensor(np.linspace(0.5, 1.5, v.numel()).reshape(tuple(v.shape)))
        ((v.abs() if v.is_complex() else v) ** 2 * weights).sum().backward()
        results.append((v.detach().numpy(), v.grad_fn.name(),
                        [None if a.grad is None else a.grad.numpy() for a in (x, x1)]))
    (value, name, grads), (t_value, t_name, t_grads) = results
    assert name == t_name and value.shape == t_value.shape
    np.testing.assert_allclose(value, t_value, rtol=1e-10, atol=1e-10)
    for g, t_g in zip(grads, t_grads):
        assert (g is None) == (t_g is None)
        if g is not None:
            np.testing.assert_allclose(g, t_g, rtol=1e-10, atol=1e-10)


def test_the_round_trip_gives_the_signal_back():
    x = torch.tensor(X)
    window = torch.hann_window(16, dtype=torch.float64)
    back = torch.istft(torch.stft(x, 16, window=window, return_complex=True), 16,
                       window=window, length=50)
    np.testing.assert_allclose(back.numpy(), X, atol=1e-12)


def test_warnings_as_torch():
    for t in (torch, T):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t.stft(t.tensor(X), 16, return_complex=True)
            t.stft(t.tensor(X), 16, window=t.ones(16, dtype=t.float64), return_complex=False)
        messages = [str(w.message).split(" (Triggered")[0] for w in caught]
        if t is torch:
            mine = messages
    # PyTorch warns each once per process: silent where it warned earlier in this one
    assert mine and all(m in mine for m in messages)


def test_a_length_past_the_signal_pads_with_zeros_and_warns():
    """PyTorch warns once per process: only gradjit's warning is checked here."""
    window = torch.ones(16, dtype=torch.float64)
    with pytest.warns(UserWarning, match="padded with zeros in the tail"):
        out = torch.istft(torch.stft(torch.tensor(X), 16, window=window, return_complex=True),
                          16, window=window, length=70)
    t_window = T.ones(16, dtype=T.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = T.istft(T.stft(T.tensor(X), 16, window=t_window, return_complex=True), 16,
                       window=t_window, length=70)
    np.testing.assert_allclose(out.numpy(), want.numpy(), atol=1e-12)
    assert not out[:, 56:].numpy().any()  # past the last frame's end


def test_errors_as_torch():
    same_error(lambda: torch.stft(torch.tensor(X), 16),
               lambda: T.stft(T.tensor(X), 16))
    for kwargs in ({}, {"hop_length": 3, "center": False, "normalized": True,
                        "onesided": False}):
        same_error(lambda: torch.stft(torch.ones(2, 2, 64, dtype=torch.float64), 16,
                                      win_length=12, window=torch.ones(12, dtype=torch.float64),
                                      return_complex=True, **kwargs),
                   lambda: T.stft(T.ones(2, 2, 64, dtype=T.float64), 16, win_length=12,
                                  window=T.ones(12, dtype=T.float64), return_complex=True,
                                  **kwargs))
    same_error(lambda: torch.stft(torch.ones(()), 16, window=torch.ones(16),
                                  return_complex=True),
               lambda: T.stft(T.ones(()), 16, window=T.ones(16), return_complex=True))
    spectrum = torch.stft(torch.tensor(X1), 16, hop_length=16, window=torch.hann_window(16,
                          dtype=torch.float64), return_complex=True)
    with pytest.raises(RuntimeError, match="window overlap add min"):
        torch.istft(spectrum, 16, hop_length=16, window=torch.hann_window(16,
                                                                           dtype=torch.float64))
