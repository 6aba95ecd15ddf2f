"""torch.stft and torch.istft, written with public tensor operations (frames as a strided view,
the transform by torch.fft, overlap-add by index_add), so that autograd and tracing see them;
their argument checks name the arguments as PyTorch's do."""
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


_NO_WINDOW_ISTFT = ("A window was not provided. A rectangular window will be applied.Please "
                     "provide the same window used by stft to make the inversion lossless.To "
                     "suppress this warning and use a rectangular window, explicitly set "
                     "`window=torch.ones(n_fft, device=<device>)`.")


def _flag(value):
    """An optional flag as PyTorch's argument descriptions print it."""
    return "None" if value is None else str(int(value))


def _described(window):
    return "None" if window is None else \
        f"torch.{window.dtype.legacy}Tensor{{{list(window.shape)}}}"


def _window(window, win_length, n_fft, like):
    """The window, centred in n_fft points (PyTorch pads it with zeros on both sides)."""
    if window is None:
        window = like.new_ones(win_length, dtype=like.dtype.to_real())
    left = (n_fft - win_length) // 2
    if left or n_fft - win_length - left:
        from gradjit.nn.functional import pad
        window = pad(window, [left, n_fft - win_length - left])
    return window


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """The short-time Fourier transform, (batch?, frequencies, frames)."""
    x = operand(input)
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
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
    arguments = (n_fft, hop, win_length, window, normalized, onesided, return_complex,
                 align_to_window)
    if x.dim() not in (1, 2):
        raise RuntimeError(f"{_call(x, *arguments)}a 1D or 2D tensor")
    batch = x.unsqueeze(0) if single else x
    if align_to_window:  # frames start where the window, centred in n_fft points, starts
        from gradjit.nn.functional import pad
        left = (n_fft - win_length) // 2
        batch = pad(batch, [left, n_fft - win_length - left])
    _check_stft(batch.squeeze(0) if single else batch, *arguments)
    # the frames are a strided view of the signal, windowed where a window is given or the
    # default one is padded to n_fft
    (count, length), (along, step) = batch.shape, batch.stride()
    frames = batch.as_strided((count, 1 + (length - n_fft) // hop, n_fft),
                              (along, hop * step, step), batch.storage_offset())
    if window is not None or win_length < n_fft:
        frames = frames * _window(window, win_length, n_fft, x)
    onesided = not frames.is_complex() if onesided is None else onesided
    if onesided and frames.is_complex():
        raise RuntimeError("Cannot have onesided output if window or input is complex")
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


def _call(x, n_fft, hop, win_length, window, normalized, onesided, return_complex, align):
    """stft's call as PyTorch's errors name it, with the (padded) input."""
    return f"stft(torch.{x.dtype.legacy}Tensor{list(x.shape)}, n_fft={n_fft}, " \
        f"hop_length={hop}, win_length={win_length}, window={_described(window)}, " \
        f"normalized={int(normalized)}, onesided={_flag(onesided)}, " \
        f"return_complex={_flag(return_complex)}, align_to_window={_flag(align)}) : expected "


def _check_stft(x, n_fft, hop, win_length, window, *flags):
    """PyTorch's checks of stft's sizes, naming its arguments and the (padded) input."""
    described = _call(x, n_fft, hop, win_length, window, *flags)
    if n_fft <= 0 or n_fft > x.shape[-1]:
        raise RuntimeError(f"{described}0 < n_fft < {x.shape[-1]}, but got n_fft={win_length}")
    if hop <= 0:
        raise RuntimeError(f"{described}hop_length > 0, but got hop_length={hop}")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"{described}0 < win_length <= n_fft, but got win_length="
                           f"{win_length}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win_length):
        raise RuntimeError(f"{described}a 1D window tensor of size equal to win_length="
                           f"{win_length}, but got window with size {list(window.shape)}")


def _check_istft(z, n_fft, hop, win_length, window, center, normalized, onesided, length,
                 return_complex):
    """PyTorch's checks of istft's arguments, naming them and the input."""
    described = f"istft(CPU{z.dtype.legacy}Type{list(z.shape)}, n_fft={n_fft}, " \
        f"hop_length={hop}, win_length={win_length}, window={_described(window)}, " \
        f"center={int(center)}, normalized={int(normalized)}, onesided={_flag(onesided)}, " \
        f"length={length}, return_complex={int(return_complex)}) "
    if not z.numel():
        raise RuntimeError(f"{described}: input tensor cannot be empty.")
    count = z.shape[-2]
    if (count != n_fft if onesided is None else onesided) and n_fft // 2 + 1 != count:
        raise RuntimeError(f"{described}: expected the frequency dimension (3rd to the last) "
                           f"of the input tensor to match n_fft / 2 + 1 when onesided=True, "
                           f"but got {count}")
    if onesided is False and n_fft != count:
        raise RuntimeError(f"{described}: expected the frequency dimension (3rd to the last) "
                           f"of the input tensor to match n_fft when onesided=False, but got "
                           f"{count}")
    if not 0 < hop <= win_length:
        raise RuntimeError(f"{described}: expected 0 < hop_length <= win_length")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"{described}: expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win_length):
        raise RuntimeError(f"{described}: Invalid window shape. window has to be 1D and length "
                           "of `win_length`")
    return described


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse of stft: each frame transformed back, windowed, overlap-added and divided
    by the overlap-added squared window."""
    z = operand(input)
    if window is None:
        warn_at_caller(_NO_WINDOW_ISTFT)
    hop = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if not z.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    described = _check_istft(z, n_fft, hop, win_length, window, center, normalized, onesided,
                             length, return_complex)
    single = z.dim() == 2
    z = z.unsqueeze(0) if single else z
    count, frames = z.shape[-2], z.shape[-1]
    onesided = count != n_fft if onesided is None else onesided
    spectra = z.transpose(-1, -2)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        y = FFT.ifft(spectra, norm=norm)
    else:  # a real signal from the lower half of any spectrum, one-sided or not
        if window is not None and window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        y = FFT.irfft(spectra[..., :n_fft // 2 + 1], n_fft, norm=norm)
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
        raise RuntimeError(f"{described}window overlap add min: 1\n[ CPUBoolType{{}} ]")
    out = signal / envelope
    if end > total:
        warn_at_caller("The length of signal is shorter than the length parameter. Result is "
                       "being padded with zeros in the tail. Please check your center and "
                       "hop_length settings.")
        from gradjit.nn.torch_native import constant_pad_nd
        out = constant_pad_nd(out, [0, end - total])
    return out.squeeze(0) if single else out
