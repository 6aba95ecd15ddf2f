"""Elementwise arithmetic on sparse COO tensors as PyTorch's CPU kernels define it: sums by the
merge walk, products at a pattern, the zero-preserving unary functions on the values, and
PyTorch's refusals of the rest."""
from __future__ import annotations

import numpy as np

from gradjit.ir.primitive import is_python_scalar
from gradjit.sparse import storage as K
from gradjit.sparse.autograd import recorded, wrap
from gradjit.tensor import dtypes

# Functions f with f(0) = 0, so f of the values is f of the tensor: grad_fn and f'(x, f(x)).
_ZERO = np.zeros_like
UNARY = {
    "abs": ("AbsBackward0", lambda x, y: np.sign(x)),
    "relu": ("ReluBackward0", lambda x, y: (y > 0).astype(x.dtype)),
    "sign": ("SignBackward0", lambda x, y: _ZERO(x)),
    "sgn": ("SgnBackward0", lambda x, y: _ZERO(x)),
    "trunc": ("TruncBackward0", lambda x, y: _ZERO(x)),
    "floor": ("FloorBackward0", lambda x, y: _ZERO(x)),
    "ceil": ("CeilBackward0", lambda x, y: _ZERO(x)),
    "round": ("RoundBackward0", lambda x, y: _ZERO(x)),
    "sin": ("SinBackward0", lambda x, y: np.cos(x)),
    "tan": ("TanBackward0", lambda x, y: 1 + y * y),
    "sinh": ("SinhBackward0", lambda x, y: np.cosh(x)),
    "tanh": ("TanhBackward0", lambda x, y: 1 - y * y),
    "asin": ("AsinBackward0", lambda x, y: 1 / np.sqrt(1 - x * x)),
    "atan": ("AtanBackward0", lambda x, y: 1 / (1 + x * x)),
    "asinh": ("AsinhBackward0", lambda x, y: 1 / np.sqrt(1 + x * x)),
    "atanh": ("AtanhBackward0", lambda x, y: 1 / (1 - x * x)),
    "sqrt": ("SqrtBackward0", lambda x, y: 0.5 / y),
    "expm1": ("Expm1Backward0", lambda x, y: y + 1),
    "log1p": ("Log1PBackward0", lambda x, y: 1 / (1 + x)),
    "deg2rad": ("Deg2RadBackward0", lambda x, y: np.full_like(x, np.pi / 180)),
    "rad2deg": ("Rad2DegBackward0", lambda x, y: np.full_like(x, 180 / np.pi)),
    "square": ("PowBackward0", lambda x, y: 2 * x),
}
_NUMPY = {"relu": lambda x: np.maximum(x, 0), "sgn": np.sign, "asin": np.arcsin,
          "atan": np.arctan, "asinh": np.arcsinh, "atanh": np.arctanh}


def not_on_sparse(name):
    """PyTorch's error for an operator with no sparse kernel."""
    return NotImplementedError(
        f"Could not run 'aten::{name}' with arguments from the 'SparseCPU' backend. This could "
        "be because the operator doesn't exist for this backend, or was omitted during the "
        "selective/custom build process (if using custom build).")


def _sparse(x) -> bool:
    return getattr(x, "_sparse_layout", False)


def _scalar(x) -> bool:
    return is_python_scalar(x) or hasattr(x, "_edge") and not _sparse(x) and x.dim() == 0


def _scalar_operand(s, x):
    """A number or 0-d tensor as a numpy scalar of the dtype it and s's values promote to."""
    from gradjit.tensor.defaults import result_type
    dtype = result_type(wrap(s._value.values), x).ir.numpy
    return np.asarray(x if is_python_scalar(x) else x.detach()._concrete(), dtype)


class SparseArith:
    """The elementwise methods of SparseTensor."""

    @classmethod
    def __gradjit_bind__(cls, prim, args, params):
        """A primitive meeting a sparse tensor: the sum the autograd engine takes of two
        cotangents, or PyTorch's refusal."""
        if prim.name == "add" and len(args) == 2:
            a, b = (x if hasattr(x, "_edge") else wrap(x) for x in args)
            if _sparse(a) and _sparse(b):
                return a + b
            dense, sparse = (b, a) if _sparse(a) else (a, b)
            return sparse.__radd__(dense)
        raise not_on_sparse(prim.name)

    def _made(self, coo):
        """A result in this tensor's layout (a plain tensor of it, never a Parameter)."""
        return self._layout_class._wrap(coo)

    def add(self, other, *, alpha=1):
        if not _sparse(other):
            raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) "
                               "instead.")
        _same_size(self, other, "add")
        out = self._made(K.merged(self._value, other._value, alpha))
        return recorded("SubBackward0" if alpha == -1 else "AddBackward0", out, (self, other),
                        lambda g: (g, g if alpha == 1 else g * alpha))

    def sub(self, other, *, alpha=1):
        return self.add(other, alpha=-alpha) if _sparse(other) else self.add(other)

    def _in_place(self, out):
        """out's entries and history become this tensor's (an in-place operation)."""
        self._check_inplace()
        self._value.take(out._value)
        if out._edge is not None:
            self._edge = out._edge
        return self

    def add_(self, other, *, alpha=1):
        return self._in_place(self.add(other, alpha=alpha))

    def sub_(self, other, *, alpha=1):
        return self.add_(other, alpha=-alpha)

    __add__, __sub__, __iadd__, __isub__ = add, sub, add_, sub_

    def __radd__(self, other):
        """dense + sparse: a strided tensor (a number is refused as PyTorch refuses it)."""
        if is_python_scalar(other):
            return self.add(other)
        from gradjit.tensor.arith import apply
        return apply("AddBackward0", lambda d, s: d + s.to_dense(), other, self)

    def __rsub__(self, other):
        if is_python_scalar(other):
            return self.add(other)
        from gradjit.tensor.arith import apply
        return apply("SubBackward0", lambda d, s: d - s.to_dense(), other, self)

    def mul(self, other):
        """By a number or 0-d tensor: the values scaled. By a strided tensor: the values times
        its elements at this pattern. By a sparse tensor: the intersection of two coalesced
        patterns, else the smaller pattern's values times the other's elements there."""
        coo = self._value
        if _scalar(other):
            factor = _scalar_operand(self, other)
            out = self._made(coo.with_values(coo.values.astype(factor.dtype) * factor))
            return recorded("MulBackward0", out, (self,), lambda g: (g * factor.item(),))
        if not _sparse(other):
            dense = np.broadcast_to(other.detach()._concrete(), coo.shape)
            return _product(self, dense, self, other, coo.coalesced)
        _same_size(self, other, "mul")
        if coo.coalesced and other._value.coalesced:
            return _intersection(self, other)
        first, second = (self, other) if coo.nnz < other._value.nnz else (other, self)
        return _product(first, K.dense(second._value), self, other, False)

    __mul__ = __rmul__ = mul

    def mul_(self, other):
        return self._in_place(self.mul(other))

    def div(self, other, *, rounding_mode=None):
        if not _scalar(other):
            raise RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor "
                               f"divisor (got shape {list(other.shape)} for divisor)")
        divisor = _scalar_operand(self, other)
        coo = self._value if rounding_mode is None else K.coalesced(self._value)
        x = coo.values.astype(divisor.dtype)
        if rounding_mode is None:  # integers divide into the default floating dtype
            values = x / divisor if x.dtype.kind in "fc" else \
                (x / divisor).astype(dtypes.get_default_dtype().ir.numpy)
        elif rounding_mode == "floor":
            values = np.floor_divide(x, divisor)
        else:
            values = np.trunc(x / divisor).astype(x.dtype)
        out = self._made(coo.with_values(np.asarray(values)))
        return recorded("DivBackward0", out, (self,), lambda g: (g / divisor.item(),))

    __truediv__ = true_divide = divide = div

    def __rtruediv__(self, other):
        raise not_on_sparse("reciprocal")

    def __floordiv__(self, other):
        return self.div(other, rounding_mode="floor")

    floor_divide = __floordiv__

    def pow(self, exponent):
        base = self._coalesce()
        coo = base._value
        out = self._made(coo.with_values(np.power(coo.values, exponent)))
        return recorded("PowBackward0", out, (base,), lambda g: (
            g * self._made(coo.with_values(exponent * np.power(coo.values, exponent - 1))),))

    __pow__ = pow

    def __neg__(self):
        coo = self._value
        return recorded("NegBackward0", self._made(coo.with_values(-coo.values)), (self,),
                        lambda g: (-g,))

    neg = negative = __neg__

    def __rpow__(self, other):
        raise not_on_sparse("pow.Scalar")


def _unary(name):
    """f of the coalesced values, its backward g times f' at them."""
    grad_fn, derivative = UNARY[name]
    fn = _NUMPY.get(name) or getattr(np, name)

    def method(self):
        base = self._coalesce()
        coo = base._value
        y = np.asarray(fn(coo.values)).astype(coo.values.dtype, copy=False)
        out = self._made(coo.with_values(y))
        return recorded(grad_fn, out, (base,), lambda g: (
            g * self._made(coo.with_values(derivative(coo.values, y))),))
    method.__name__ = name
    return method


for _name in UNARY:
    setattr(SparseArith, _name, _unary(_name))


def _same_size(a, b, name):
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"{name}: expected sizes of 'self' and 'other' to match, but "
                           f"{list(a.shape)} != {list(b.shape)}")


def _product(pattern, dense, self, other, coalesced):
    """pattern's values times `dense` (the other operand's elements) at pattern's indices."""
    coo = pattern._value
    out = pattern._made(coo.with_values(coo.values * K.gather(dense, coo), coalesced))
    return recorded("MulBackward0", out, (self, other), lambda g: (g * other.detach(),
                                                                 g * self.detach()))


def _intersection(a, b):
    """Two coalesced tensors' product on the indices both hold."""
    ca, cb = a._value, b._value
    common, ia, ib = np.intersect1d(ca.linear(), cb.linear(), return_indices=True)
    coo = K.Coo(ca.indices[:, ia], ca.values[ia] * cb.values[ib], ca.shape, True)
    return recorded("MulBackward0", a._made(coo), (a, b),
                    lambda g: (g * b.detach(), g * a.detach()))
