"""PyTorch's products and norms (tensordot, kron, outer, inner, vdot, cross and
torch.linalg's norms, multi_dot, matrix_power, vecdot) on the shared gradjit.ops functions,
with PyTorch's argument names, dtype rules and grad_fn names."""
from __future__ import annotations

import math

import numpy as np

from gradjit import ops
from gradjit.ops.contract import _chain_order
from gradjit.ir.primitive import AxisError, ShapeError
from gradjit.ir import structural as S
from gradjit.tensor.arith import apply, operand
from gradjit.tensor.refusals import bool_type, no_kernel
from gradjit.tensor.base import _check_dim
from gradjit.tensor.defaults import promote_types
from gradjit.tensor.hot_path import direct_floats
from gradjit.tensor import factories
from gradjit.tensor import memory_format as MF
from gradjit.tensor.linalg import inv, svdvals


def _same_dtype(name, tensors):
    first = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype is not first:
            raise RuntimeError(f"{name}: expected all operands to have the same dtype, but "
                               f"found {first.legacy} and {t.dtype.legacy}")


def _checked(name, grad_fn, fn, *args):
    """Run the shared op; its numpy-style ValueError becomes PyTorch's RuntimeError."""
    try:
        return apply(grad_fn, fn, *args)
    except (ShapeError, AxisError):  # worded as PyTorch's by the operation's scope
        raise
    except ValueError as error:
        raise RuntimeError(f"{name}(): {error}") from None


def _floating(name, x):
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {x.dtype.legacy}")


def _norm_input(name, x, dtype):
    """x cast to the norm's dtype, which must not narrow it (PyTorch's rule), and checked to
    be floating or complex."""
    if dtype is not None:
        if x.dtype.is_complex != dtype.is_complex:
            kind = "complex for complex" if x.dtype.is_complex else "real for real"
            raise RuntimeError(f"{name}: dtype should be {kind} inputs, but got {dtype.legacy}")
        if x.dtype.is_floating_point or x.dtype.is_complex:
            if promote_types(x.dtype, dtype) is not dtype:
                raise RuntimeError(f"{name}: the dtype of the input ({x.dtype.legacy}) should be "
                                   f"convertible without narrowing to the specified dtype "
                                   f"({dtype.legacy})")
        x = x.to(dtype)
    _floating(name, x)
    return x


def _no_identity(x, ord, dim):
    """A max or min (inf or negative ord) over an empty dimension has no value to give."""
    if x.numel() or not (ord < 0 or ord == math.inf):
        return
    shown = int(ord) if float(ord).is_integer() else ord
    if dim is None:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on an empty "
                           "tensor because the operation does not have an identity")
    for d in (dim,) if isinstance(dim, int) else dim:
        if x.shape[d] == 0:  # torch's words run "dimension 0because" together
            raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on the "
                               f"dimension {d}because this dimension is empty and "
                               "the operation does not have an identity")


def _dims(dim):
    return tuple(dim) if isinstance(dim, (list, tuple)) else dim


# ---- products ----

def tensordot(a, b, dims=2):
    _same_dtype("tensordot()", (a, b))
    if hasattr(dims, "tolist"):  # a tensor of dims: a count (0-d) or the two lists (2-d)
        dims = dims.tolist()
    a, b = _summed_against_ones(a, b, dims)
    pairs = _contracted(a, b, dims)
    if pairs is None:  # the shared op words the error
        return _checked("tensordot", "ViewBackward0", lambda x, y: ops.tensordot(x, y, dims),
                        a, b)
    return _permuted_product(a, b, *pairs)


def _contracted(a, b, dims):
    """The contracted dims of a and of b, in range, distinct and of equal sizes; None where
    they are not."""
    if isinstance(dims, int):
        if not 0 <= dims <= min(a.dim(), b.dim()):
            return None
        first, second = list(range(a.dim() - dims, a.dim())), list(range(dims))
    elif len(dims) == 2 and all(isinstance(d, (int, list, tuple)) for d in dims):
        first, second = ([d] if isinstance(d, int) else list(d) for d in dims)
    else:
        return None
    if len(first) != len(second) or not all(
            type(i) is int and -a.dim() <= i < max(a.dim(), 1) for i in first) or not all(
            type(j) is int and -b.dim() <= j < max(b.dim(), 1) for j in second):
        return None
    first, second = [i % max(a.dim(), 1) for i in first], [j % max(b.dim(), 1) for j in second]
    if len(set(first)) != len(first) or len(set(second)) != len(second) or any(
            a.shape[i] != b.shape[j] for i, j in zip(first, second)):
        return None
    return first, second


def _permuted_product(a, b, first, second):
    """PyTorch's tensordot: each operand permuted to (free, contracted) dims and reshaped to
    a matrix for one mm, the result reshaped back; where neither keeps a dim of size above 1,
    a dot of the flattened operands when both permuted ones are contiguous, else the sum of
    their squeezed product."""
    free1 = [i for i in range(a.dim()) if i not in first]
    free2 = [j for j in range(b.dim()) if j not in second]
    rows, cols = math.prod(a.shape[i] for i in free1), math.prod(b.shape[j] for j in free2)
    shape = [a.shape[i] for i in free1] + [b.shape[j] for j in free2]
    left, right = a.permute(*free1, *first), b.permute(*second, *free2)
    if rows != 1 or cols != 1:
        inner = math.prod(a.shape[i] for i in first)
        return left.reshape(rows, inner).mm(right.reshape(inner, cols)).reshape(shape)
    if left.is_contiguous() and right.is_contiguous():
        return left.flatten().dot(right.flatten()).reshape(shape)
    return (left.squeeze() * right.squeeze()).sum().reshape(shape)


def _summed_against_ones(a, b, dims):
    """torch's tensordot pairs a contracted dim of size 1 with one of any size: the other
    side is summed over that dim first (the first operand where both have size 1)."""
    if isinstance(dims, int):
        pairs = zip(range(-dims, 0), range(dims))
    elif all(isinstance(d, (int, list, tuple)) for d in dims):
        first, second = ([d] if isinstance(d, int) else d for d in dims)
        if len(first) != len(second):
            raise RuntimeError("both dimension lists should have same length")
        pairs = zip(first, second)
    else:
        return a, b
    for i, j in pairs:
        if not (-a.dim() <= i < a.dim() and -b.dim() <= j < b.dim()):
            continue  # out of range: the product's own checks word the error
        if 1 not in (a.shape[i], b.shape[j]) and a.shape[i] != b.shape[j]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[i]} in dim {i} and second has size {b.shape[j]} in "
                               f"dim {j}")
        if b.shape[j] == 1:
            a = a.sum(i, keepdim=True)
        elif a.shape[i] == 1:
            b = b.sum(j, keepdim=True)
    return a, b


def kron(input, other):
    """PyTorch's kron: each operand viewed with a 1 beside each of its dims (input's first,
    other's second), multiplied, and the product viewed with each pair of dims merged."""
    other = operand(other)
    rank = max(input.dim(), other.dim())
    left = (1,) * (rank - input.dim()) + tuple(input.shape)
    right = (1,) * (rank - other.dim()) + tuple(other.shape)
    spread = [_unsafe_view(input, [d for n in left for d in (n, 1)]),
              _unsafe_view(other, [d for n in right for d in (1, n)])]
    return _unsafe_view(spread[0] * spread[1], [m * n for m, n in zip(left, right)])


def _unsafe_view(t, shape):
    return apply("UnsafeViewBackward0", ops.reshape, t, tuple(shape))


def outer(input, vec2):
    vec2 = operand(vec2)
    for name, v in (("self", input), ("vec2", vec2)):
        if v.dim() != 1:  # the shared op flattens, as numpy's outer does
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.dim()}-D")
    return input.reshape(input.shape[0], 1) * vec2  # PyTorch's outer, a column times a row


def inner(input, other):
    if input.dim() == 0 or other.dim() == 0:  # a product, promoting as mul does
        return apply("MulBackward0", ops.mul, input, other)
    if input.dtype is not other.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    return _permuted_product(input, other, [input.dim() - 1], [other.dim() - 1])


def vdot(input, other):
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D "
                           "tensors")
    _same_dtype("vdot()", (input, other))
    _same_length(input, other)
    return _checked("vdot", "VdotBackward0", ops.vdot, input, other)


def _same_length(a, b):
    if a.numel() != b.numel():
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.numel()}] and "
                           f"src [{b.numel()}] to have the same number of elements, but "
                           f"got {a.numel()} and {b.numel()} elements respectively")


def cross(input, other, dim=None):
    """torch.cross: without dim, the first axis of size 3 (PyTorch's deprecated default)."""
    _same_dtype("cross()", (input, other))
    if dim is None:
        dim = next((i for i, d in enumerate(input.shape) if d == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim=dim)


def linalg_cross(input, other, *, dim=-1):
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.legacy} but found "
                           f"{other.dtype.legacy}")
    _check_dim(dim, input.dim())
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[dim]} and {other.shape[dim]}")
    return _checked("linalg.cross", "LinalgCrossBackward0",
                    lambda x, y: ops.cross(x, y, axis=dim), input, other)


def multi_dot(tensors):
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor "
                               f"0 is {_CPP_NAMES[tensors[0].dtype.ir.torch_name]} and tensor "
                               f"{i} {_CPP_NAMES[t.dtype.ir.torch_name]}")
    for i, t in enumerate(tensors):
        end = "first" if i == 0 else "last" if i == len(tensors) - 1 else None
        if t.dim() != 2 and (end is None or t.dim() != 1):
            where = f"the {end} tensor must be 1D or 2D" if end else f"tensor {i} must be 2D"
            raise RuntimeError(f"multi_dot(): {where} but got {t.dim()}D")
    for i, (a, b) in enumerate(zip(tensors, tensors[1:])):
        if a.shape[-1] != b.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{list(a.shape)} and {list(b.shape)} cannot be multiplied")
    shape = [*tensors[0].shape[:-1], *tensors[-1].shape[1:]]
    mats = [tensors[0] if tensors[0].dim() == 2 else tensors[0].unsqueeze(0), *tensors[1:-1],
            tensors[-1] if tensors[-1].dim() == 2 else tensors[-1].unsqueeze(-1)]
    return _chain(mats, _chain_split(mats), 0, len(mats) - 1).view(shape)


def _chain_split(mats):
    """PyTorch's order of the products: of three, (AB)C unless A(BC) costs less; of more, the
    cheapest split of each subchain (the matrix-chain dynamic program)."""
    dims = [m.shape[0] for m in mats] + [mats[-1].shape[1]]
    if len(mats) != 3:
        return _chain_order(dims)
    a, b, c, d = dims
    return [[0, 0, 1 if a * c * (b + d) <= b * d * (a + c) else 0], [0, 0, 1]]


def _chain(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return _chain(mats, split, i, k).mm(_chain(mats, split, k + 1, j))


def matrix_power(A, n):
    """PyTorch's: a contiguous clone (n = 1) or one overwritten by the identity (n = 0) keeps
    A in the graph; a negative n inverts A first; the power is matmuls, by repeated squaring
    from the lowest bit up."""
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices, but they "
                           f"are {A.shape[-2] if A.dim() > 1 else 1} by {A.shape[-1]} matrices")
    if n in (0, 1):
        out = A.clone(memory_format=MF.contiguous_format)
        eye = factories.eye(A.shape[-1], dtype=A.dtype, device=A.device)
        return out.copy_(eye.expand_as(A)) if n == 0 else out
    a = inv(A) if n < 0 else A
    n = abs(n)
    if n <= 3:
        return a if n == 1 else a.matmul(a) if n == 2 else a.matmul(a).matmul(a)
    square, result = None, None
    while n:
        n, bit = divmod(n, 2)
        square = a if square is None else square.matmul(square)
        if bit:
            result = square if result is None else result.matmul(square)
    return result


def vecdot(x, y, *, dim=-1):
    if x.dtype is not y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found "
                           f"x of type {x.dtype.legacy} and y of type {y.dtype.legacy} instead")
    _floating("linalg.vecdot", x)
    if x.dim() == 1 and y.dim() == 1:  # PyTorch's vdot, and for the rest conj(x) * y summed
        return vdot(x, y)
    return (x.conj() * y).sum(dim)


# ---- norms ----

def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    if isinstance(ord, str):
        raise TypeError("linalg_vector_norm(): argument 'ord' (position 2) must be Number, "
                        "not str")
    x = _norm_input("linalg.vector_norm", x, dtype)
    _no_identity(x, ord, _dims(dim))
    if ord == 0:  # a count: PyTorch still links it to x, with a zero gradient
        return apply("LinalgVectorNormBackward0", _count_nonzero, x, _dims(dim), keepdim)
    return _checked("linalg.vector_norm", "LinalgVectorNormBackward0",
                    lambda t: ops.vector_norm(t, ord, _dims(dim), keepdim), x)


def _count_nonzero(x, dim, keepdim):
    count = ops.vector_norm(x, 0, dim, keepdim)
    linked = ops.sum_(ops.mul(x, 0), dim, keepdim)  # never selected: only its zero gradient
    return ops.where(np.ones(ops.shape_of(count), bool), count, linked)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """PyTorch's composition: 'fro' a vector 2-norm; 1 and inf (-1, -inf) the max (min) over one
    dim of the vector 1-norms over the other; 2, -2 and 'nuc' the max, min or sum of the
    singular values of A with the two dims moved last, put back in place with keepdim."""
    A = _norm_input("linalg.matrix_norm", A, dtype)
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if ord not in ("fro", 1, -1, math.inf, -math.inf, 2, -2, "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {_spelled(dim)}")
    first, second = (_check_dim(d, A.dim()) for d in dim)
    if first == second:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({first}, "
                           f"{second})")
    if ord == "fro":
        return vector_norm(A, 2, (first, second), keepdim)
    extremum = "amin" if ord in (-1, -2, -math.inf) else "amax"
    if ord in ("nuc", 2, -2):
        order = [d for d in range(A.dim()) if d not in (first, second)] + [first, second]
        values = svdvals(A.permute(*order))
        out = values.sum(-1, keepdim) if ord == "nuc" else getattr(values, extremum)(-1, keepdim)
        if keepdim:
            out = out.unsqueeze(-1).permute(*sorted(range(A.dim()), key=order.__getitem__))
        return out
    if abs(ord) == math.inf:  # the 1-norm of the transpose
        first, second = second, first
    summed = vector_norm(A, 1, (first,), keepdim)
    return getattr(summed, extremum)(second - (not keepdim and first < second), keepdim)


def _spelled(dims):
    return " ".join(str(d) for d in dims)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.norm: the vector 2-norm of everything when ord and dim are None, else a
    vector norm over one dim and a matrix norm over two."""
    if dim is None and ord is not None:
        if A.dim() not in (1, 2):
            raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must "
                               f"be 1D or 2D. Got {A.dim()}D.")
        dim = tuple(range(A.dim()))
    dims = (dim,) if isinstance(dim, int) else dim
    if dims is not None and len(dims) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)


# PyTorch's CPU matrix products have no bool kernels
_MM = no_kernel("addmm_impl_cpu_", ops.matmul, bool_type)
_MV = no_kernel("addmv_impl_cpu", ops.matmul, bool_type)


class ContractMixin:
    """The Tensor methods of these products."""

    # ---- matrix products (mm, dot, mv, matmul) ----

    def mm(self, mat2):
        _check_matrices(self, mat2)
        if mat2._sparse_layout:
            from gradjit.sparse.linear import dense_sparse_product
            return dense_sparse_product(self, mat2)
        out = direct_floats(S.matmul, "MmBackward0", (self, mat2))
        return out if out is not None else apply("MmBackward0", _MM, self, mat2)

    def dot(self, other):
        if self.dim() != 1 or other.dim() != 1:
            raise RuntimeError(f"1D tensors expected, but got {self.dim()}D and {other.dim()}D "
                               "tensors")
        if self.dtype is not other.dtype:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                               f"{self.dtype.legacy} and {other.dtype.legacy}")
        _same_length(self, other)
        return apply("DotBackward0", no_kernel("dot", ops.dot, bool_type), self, other)

    def mv(self, vec):
        if self.dtype is not vec.dtype:  # torch's mv is addmv into a result of vec's dtype
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                               f"{vec.dtype.legacy}, {self.dtype.legacy}, and {vec.dtype.legacy}")
        return apply("MvBackward0", _MV, self, vec)

    def matmul(self, other):
        ranks = (self.dim(), other.dim())
        if 0 in ranks:
            raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                               f"{ranks[0]}D and {ranks[1]}D")
        if ranks[0] >= 3 and ranks[1] == 2 and self.shape[-1] != other.shape[0]:
            # torch folds the batch into the rows of one matrix product
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                               f"({math.prod(self.shape[:-1])}x{self.shape[-1]} and "
                               f"{other.shape[0]}x{other.shape[1]})")
        if ranks == (1, 1):
            return self.dot(other)
        if ranks == (2, 2):
            return self.mm(other)
        _check_dtypes(self, other)
        if ranks == (1, 2):  # PyTorch's vector-matrix product: unsqueeze, mm, squeeze
            row = self.unsqueeze(0).mm(other)
            return apply("SqueezeBackward4", lambda x: S.reshape(x, shape=tuple(x.shape[1:])),
                         row)
        if ranks == (2, 1):
            return apply("MvBackward0", _MV, self, other)
        if ranks == (3, 3) and (self.shape[0] == 1) != (other.shape[0] == 1):
            # PyTorch drops the batch of one that requires grad, to fold the other's batch
            if other.shape[0] == 1 and other.requires_grad:
                return self.matmul(other.squeeze(0))
            if self.shape[0] == 1 and self.requires_grad:
                return self.squeeze(0).matmul(other)
        if _folds(self, other):
            return _folded(self, other) if ranks[0] >= 3 else _folded(other, self, True)
        return _batched(self, other)

    def kron(self, other):
        return kron(self, other)

    def outer(self, vec2):
        return outer(self, vec2)

    ger = outer

    def inner(self, other):
        return inner(self, operand(other))

    def vdot(self, other):
        return vdot(self, operand(other))

    def cross(self, other, dim=None):
        return cross(self, operand(other), dim)

    def matrix_power(self, n):
        return matrix_power(self, n)


def _folds(a, b):
    """PyTorch's choice to fold the batch of an N-d operand beside a matrix or vector into
    the rows of one mm (mv) rather than to broadcast both into a bmm: always when the other
    requires grad (its gradient stays small), never for a matrix times an N-d operand (the
    result would need a transposed copy), else where the fold is a view."""
    big, small = (a, b) if a.dim() >= b.dim() else (b.mT, a)
    if not (big.dim() >= 3 and small.dim() <= 2):
        return False
    if small.requires_grad:
        return True
    if a.dim() == 2:
        return False
    sizes, strides = big.shape, big.stride()
    return big.numel() == 0 or all(strides[i] == strides[i + 1] * sizes[i + 1]
                                   for i in range(big.dim() - 2))


def _folded(big, small, reflected=False):
    """big @ small (reflected: small @ big, computed as (big.mT @ small.mT).mT) with big's
    batch folded into the rows of one mm or mv, as PyTorch records it."""
    rows = big.mT if reflected else big
    folded = rows.reshape(math.prod(rows.shape[:-1]), rows.shape[-1])
    if small.dim() == 1:
        out, shape = folded.mv(small), tuple(rows.shape[:-1])
    else:
        out = folded.mm(small.t() if reflected else small)
        shape = (*rows.shape[:-1], out.shape[-1])
    out = _unsafe_view(out, shape)
    return out.mT.contiguous() if reflected and small.dim() == 2 else out


def _batched(a, b):
    """a @ b as PyTorch records it where nothing folds: both expanded to the broadcast batch,
    reshaped to 3-d (a vector b to a column), one bmm, viewed as the result."""
    n, k = (a.shape[-2] if a.dim() > 1 else 1), a.shape[-1]
    p = b.shape[-1] if b.dim() > 1 else 1
    batch = tuple(np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2])))
    count = math.prod(batch)
    left = a.expand(*batch, n, k).reshape(count, n, k)
    if b.dim() == 1:
        right = b.expand(*batch, b.shape[0]).reshape(count, b.shape[0]).unsqueeze(2)
        product = left.bmm(right).squeeze(-1)
    else:
        product = left.bmm(b.expand(*batch, *b.shape[-2:]).reshape(count, *b.shape[-2:]))
    shape = batch + ((n,) if a.dim() > 1 else ()) + ((p,) if b.dim() > 1 else ())
    return _unsafe_view(product, shape)


_CPP_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
              "bool": "bool", "bfloat16": "c10::BFloat16", "float16": "c10::Half"}


def _check_dtypes(a, b):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_CPP_NAMES[a.dtype.ir.torch_name]} != "
                           f"{_CPP_NAMES[b.dtype.ir.torch_name]}")


def _check_matrices(a, b, dtypes=True):
    for name, t in (("self", a), ("mat2", b)):
        if t.dim() != 2:
            raise RuntimeError(f"{name} must be a matrix")
    if dtypes:
        _check_dtypes(a, b)
    (n, k), (k2, m) = a.shape, b.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
