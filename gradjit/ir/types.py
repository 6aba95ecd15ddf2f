"""Element types and tensor types of the IR, with numpy's and PyTorch's names mapped."""
from __future__ import annotations

import math

from dataclasses import dataclass

import numpy as np

# numpy's own asarray, bound before gradjit wraps numpy's constructors for tracing
# (gradjit/tracer/constructors.py): types of plain data are read on every eager operation.
_asarray = np.asarray


@dataclass(frozen=True)
class DType:
    """An element type: its IR name (`f32`), numpy dtype and PyTorch name."""

    name: str
    numpy: np.dtype
    torch_name: str

    @property
    def is_float(self) -> bool:
        return self.numpy.kind == "f"

    @property
    def is_int(self) -> bool:
        return self.numpy.kind in "iu"

    @property
    def is_bool(self) -> bool:
        return self.numpy.kind == "b"

    @property
    def is_complex(self) -> bool:
        return self.numpy.kind == "c"

    @property
    def is_inexact(self) -> bool:
        """Floating or complex: the types that math functions and division take."""
        return self.numpy.kind in "fc"

    @property
    def on_host(self) -> bool:
        """Computed by numpy between a compiled program's kernels, which lower only COMPILED."""
        return self not in COMPILED

    def __repr__(self) -> str:
        return self.name


bool_ = DType("bool", np.dtype(np.bool_), "bool")
int32 = DType("i32", np.dtype(np.int32), "int32")
int64 = DType("i64", np.dtype(np.int64), "int64")
float32 = DType("f32", np.dtype(np.float32), "float32")
float64 = DType("f64", np.dtype(np.float64), "float64")
# PyTorch's narrow types. numpy evaluates them (float16 math rounds each float32 result, as
# PyTorch's CPU kernels do); the compiled backends lower only the five above (COMPILED).
# The integers are named as MLIR names them: numpy reads "i8" and "u8" as 64-bit types.
int8 = DType("si8", np.dtype(np.int8), "int8")
int16 = DType("si16", np.dtype(np.int16), "int16")
uint8 = DType("ui8", np.dtype(np.uint8), "uint8")
# PyTorch's unsigned types beyond uint8 (storage, casts and printing; it promotes them with no
# other integer or bool type); uint32 and uint64 also hold jax.random's key words and bits
uint16 = DType("ui16", np.dtype(np.uint16), "uint16")
uint32 = DType("ui32", np.dtype(np.uint32), "uint32")
uint64 = DType("ui64", np.dtype(np.uint64), "uint64")
float16 = DType("f16", np.dtype(np.float16), "float16")

# bfloat16 has no numpy type. Its storage is float32 holding only bfloat16 values (the low 16
# bits zero), its numpy dtype float32 marked by metadata: the evaluation of every primitive
# rounds a bfloat16 result from float32 to nearest even (primitive.evaluate), and
# `round_bfloat16` rounds data entering a tensor. It is 2 bytes wide as PyTorch counts it.
BFLOAT16_STORAGE = np.dtype(np.float32, metadata={"torch": "bfloat16"})
bfloat16 = DType("bf16", BFLOAT16_STORAGE, "bfloat16")

# Complex numbers: numpy evaluates them; a compiled program runs their ops on the host.
complex64 = DType("c64", np.dtype(np.complex64), "complex64")
complex128 = DType("c128", np.dtype(np.complex128), "complex128")
# complex32 (PyTorch's ComplexHalf) is stored as bfloat16 is: complex64 marked by metadata,
# holding only parts that float16 represents (`round_complex32`); 4 bytes as PyTorch counts it.
COMPLEX32_STORAGE = np.dtype(np.complex64, metadata={"torch": "complex32"})
complex32 = DType("c32", COMPLEX32_STORAGE, "complex32")

ALL_DTYPES = (bool_, int32, int64, float32, float64, int8, int16, uint8, uint16, uint32, uint64,
              float16, bfloat16, complex64, complex128, complex32)
_MARKED = {"bfloat16": bfloat16, "complex32": complex32}  # storage metadata -> its DType
COMPILED = (bool_, int32, int64, float32, float64)
# types whose ops a compiled program runs as numpy steps between its kernels: integers whose
# numpy arithmetic is the machine's (jax.random's bits, keys and narrow randint), complex
# numbers, float16 (numpy rounds each float32 result, as numpy's and PyTorch's CPU loops do);
# bfloat16 stays eager (its float32 storage would reach the kernels unrounded)
HOSTED = (int8, int16, uint8, uint16, uint32, uint64, float16, complex64, complex128)
FLOAT_DTYPES = (float32, float64)
_BY_NAME = {}
for _d in ALL_DTYPES:
    for _alias in (_d.name, _d.torch_name, str(_d.numpy)):
        _BY_NAME.setdefault(_alias, _d)  # "float32" stays float32's
_BY_NAME.update(float=float32, double=float64, long=int64, int=int32, half=float16,
                short=int16, char=int8, byte=uint8, cfloat=complex64, cdouble=complex128,
                chalf=complex32)
_BY_NUMPY = {d.numpy: d for d in ALL_DTYPES if d.numpy.metadata is None}


def is_bfloat16(numpy_dtype: np.dtype) -> bool:
    return numpy_dtype.metadata is not None and numpy_dtype.metadata.get("torch") == "bfloat16"


def is_complex32(numpy_dtype: np.dtype) -> bool:
    return numpy_dtype.metadata is not None and numpy_dtype.metadata.get("torch") == "complex32"


def complex_of(dt: DType) -> DType:
    """The complex type whose parts hold `dt` (complex32 for float16, complex64 for float32
    and bfloat16)."""
    if dt.is_complex:
        return dt
    if dt is float16:
        return complex32
    return complex128 if dt.numpy.itemsize >= 8 else complex64


def real_of(dt: DType) -> DType:
    """The float type of a complex type's parts (other types are their own)."""
    return {complex64: float32, complex128: float64, complex32: float16}.get(dt, dt)


def width(dt: DType) -> int:
    """Bytes per element as PyTorch counts them (bfloat16: 2, complex32: 4, whatever their
    storage)."""
    return {bfloat16: 2, complex32: 4}.get(dt, dt.numpy.itemsize)


def round_bfloat16(values) -> np.ndarray:
    """float32 values rounded to the nearest bfloat16 (ties to even), in bfloat16 storage;
    NaN stays NaN and values past the largest bfloat16 become inf."""
    x = np.asarray(values, np.float32)
    bits = x.view(np.uint32)
    with np.errstate(over="ignore"):
        rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & \
            np.uint32(0xFFFF0000)
    return np.where(np.isnan(x), x, rounded.view(np.float32)).astype(BFLOAT16_STORAGE)


def round_complex32(values) -> np.ndarray:
    """Complex values with each part rounded to the nearest float16, in complex32 storage."""
    z = np.asarray(values)
    with np.errstate(over="ignore", invalid="ignore"):
        real = np.real(z).astype(np.float16).astype(np.float32)
        imag = np.imag(z).astype(np.float16).astype(np.float32)
    out = np.empty(z.shape, COMPLEX32_STORAGE)
    out.real, out.imag = real, imag
    return out


def dtype(spec) -> DType:
    """Resolve `spec` (a DType, an IR/numpy/PyTorch name, or a numpy dtype) to a DType."""
    if isinstance(spec, DType):
        return spec
    if isinstance(spec, np.dtype) and spec in _BY_NUMPY:  # the hot path: arrays' dtypes
        return _BY_NUMPY[spec] if spec.metadata is None else _MARKED[spec.metadata["torch"]]
    if isinstance(spec, str) and spec in _BY_NAME:
        return _BY_NAME[spec]
    if isinstance(getattr(spec, "ir", None), DType):  # a PyTorch dtype (a Tensor's .dtype)
        return spec.ir
    try:
        key = str(np.dtype(spec))
    except TypeError:
        key = None
    if key in _BY_NAME:
        return _BY_NAME[key]
    known = ", ".join(d.name for d in ALL_DTYPES)
    raise TypeError(f"gradjit has no dtype {spec!r}; known: {known}")


@dataclass(frozen=True)
class TensorType:
    """A shape and an element type; prints as `f32[4,3]` (`f32[]` for a scalar)."""

    shape: tuple[int, ...]
    dtype: DType

    def __post_init__(self):
        if not all(isinstance(d, (int, np.integer)) and d >= 0 for d in self.shape):
            raise ValueError(f"a shape holds non-negative integers, not {self.shape}")
        object.__setattr__(self, "shape", tuple(int(d) for d in self.shape))

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)  # Python ints: an int64 product would wrap

    def __str__(self) -> str:
        return f"{self.dtype.name}[{','.join(map(str, self.shape))}]"

    __repr__ = __str__


_TYPES: dict = {}  # (shape, numpy dtype, plain) -> TensorType: eager ops ask on every call


def type_of(array) -> TensorType:
    """The TensorType of a numpy array (or anything numpy turns into one)."""
    array = _asarray(array)
    dt = array.dtype
    # bfloat16 and complex32 storage are float32 and complex64 with metadata
    key = (array.shape, dt, dt.metadata and dt.metadata.get("torch"))
    known = _TYPES.get(key)
    if known is None:
        if len(_TYPES) > 4096:
            _TYPES.clear()
        known = _TYPES[key] = TensorType(array.shape, dtype(dt))
    return known
