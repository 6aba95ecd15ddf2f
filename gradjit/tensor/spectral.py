"""torch.stft and torch.istft, written with public tensor operations (frames as a strided view,
transform by torch.fft, overlap-add by index_add), so that autograd and tracing see them."""
from __future__ import annotations

import numpy as np

from gradjit import ops
from gradjit.tensor import fft as FFT
from gradjit.tensor.arith import apply, operand
from gradjit.warn import warn_at_caller

_NO_WINDOW = ("A window was not provided. A rectangular window will be applied,which is known "
              "to cause spectral leakage. Other windows such as torch.hann_window or "
              "torch.hamming_window are recommended to reduce spectral leakage.To suppress this "
              "warning and use a rectangular window, explicitly set `window=torch.ones(n_fft, "
              "device=<device>)`.")


def _window(window, win_length, n_fft, like):
    """The window, centred in n_fft points (PyTorch pads it with zeros on both sides)."""
    if window is None:
        window = like.new_ones(win_length, dtype=like.dtype.to_real())
    left = (n_fft - win_length) // 2
    if left or n_fft - win_length - left:
        from gradjit.nn.functional import pad
        window = pad(window, [left, n_fft - win_length - left])
    return window


def _argument(value):
    """An argument as PyTorch's C++ error messages print it."""
    if hasattr(value, "_edge"):
        return f"{value.type()}{{{list(value.shape)}}}"
    return int(value) if isinstance(value, bool) else value


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None):
    """The short-time Fourier transform, (batch?, frequencies, frames)."""
    x = operand(input)
    if return_complex is None and not (x.is_complex() or window is not None and
                                       window.is_complex()):
        raise RuntimeError("stft requires the return_complex parameter be given for real "
                           "inputs, and will further require that return_complex=True in a "
                           "future PyTorch release.")
    if window is None:
        warn_at_caller(_NO_WINDOW)
    hop = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    single = x.dim() == 1
    if center:  # padded as a (1, 1, length) or (1, batch, length) tensor, as PyTorch pads it
        from gradjit.nn.functional import pad
        half, shape = n_fft // 2, tuple(x.shape)
        x = pad(x.view((1,) * (3 - x.dim()) + shape), [half, half], mode=pad_mode)
        x = x.view(x.shape[-len(shape):])
    if x.dim() not in (1, 2):
        shown = ", ".join(f"{k}={_argument(v)}" for k, v in (
            ("n_fft", n_fft), ("hop_length", hop), ("win_length", win_length),
            ("window", window), ("normalized", normalized), ("onesided", onesided),
            ("return_complex", return_complex), ("align_to_window", None)))
        raise RuntimeError(f"stft({x.type()}{list(x.shape)}, {shown}) : expected a 1D or 2D "
                           "tensor")
    batch = x.unsqueeze(0) if single else x
    # the frames are a strided view of the signal, windowed where a window is given or the
    # default one is padded to n_fft
    (count, length), (along, step) = batch.shape, batch.stride()
    frames = batch.as_strided((count, 1 + (length - n_fft) // hop, n_fft),
                              (along, hop * step, step), batch.storage_offset())
    if window is not None or win_length < n_fft:
        frames = frames * _window(window, win_length, n_fft, x)
    onesided = not frames.is_complex() if onesided is None else onesided
    spectrum = (FFT.rfft if onesided else FFT.fft)(frames, norm="ortho" if normalized else None)
    out = apply("TransposeBackward1", lambda v: ops.swapaxes(v, -1, -2), spectrum)
    if single:
        out = apply("SqueezeBackward4", lambda v: ops.squeeze(v, 0), out)
    if return_complex is False:
        from gradjit.tensor.complex import view_as_real
        warn_at_caller("stft with return_complex=False is deprecated. In a future pytorch "
                       "release, stft will return complex tensors for all inputs, and "
                       "return_complex=False will raise an error.\nNote: you can still call "
                       "torch.view_as_real on the complex output to recover the old return "
                       "format.")
        return view_as_real(out)
    return out


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse of stft: each frame transformed back, windowed, overlap-added and divided
    by the overlap-added squared window."""
    z = operand(input)
    hop = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    single = z.dim() == 2
    z = z.unsqueeze(0) if single else z
    count, frames = z.shape[-2], z.shape[-1]
    onesided = count != n_fft if onesided is None else onesided
    spectra = z.transpose(-1, -2)
    norm = "ortho" if normalized else "backward"
    y = FFT.irfft(spectra, n_fft, norm=norm) if onesided else FFT.ifft(spectra, norm=norm)
    if not onesided and not return_complex:
        y = y.real
    w = _window(window, win_length, n_fft, z.real if z.is_complex() else z)
    y = y * w
    total = n_fft + hop * (frames - 1)
    from gradjit.tensor.factories import tensor
    index = tensor((np.arange(frames)[:, None] * hop + np.arange(n_fft)).reshape(-1))
    signal = y.new_zeros((y.shape[0], total)).index_add(-1, index, y.reshape(y.shape[0], -1))
    envelope = w.new_zeros(total).index_add(0, index, (w * w).repeat(frames))
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else total - (n_fft // 2 if center else 0)
    stop = min(end, total)
    signal, envelope = signal[:, start:stop], envelope[start:stop]
    if float(envelope.abs().min()) < 1e-11:
        raise RuntimeError("istft(...): window overlap add min: "
                           f"{float(envelope.abs().min()):g}")
    out = signal / envelope
    if end > total:
        warn_at_caller("The length of signal is shorter than the length parameter. Result is "
                       "being padded with zeros in the tail. Please check your center and "
                       "hop_length settings.")
        from gradjit.nn.torch_native import constant_pad_nd
        out = constant_pad_nd(out, [0, end - total])
    return out.squeeze(0) if single else out
