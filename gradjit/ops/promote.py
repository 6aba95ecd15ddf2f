"""Type promotion and broadcasting of operands, as numpy (NEP 50) and PyTorch define them.

Array-likes name their flavor (`__gradjit_flavor__`): "torch" or "numpy". The flavors differ
in the default float (float32 / float64) and in whether 0-d arrays promote weakly like
Python scalars (PyTorch) or like any array (numpy). An array-like with a true
`__gradjit_weak__` stands for a Python number and promotes like one."""
from __future__ import annotations

import threading

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.primitive import BroadcastError, ir_type, is_python_scalar
from gradjit.ir.types import (DType, bfloat16, bool_, complex32, complex64, complex128,
                              complex_of, float16, float32, float64, int8, int16, int64, real_of,
                              uint8, uint16, uint32, uint64, width)
from gradjit.ir.types import dtype as resolve_dtype

_CATEGORY = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}


class _Semantics(threading.local):
    """Set while a numpy function computes on Tensors: their operands promote as numpy's."""
    numpy = False


SEMANTICS = _Semantics()


def flavor(*xs) -> str:
    if SEMANTICS.numpy:
        return "numpy"
    for x in xs:
        f = getattr(x, "__gradjit_flavor__", None)
        if f is not None:
            return f
    return "numpy"


def accumulator(x, dtype=None):
    """x in the type a sum or product accumulates it in: `dtype` if given, else bools and
    integers as int64 (this platform's long; numpy's unsigned integers as uint64), floats as
    they are."""
    if dtype is not None:
        return astype(x, dtype)
    dt = ir_type(x).dtype
    if dt.is_inexact:
        return x
    return astype(x, uint64 if dt.numpy.kind == "u" and flavor(x) == "numpy" else int64)


def mean_type(x) -> DType:
    """The type numpy averages x in (a Tensor's too): float64 for bools and integers, float32
    for float16 (the mean rounded back to float16), else x's own."""
    dt = ir_type(x).dtype
    if not dt.is_inexact:
        return float64
    return float32 if dt == float16 else dt


def default_float(*xs) -> DType:
    """float64 for numpy; PyTorch's default dtype (torch.set_default_dtype) for tensors."""
    if flavor(*xs) != "torch":
        return float64
    from gradjit.tensor.dtypes import get_default_dtype  # a leaf module: the setting only
    return get_default_dtype().ir


def default_complex(*xs) -> DType:
    """complex128 for numpy; for PyTorch, the complex type of the default float."""
    return complex_of(default_float(*xs)) if flavor(*xs) == "torch" else complex128


def category(dt: DType) -> int:
    return _CATEGORY[dt.numpy.kind]


def scalar_dtype(value) -> DType:
    if isinstance(value, bool):
        return bool_
    if isinstance(value, complex):
        return complex128
    return int64 if isinstance(value, int) else float64


def result_type(*xs) -> DType:
    """The common dtype of the operands. Tiers promote weakly: a lower tier (Python scalars;
    for PyTorch also 0-d tensors) only matters when its category (bool < int < float) is
    higher than everything above it, and then gives its category's default type; a weak
    complex over floats keeps their width (float32 array * 1j is complex64, as is a float32
    tensor times a 0-d complex128 one)."""
    torch = flavor(*xs) == "torch"
    tiers = ([], [], [])  # arrays, 0-d tensors (PyTorch only), Python scalars
    for x in xs:
        if is_python_scalar(x):
            tiers[2].append(scalar_dtype(x))
        elif getattr(x, "__gradjit_weak__", False):  # a traced Python number
            tiers[2].append(ir_type(x).dtype)
        else:
            t = ir_type(x)
            tiers[1 if torch and t.rank == 0 else 0].append(t.dtype)
    best = None
    for tier, dtypes in enumerate(tiers):
        if not dtypes:
            continue
        candidate = _widest(dtypes) if torch else _python_numbers(dtypes) if tier else \
            resolve_dtype(np.result_type(*(d.numpy for d in dtypes)))
        if best is None:
            best = candidate if tier < 2 else _category_default(candidate, xs)
        elif category(candidate) > category(best):
            if candidate.is_complex and best.is_float:
                # the complex type of the floats above (a numpy array's keeps its width)
                best = complex_of(best if tier == 2 or torch else
                                  _widest([best, real_of(candidate)]))
            else:
                best = candidate if tier < 2 else _category_default(candidate, xs)
    return best


def _category_default(dt: DType, xs) -> DType:
    if dt == uint64 and flavor(*xs) != "torch":
        return uint64  # a Python integer past int64's range, traced as numpy types it
    return {0: bool_, 1: int64, 2: default_float(*xs), 3: default_complex(*xs)}[category(dt)]


def _python_numbers(dtypes) -> DType:
    """The type of Python numbers computed together in numpy code: the highest category; an
    integer past int64's range (traced as uint64) keeps uint64, where Python's integers
    would keep its value."""
    return max(dtypes, key=lambda d: (category(d), width(d), d == uint64))


_UNPROMOTED = {uint16, uint32, uint64}  # PyTorch promotes them only to floating types


def _widest(dtypes) -> DType:
    """PyTorch's promotion: the highest category, then the widest type; int8 with uint8 is
    int16 and float16 with bfloat16 float32 (the narrowest types holding both)."""
    best = max(dtypes, key=lambda d: (category(d), width(d)))
    if category(best) < 2 and len(set(dtypes)) > 1 and set(dtypes) & _UNPROMOTED:
        from gradjit.tensor.dtypes import of_ir  # a leaf module: the names only
        first = dtypes[0]
        other = next(d for d in dtypes if d != first)
        raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {of_ir(first).legacy} and "
                           f"{of_ir(other).legacy}")
    if best.is_complex:  # complex64 with float64 is complex128
        return complex_of(_widest([real_of(d) for d in dtypes if category(d) >= 2]))
    if width(best) == 1 and category(best) == 1 and {int8, uint8} <= set(dtypes):
        return int16
    if best in (float16, bfloat16) and {float16, bfloat16} <= set(dtypes):
        return float32
    return best


def numpy_shape(shape) -> str:
    """A shape as numpy's messages print it: (4,1), (3,), ()."""
    return str(tuple(shape)).replace(" ", "")


def broadcast_shapes(*shapes) -> tuple[int, ...]:
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        dims = {s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0} - {1}
        if len(dims) > 1:
            listed = "".join(numpy_shape(s) + " " for s in shapes)
            raise BroadcastError(f"operands could not be broadcast together with shapes {listed}",
                                 shapes)
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def astype(x, dt):
    dt = resolve_dtype(dt)
    if is_python_scalar(x):
        return x
    return x if ir_type(x).dtype == dt else E.cast(x, dtype=dt.name)


_WIDE = {float16: float32, bfloat16: float32, complex32: complex64}


def in_float32(fn, *operands):
    """fn of operands; float16, bfloat16 or complex32 ones are computed in float32 (complex64)
    and the result rounded once, as PyTorch's CPU kernels that accumulate in float32 (GEMM,
    norms, complex32's sgn) do."""
    narrow = ir_type(operands[0]).dtype
    if narrow not in _WIDE:
        return fn(*operands)
    return astype(fn(*(astype(x, _WIDE[narrow]) for x in operands)), narrow)


def broadcast(x, shape):
    if is_python_scalar(x):
        return x
    return x if ir_type(x).shape == tuple(shape) else S.broadcast_to(x, shape=tuple(shape))


def operands(*xs, dtype=None):
    """Cast to the common (or given) dtype and broadcast to the common shape. A Python integer
    the common integer dtype cannot hold is refused (numpy) or wrapped into it (PyTorch)."""
    dt = resolve_dtype(dtype) if dtype is not None else result_type(*xs)
    if dtype is None and dt.is_int:
        xs = fit_python_ints(xs, dt)
    shape = broadcast_shapes(*(ir_type(x).shape for x in xs if not is_python_scalar(x)))
    out = [broadcast(astype(x, dt), shape) for x in xs]
    if all(is_python_scalar(x) for x in out):
        out[0] = np.asarray(out[0], dt.numpy)
    return out


def fit_python_ints(xs, dt: DType) -> list:
    """numpy 2 raises OverflowError for a Python integer out of `dt`'s range; PyTorch takes it
    modulo 2**bits, as a C cast would."""
    bits = dt.numpy.itemsize * 8
    low, span = 0 if dt.numpy.kind == "u" else -(1 << (bits - 1)), 1 << bits
    out = []
    for x in xs:
        if past_int64(x) and dt != uint64 and flavor(*xs) != "torch":
            raise OverflowError(f"Python integer {int(x.value)} out of bounds for {dt.numpy}")
        if is_python_scalar(x) and not isinstance(x, (bool, float)) and not (
                low <= x < low + span):
            if flavor(*xs) != "torch":
                raise OverflowError(f"Python integer {x} out of bounds for {dt.numpy}")
            x = (x - low) % span + low
        out.append(x)
    return out


def past_int64(x) -> bool:
    """Whether x is a traced Python integer in [2**63, 2**64) (numpy types it uint64)."""
    return getattr(x, "__gradjit_weak__", False) and ir_type(x).dtype == uint64


def comparison_dtype(*xs) -> DType | None:
    """int64 where numpy 2 compares a Python integer out of an integer array's range exactly
    (instead of refusing it); None for the common dtype."""
    dt = result_type(*xs)
    if not dt.is_int or flavor(*xs) == "torch":
        return None
    info = np.iinfo(dt.numpy)  # uint64's range reaches past int64's: 2**63 stays uint64
    outside = any(is_python_scalar(x) and not isinstance(x, (bool, float))
                  and not info.min <= x <= info.max for x in xs)
    return int64 if outside else None


def to_float(x):
    """Integers and bools become the flavor's default float, as math functions need."""
    t = ir_type(x)
    return x if t.dtype.is_inexact else E.cast(x, dtype=default_float(x).name)


CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")  # numpy's casting= rules


def check_casting(casting):
    """numpy's ValueError for a casting= that names none of its rules."""
    if casting not in CASTINGS:
        raise ValueError(f"casting must be one of {', '.join(map(repr, CASTINGS))} (got "
                         f"{casting!r})")


def check_cast(source, target, casting):
    """numpy's TypeError for a cast from dtype `source` that `casting` does not allow."""
    if not np.can_cast(source, target, casting):
        raise TypeError(f"Cannot cast array data from {np.dtype(source)!r} to "
                        f"{np.dtype(target)!r} according to the rule '{casting}'")
