"""torch-namespace functions PyTorch composes from smaller operations and offers as no Tensor
method (chain_matmul, cdist, cosine_similarity, pairwise_distance, the trapezoid rules, isin,
cartesian_prod, combinations, block_diag, vander, unravel_index and the constructors range,
logspace, tril_indices, triu_indices), plus the torch forms (with out=) of the composite
Tensor methods."""
from __future__ import annotations

import builtins
import functools
import math
import warnings

import numpy as np

from gradjit import ops
from gradjit.ir import elementwise as E
from gradjit.tensor import dtypes
from gradjit.tensor.arith import apply, operand
from gradjit.tensor.refusals import float_only
from gradjit.tensor.contract import (_count_nonzero, _same_dtype, matrix_power, multi_dot,
                                     vector_norm)
from gradjit.tensor.factories import _leaf, _numpy_dtype, spaced, takes_out, tensor
from gradjit.tensor.functions import _function, _in_place, with_out, write_out
from gradjit.tensor.scalar_overloads import scalar_op as _scalar_op
from gradjit.tensor.shape import cat, stack
from gradjit.tensor.shaping import meshgrid

bmm, addmm, addmv, addr, addbmm, baddbmm = map(_function, (
    "bmm", "addmm", "addmv", "addr", "addbmm", "baddbmm"))
matrix_exp, dist, cov, corrcoef, renorm = map(_function, (
    "matrix_exp", "dist", "cov", "corrcoef", "renorm"))
histc, bincount, diagflat, frexp, mvlgamma = map(_function, (
    "histc", "bincount", "diagflat", "frexp", "mvlgamma"))
adjoint, absolute, negative = map(_function, ("adjoint", "absolute", "negative"))
i0, nextafter = _function("i0"), _function("nextafter")
clamp_min, clamp_max = _function("clamp_min"), _function("clamp_max")
addmv_, negative_, ldexp_, i0_ = map(_in_place, ("addmv_", "negative_", "ldexp_", "i0_"))


def polygamma(n, input, *, out=None):
    """torch.polygamma takes n first; the method, x.polygamma(n), after its tensor."""
    return write_out("polygamma", lambda: operand(input).polygamma(n), (input,), out)


def chain_matmul(*matrices, out=None):
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                  "release. Use torch.linalg.multi_dot instead, which accepts a list of two or "
                  "more tensors rather than multiple parameters.", UserWarning, stacklevel=2)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for t in matrices:
        if t.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {t.dim()}, expected 2 instead.")
    return write_out("chain_matmul", lambda: matrices[0].clone() if len(matrices) == 1 else
                     multi_dot(matrices), matrices, out)


# ---- distances ----

def _norm_along_last(x, p):
    """A 0-norm (a count) stays linked to x with a zero gradient, as PyTorch's is."""
    return _count_nonzero(x, -1, False) if p == 0 else ops.vector_norm(x, p, -1)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance of every row of x1 to every row of x2, over broadcast batches."""
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    for name, t in (("X1", x1), ("X2", x2)):
        if t.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: "
                               f"{t.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    float_only("cdist", x1)
    _same_dtype("cdist()", (x1, x2))
    by_products = _CDIST_MODES[compute_mode]  # unless forced, above 25 rows (PyTorch's rule)
    if by_products is None:
        by_products = max(x1.shape[-2], x2.shape[-2]) > 25
    if p == 2 and by_products and x1.numel() and x2.numel():
        return _euclidean(x1, x2)
    return apply("CdistBackward0", lambda a, b: _norm_along_last(
        ops.sub(ops.expand_dims(a, -2), ops.expand_dims(b, -3)), p), x1, x2)


_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": True,
                "donot_use_mm_for_euclid_dist": False}


def _euclidean(x1, x2):
    """PyTorch's matrix-product form of the 2-norm distances, sqrt(|a|^2 - 2 a.b + |b|^2)
    clamped at 0, over the operands expanded to one flat batch (unless it has one matrix)
    and viewed as the result."""
    batch = tuple(np.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2])))
    count = math.prod(batch)
    if count != 1:
        x1, x2 = (x.expand(*batch, *x.shape[-2:]).contiguous().view(count, *x.shape[-2:])
                  for x in (x1, x2))
    out = apply("EuclideanDistBackward0", _distances_by_products, x1, x2)
    return out.view(*batch, x1.shape[-2], x2.shape[-2])


def _distances_by_products(a, b):
    squared = ops.add(ops.add(ops.mul(ops.matmul(a, ops.swapaxes(b, -1, -2)), -2),
                              ops.sum_(ops.mul(a, a), -1, keepdims=True)),
                      ops.expand_dims(ops.sum_(ops.mul(b, b), -1), -2))
    return ops.safe_sqrt(ops.maximum(squared, 0))


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    shifted = _scalar_op("AddBackward1", ops.add, operand(x1) - operand(x2), eps)
    return apply("NormBackward1", lambda d: ops.vector_norm(d, p, -1, keepdim), shifted)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Each input divided by its norm, then the dot products along dim. PyTorch clamps the
    norms to eps outside autograd: the gradient is the unclamped norm's."""
    x1, x2 = operand(x1), operand(x2)
    dtype = ops.result_type(x1, x2)
    if not dtype.is_float:
        raise RuntimeError("expected common dtype to be floating point, yet common dtype is "
                           f"{dtypes.of_ir(dtype).legacy}")
    x1, x2 = (x if x.dtype == dtypes.of_ir(dtype) else x.to(dtypes.of_ir(dtype)) for x in (x1, x2))
    if x1.shape != x2.shape:
        shape = ops.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
        x1, x2 = x1.expand(shape), x2.expand(shape)

    def clamped(n):
        return ops.add(n, E.stop_gradient(ops.sub(ops.maximum(n, eps), n)))
    x1_norm, x2_norm = (apply("CloneBackward0", clamped, vector_norm(x, 2, dim, True))
                        for x in (x1, x2))
    return ((x1 / x1_norm) * (x2 / x2_norm)).sum(dim)


# ---- integrals ----

def _ends(y, dim):
    """y along dim without its first entry, and without its last."""
    n = y.shape[dim]
    lead = (slice(None),) * dim
    return y[lead + (slice(1, n),)], y[lead + (slice(0, n - 1),)]


def _spacing(x, y, dim):
    """The differences of the sample points x along y's dim (a 1-D x lies along dim)."""
    if x.dim() != 1 and x.dim() != y.dim():
        raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
    if x.dim() == 1:
        shape = [1] * y.dim()
        shape[dim] = x.shape[0]
        x = x.view(shape)
    if x.shape[dim] != y.shape[dim]:
        raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
    right, left = _ends(x, dim)
    return right - left


def _constant_step(x, dx):
    """The constant spacing (x given as a number, dx, or 1), or None for sample points x."""
    if x is not None and dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments: x and dx")
    if x is None or not hasattr(x, "_edge"):
        return 1 if x is None and dx is None else (dx if x is None else x)
    return None


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoid rule along dim: sample points x, or a constant spacing dx (default 1)."""
    step = _constant_step(x, dx)
    dim = dim % max(y.dim(), 1)
    if y.shape[dim] == 0:  # no intervals: zeros, outside the graph as in PyTorch
        return y.detach().sum(dim) * 0
    if step is not None:
        lead = (slice(None),) * dim
        ends = _scalar_op("MulBackward1", ops.mul, y[lead + (0,)] + y[lead + (-1,)], 0.5)
        return _scalar_op("MulBackward1", ops.mul, y.sum(dim) - ends, step)
    right, left = _ends(y, dim)
    return _scalar_op("DivBackward1", ops.true_divide,
                      ((right + left) * _spacing(x, y, dim)).sum(dim), 2.0)


def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    step = _constant_step(x, dx)
    dim = dim % max(y.dim(), 1)
    right, left = _ends(y, dim)
    if step is not None:
        return _scalar_op("MulBackward1", ops.mul, left + right, step / 2).cumsum(dim)
    return _scalar_op("DivBackward1", ops.true_divide,
                      ((left + right) * _spacing(x, y, dim)).cumsum(dim), 2.0)


# ---- sets and indices ----

@functools.partial(with_out, "isin")
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    if not hasattr(elements, "_edge") and not hasattr(test_elements, "_edge"):
        given = f"{type(elements).__name__}, {type(test_elements).__name__}"
        options = "*, bool assume_unique = False, bool invert = False, Tensor out = None"
        raise TypeError(f"isin() received an invalid combination of arguments - got ({given}), "
                        f"but expected one of:\n * (Tensor elements, Tensor test_elements, "
                        f"{options})\n * (Number element, Tensor test_elements, {options})\n"
                        f" * (Tensor elements, Number test_element, {options})\n")
    elements, test = (t if hasattr(t, "_edge") else tensor(t) for t in (elements, test_elements))
    for t in (elements, test):
        if t.dtype is dtypes.bool_ or t.dtype.is_complex:
            raise RuntimeError(f"Unsupported input type encountered for isin(): "
                               f"{t.dtype.legacy}")

    def member(e, t):
        hit = ops.any_(ops.eq(ops.expand_dims(e, -1), ops.ravel(t)), -1)
        return ops.logical_not(hit) if invert else hit
    return apply("IsinBackward0", member, elements.detach(), test.detach())


def unravel_index(indices, shape):
    indices = operand(indices)
    if indices.dtype.is_floating_point or indices.dtype is dtypes.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got "
                        f"{indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(d < 0 for d in shape):
        raise ValueError("'shape' cannot have negative values, but got "
                         f"{tuple(shape)}")
    size = math.prod(shape)

    def coordinates(i):
        """Each coordinate modulo its dimension (PyTorch's: an index past the end wraps)."""
        out, stride = [], size
        for d in shape:
            stride //= d
            out.append(ops.astype(ops.remainder(ops.floor_divide(i, stride), d), "i64"))
        return tuple(out)
    return tuple(apply("UnravelIndexBackward0", lambda i, k=k: coordinates(i)[k], indices)
                 for k in builtins.range(len(shape)))


# ---- building tensors from tensors ----

def cartesian_prod(*tensors):
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError("Expect a 1D vector, but got shape "
                               f"{list(t.shape)}")
    if len({t.dtype for t in tensors}) > 1:
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if len(tensors) == 1:
        return tensors[0]
    return stack([g.flatten() for g in meshgrid(*tensors, indexing="ij")], 1)


def combinations(input, r=2, with_replacement=False):
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return tensor([], dtype=input.dtype)
    # as PyTorch: r copies of input on a grid, each read where the grid's indices increase
    # (never decrease, with replacement), which is the combinations in lexicographic order
    index = np.indices((input.shape[0],) * r)
    rising = np.less_equal if with_replacement else np.less
    mask = tensor(np.logical_and.reduce([rising(index[k], index[k + 1])
                                         for k in builtins.range(r - 1)], initial=True))
    return stack([g.masked_select(mask) for g in meshgrid(*[input] * r, indexing="ij")], 1)


def block_diag(*tensors):
    tensors = [operand(t) for t in tensors]
    if not tensors:  # PyTorch's block diagonal of nothing: one row, no columns
        return tensor(np.zeros((1, 0), dtypes.get_default_dtype().ir.numpy))
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.dim()} dimensions")
    blocks = [(1, 1) if t.dim() == 0 else (1, t.shape[0]) if t.dim() == 1 else tuple(t.shape)
              for t in tensors]
    width = sum(b[1] for b in blocks)
    dtype = ops.result_type(*tensors)

    def diagonal(*ts):
        rows, left = [], 0
        for t, (n, m) in zip(ts, blocks):
            t = ops.reshape(ops.astype(t, dtype), (n, m))
            rows.append(ops.pad(t, ((0, 0), (left, width - left - m))))
            left += m
        return ops.concatenate(rows, 0)
    return apply("BlockDiagBackward0", diagonal, *tensors)


def vander(x, N=None, increasing=False):
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    name = "CopySlices" if increasing else "FlipBackward0"
    return apply(name, lambda v: powers(v, n, increasing), x)


def powers(v, n, increasing=True):
    """v^0, ..., v^(n-1) of each entry of the ops-level array v along a new last axis, integers
    in int64."""
    v = v if v.dtype.is_floating_point or v.dtype.is_complex else ops.astype(v, "i64")
    shape = tuple(v.shape)
    ones = ops.astype(np.ones(shape + (min(n, 1),)), ops.result_type(v))
    repeated = ops.broadcast_to(ops.expand_dims(v, -1), shape + (max(n - 1, 0),))
    out = ops.concatenate([ones, ops.cumprod(repeated, -1)], -1)
    return out if increasing else ops.flip(out, -1)


# ---- constructors ----

def range(start, end, step=1, *, dtype=None, device=None, requires_grad=False):
    """[start, end] with step, both ends included (torch.range, deprecated for arange)."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    count = int(math.floor((end - start) / step)) + 1
    values = start + np.arange(count, dtype=np.float64) * step
    numpy = _numpy_dtype(dtype, dtypes.get_default_dtype().ir.numpy)
    return _leaf(values.astype(numpy), device, requires_grad)


@takes_out
def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    numpy = _numpy_dtype(dtype, dtypes.get_default_dtype().ir.numpy)
    exponents = spaced("logspace", start, end, steps, numpy)
    values = np.power(exponents.dtype.type(base), exponents)
    return _leaf(values.astype(numpy), device, requires_grad)


def _triangle(pick, row, col, offset, dtype, device):
    for name, size in (("row", row), ("col", col)):
        if size < 0:
            raise RuntimeError(f"{name} must be non-negative, got{size}")
    kind = dtypes.int64 if dtype is None else dtypes.to_dtype(dtype)
    if kind not in (dtypes.int32, dtypes.int64):
        raise NotImplementedError(f'"{pick.__name__}" not implemented for \'{kind.legacy}\'')
    rows, cols = pick(row, offset, col)
    return _leaf(np.stack([rows, cols]).astype(_numpy_dtype(dtype, np.int64)), device)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _triangle(np.tril_indices, row, col, offset, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _triangle(np.triu_indices, row, col, offset, dtype, device)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimated derivatives along each dim (all by default), numpy's gradient: central
    differences inside, one-sided ones of `edge_order` at the ends; spacing is one step, a
    step per dim, or coordinates per dim. Always a tuple."""
    from gradjit.ops.numpy_api.reductions import _gradient
    spacing = 1 if spacing is None else spacing  # None: torch's unit step
    dims = list(builtins.range(input.dim())) if dim is None else \
        [dim] if isinstance(dim, int) else list(dim)
    for d in dims:
        if dims.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if builtins.any(input.shape[d] < edge_order + 1 for d in dims):
        raise RuntimeError("torch.gradient expected each dimension size to be at least "
                           "edge_order+1")
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims) and dim is None:
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or "
                               f"a list of length equal to 'self.dim() = {input.dim()}', since "
                               f"dim argument was not given, but got a list of length "
                               f"{len(spacing)}")
        if len(spacing) != len(dims):
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or "
                               "it's spacing and dim arguments to have the same length, but "
                               f"got a spacing argument of length {len(spacing)} and a dim "
                               f"argument of length {len(dims)}.")
        # integer coordinates count in the default float dtype, as an integer input does
        steps = [float(h) if not hasattr(h, "dim") or h.dim() == 0 else
                 h if h.is_floating_point() else h.to(dtypes.get_default_dtype())
                 for h in spacing]
    else:
        steps = [float(spacing)] * len(dims)
    if not (input.is_floating_point() or input.is_complex()):  # torch's default float, where
        input = input.to(dtypes.get_default_dtype())  # numpy's gradient takes float64
    return tuple(_even_gradient(input, d, h, edge_order) if isinstance(h, float) else
                 _gradient(input, h, axis=d, edge_order=edge_order) for d, h in zip(dims, steps))


def _even_gradient(x, d, h, edge_order):
    """gradient along dim d for the step h, built as PyTorch's kernel builds it (slices,
    their differences divided by h as a Scalar, joined by one cat), so the graphs agree."""
    n = x.shape[d]

    def part(start, length=1):
        return x.narrow(d, start, length)

    def times(number, t):
        return _scalar_op("MulBackward1", ops.mul, t, number)

    def over(t, number):
        return _scalar_op("DivBackward1", ops.true_divide, t, number)
    center = over(part(2, n - 2) - part(0, n - 2), h)
    if edge_order == 1:
        first, last = part(1) - part(0), part(n - 1) - part(n - 2)
    else:
        first = times(-1.5, part(0)) + times(2, part(1)) - times(0.5, part(2))
        last = times(0.5, part(n - 3)) - times(2, part(n - 2)) + times(1.5, part(n - 1))
    return cat([over(first, h), over(center, 2), over(last, h)], d)


__all__ = ["absolute", "addbmm", "addmm", "addmv", "addmv_", "addr", "adjoint", "baddbmm",
           "bincount", "block_diag", "bmm", "cartesian_prod", "cdist", "chain_matmul", "clamp_max",
           "clamp_min", "combinations", "corrcoef", "cosine_similarity", "cov",
           "cumulative_trapezoid", "diagflat", "dist", "frexp", "gradient", "histc", "i0", "i0_",
           "isin",
           "ldexp_", "logspace", "matrix_exp", "matrix_power", "mvlgamma", "negative", "negative_",
           "nextafter", "pairwise_distance", "polygamma", "range", "renorm", "trapezoid", "trapz",
           "tril_indices", "triu_indices", "unravel_index", "vander"]
