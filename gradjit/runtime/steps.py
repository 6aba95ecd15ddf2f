"""The steps a compiled program runs besides its kernels, and the buffers they share:
plain data handed from codegen to the runtime."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from gradjit.ir.types import DType

# Kernels with fewer loop iterations than this run on the calling thread: waking the pool
# costs more than it saves.
THREADED_MIN = 1 << 17
# Slots after the buffers in the table a native entry point reads: None's address and
# Py_IncRef's (to return None), the status a failed guard leaves, numpy's array type; then
# each parameter's dtype object.
ENTRY_SLOTS = {"none": 0, "incref": 1, "status": 2, "array_type": 3}
ARGUMENTS_DIFFER = 1 << 32  # the status of arguments that are not the parameters' arrays


class Record:
    """Plain data: the fields are the names the class annotates, in order, their defaults the
    class body's values. What a dataclass gives these classes, without generating code for
    each (0.2 ms of import per dataclass, and every process's first call imports these).
    A class made with `by_value=True` compares and hashes by its fields."""

    fields: tuple[str, ...] = ()

    def __init_subclass__(cls, by_value: bool = False, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.fields = tuple(cls.__dict__.get("__annotations__", ()))
        if by_value:
            cls.__eq__ = lambda a, b: type(a) is type(b) and a._values() == b._values()
            cls.__hash__ = lambda a: hash(a._values())

    def __init__(self, *args, **kwargs):
        self.__dict__.update(zip(self.fields, args), **kwargs)
        missing = [f for f in self.fields if f not in self.__dict__ and not hasattr(type(self), f)]
        if missing or len(args) > len(self.fields) or not kwargs.keys() <= set(self.fields):
            raise TypeError(f"{type(self).__name__} takes the fields {', '.join(self.fields)}")

    def _values(self) -> tuple:
        return tuple(getattr(self, f) for f in self.fields)

    def replace(self, **changes):
        """A copy with `changes` to its fields."""
        return type(self)(**dict(zip(self.fields, self._values()), **changes))

    def __repr__(self) -> str:
        values = ", ".join(f"{f}={v!r}" for f, v in zip(self.fields, self._values()))
        return f"{type(self).__name__}({values})"


class Buffer(Record):
    """Flat memory for one tensor. kind: 'param', 'result', 'const' (data held by the
    program) or 'temp' (a slice of the per-call workspace at `offset` bytes)."""

    id: int
    dtype: DType
    size: int
    kind: str = "temp"
    index: int = 0
    offset: int = 0

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.numpy.itemsize

    def __str__(self) -> str:
        return f"b{self.id}"


class Operand(Record, by_value=True):
    """A strided tensor handed to a runtime step: a buffer seen through a strided view
    (shape, strides and offset in elements)."""

    buffer: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int = 0

    def __str__(self) -> str:
        text = f"b{self.buffer}[{','.join(map(str, self.strides))}]"
        return text + (f"+{self.offset}" if self.offset else "")


class Matmul(Record):
    """out = a @ b; `partials` (a temporary of runtime.blas.depth_parts arrays of out's shape,
    or None) holds the products over slices of the summed axis, whose sum it is. On block k
    of out's rows (runtime.blas.rows_per_block rows), as soon as BLAS has written it and on
    the thread that wrote it, `tail` (a KernelCall, or None) runs its chunk k, then `next` (a
    Matmul whose a is out, or None) computes its rows of block k: the block is read while it
    is still in cache."""

    a: Operand
    b: Operand
    out: int
    partials: int | None = None
    tail: KernelCall | None = None
    next: Matmul | None = None

    def buffers(self) -> set[int]:
        return {self.a.buffer, self.b.buffer, self.out} | (
            set() if self.partials is None else {self.partials}) | set().union(
            *(s.buffers() for s in (self.tail, self.next) if s is not None))

    def __str__(self) -> str:
        partials = "" if self.partials is None else f" partials=b{self.partials}"
        tail = "" if self.tail is None else f" then @{self.tail.symbol}"
        after = "" if self.next is None else f" then {self.next}"
        return f"b{self.out} = matmul({self.a}, {self.b}){partials}{tail}{after}"


class LibraryCall(Record):
    """A primitive that runs on the host through numpy (LAPACK, sorting), as matmul runs
    through BLAS: `evaluate(*operands, **params)` is written into buffer `out`."""

    name: str
    evaluate: Callable
    params: dict
    operands: tuple[Operand, ...]
    out: int
    shape: tuple[int, ...]

    def buffers(self) -> set[int]:
        return {o.buffer for o in self.operands} | {self.out}

    def __str__(self) -> str:
        params = "".join(f", {k}={v!r}" for k, v in sorted(self.params.items()))
        return f"b{self.out} = {self.name}({', '.join(map(str, self.operands))}{params})"


class Guard(Record):
    pred: Operand
    expected: bool
    site: str

    def buffers(self) -> set[int]:
        return {self.pred.buffer}

    def __str__(self) -> str:
        return f"guard {self.pred} expected={str(self.expected).lower()} site={self.site!r}"


class CheckIndex(Record):
    """Raise `error` in `words` (before any kernel reads through them) unless every index
    lies in [low, bound)."""

    index: Operand
    bound: int
    low: int
    error: str
    words: str

    def buffers(self) -> set[int]:
        return {self.index.buffer}

    def __str__(self) -> str:
        return (f"check_index {self.index} in [{self.low}, {self.bound}) "
                f"{self.error}({self.words!r})")


NEGATIVE_POWER = "Integers to negative integer powers are not allowed."


class CheckExponent(Record):
    """Raise ValueError, as numpy does, if an integer power has a negative exponent (before
    any kernel computes the power)."""

    exponent: Operand

    def buffers(self) -> set[int]:
        return {self.exponent.buffer}

    def __str__(self) -> str:
        return f"check_exponent {self.exponent} >= 0"


class Fail(Record):
    """An op that numpy rejects for these static shapes (max over no elements)."""

    error: str
    message: str

    def buffers(self) -> set[int]:
        return set()

    def __str__(self) -> str:
        return f"fail {self.error}({self.message!r})"




class KernelCall(Record, by_value=True):
    """Run native kernel `symbol` over chunks [0, n_chunks); `elements` (the loop's trip
    count) decides whether splitting it across threads pays."""

    symbol: str
    n_chunks: int
    elements: int
    touches: frozenset = frozenset()

    @property
    def threaded(self) -> bool:
        return self.n_chunks > 1 and self.elements >= THREADED_MIN

    def buffers(self) -> set[int]:
        return set(self.touches)

    def __str__(self) -> str:
        return f"call @{self.symbol} chunks={self.n_chunks}"


def enterable(steps) -> bool:
    """Whether one native call can run all of `steps`: kernels that stay on the calling thread
    and guards (BLAS calls, index checks and threaded kernels stay in Python)."""
    return all(isinstance(s, Guard) or isinstance(s, KernelCall) and not s.threaded
               for s in steps)
