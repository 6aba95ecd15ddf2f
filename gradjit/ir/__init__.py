"""The IR: types, the primitive table, SSA functions, text form, verifier and interpreter."""
from gradjit.ir import (elementwise, fft, integer, linalg, linalg_eig, linalg_lu, linalg_qr,
                        sorting, structural)
from gradjit.ir.core import Builder, Function, Op, Value
from gradjit.ir.interpret import interpret
from gradjit.ir.primitive import PRIMITIVES, Primitive, ShapeError, bind
from gradjit.ir.structural import GuardFailed
from gradjit.ir.text import ParseError, parse
from gradjit.ir.types import DType, TensorType, dtype, type_of
from gradjit.ir.verify import VerifyError, verify

__all__ = ["Builder", "DType", "Function", "GuardFailed", "Op", "PRIMITIVES", "ParseError",
           "Primitive", "ShapeError", "TensorType", "Value", "VerifyError", "bind", "dtype",
           "elementwise", "fft", "integer", "interpret", "linalg", "linalg_eig", "linalg_lu",
           "linalg_qr", "parse", "sorting", "structural", "type_of", "verify"]
