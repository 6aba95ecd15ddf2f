"""torch.fft: PyTorch's transforms with its arguments (n/s, dim, norm), dtypes, grad_fn names
and errors, composed as PyTorch composes them (promotion, resizing, conjugates) around the
transforms of gradjit.ops.fft (numpy.fft's, shared with tracing), so grad_fn graphs match."""
from __future__ import annotations

import functools

from gradjit.ops import fft as FT
from gradjit.tensor import dtypes
from gradjit.tensor.arith import apply, operand
from gradjit.tensor.base import _check_dim
from gradjit.tensor.factories import tensor
from gradjit.tensor.functions import write_out

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

def _norm(norm):
    if norm is not None and norm not in FT.NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm


def _points(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def _real_only(name, x):
    if not x.dtype.is_complex:
        return
    if name == "ihfftn":
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {x.dtype.legacy}")
    raise RuntimeError(f"{name} expects a real{'-valued' if name.endswith('n') else ''} "
                       f"input tensor, but got {x.dtype.legacy}")


def _plan(x, s, dim, real_output=False):
    """PyTorch's s/dim defaults: all dims (the last len(s) when only s is given); a real
    output's last size defaults to 2 (m - 1)."""
    rank = x.dim()
    if dim is None:
        dim = range(rank) if s is None else range(rank - len(s), rank)
    dims = [_check_dim(d, rank) for d in ((dim,) if isinstance(dim, int) else dim)]
    if len(set(dims)) < len(dims):
        raise RuntimeError("FFT dims must be unique")
    if s is None:
        s = [x.shape[d] for d in dims]
        if real_output:
            s[-1] = 2 * (s[-1] - 1)
    elif len(s) != len(dims):
        raise RuntimeError("When given, dim and shape arguments must have the same length")
    return [_points(int(n)) for n in s], dims


def _promoted(x, complex_):
    """Integers take the default float type, and a transform of complex input its complex
    type, by a copy (ToCopyBackward0) as PyTorch's promotion makes one."""
    dtype = x.dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        dtype = dtypes.get_default_dtype()
    if complex_ and not dtype.is_complex:
        dtype = dtype.to_complex()
    return x if dtype == x.dtype else x.to(dtype)


def _resized(x, dims, sizes):
    """Each transformed dim cut (a slice each) or zero-padded (one pad for all) to its size."""
    padded = []
    for d, n in zip(dims, sizes):
        if n < x.shape[d]:
            x = x.narrow(d, 0, n)
        elif n > x.shape[d]:
            padded.append((d, n))
    if not padded:
        return x
    return apply("ConstantPadNdBackward0", lambda v: functools.reduce(
        lambda v, dn: FT.resized(v, dn[1], dn[0]), padded, v), x)


def _c2c(x, dims, norm, forward):
    sizes = [x.shape[d] for d in dims]
    return apply("FftC2CBackward0", lambda v: FT.c2c(v, sizes, dims, not forward, norm), x)


def _r2c(x, dims, norm, onesided):
    """The forward transform of a real x: its lower half along the last dim, or all of it."""
    sizes = [x.shape[d] for d in dims]
    if onesided:
        return apply("FftR2CBackward0", lambda v: FT.r2c(v, sizes, dims, norm), x)
    return apply("FftR2CBackward0", lambda v: FT.c2c(v, sizes, dims, False, norm), x)


def _c2r(x, dims, norm, last):
    sizes = [x.shape[d] for d in dims[:-1]] + [last]
    return apply("FftC2RBackward0", lambda v: FT.c2r(v, sizes, dims, norm), x)


def _swapped(norm):
    """The norm that scales an inverse transform written as a forward one (and back)."""
    return {"backward": "forward", "forward": "backward"}.get(norm or "backward", norm)


def _half(sizes):
    """The sizes of the lower-half spectrum of a real signal of `sizes`."""
    return [*sizes[:-1], sizes[-1] // 2 + 1]


def _complex_to_complex(forward):
    """fftn / ifftn, and fft / ifft of complex input: a complex copy of real input, resized."""
    def transform(x, sizes, dims, norm):
        return _c2c(_resized(_promoted(x, True), dims, sizes), dims, norm, forward)
    return transform


def _one_dim(forward):
    """fft / ifft: a real input's full spectrum comes from the real transform (conjugated for
    the inverse, which runs it with the swapped norm)."""
    def transform(x, sizes, dims, norm):
        if x.dtype.is_complex:
            return _complex_to_complex(forward)(x, sizes, dims, norm)
        x = _resized(_promoted(x, False), dims, sizes)
        return _r2c(x, dims, norm, False) if forward else _r2c(x, dims, _swapped(norm),
                                                                 False).conj()
    return transform


def _real_to_complex(x, sizes, dims, norm):
    return _r2c(_resized(_promoted(x, False), dims, sizes), dims, norm, True)


def _complex_to_real(x, sizes, dims, norm):
    return _c2r(_resized(_promoted(x, True), dims, _half(sizes)), dims, norm, sizes[-1])


def _hermitian(x, sizes, dims, norm):
    """hfftn: the forward transform over all dims but the last, then the real inverse of the
    conjugate over the last (scaled by the swapped norm, as a forward transform)."""
    x = _resized(_promoted(x, True), dims, _half(sizes))
    if len(dims) > 1:
        x = _c2c(x, dims[:-1], norm, True)
    return _c2r(x.conj(), dims[-1:], _swapped(norm), sizes[-1])


def _inverse_hermitian(x, sizes, dims, norm):
    """ihfftn: the conjugate of the real forward transform over the last dim, then the inverse
    over the others."""
    x = _r2c(_resized(_promoted(x, False), dims, sizes), dims[-1:], _swapped(norm), True)
    if len(dims) == 1:
        return x.conj()
    return _c2c(x.conj_physical(), dims[:-1], norm, False)


def _transform(name, transform, input, s, dim, norm, out, real_output=False):
    x = operand(input)
    _norm(norm)
    sizes, dims = _plan(x, s, dim, real_output)
    return write_out(name, lambda: transform(x, sizes, dims, norm), (x,), out)


def _n(n):
    return None if n is None else (n,)


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    return _transform("fft", _one_dim(True), input, _n(n), dim, norm, out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    return _transform("ifft", _one_dim(False), input, _n(n), dim, norm, out)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    return _transform("fftn", _complex_to_complex(True), input, s, dim, norm, out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    return _transform("ifftn", _complex_to_complex(False), input, s, dim, norm, out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return fftn(input, s, dim, norm, out=out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return ifftn(input, s, dim, norm, out=out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None, _name="rfftn"):
    _real_only(_name, operand(input))
    return _transform(_name, _real_to_complex, input, s, dim, norm, out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    return rfftn(input, _n(n), (dim,), norm, out=out, _name="rfft")


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return rfftn(input, s, dim, norm, out=out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _transform("irfftn", _complex_to_real, input, s, dim, norm, out, real_output=True)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    return irfftn(input, _n(n), (dim,), norm, out=out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return irfftn(input, s, dim, norm, out=out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _transform("hfftn", _hermitian, input, s, dim, norm, out, real_output=True)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    return hfftn(input, _n(n), (dim,), norm, out=out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return hfftn(input, s, dim, norm, out=out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None, _name="ihfftn"):
    _real_only(_name, operand(input))
    return _transform(_name, _inverse_hermitian, input, s, dim, norm, out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    return ihfftn(input, _n(n), (dim,), norm, out=out, _name="ihfft")


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return ihfftn(input, s, dim, norm, out=out)


def _frequencies(n, d, real, dtype, device, requires_grad):
    chosen = dtypes.to_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    return tensor(FT.frequencies(n, d, real), dtype=chosen, device=device,
                  requires_grad=requires_grad)


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _frequencies(n, d, False, dtype, device, requires_grad)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _frequencies(n, d, True, dtype, device, requires_grad)


def _shift(inverse):
    def shift(input, dim=None):
        x = operand(input)
        dims = None if dim is None else [_check_dim(d, x.dim()) for d in (
            (dim,) if isinstance(dim, int) else dim)]
        return apply("RollBackward0", lambda v: FT.shift(v, dims, inverse), x)
    return shift


fftshift, ifftshift = _shift(False), _shift(True)
