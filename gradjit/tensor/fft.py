"""torch.fft: PyTorch's transforms with its arguments (n/s, dim, norm), dtypes, grad_fn names
and errors, over the transforms of gradjit.ops.fft (numpy.fft's, shared with tracing)."""
from __future__ import annotations

from gradjit import ops
from gradjit.ops import fft as FT
from gradjit.tensor import dtypes
from gradjit.tensor.arith import apply, operand
from gradjit.tensor.base import _check_dim
from gradjit.tensor.factories import tensor
from gradjit.tensor.functions import write_out

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

C2C, R2C, C2R, CONJ = "FftC2CBackward0", "FftR2CBackward0", "FftC2RBackward0", "ConjBackward0"


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


def _transform(name, grad_fn, compute, input, s, dim, norm, out, real_output=False):
    x = operand(input)
    _norm(norm)
    sizes, dims = _plan(x, s, dim, real_output)
    return write_out(name, lambda: apply(grad_fn(x, dims) if callable(grad_fn) else grad_fn,
                                         lambda v: compute(v, sizes, dims, norm), x), (x,), out)


def _one_dim(n):
    return None if n is None else (n,)


def _c2c_name(inverse):
    """One dim of a real tensor is PyTorch's r2c (forward) or its conjugate (inverse)."""
    def name(x, dims):
        if x.dtype.is_complex or len(dims) > 1:
            return C2C
        return CONJ if inverse else R2C
    return name


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    return _transform("fft", _c2c_name(False), lambda v, s, d, m: FT.c2c(v, s, d, False, m),
                      input, _one_dim(n), dim, norm, out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    return _transform("ifft", _c2c_name(True), lambda v, s, d, m: FT.c2c(v, s, d, True, m),
                      input, _one_dim(n), dim, norm, out)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    return _transform("fftn", C2C, lambda v, s, d, m: FT.c2c(v, s, d, False, m), input, s,
                      dim, norm, out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    return _transform("ifftn", C2C, lambda v, s, d, m: FT.c2c(v, s, d, True, m), input, s,
                      dim, norm, out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return fftn(input, s, dim, norm, out=out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return ifftn(input, s, dim, norm, out=out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None, _name="rfftn"):
    _real_only(_name, operand(input))
    return _transform(_name, R2C, FT.r2c, input, s, dim, norm, out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    return rfftn(input, _one_dim(n), (dim,), norm, out=out, _name="rfft")


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return rfftn(input, s, dim, norm, out=out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _transform("irfftn", C2R, FT.c2r, input, s, dim, norm, out, real_output=True)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    return irfftn(input, _one_dim(n), (dim,), norm, out=out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return irfftn(input, s, dim, norm, out=out)


def _swapped(norm):
    return {"backward": "forward", "forward": "backward"}.get(norm or "backward", norm)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The real signal of a Hermitian-symmetric spectrum given by its lower half."""
    return _transform("hfftn", C2R, lambda v, s, d, m: FT.c2r(ops.conj(FT.as_complex(v)), s,
                                                              d, _swapped(m)),
                      input, s, dim, norm, out, real_output=True)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    return hfftn(input, _one_dim(n), (dim,), norm, out=out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return hfftn(input, s, dim, norm, out=out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None, _name="ihfftn"):
    _real_only(_name, operand(input))
    return _transform(_name, lambda x, dims: CONJ if len(dims) == 1 else C2C,
                      lambda v, s, d, m: ops.conj(FT.r2c(v, s, d, _swapped(m))),
                      input, s, dim, norm, out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    return ihfftn(input, _one_dim(n), (dim,), norm, out=out, _name="ihfft")


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
