"""PyTorch's test_spectral_ops.py scenarios for torch.stft and torch.istft, run side by side
in gradjit and in PyTorch: argument combinations (windows, hops, centring, padding modes,
normalization, one-sidedness, complex input and windows), round trips and their errors and
warnings."""
import itertools
import warnings

import numpy as np
import pytest

import gradjit
from tests.signal.side_by_side import same, torch

rng = np.random.default_rng(2)


def draw(shape, complex_=False):
    x = rng.standard_normal(shape)
    return x + 1j * rng.standard_normal(shape) if complex_ else x


def quiet(expr, **kwargs):
    """same(), PyTorch's once-per-process and deprecation warnings set aside."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return same(expr, **kwargs)


STFT_CASES = [((10,), 7, None, None, None), ((10, 400), 64, None, None, None),
              ((10,), 7, 2, None, None), ((10, 400), 64, 32, None, None),
              ((10,), 7, 2, None, (7,)), ((10, 400), 64, 32, None, (64,)),
              ((10,), 7, 2, 5, None), ((10, 400), 64, 32, 20, None)]


@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("sizes, n_fft, hop, win_length, window", STFT_CASES)
def test_stft_arguments(sizes, n_fft, hop, win_length, window, center):
    names = {"w": None if window is None else draw(window)}
    for complex_ in (False, True):
        quiet(f"x.stft({n_fft}, {hop}, {win_length}, None if w is None else t.tensor(w), "
              f"center={center}, return_complex={complex_})", names=names, x=draw(sizes))


@pytest.mark.parametrize("win_length", [3, 4, 8])
@pytest.mark.parametrize("align", [True, False])
def test_stft_aligned_to_the_window(align, win_length):
    quiet(f"t.stft(x, 8, 2, win_length={win_length}, window=t.hann_window({win_length}, "
          f"dtype=t.float64), center=False, align_to_window={align}, return_complex=True)",
          x=draw((2, 40)))


@pytest.mark.parametrize("sizes, n_fft, hop, kwargs", [
    ((10, 4, 2), 1, 1, ""), ((10,), 11, 1, "center=False"), ((10,), -1, 1, ""),
    ((10,), 3, None, "win_length=5"), ((10,), 5, 4, "window=t.ones(11, dtype=t.float64)"),
    ((10,), 5, 4, "window=t.ones(1, 1, dtype=t.float64)"),
])
def test_stft_errors(sizes, n_fft, hop, kwargs):
    quiet(f"x.stft({n_fft}, {hop}, {kwargs}, return_complex=True)", x=draw(sizes))


@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("size, n_fft, hop, window, length", [
    (10, 7, None, None, None), (400, 64, None, None, None), (400, 64, None, None, 400),
    (10, 7, 2, None, None), (400, 64, 32, None, 400), (10, 7, 2, (7,), None),
    (400, 64, 32, (64,), 400),
])
def test_istft_of_stft(size, n_fft, hop, window, length, center):
    names = {"w": None if window is None else draw(window)}
    quiet(f"x.stft({n_fft}, {hop}, None, None if w is None else t.tensor(w), center={center}, "
          f"onesided=True, return_complex=True).istft({n_fft}, {hop}, None, "
          f"None if w is None else t.tensor(w), length={length}, center={center})",
          names=names, x=draw(size))


@pytest.mark.parametrize("complex_", [False, True])
@pytest.mark.parametrize("shape", [(600,), (12, 60)])
def test_stft_istft_round_trip(shape, complex_):
    x = draw(shape, complex_)
    for n_fft, hop, pad_mode, normalized, onesided in itertools.product(
            (50, 27), (None, 10), ("constant", "reflect", "circular"), (True, False),
            (False,) if complex_ else (True, False)):
        kwargs = f"n_fft={n_fft}, hop_length={hop}, center=True, normalized={normalized}, " \
                 f"onesided={onesided}"
        spectrum = f"t.stft(x, pad_mode={pad_mode!r}, return_complex=True, {kwargs})"
        back = quiet(f"t.istft({spectrum}, return_complex={complex_}, length=x.size(-1), "
                     f"{kwargs})", x=x)
        np.testing.assert_allclose(back.numpy(), x, atol=1e-9)


@pytest.mark.parametrize("complex_", [False, True])
def test_complex_window_round_trip(complex_):
    x = draw((12, 60), complex_)
    for n_fft, hop, pad_mode, normalized in itertools.product(
            (50, 27), (None, 10), ("constant", "reflect", "replicate", "circular"),
            (True, False)):
        names = {"w": rng.random(n_fft) + 1j * rng.random(n_fft)}
        kwargs = f"n_fft={n_fft}, hop_length={hop}, window=t.tensor(w), center=True, " \
                 f"normalized={normalized}"
        spectrum = f"t.stft(x, pad_mode={pad_mode!r}, {kwargs})"
        assert quiet(spectrum, names=names, x=x).shape[-2] == n_fft
        quiet(f"t.istft({spectrum}, length=x.size(-1), return_complex=True, {kwargs})",
              names=names, x=x)


@pytest.mark.parametrize("size, n_fft, hop", itertools.product((600, 807), (50, 27), (10, 15)))
def test_complex_stft_of_its_definition(size, n_fft, hop):
    names = {"w": draw(n_fft, True)}
    got = quiet(f"t.stft(x, {n_fft}, {hop}, window=t.tensor(w), center=False)", names=names,
                x=draw(size, True))
    assert got.dtype == torch.complex128


@pytest.mark.parametrize("shape", [(600,), (14, 50), (6, 51)])
def test_complex_stft_arguments(shape):
    x = rng.random(shape) + 1j * rng.random(shape)
    for n_fft, hop, win_length, center, pad_mode, normalized in itertools.product(
            (50, 27), (None, 10), (None, 20), (False, True), ("constant", "reflect",
                                                               "circular"), (True, False)):
        quiet(f"t.stft(x, {n_fft}, hop_length={hop}, win_length={win_length}, "
              f"pad_mode={pad_mode!r}, center={center}, normalized={normalized})", x=x)


@pytest.mark.parametrize("shape", [(40, 20), (25, 1), (4, 20, 10)])
def test_complex_istft_arguments(shape):
    x = rng.random(shape) + 1j * rng.random(shape)
    for hop, center, normalized in itertools.product((None, 10), (False, True), (True, False)):
        quiet(f"t.istft(x, {shape[-2]}, hop_length={hop}, center={center}, "
              f"normalized={normalized}, return_complex=True)", x=x)


@pytest.mark.parametrize("x_complex, window_complex",
                         itertools.product((False, True), repeat=2))
def test_onesided_refused_for_complex_input_or_window(x_complex, window_complex):
    names = {"w": draw(10, window_complex)}
    quiet("x.stft(10, window=t.tensor(w), pad_mode='constant', onesided=True, "
          "return_complex=True)", names=names, x=draw(100, x_complex))


@pytest.mark.parametrize("expr", [
    "x.stft(10, pad_mode='constant', onesided=True)", "t.rand(100).stft(10, pad_mode='constant')",
    "t.rand(100).stft(10, center=True, return_complex=True, align_to_window=True)",
    "t.rand(100).stft(10, center=True, return_complex=True, align_to_window=False)",
    "t.istft(t.zeros((3, 5, 2)), n_fft=4, hop_length=20, win_length=1, window=t.ones(1))",
    "t.istft(t.zeros((3, 5), dtype=t.complex64), n_fft=4, hop_length=20, win_length=1, "
    "window=t.ones(1))",
    "t.istft(t.zeros((3, 5), dtype=t.complex64), n_fft=4, win_length=4, window=t.zeros(4))",
    "t.istft(t.zeros((3, 0), dtype=t.complex64), 2)",
    "t.istft(t.zeros((0, 3), dtype=t.complex64), 2)",
    "t.istft(t.zeros((7, 3), dtype=t.complex128), 12, window=t.ones(12, dtype=t.float64), "
    "return_complex=True)",
    "t.istft(t.zeros((12, 3), dtype=t.complex128), 12, window=t.ones(12, dtype=t.complex128))",
    "t.istft(t.zeros((7, 3), dtype=t.complex128), 12, onesided=False)",
    "t.istft(t.zeros((12, 3), dtype=t.complex128), 12, onesided=True)",
    "t.istft(t.zeros((7, 3), dtype=t.complex128), 12, window=t.ones(5))",
    "t.istft(t.zeros((7, 3), dtype=t.complex128), 12, win_length=14)",
    "t.stft(t.rand(10), 4, win_length=5, hop_length=2, return_complex=True)",
])
def test_argument_errors(expr):
    quiet(expr, x=draw(100, True))


def _messages(lib, expr):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        eval(expr, {"t": lib})
    return {str(w.message) for w in seen}


@pytest.mark.parametrize("expr, text", [
    ("t.rand(100).stft(10, pad_mode='constant', return_complex=True)", "A window was not "),
    ("t.istft(t.rand((51, 5), dtype=t.complex128), n_fft=100, length=100)",
     "A window was not "),
    ("t.istft(t.stft(t.rand(2, 500, dtype=t.float64), 256, 254, window=t.hamming_window(256, "
     "dtype=t.float64), return_complex=True), 256, 254, window=t.hamming_window(256, "
     "dtype=t.float64), length=500)", "The length of signal is shorter"),
])
def test_warnings_as_torch(expr, text):
    """gradjit warns each time; PyTorch once per process, so its message is checked when it
    still gives it."""
    got = [m for m in _messages(gradjit, expr) if m.startswith(text)]
    assert got
    want = [m for m in _messages(torch, expr) if m.startswith(text)]
    assert want in ([], got)


@pytest.mark.parametrize("fill", ["ones", "zeros"])
def test_istft_inverts_stft_of_constants(fill):
    back = quiet(f"t.istft(t.stft(t.{fill}(4, dtype=t.float64), n_fft=4, return_complex=True), "
                 "n_fft=4, length=4)")
    np.testing.assert_allclose(back.numpy(), 1.0 if fill == "ones" else 0.0, atol=1e-12)


ROUND_TRIPS = [
    dict(n_fft=12, hop_length=4, win_length=12, window="t.hann_window(12, dtype=t.float64)",
         center=True, pad_mode="reflect", normalized=True, onesided=True),
    dict(n_fft=12, hop_length=2, win_length=8, window="t.hann_window(8, dtype=t.float64)",
         center=True, pad_mode="reflect", normalized=False, onesided=False),
    dict(n_fft=15, hop_length=3, win_length=11, window="t.hamming_window(11, dtype=t.float64)",
         center=True, pad_mode="constant", normalized=True, onesided=False),
    dict(n_fft=5, hop_length=2, win_length=5, window="t.hamming_window(5, dtype=t.float64)",
         center=True, pad_mode="constant", normalized=False, onesided=True),
    dict(n_fft=3, hop_length=2, win_length=3, window="t.hamming_window(3, dtype=t.float64)",
         center=False, pad_mode="reflect", normalized=False, onesided=False),
]


def _arguments(kwargs, drop=()):
    return ", ".join(f"{k}={v}" if k == "window" else f"{k}={v!r}"
                     for k, v in kwargs.items() if k not in drop)


@pytest.mark.parametrize("kwargs", ROUND_TRIPS)
def test_istft_round_trips(kwargs):
    for sizes in [(2, 20), (3, 15), (4, 10)]:
        x = draw(sizes)
        quiet(f"t.istft(t.stft(x, return_complex=True, {_arguments(kwargs)}), "
              f"length=x.size(1), {_arguments(kwargs, ('pad_mode',))})", x=x)


@pytest.mark.parametrize("amplitude, length, n", [(123, 5, 1), (150, 5, 2), (111, 5, 3),
                                                   (160, 7, 4), (145, 8, 5), (80, 9, 6),
                                                   (99, 10, 7)])
def test_istft_of_a_sine(amplitude, length, n):
    spectrum = np.zeros((length // 2 + 1, 2), complex)
    if n < spectrum.shape[0]:
        spectrum[n] = -1j * amplitude * length / 2
    if 0 <= length - n < spectrum.shape[0]:
        spectrum[length - n] = 1j * amplitude * length / 2
    quiet(f"t.istft(x, {length}, hop_length={length}, win_length={length}, "
          f"window=t.ones({length}, dtype=t.float64), center=False, normalized=False)",
          x=spectrum)


@pytest.mark.parametrize("shape, kwargs", [
    ((2, 7, 7), "n_fft=12, window=t.hann_window(12, dtype=t.float64), normalized=True"),
    ((2, 12, 7), "n_fft=12, window=t.hann_window(12, dtype=t.float64), onesided=False"),
    ((2, 12, 7), "n_fft=12, window=t.hamming_window(12, dtype=t.float64), normalized=True, "
                 "onesided=False"),
    ((2, 7, 3), "n_fft=12, window=t.hamming_window(12, dtype=t.float64), center=False"),
])
def test_istft_is_linear(shape, kwargs):
    a, b = draw(shape, True), draw(shape, True)
    quiet(f"0.3 * a.istft({kwargs}) + 0.7 * b.istft({kwargs})", a=a, b=b)
    quiet(f"t.istft(0.3 * a + 0.7 * b, {kwargs})", a=a, b=b)


def test_batched_istft():
    original = np.zeros((3, 5), np.complex64)
    original[0] = 4
    for batch in ("x", "x.repeat(1, 1, 1)", "x.repeat(4, 1, 1)"):
        quiet(f"t.istft({batch}, n_fft=4, length=4)", x=original)


def test_gradients_through_stft_and_istft_as_torch():
    grads, signal = [], draw((2, 40))
    for lib in (torch, gradjit):
        x = lib.tensor(signal, requires_grad=True)
        window = lib.hann_window(16, dtype=lib.float64)
        spectrum = lib.stft(x, 16, 4, window=window, return_complex=True, normalized=True)
        back = lib.istft(spectrum * 0.5, 16, 4, window=window, normalized=True, length=40)
        (spectrum.abs().sum() + back.pow(2).sum()).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-9, atol=1e-12)
