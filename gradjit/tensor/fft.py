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
from gradjit.tensor.grad_mode import no_grad
from gradjit.warn import warn_at_caller

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
    if x.dtype.is_complex:
        raise RuntimeError(f"{name} expects a real{'-valued' if name.endswith('n') else ''} "
                           f"input tensor, but got {x.dtype.legacy}")


def _at_least_one(name, dims):
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis")


def _promoted(x, complex_):
    """Integers take the default float type, and a transform of complex input its complex
    type, by a copy (ToCopyBackward0) as PyTorch's promotion makes one; half precision has
    no CPU kernel."""
    dtype = x.dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        dtype = dtypes.get_default_dtype()
    if not dtype.is_complex and dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(f"Unsupported dtype {dtype.legacy}")
    if complex_ and not dtype.is_complex:
        dtype = dtype.to_complex()
    return x if dtype == x.dtype else x.to(dtype)


def _one_dim(x, n, dim, default=lambda m: m):
    """A 1-D transform's size and dim: n, or default(the length of dim)."""
    d = _check_dim(dim, x.dim())
    return [_points(default(x.shape[d]) if n is None else n)], [d]


def _n_dims(name, x, s, dim, real_output=False):
    """PyTorch's sizes and dims of an n-D transform: all dims, or the last len(s); an s entry
    of -1 keeps that dim's length; a real output's last size defaults to 2 (m - 1)."""
    rank = x.dim()
    dims = None
    if dim is not None:
        dims = [_check_dim(d, rank) for d in ((dim,) if isinstance(dim, int) else dim)]
        if len(set(dims)) < len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is None:
        dims = list(range(rank)) if dims is None else dims
        sizes = [x.shape[d] for d in dims]
    else:
        s = [s] if isinstance(s, int) else [int(n) for n in s]
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > rank:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{rank} dimensions.")
        dims = list(range(rank - len(s), rank)) if dims is None else dims
        sizes = [x.shape[d] if n == -1 else n for n, d in zip(s, dims)]
    for n in sizes:
        _points(n)
    if real_output:
        _at_least_one(name, dims)
        if s is None or s[-1] == -1:
            sizes[-1] = _points(2 * (x.shape[dims[-1]] - 1))
    return sizes, dims


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


def _kernel(x):
    if x.dtype == dtypes.complex32:
        raise RuntimeError("MKL FFT doesn't support tensors of type: Half")


def _c2c(x, dims, norm, forward):
    if not dims:
        return x.clone()
    _kernel(x)
    sizes = [x.shape[d] for d in dims]
    return apply("FftC2CBackward0", lambda v: FT.c2c(v, sizes, dims, not forward, norm), x)


def _r2c(x, dims, norm, onesided):
    """The forward transform of a real x: its lower half along the last dim, or all of it."""
    sizes = [x.shape[d] for d in dims]
    if onesided:
        return apply("FftR2CBackward0", lambda v: FT.r2c(v, sizes, dims, norm), x)
    return apply("FftR2CBackward0", lambda v: FT.c2c(v, sizes, dims, False, norm), x)


def _c2r(x, dims, norm, last):
    _kernel(x)
    sizes = [x.shape[d] for d in dims[:-1]] + [last]
    return apply("FftC2RBackward0", lambda v: FT.c2r(v, sizes, dims, norm), x)


def _swapped(norm):
    """The norm that scales an inverse transform written as a forward one (and back)."""
    return {"backward": "forward", "forward": "backward"}.get(norm or "backward", norm)


def _half(sizes):
    """The sizes of the lower-half spectrum of a real signal of `sizes`."""
    return [*sizes[:-1], sizes[-1] // 2 + 1]


def _finish(name, compute, x, norm, out, complex_out):
    """The transform, into out= when given, after PyTorch's last checks (norm, out's kind:
    ifftn's check names fftn, their shared kernel)."""
    _norm(norm)
    if out is not None and complex_out and not out.dtype.is_complex:
        raise RuntimeError(f"{'fftn' if name == 'ifftn' else name} expects a complex "
                           f"output tensor, but got {out.dtype.legacy}")
    if out is not None and not complex_out and not out.dtype.is_floating_point:
        raise RuntimeError(f"{name} expects a floating point output tensor, but got "
                           f"{out.dtype.legacy}")
    return write_out(name, compute, (x,), out)


def _full(name, forward, input, n, dim, norm, out):
    """fft / ifft: complex input by the complex transform; real input's full spectrum by the
    real one (conjugated for the inverse, which runs it with the swapped norm)."""
    x = operand(input)
    if x.dtype.is_complex:
        sizes, dims = _one_dim(x, n, dim)
        return _finish(name, lambda: _c2c(_resized(x, dims, sizes), dims, norm, forward), x,
                       norm, out, True)
    x = _promoted(x, False)
    sizes, dims = _one_dim(x, n, dim)

    def transform():
        spectrum = _r2c(_resized(x, dims, sizes), dims, norm if forward else _swapped(norm),
                        False)
        return spectrum if forward else spectrum.conj()
    return _finish(name, transform, x, norm, out, True)


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    return _full("fft", True, input, n, dim, norm, out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    return _full("ifft", False, input, n, dim, norm, out)


def _fftn(name, forward, input, s, dim, norm, out):
    x = operand(input)
    sizes, dims = _n_dims(name, x, s, dim)
    x = _promoted(x, True)
    return _finish(name, lambda: _c2c(_resized(x, dims, sizes), dims, norm, forward), x, norm,
                   out, True)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    return _fftn("fftn", True, input, s, dim, norm, out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    return _fftn("ifftn", False, input, s, dim, norm, out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return fftn(input, s, dim, norm, out=out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return ifftn(input, s, dim, norm, out=out)


def _real_to_complex(name, inverse, input, s, dim, norm, out):
    """rfftn, and ihfftn (inverse: the conjugate of the real forward transform over the last
    dim, with the swapped norm, then the inverse over the others)."""
    x = operand(input)
    if name in ("rfft", "rfftn", "ihfft"):
        _real_only(name, x)
    if name in ("rfft", "ihfft"):
        x = _promoted(x, False)
        sizes, dims = _one_dim(x, s, dim)
    else:
        sizes, dims = _n_dims(name, x, s, dim)
        _at_least_one(name, dims)
        x = _promoted(x, False)
    if x.dtype.is_complex:  # ihfftn checks in its kernel
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {x.dtype.legacy}")

    def transform():
        resized = _resized(x, dims, sizes)
        if not inverse:
            return _r2c(resized, dims, norm, True)
        half = _r2c(resized, dims[-1:], _swapped(norm), True)
        if len(dims) == 1:
            return half.conj()
        return _c2c(half.conj_physical(), dims[:-1], norm, False)
    return _finish(name, transform, x, norm, out, True)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _real_to_complex("rfft", False, input, n, dim, norm, out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _real_to_complex("rfftn", False, input, s, dim, norm, out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return rfftn(input, s, dim, norm, out=out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _real_to_complex("ihfft", True, input, n, dim, norm, out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _real_to_complex("ihfftn", True, input, s, dim, norm, out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return ihfftn(input, s, dim, norm, out=out)


def _complex_to_real(name, hermitian, input, s, dim, norm, out):
    """irfftn, and hfftn (hermitian: the forward transform over all dims but the last, then
    the real inverse of the conjugate over the last, with the swapped norm)."""
    x = operand(input)
    if name in ("irfft", "hfft"):
        x = _promoted(x, True)
        sizes, dims = _one_dim(x, s, dim, lambda m: 2 * (m - 1))
    else:
        sizes, dims = _n_dims(name, x, s, dim, real_output=True)
        x = _promoted(x, True)

    def transform():
        resized = _resized(x, dims, _half(sizes))
        if not hermitian:
            return _c2r(resized, dims, norm, sizes[-1])
        if len(dims) > 1:
            resized = _c2c(resized, dims[:-1], norm, True)
        return _c2r(resized.conj(), dims[-1:], _swapped(norm), sizes[-1])
    return _finish(name, transform, x, norm, out, False)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _complex_to_real("irfft", False, input, n, dim, norm, out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _complex_to_real("irfftn", False, input, s, dim, norm, out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return irfftn(input, s, dim, norm, out=out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _complex_to_real("hfft", True, input, n, dim, norm, out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _complex_to_real("hfftn", True, input, s, dim, norm, out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return hfftn(input, s, dim, norm, out=out)


def _frequencies(n, d, real, out, dtype, device, requires_grad):
    """The sample frequencies, or written into out= (resized, as PyTorch's arange resizes it,
    with its warning where the element count differs)."""
    values = FT.frequencies(n, d, real)
    if out is None:
        chosen = dtypes.to_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
        return tensor(values, dtype=chosen, device=device, requires_grad=requires_grad)
    if out.numel() != values.size:
        warn_at_caller(f"The number of elements in the out tensor of shape {list(out.shape)} is "
                       f"{out.numel()} which does not match the computed number of elements "
                       f"{values.size}. Note that this may occur as a result of rounding error. "
                       f"The out tensor will be resized to a tensor of shape ({values.size},).")
        out.resize_(values.size)
    with no_grad():
        out.copy_(tensor(values, dtype=out.dtype))
    return out


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _frequencies(n, d, False, out, dtype, device, requires_grad)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _frequencies(n, d, True, out, dtype, device, requires_grad)


def _shift(inverse):
    def shift(input, dim=None):
        x = operand(input)
        dims = None if dim is None else [_check_dim(d, x.dim()) for d in (
            (dim,) if isinstance(dim, int) else dim)]
        return apply("RollBackward0", lambda v: FT.shift(v, dims, inverse), x)
    return shift


fftshift, ifftshift = _shift(False), _shift(True)
