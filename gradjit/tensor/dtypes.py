"""PyTorch's dtype, device and Size objects over the IR's element types."""
from __future__ import annotations

import math
import re

import numpy as np

from gradjit.ir import types as T
from gradjit.tensor.signatures import describe


class dtype:
    """An element type as PyTorch names it (`torch.float32`); `ir` is the IR's DType."""

    def __init__(self, ir: T.DType, legacy: str):
        self.ir = ir
        self.legacy = legacy  # PyTorch's old tensor-type name, shown in some messages

    @property
    def is_floating_point(self) -> bool:
        return self.ir.is_float

    @property
    def is_complex(self) -> bool:
        return self.ir.is_complex

    def to_real(self) -> dtype:
        return _BY_IR[T.real_of(self.ir)]

    def to_complex(self) -> dtype:
        return _BY_IR[T.complex_of(self.ir)]

    @property
    def is_signed(self) -> bool:
        return self.ir.numpy.kind in "ifc"

    @property
    def itemsize(self) -> int:
        return T.width(self.ir)

    def __repr__(self) -> str:
        return f"torch.{self.ir.torch_name}"

    def __reduce__(self):
        return to_dtype, (self.ir.torch_name,)


float32 = dtype(T.float32, "Float")
float64 = dtype(T.float64, "Double")
int32 = dtype(T.int32, "Int")
int64 = dtype(T.int64, "Long")
bool_ = dtype(T.bool_, "Bool")
int8 = dtype(T.int8, "Char")
int16 = dtype(T.int16, "Short")
uint8 = dtype(T.uint8, "Byte")
uint16 = dtype(T.uint16, "UInt16")
uint32 = dtype(T.uint32, "UInt32")
uint64 = dtype(T.uint64, "UInt64")
float16 = dtype(T.float16, "Half")
bfloat16 = dtype(T.bfloat16, "BFloat16")
complex64 = dtype(T.complex64, "ComplexFloat")
complex128 = dtype(T.complex128, "ComplexDouble")
complex32 = dtype(T.complex32, "ComplexHalf")

_BY_IR = {d.ir: d for d in (float32, float64, int32, int64, bool_, int8, int16, uint8, uint16,
                            uint32, uint64, float16, bfloat16, complex64, complex128, complex32)}
_PYTHON_TYPES = {float: float64, int: int64, bool: bool_, complex: complex128}


def to_dtype(spec) -> dtype:
    """A torch dtype from a torch dtype, a Python type (float, int, bool), a numpy dtype or an
    IR/torch name."""
    if isinstance(spec, dtype):
        return spec
    if spec in _PYTHON_TYPES:
        return _PYTHON_TYPES[spec]
    return _BY_IR[T.dtype(spec)]


def checked_argument(spec, function: str) -> dtype:
    """A dtype argument as PyTorch's bindings take it: a torch dtype or one of the Python types
    float, int, bool, complex; a name or a numpy dtype is refused."""
    if isinstance(spec, dtype) or spec in _PYTHON_TYPES:
        return to_dtype(spec)
    raise TypeError(f"{function}(): argument 'dtype' must be torch.dtype, not {describe(spec)}")


def of_ir(ir: T.DType) -> dtype:
    return _BY_IR[ir]


def of_numpy(numpy_dtype: np.dtype) -> dtype:
    return _BY_IR[T.dtype(numpy_dtype)]


_default = [float32]  # set_default_dtype's choice, read by every factory


def get_default_dtype() -> dtype:
    return _default[0]


def set_default_dtype(d) -> None:
    """The dtype of Python floats turned into tensors and of floating factories."""
    chosen = to_dtype(d)
    if not chosen.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = chosen


def can_cast(source: dtype, target: dtype) -> bool:
    """PyTorch's rule for writing a result into an existing tensor: never float -> integer,
    never number -> bool."""
    order = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}
    return order[source.ir.numpy.kind] <= order[target.ir.numpy.kind]


def scalar_in(value, target: dtype):
    """A Python number as PyTorch converts it to `target` for a fill: refused where it does not
    fit (an unsigned integer also takes the negatives of its range, wrapped; floats truncate);
    into a float dtype, only a finite number past its range is refused."""
    numpy, kind = target.ir.numpy, target.ir.numpy.kind
    if kind == "b" or isinstance(value, bool):
        return bool(value) if kind == "b" else numpy.type(value).item()
    if isinstance(value, complex) and kind != "c":
        fits = value.imag == 0
        value = value.real
    else:
        fits = True
    if kind in "iu":
        info = np.iinfo(numpy)
        low = -int(info.max) if kind == "u" and isinstance(value, int) else int(info.min)
        fits = fits and math.isfinite(value) and low <= value <= int(info.max)
        value = int(value) % 2 ** info.bits if fits and value < 0 and kind == "u" else value
    elif kind == "f":
        fits = fits and not (math.isfinite(value) and abs(value) > float(finfo(target).max))
    if not fits:
        name = CONVERTED_NAMES[str(target).rpartition(".")[2]]
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return numpy.type(value).item()


def numpy_of(spec) -> np.dtype:
    return to_dtype(spec).ir.numpy


def info_dtype(kind: str, spec) -> dtype:
    """The dtype finfo/iinfo describe: a torch dtype or a Python type, as PyTorch takes them, or
    a numpy dtype (a traced value's dtype)."""
    numpy_type = isinstance(spec, type) and issubclass(spec, np.generic)
    if isinstance(spec, (dtype, np.dtype)) or numpy_type or spec in _PYTHON_TYPES:
        return to_dtype(spec)
    raise TypeError(f"{kind}(): argument 'type' (position 1) must be torch.dtype, not "
                    f"{type(spec).__name__}")


class finfo:
    """The limits of a floating dtype (default: the default dtype), printed as PyTorch does; a
    complex dtype has the limits of its real part."""

    def __init__(self, type=get_default_dtype):  # a sentinel: PyTorch refuses finfo(None)
        chosen = get_default_dtype() if type is get_default_dtype else info_dtype("finfo", type)
        if chosen.is_complex:
            chosen = chosen.to_real()
        if not chosen.is_floating_point:
            # PyTorch's message names the class, not the dtype
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        if chosen is bfloat16:  # float32's range with 8 significant bits
            info = np.finfo(np.float32)
            self.bits, self.eps, self.resolution = 16, 2.0 ** -7, 0.01
            self.max = float((2 - 2.0 ** -7) * 2.0 ** 127)
        else:
            info = np.finfo(chosen.ir.numpy)
            self.bits, self.eps, self.max = info.bits, float(info.eps), float(info.max)
            self.resolution = 10.0 ** -int(info.precision)
        self.min = -self.max
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.dtype = chosen.ir.torch_name

    def __eq__(self, other):
        return isinstance(other, finfo) and vars(self) == vars(other)

    def __repr__(self):
        fields = [("resolution", self.resolution), ("min", self.min), ("max", self.max),
                  ("eps", self.eps), ("smallest_normal", self.smallest_normal),
                  ("tiny", self.tiny)]
        return "finfo(" + ", ".join(f"{k}={v:g}" for k, v in fields) + f", dtype={self.dtype})"


class iinfo:
    """The limits of an integer dtype, printed as PyTorch does."""

    def __init__(self, type):
        chosen = info_dtype("iinfo", type)
        if chosen.is_floating_point or chosen.is_complex:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        if chosen.ir.is_bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        info = np.iinfo(chosen.ir.numpy)
        self.bits, self.min, self.max = info.bits, int(info.min), int(info.max)
        self.dtype = chosen.ir.torch_name

    def __eq__(self, other):
        return isinstance(other, iinfo) and vars(self) == vars(other)

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


class Size(tuple):
    """A tensor's shape: a tuple that prints as `torch.Size([2, 3])`."""

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def __getitem__(self, index):
        out = tuple.__getitem__(self, index)
        return Size(out) if isinstance(index, slice) else out

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def numel(self) -> int:
        return math.prod(self)


_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9]\d*|0))?")
_TORCH_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                       "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                       "privateuseone")


class device:
    """Where a tensor lives: `device("cpu")`, `device("cuda:0")`, `device("cuda", 0)`; "meta"
    labels tensors that only describe shapes (as stateless templates for functional_call)."""

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, str):
            parsed = _DEVICE_STRING.fullmatch(type)
            if parsed is None or parsed[2] is not None and index is not None:
                raise RuntimeError(f"Invalid device string: '{type}'")
            type, index = parsed[1], index if parsed[2] is None else int(parsed[2])
        if type not in _TORCH_DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_TORCH_DEVICE_TYPES)} device type "
                               f"at start of device string: {type}")
        if type not in ("cpu", "cuda", "meta"):
            raise RuntimeError(f"gradjit has no {type} device; it runs on cpu, cuda and meta")
        self.type, self.index = type, index

    def __repr__(self) -> str:
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __enter__(self):
        """`with device("meta"):` makes it the factories' default device until the block ends."""
        from gradjit.tensor.defaults import get_default_device, set_default_device
        self._outer = getattr(self, "_outer", []) + [get_default_device()]
        set_default_device(self)
        return self

    def __exit__(self, *exc):
        from gradjit.tensor.defaults import set_default_device
        set_default_device(self._outer.pop())


CPU = device("cpu")
default_device = [CPU]  # where factories put tensors given no device (set_default_device)


# The C++ scalar-type names, by legacy name, that PyTorch prints in some of its errors.
CPP_NAMES = {"Float": "float", "Double": "double", "Long": "long int", "Int": "int",
             "Bool": "bool", "Byte": "unsigned char", "Char": "signed char",
             "Short": "short int", "Half": "c10::Half", "BFloat16": "c10::BFloat16",
             "ComplexFloat": "c10::complex<float>", "ComplexDouble": "c10::complex<double>"}
# the C++ names torch's checked conversion of a fill value speaks of, by dtype name
CONVERTED_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half",
                   "bfloat16": "c10::BFloat16", "int64": "int64_t", "int32": "int",
                   "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t",
                   "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t"}
