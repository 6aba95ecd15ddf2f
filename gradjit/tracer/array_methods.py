"""numpy's array interface for traced values: operators, methods, conversions to Python values
(which return the concrete answer and record a guard), and the error for np.asarray."""
from __future__ import annotations

import copy
import dis
import math
import sys

import numpy as np

from gradjit import ops
from gradjit.tracer import views
from gradjit.ops.complex_order import compared
from gradjit.ops.promote import check_cast


class TracerArrayConversionError(TypeError):
    """np.asarray/np.array on a traced value: its value is not known when the function runs."""


def _binary(fn, swap=False):
    if swap:
        return lambda self, other: fn(other, self)
    return lambda self, other: fn(self, other)


def _subtract(a, b):
    """a - b; bools have neither `-` nor negation in numpy, whose own loop resolution (the
    ufunc's, which also serves __neg__ of a bool) raises its TypeError saying what to use."""
    return np.subtract(a, b) if ops.result_type(a, b).is_bool else ops.sub(a, b)


def _in_place(ufunc):
    """numpy's in-place operator; a 0-d traced value stands for a numpy scalar, which has none
    (Python then computes a new value and rebinds the name)."""
    return lambda self, other: ufunc(self, other, out=(self,)) if self.shape else NotImplemented


class ArrayMethods:
    """The numpy-array surface of a traced value, written with gradjit.ops."""

    __slots__ = ()
    __array_priority__ = 100
    __hash__ = None  # like numpy arrays: == is elementwise

    # ---- metadata ----
    @property
    def shape(self) -> tuple[int, ...]:
        return self.ir_type.shape

    @property
    def ndim(self) -> int:
        return self.ir_type.rank

    @property
    def size(self) -> int:
        return self.ir_type.size

    @property
    def dtype(self) -> np.dtype:
        return self.ir_type.dtype.numpy

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object (a 0-d traced array)")
        return self.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __repr__(self) -> str:
        return f"Traced({self.ir_type}, value={self.value!r})"

    # ---- operators ----
    __add__, __radd__ = _binary(ops.add), _binary(ops.add, True)
    __sub__, __rsub__ = _binary(_subtract), _binary(_subtract, True)
    __mul__, __rmul__ = _binary(ops.mul), _binary(ops.mul, True)
    __truediv__, __rtruediv__ = _binary(ops.true_divide), _binary(ops.true_divide, True)
    __floordiv__, __rfloordiv__ = _binary(ops.floor_divide), _binary(ops.floor_divide, True)
    __mod__, __rmod__ = _binary(ops.remainder), _binary(ops.remainder, True)
    __divmod__, __rdivmod__ = _binary(ops.divmod_), _binary(ops.divmod_, True)
    __pow__, __rpow__ = _binary(ops.power), _binary(ops.power, True)
    __matmul__, __rmatmul__ = _binary(ops.matmul), _binary(ops.matmul, True)
    # complex values in numpy's order (by real part, then imaginary part)
    __lt__ = _binary(compared(ops.lt, False, False))
    __le__ = _binary(compared(ops.le, False, True))
    __gt__ = _binary(compared(ops.gt, True, False))
    __ge__ = _binary(compared(ops.ge, True, True))
    __eq__, __ne__ = _binary(ops.eq), _binary(ops.ne)
    __and__, __rand__ = _binary(ops.bitwise_and), _binary(ops.bitwise_and, True)
    __or__, __ror__ = _binary(ops.bitwise_or), _binary(ops.bitwise_or, True)
    __xor__, __rxor__ = _binary(ops.bitwise_xor), _binary(ops.bitwise_xor, True)
    __lshift__, __rlshift__ = _binary(ops.left_shift), _binary(ops.left_shift, True)
    __rshift__, __rrshift__ = _binary(ops.right_shift), _binary(ops.right_shift, True)

    # numpy's in-place operators write into this array (and so into the base it views)
    __iadd__, __isub__ = _in_place(np.add), _in_place(np.subtract)
    __imul__, __itruediv__ = _in_place(np.multiply), _in_place(np.true_divide)
    __ifloordiv__, __imod__ = _in_place(np.floor_divide), _in_place(np.remainder)
    __ipow__, __imatmul__ = _in_place(np.power), _in_place(np.matmul)
    __iand__, __ior__ = _in_place(np.bitwise_and), _in_place(np.bitwise_or)
    __ixor__, __ilshift__ = _in_place(np.bitwise_xor), _in_place(np.left_shift)
    __irshift__ = _in_place(np.right_shift)

    def __neg__(self):
        return np.negative(self) if self.dtype == np.bool_ else ops.neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return ops.abs_(self)

    def __invert__(self):
        return ops.invert(self)

    def __getitem__(self, index):
        index = _concrete_index(index)
        result = ops.getitem(self, index)
        parts = index if isinstance(index, tuple) else (index,)
        if any(isinstance(p, ArrayMethods) and p.__gradjit_constant__() is None for p in parts):
            if any(isinstance(p, ArrayMethods) and p.shape for p in parts):
                return result  # an index array: numpy's copy
            return views.link(self, result, None, lambda p: ops.getitem(p, index))
        return views.link(self, result, lambda p: p[index])

    def __setitem__(self, index, value):
        """numpy's in-place assignment, as rebinding this value to an updated copy."""
        self._become(ops.index_put(self, _concrete_index(index), value))

    def _become(self, updated):
        """Rebind this value to `updated`: numpy's in-place methods on a traced value."""
        self.owner, self.ir, self.value, self.const = (updated.owner, updated.ir, updated.value,
                                                       updated.const)

    def sort(self, axis=-1, kind=None, order=None, *, stable=None):
        self._become(np.sort(self, axis, kind, order, stable=stable))

    def partition(self, kth, axis=-1, kind="introselect", order=None):
        self._become(np.partition(self, kth, axis, kind, order))

    # ---- methods (those that are numpy functions are generated below the class) ----
    def reshape(self, *shape, order="C", copy=None):
        shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
        return np.reshape(self, shape, order=order)

    def transpose(self, *axes):
        axes = axes[0] if len(axes) == 1 and not isinstance(axes[0], int) else axes
        return views.link(self, ops.transpose(self, axes or None),
                          lambda p: p.transpose(*axes))

    @property
    def at(self):
        """JAX's functional index updates: x.at[index].set(v), .add(v), .get(), ..."""
        from gradjit.tracer.at import IndexUpdateHelper  # (it imports ops, as this module)
        return IndexUpdateHelper(self)

    @property
    def T(self):
        return views.link(self, ops.transpose(self), lambda p: p.T)

    @property
    def mT(self):
        return np.matrix_transpose(self)

    @property
    def real(self):
        return self._part(ops.real, "real")

    @property
    def imag(self):
        return self._part(ops.imag, "imaginary")

    def _part(self, part, name):
        """The real or imaginary part: numpy's view of a complex array's halves (followed, not
        written); of a real array, the array itself or read-only zeros."""
        if self.dtype.kind != "c":
            if name == "real":
                return self
            zeros = np.zeros(self.shape, self.dtype)
            zeros.flags.writeable = False
            return zeros
        return views.link(self, part(self), None, part, f"as its {name} part")

    device = "cpu"  # the array API's attribute, numpy's answer

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def flatten(self, order="C"):
        return np.ravel(self, order).copy()

    def ravel(self, order="C"):
        return np.ravel(self, order)

    def fill(self, value):
        value = ops.asarray(value if isinstance(value, ArrayMethods) else np.asarray(value))
        self._become(ops.broadcast_to(ops.astype(value, self.ir_type.dtype), self.shape))

    def put(self, indices, values, mode="raise"):
        np.put(self, indices, values, mode)

    def squeeze(self, axis=None):
        axis = axis if axis is None or isinstance(axis, int) else tuple(map(int, axis))
        return views.link(self, np.squeeze(self, axis), lambda p: p.squeeze(axis))

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        """numpy's astype, its casting rule checked (a traced value has no memory layout)."""
        check_cast(self.dtype, dtype, casting)
        result = ops.astype(self, np.dtype(dtype))
        return self.copy() if copy and result is self else result

    def dot(self, other):
        return ops.dot(self, other)

    def clip(self, min=None, max=None, out=None, **kwargs):
        # numpy's clip (its loop's dtype, casting= and out=), complex values in numpy's order
        return np.clip(self, min, max, out=out, **kwargs)

    def copy(self, order="C"):
        """Another traced array of the same value: writing into either leaves the other as it
        was (numpy's copy; the IR is shared until a write rebinds one of them)."""
        return copy.copy(self)

    def swapaxes(self, a, b):
        return views.link(self, ops.swapaxes(self, a, b), lambda p: p.swapaxes(a, b))

    def tolist(self):
        """Nested lists of 0-d traced values: Python code that walks the numbers keeps
        computing on traced values (arithmetic, gradients) instead of freezing them."""
        if not self.shape:
            return self
        return [row.tolist() for row in self]

    @property
    def flat(self):
        return _FlatView(self)

    @property
    def strides(self) -> tuple[int, ...]:
        """The strides of the C-contiguous array numpy would hold."""
        strides, step = [], self.dtype.itemsize
        for extent in reversed(self.shape):
            strides.append(step)
            step *= max(extent, 1)
        return tuple(reversed(strides))

    def view(self, dtype=None, type=None):
        """numpy's view in its own dtype: this value (a write through either is seen by both);
        reading its bits as another dtype or class needs memory a traced value lacks."""
        if type is None and (dtype is None or np.dtype(dtype) == self.dtype):
            return self
        from gradjit.tracer.torch_surface import refuse
        refuse("ndarray.view as another dtype or class", "it has no memory of its own until "
               "the compiled function runs; use astype")

    def to_device(self, device, /, *, stream=None):
        if device != "cpu":
            raise ValueError(f"a traced value lives on the CPU, not on {device!r}")
        return self

    # ---- conversions: the concrete answer, guarded ----
    def __bool__(self):
        scalar = self._scalar("bool")
        answer = bool(scalar.value)
        pred = scalar if scalar.ir_type.dtype.is_bool else ops.ne(scalar, 0)
        self._guard(pred, answer, f"bool(...) is {answer}")
        return answer

    def __gradjit_guarded__(self, what):
        if self.const:
            return self.value
        if not (self.ir_type.dtype.is_int or self.ir_type.dtype.is_bool) or \
                self._record().stand_in_values:
            return None
        answer = np.asarray(self.value)
        self._guard(ops.all_(ops.eq(self, answer)), True, f"{what} decides a shape")
        return answer

    def item(self, *index):
        if len(index) == 1 and not isinstance(index[0], tuple):  # numpy's flat index
            return np.ravel(self)[index[0]].item()
        if index:
            return self[index if len(index) > 1 else index[0]].item()
        scalar = self._scalar("item()")
        answer = scalar.value.item()
        self._guard(_is(scalar, answer), True, f"item() == {answer!r}")
        return answer

    def __float__(self):
        if not self.const and _stores_an_item(sys._getframe(1)):
            # numpy reads the number it stores into its own array (out[0] = x[0]) with float():
            # the guarded value would cut the derivative, so it is refused as a whole array is
            self.__array__()
        return float(self._number())

    def __int__(self):
        return int(self._number())

    def __gradjit_count__(self) -> int:
        """int(self) where the number picks among a few code paths (ops.count): its guard
        says so, and gradjit.compile keeps the trace (another count traces again) rather than
        running the call eagerly as it does for a value read into Python."""
        scalar = self._scalar("a count")
        answer = scalar.value.item()
        self._guard(_is(scalar, answer), True, f"a count == {answer!r}")
        return int(answer)

    def __round__(self, ndigits=None):
        """round() of a traced number, as of numpy's scalars: a Python int (guarded), or with
        ndigits a traced number; numpy's arrays define none."""
        if self.shape:
            raise TypeError("type numpy.ndarray doesn't define __round__ method")
        if ndigits is None:
            return round(self.item())
        return ops.round_decimals(self, ndigits)

    def __format__(self, spec):
        """A format spec formats a 0-d value's number (guarded), as numpy does."""
        if not spec:
            return str(self)
        if self.shape:
            raise TypeError("unsupported format string passed to numpy.ndarray.__format__")
        return format(self.item(), spec)

    def __contains__(self, value):
        return bool(ops.any_(ops.eq(self, value)))

    def _number(self):
        if self.size != 1:  # numpy's TypeError here; item() of the same array raises ValueError
            raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
        return self.item()

    def __index__(self):
        if not self.ir_type.dtype.is_int and not self.ir_type.dtype.is_bool:
            raise TypeError(f"only integer arrays can be used as an index, not {self.dtype}")
        if self.shape:  # numpy's rule, even for one element
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self.item())

    def _scalar(self, what):
        if self.size != 1:
            raise ValueError(f"{what} of a traced array of shape {self.shape} is ambiguous: "
                             "it needs exactly one element (use .any() or .all())")
        return ops.reshape(self, ()) if self.shape else self

    def __array__(self, dtype=None, copy=None):
        known = self.__gradjit_constant__()
        if known is not None:  # a library reading a constant (an array the function filled
            return np.array(known, dtype)  # with constants only) gets a copy of its value
        from gradjit.tracer.trace import source_line, user_site
        from gradjit.scipy.stats import refuse_scipy_stats
        refuse_scipy_stats()
        site = user_site()
        raise TracerArrayConversionError(
            f"a traced value {self.ir_type} was converted to a numpy array at {site}: "
            f"{source_line(site)}\n  A traced value has no fixed numpy value: the function is "
            "compiled for all inputs of this shape. Keep it a traced array (numpy functions "
            "and operators work on it directly), use .item()/float() for one number (it "
            "records a guard), or pass the value as a static argument (jit(static_argnums=...)). "
            "A numpy array indexed by traced index arrays lands here too (numpy's indexing "
            "is not dispatched, nor is np.take's on its indices): write np.take_along_axis("
            "array.ravel(), np.ravel_multi_index((i, j), array.shape).ravel(), 0)."
        )

    # ---- numpy dispatch ----
    def __array_namespace__(self, *, api_version=None):
        """numpy is the array API namespace of a traced value (its functions dispatch here),
        so libraries written against the array API (scipy.special.logsumexp) take it as a
        writeable array."""
        return np

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from gradjit.ops.numpy_api import apply_ufunc
        return apply_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        from gradjit.ops.numpy_api import apply_function
        return views.link_function(func, args, kwargs, apply_function(func, args, kwargs))


# keywords only PyTorch's methods take: a method both share, called with one, is PyTorch's
_TORCH_KEYWORDS = frozenset({"dim", "keepdim", "correction", "unbiased", "descending"})


def _numpy_method(func):
    """An ndarray method that is numpy's function of the same name (`x.prod(axis=0)` is
    `np.prod(x, axis=0)`), dispatched through the same table."""
    def method(self, *args, **kwargs):
        from gradjit.ops.numpy_api import apply_function, apply_ufunc
        if not _TORCH_KEYWORDS.isdisjoint(kwargs):  # a.sum(dim=0): written for torch
            from gradjit.tracer.torch_surface import tensor_attribute
            return tensor_attribute(self, func.__name__)(*args, **kwargs)
        if isinstance(func, np.ufunc):  # conj: of a real array, numpy's method gives itself
            return apply_ufunc(func, "__call__", (self, *args), kwargs) if \
                self.ir_type.dtype.is_complex else self
        return views.link_function(func, (self, *args), kwargs,
                                   apply_function(func, (self, *args), kwargs))
    method.__name__ = func.__name__
    return method


for _name in ("sum", "mean", "max", "min", "all", "any", "prod", "cumsum", "cumprod", "var",
              "std", "argmax", "argmin", "argsort", "argpartition", "round", "repeat", "take",
              "diagonal", "trace", "conj", "conjugate", "searchsorted", "nonzero", "ptp",
              "choose"):
    setattr(ArrayMethods, _name, _numpy_method(getattr(np, _name)))


def _compress(self, condition, axis=None, out=None):
    """ndarray.compress takes the condition second; np.compress takes it first."""
    from gradjit.ops.numpy_api import apply_function
    return apply_function(np.compress, (condition, self), {"axis": axis, "out": out})


ArrayMethods.compress = _compress


def _stores_an_item(frame) -> bool:
    """Whether `frame` is running an item assignment (a[i] = v)."""
    return frame.f_code.co_code[frame.f_lasti] == _STORE_SUBSCR


_STORE_SUBSCR = dis.opmap["STORE_SUBSCR"]


def _is(scalar, answer):
    """A predicate that holds when `scalar` is `answer` again. NaN is NaN (a comparison with
    == never holds, so every call would re-trace) and a zero has a sign (1/x tells them
    apart, and the trace may divide by the number it baked in)."""
    if isinstance(answer, float) and math.isnan(answer):
        return ops.ne(scalar, scalar)
    if isinstance(answer, float) and answer == 0:
        signed = ops.eq(ops.true_divide(1.0, scalar), math.copysign(math.inf, answer))
        return ops.logical_and(ops.eq(scalar, 0.0), signed)
    return ops.eq(scalar, answer)


def _concrete_index(index):
    """Traced integer scalars in an index: a lone one (x[i], x[:, i]) stays a run-time gather;
    among other indices they become their concrete (guarded) values."""
    parts = index if isinstance(index, tuple) else (index,)
    traced = [isinstance(p, ArrayMethods) and p.__gradjit_constant__() is None for p in parts]
    whole = [isinstance(p, slice) and p.start is None and p.stop is None and p.step is None
             for p in parts]
    if sum(traced) == 1 and all(t or w for t, w in zip(traced, whole)):
        return index
    out = tuple(int(p) if t and p.shape == () else p for p, t in zip(parts, traced))
    return out if isinstance(index, tuple) else out[0]


class _FlatView:
    """`x.flat`: numpy's flat iterator over a traced array, read and written in C order; as
    an iterator itself (`next`, `coords`, `index`) it serves np.ndenumerate."""

    __slots__ = ("_array", "index")

    def __init__(self, array):
        self._array, self.index = array, 0

    def __len__(self):
        return self._array.size

    def __next__(self):
        if self.index >= self._array.size:
            raise StopIteration
        self.index += 1
        return np.ravel(self._array)[self.index - 1]

    @property
    def coords(self):
        """The index tuple of the element `next` gives (past the end: the first axis's
        length, the others 0, as numpy's)."""
        shape = self._array.shape
        if self.index >= self._array.size:
            return (shape[0],) + (0,) * (len(shape) - 1) if shape else ()
        return tuple(int(i) for i in np.unravel_index(self.index, shape))

    @property
    def base(self):
        return self._array

    def __iter__(self):
        return iter(np.ravel(self._array))

    def __getitem__(self, index):
        return np.ravel(self._array)[index]

    def __setitem__(self, index, value):
        flat = np.ravel(self._array)
        # numpy's flat writes cycle (or cut) the values to the positions' number
        flat[index] = np.resize(np.ravel(value), np.shape(flat[index]))
        self._array._become(np.reshape(flat, self._array.shape))
