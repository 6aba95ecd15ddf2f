"""numpy.fft on traced values: each transform with numpy's signature, defaults and errors,
mapped onto gradjit.ops.fft."""
from __future__ import annotations

import operator
import warnings

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from gradjit.ops import fft as FT
from gradjit.ops.array import shape_of


def _points(n, have):
    n = have if n is None else n
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return operator.index(n)  # numpy's TypeError for a float count


def _one_size(n):
    """A 1-d transform's n as the s of an n-d one (checked here: -1 is an error, not s's
    whole axis)."""
    return None if n is None else (_points(n, None),)


def _sizes_and_axes(a, s, axes, real_output=False):
    """numpy's s/axes defaults: all axes (the last len(s) when only s is given, which numpy
    deprecates); an entry of s that is None takes the 1-d transform's default, -1 the input's
    whole axis. The default size of a real output's last axis is 2 (m - 1)."""
    shape = shape_of(a)
    if axes is None:
        if s is not None:
            warnings.warn("`axes` should not be `None` if `s` is not `None` (Deprecated in "
                          "NumPy 2.0)", DeprecationWarning, stacklevel=4)
        axes = range(len(shape)) if s is None else range(len(shape) - len(s), len(shape))
    axes = [normalize_axis_index(int(ax), len(shape)) for ax in axes]
    if s is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if s is not None and None in s:
        warnings.warn("Passing an array containing `None` values to `s` is deprecated in "
                      "NumPy 2.0", DeprecationWarning, stacklevel=4)
    s = [None] * len(axes) if s is None else list(s)
    defaults = [shape[ax] for ax in axes]
    if real_output:
        defaults[-1] = 2 * (defaults[-1] - 1)
    return [_points(defaults[i] if n is None else shape[ax] if n == -1 else n, None)
            for i, (n, ax) in enumerate(zip(s, axes))], axes


def _complex_nd(inverse):
    def transform(a, s=None, axes=None, norm=None, out=None):
        FT.check_norm(norm)
        sizes, axes = _sizes_and_axes(a, s, axes)
        if len(set(axes)) < len(axes):  # a repeated axis is transformed again
            for n, ax in reversed(list(zip(sizes, axes))):
                a = FT.c2c(a, (n,), (ax,), inverse, norm)
            return a
        return FT.c2c(a, sizes, axes, inverse, norm)
    return transform


def _complex_1d(nd):
    def transform(a, n=None, axis=-1, norm=None, out=None):
        return nd(a, _one_size(n), (axis,), norm, out)
    return transform


def _complex_2d(nd):
    def transform(a, s=None, axes=(-2, -1), norm=None, out=None):
        return nd(a, s, axes, norm, out)
    return transform


def _rfftn(a, s=None, axes=None, norm=None, out=None):
    FT.check_norm(norm)
    sizes, axes = _sizes_and_axes(a, s, axes)
    return FT.r2c(a, sizes, axes, norm)


def _irfftn(a, s=None, axes=None, norm=None, out=None):
    FT.check_norm(norm)
    sizes, axes = _sizes_and_axes(a, s, axes, real_output=True)
    return FT.c2r(a, sizes, axes, norm)


def _rfft(a, n=None, axis=-1, norm=None, out=None):
    return _rfftn(a, _one_size(n), (axis,), norm, out)


def _irfft(a, n=None, axis=-1, norm=None, out=None):
    return _irfftn(a, _one_size(n), (axis,), norm, out)


def _hfft(a, n=None, axis=-1, norm=None, out=None):
    axis = normalize_axis_index(axis, len(shape_of(a)))
    return FT.hermitian(a, _points(n, 2 * (shape_of(a)[axis] - 1)), axis, norm)


def _ihfft(a, n=None, axis=-1, norm=None, out=None):
    axis = normalize_axis_index(axis, len(shape_of(a)))
    return FT.inverse_hermitian(a, _points(n, shape_of(a)[axis]), axis, norm)


fftn, ifftn = _complex_nd(False), _complex_nd(True)
FUNCTIONS = {
    np.fft.fft: _complex_1d(fftn), np.fft.ifft: _complex_1d(ifftn),
    np.fft.fft2: _complex_2d(fftn), np.fft.ifft2: _complex_2d(ifftn),
    np.fft.fftn: fftn, np.fft.ifftn: ifftn,
    np.fft.rfft: _rfft, np.fft.irfft: _irfft,
    np.fft.rfft2: lambda a, s=None, axes=(-2, -1), norm=None, out=None: _rfftn(a, s, axes,
                                                                               norm, out),
    np.fft.irfft2: lambda a, s=None, axes=(-2, -1), norm=None, out=None: _irfftn(a, s, axes,
                                                                                 norm, out),
    np.fft.rfftn: _rfftn, np.fft.irfftn: _irfftn, np.fft.hfft: _hfft, np.fft.ihfft: _ihfft,
    np.fft.fftshift: lambda x, axes=None: FT.shift(x, axes, False),
    np.fft.ifftshift: lambda x, axes=None: FT.shift(x, axes, True),
}
