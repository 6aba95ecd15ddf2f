"""torch.masked's reductions and normalizations: the masked-out elements are replaced by the
operation's identity, then the plain operation runs over the whole tensor."""
import math

import gradjit
from gradjit.nn import functional as F

# sum and prod accumulate these in int64 unless a dtype is given
_PROMOTED_TO_LONG = {gradjit.uint8, gradjit.bool, gradjit.int8, gradjit.int16, gradjit.int32}


def _identity(name, input, ord=2):
    """The value that leaves operation `name` unchanged, as a 0-dim tensor of input's dtype."""
    dtype, floating = input.dtype, input.dtype.is_floating_point
    integral = gradjit.is_signed(input) or dtype == gradjit.uint8
    if name in ("sum", "cumsum"):
        return gradjit.tensor(0, dtype=dtype)
    if name in ("prod", "cumprod"):
        return gradjit.tensor(1, dtype=dtype)
    if name in ("amax", "argmax", "logaddexp", "logsumexp") and (floating or dtype.is_complex
                                                                 and name == "logsumexp"):
        return gradjit.tensor(-math.inf, dtype=dtype)
    if name in ("amin", "argmin") and floating:
        return gradjit.tensor(math.inf, dtype=dtype)
    if name in ("amax", "argmax", "logaddexp", "logsumexp", "amin", "argmin") and integral:
        info = gradjit.iinfo(dtype)
        return gradjit.tensor(info.max if name in ("amin", "argmin") else info.min, dtype=dtype)
    if name == "norm":
        if ord == -math.inf:
            if not floating:
                raise AssertionError(f"input must be floating point, got {dtype}")
            return gradjit.tensor(math.inf, dtype=dtype)
        return gradjit.tensor(0, dtype=dtype)
    if name == "median":
        return gradjit.tensor(math.nan, dtype=dtype if floating else gradjit.float32)
    raise NotImplementedError(f"identity of {name} on {dtype} input")


def _canonical_dim(dim, ndim):
    """dim as a sorted tuple of non-negative dims (None and () name them all)."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    ndim, dims = max(ndim, 1), []
    for d in (dim,) if isinstance(dim, int) else dim:
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                             f"{ndim - 1}], but got {d})")
        dims.append(d % ndim)
    return tuple(sorted(dims))



def _input_mask(input, mask):
    """mask broadcast to input's shape, as bool."""
    if mask.shape != input.shape:
        if mask.ndim > input.ndim:
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality "
                             "higher than of the input)")
        mask = gradjit.broadcast_to(mask, input.shape)
    return mask.to(dtype=gradjit.bool)


def _unwrap(input, mask):
    """A MaskedTensor's data and mask, or input and mask as given."""
    from gradjit.masked.maskedtensor import is_masked_tensor
    return (input.get_data(), input.get_mask()) if is_masked_tensor(input) else (input, mask)


def _filled(name, input, mask, *args):
    """input with its masked-out elements replaced by operation `name`'s identity."""
    input, mask = _unwrap(input, mask)
    if mask is None:
        return input
    return gradjit.where(_input_mask(input, mask), input, _identity(name, input, *args))


def _long_default(input, dtype):
    if dtype is not None:
        return dtype
    return gradjit.int64 if input.dtype in _PROMOTED_TO_LONG else input.dtype


def _as_given(input, dtype):
    return input.dtype if dtype is None else dtype


def _prod(filled, dims, keepdim, dtype):
    result = filled.to(dtype=dtype)
    for d in reversed(dims):
        result = result.prod(dim=d, keepdim=keepdim)
    return result


# name: (the default dtype, the plain reduction of the filled input over sorted dims)
_REDUCTIONS = {
    "sum": (_long_default, lambda x, dims, keep, dtype: gradjit.sum(x, dims, keep, dtype=dtype)),
    "prod": (_long_default, _prod),
    "amax": (_as_given, lambda x, dims, keep, dtype: gradjit.amax(x, dims, keep).to(dtype)),
    "amin": (_as_given, lambda x, dims, keep, dtype: gradjit.amin(x, dims, keep).to(dtype)),
    "logsumexp": (_as_given, lambda x, dims, keep, dtype:
                  gradjit.logsumexp(x, dims, keepdim=keep).to(dtype)),
}


def _reduction(name):
    default_dtype, reduce = _REDUCTIONS[name]

    def masked_reduction(input, dim=None, *, keepdim=False, dtype=None, mask=None):
        dtype = default_dtype(input, dtype)
        dims = _canonical_dim(dim, input.ndim)
        return reduce(_filled(name, input, mask), dims, bool(keepdim), dtype)
    masked_reduction.__name__ = masked_reduction.__qualname__ = name
    return masked_reduction


sum, prod, amax, amin, logsumexp = map(_reduction, _REDUCTIONS)

# name: (the identity the masked-out elements take, the plain operation along one dim)
_ALONG_DIM = {
    "cumsum": ("sum", lambda x, d, dtype: gradjit.cumsum(x, d, dtype=dtype).to(dtype=dtype)),
    "cumprod": ("prod", lambda x, d, dtype: gradjit.cumprod(x, d, dtype=dtype).to(dtype=dtype)),
    "softmax": ("amax", lambda x, d, dtype: F.softmax(x, d, dtype=dtype)),
    "log_softmax": ("amax", lambda x, d, dtype: F.log_softmax(x, d, dtype=dtype)),
    "softmin": ("amin", lambda x, d, dtype: F.softmin(x, d, dtype=dtype)),
}


def _along_dim(name):
    identity, operation = _ALONG_DIM[name]

    def masked_along_dim(input, dim, *, dtype=None, mask=None):
        dtype = _as_given(input, dtype)
        d = _canonical_dim(dim, input.ndim)[0]
        return operation(_filled(identity, input, mask), d, dtype)
    masked_along_dim.__name__ = masked_along_dim.__qualname__ = name
    return masked_along_dim


cumsum, cumprod, softmax, log_softmax, softmin = map(_along_dim, _ALONG_DIM)


def _arg_extremum(name):
    def masked_arg_extremum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
        dtype = _as_given(input, dtype)
        filled = _filled(name, input, mask)
        return getattr(gradjit, name)(filled, dim, bool(keepdim)).to(dtype=dtype)
    masked_arg_extremum.__name__ = masked_arg_extremum.__qualname__ = name
    return masked_arg_extremum


argmax, argmin = map(_arg_extremum, ("argmax", "argmin"))


def _count_and_total(input, dim, keepdim, dtype, mask):
    """The number of elements that `mask` keeps (all, without one) and the sum of input's
    masked-in elements, reduced over dim, with mask broadcast. A MaskedTensor's own mask
    decides its sum, as in torch, though not its count."""
    dims = _canonical_dim(dim, input.ndim)
    inmask = None if mask is None else _input_mask(input, mask)
    kept = gradjit.ones(input.shape, dtype=gradjit.int64) if inmask is None else inmask
    count = kept.sum(dim=dims, keepdim=bool(keepdim))
    return inmask, count, sum(input, dims, keepdim=keepdim, dtype=dtype, mask=inmask)


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    source = "Input" if dtype is None else "Optional"
    dtype = _as_given(input, dtype)
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either "
                         f"a floating point or complex dtype. Got: {dtype}")
    _, count, total = _count_and_total(input, dim, keepdim, dtype, mask)
    return total / count


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    dtype = _as_given(input, dtype)
    d = _canonical_dim(dim, input.ndim)[0]
    floating = input.dtype.is_floating_point
    input = input if floating else input.to(dtype=gradjit.float32)
    output = gradjit.nanmedian(_filled("median", input, mask), d, keepdim).values
    if floating:
        return output
    if gradjit.isnan(output).any():
        raise ValueError("masked median expects no fully masked out rows if dtype is not "
                         "floating point")
    return output.to(dtype=dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = _as_given(input, dtype)
    filled = _filled("norm", input, mask, ord)
    return gradjit.linalg.vector_norm(filled, ord, _canonical_dim(dim, input.ndim),
                                      bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt):
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    if correction is None:
        correction = 1.0 if unbiased is None or unbiased else 0.0
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = gradjit.float32
    inmask, count, total = _count_and_total(input, dim, True, dtype, mask)
    data, inmask = _unwrap(input, inmask)
    x = data - total / count
    squares = sum(x * x.conj(), dim, keepdim=keepdim, dtype=dtype, mask=inmask)
    if not keepdim:
        count = count.reshape(squares.shape)
    if correction != 0:
        real = {gradjit.complex64: gradjit.float32, gradjit.complex128: gradjit.float64}
        count = count.to(real.get(dtype, dtype)) - correction
        count = gradjit.maximum(count, count.new_zeros([]))
    output = (squares / count).to(dtype=dtype)
    return gradjit.sqrt(output) if take_sqrt else output


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=True)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    dtype = _as_given(input, dtype)
    filled = _filled("sum", input, mask)
    total = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return filled / gradjit.maximum(total, total.new_full([], eps))


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    dtype = _as_given(input, dtype)
    return gradjit.logaddexp(_filled("logaddexp", input, input_mask),
                             _filled("logaddexp", other, other_mask)).to(dtype=dtype)
