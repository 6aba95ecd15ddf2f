"""The Tensor class: storage and autograd core plus its operations, and the _ forms."""
from __future__ import annotations

from gradjit import ops
from gradjit.ir import elementwise as E
from gradjit.ir.primitive import ir_type, is_python_scalar
from gradjit.tensor import activations, rounding
from gradjit.tensor.aliases import accept_numpy_names_in
from gradjit.tensor import dtypes, overlap
from gradjit.tensor.arith import _ORDERED, ArithMixin, apply, operand
from gradjit.tensor.math_methods import MathMixin
from gradjit.tensor.base import TensorBase
from gradjit.tensor.shape import squeeze_node
from gradjit.tensor.complex import ComplexMixin, refuse_complex_in
from gradjit.tensor.complex_half import refuse_complex_half_in
from gradjit.tensor.dlpack import DLPackMixin
from gradjit.tensor.composites import CompositesMixin
from gradjit.tensor.copies import CopiesMixin
from gradjit.tensor.deprecated import DeprecatedMixin
from gradjit.tensor.dtype_device import DtypeDeviceMixin
from gradjit.tensor.storage import StorageMixin
from gradjit.tensor.strided import StridedMixin
from gradjit.tensor.hot_path import serve, write_into
from gradjit.tensor.numpy_protocol import NumpyProtocol
from gradjit.tensor.pickling import PicklingMixin
from gradjit.tensor.random import RandomMixin
from gradjit.tensor.random_fill import RandomFillMixin
from gradjit.tensor.refusals import refuse_cast
from gradjit.tensor.signatures import refuse_sequences_in
from gradjit.tensor.contract import ContractMixin
from gradjit.tensor.indexing import IndexingMixin
from gradjit.tensor.legacy_linalg import LegacyLinalgMixin
from gradjit.tensor.reductions import ReductionMixin
from gradjit.tensor.layout import LayoutMixin
from gradjit.tensor.linalg import LinalgMixin
from gradjit.tensor.linalg_lu import LuMixin
from gradjit.tensor.shape import ShapeMixin
from gradjit.tensor.shaping import ShapingMixin
from gradjit.tensor.sorting import SortingMixin
from gradjit.tensor import spectral, special_numeric
from gradjit.tensor.ufuncs import IN_PLACE, UfuncMixin


# binary operations whose result has the operands' common dtype: name -> whether integers
# give the default float
_PROMOTING = {**dict.fromkeys(("add", "mul", "floor_divide", "remainder", "fmod", "pow",
                               "bitwise_and", "bitwise_or", "bitwise_xor"), False),
              **dict.fromkeys(("atan2", "arctan2", "hypot", "copysign"), True)}


# in-place forms whose PyTorch kernels (BLAS) check no overlap of self with the factors
_MATRIX_PRODUCTS = ("addmm", "addmv", "addbmm", "baddbmm")


def _inplace(name, grad_fn=None, write=True, source=None):
    """The in-place form of method `name`: computed out of place (by method `source`, where
    it differs), written back into self."""
    def method(self, *args, **kwargs):
        if write and name not in _MATRIX_PRODUCTS:
            overlap.check_inputs(self._value, (*args, *kwargs.values()))
        if write_into(name, self, args, kwargs):
            return self
        if name in _PROMOTING and args:  # refused before the kernel's own dtype checks
            result = dtypes.of_ir(ops.result_type(self, operand(args[0])))
            if _PROMOTING[name] and not (result.is_floating_point or result.is_complex):
                result = dtypes.get_default_dtype()
            refuse_cast(result, self.dtype)
        return self._update(lambda: getattr(self, source or name)(*args, **kwargs), grad_fn,
                            write)
    method.__name__ = name + "_"
    return method


def _clamp_inplace(name):
    """clamp_ and its one-sided forms: PyTorch's Scalar overloads refuse a float bound on an
    integer tensor in C++'s names of the dtypes."""
    inplace = _inplace(name)

    def method(self, *bounds, **kwargs):
        if not (self.dtype.is_floating_point or self.dtype.is_complex) and any(
                type(b) is float for b in (*bounds, *kwargs.values())):
            raise RuntimeError(f"result type {dtypes.get_default_dtype().legacy} can't be cast "
                               f"to the desired output type {dtypes.CPP_NAMES[self.dtype.legacy]}")
        return inplace(self, *bounds, **kwargs)
    method.__name__ = name + "_"
    return method


def _compared_in_place(op):
    """x.eq_(y): the comparison `op` written in x's dtype; PyTorch's grad_fn (Backward0 for a
    number y, Backward1 for a tensor) gives x and y zero gradients."""
    compare = _ORDERED.get(op, getattr(ops, op))

    def in_dtype(a, b):
        return E.cast(compare(a, b), dtype=ir_type(a).dtype.name)

    def method(self, other):
        grad_fn = f"{op.title()}Backward{0 if is_python_scalar(other) else 1}"
        overlap.check_inputs(self._value, (other,))
        other = operand(other)
        operands = (self,) if is_python_scalar(other) else (self, other)
        return self._update(lambda: apply(grad_fn, rounding.flat(in_dtype), self, other,
                                          operands=operands))
    method.__name__ = op + "_"
    return method


@refuse_complex_half_in
@refuse_complex_in
@accept_numpy_names_in
class Tensor(ArithMixin, MathMixin, UfuncMixin, ContractMixin, ShapeMixin, DtypeDeviceMixin,
             ShapingMixin, ReductionMixin, SortingMixin, LinalgMixin, CompositesMixin, RandomMixin,
             IndexingMixin, RandomFillMixin, LayoutMixin, LegacyLinalgMixin, LuMixin, CopiesMixin,
             DLPackMixin, DeprecatedMixin, StridedMixin, StorageMixin, ComplexMixin, PicklingMixin,
             NumpyProtocol, TensorBase):
    """A PyTorch tensor over numpy storage (or a traced value while tracing)."""

    def __new__(cls, *args, dtype=None, device=None):
        from gradjit.tensor import dtypes
        from gradjit.tensor.legacy_types import legacy_new
        return legacy_new(dtype or dtypes.get_default_dtype(), device, args)

    hardshrink, prelu = activations.hardshrink, activations.prelu
    stft, istft = spectral.stft, spectral.istft
    add_, sub_, mul_, div_ = map(_inplace, ("add", "sub", "mul", "div"))
    addcmul_, addcdiv_, lerp_ = map(_inplace, ("addcmul", "addcdiv", "lerp"))
    pow_, neg_, abs_, exp_, log_ = map(_inplace, ("pow", "neg", "abs", "exp", "log"))
    sqrt_, rsqrt_, sin_, cos_, tan_ = map(_inplace, ("sqrt", "rsqrt", "sin", "cos", "tan"))
    tanh_, sigmoid_, relu_ = map(_inplace, ("tanh", "sigmoid", "relu"))
    log1p_, expm1_, reciprocal_, square_ = map(_inplace, ("log1p", "expm1", "reciprocal",
                                                          "square"))
    floor_, ceil_, round_, trunc_, sign_ = map(_inplace, ("floor", "ceil", "round", "trunc",
                                                          "sign"))
    clamp_, clamp_min_, clamp_max_ = map(_clamp_inplace, ("clamp", "clamp_min", "clamp_max"))
    remainder_, fmod_, gcd_, lcm_ = map(_inplace, ("remainder", "fmod", "gcd", "lcm"))
    floor_divide_ = _inplace("floor_divide", source="_floor_divide_")
    bitwise_and_, bitwise_or_, bitwise_xor_, bitwise_not_ = map(_inplace, (
        "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"))
    bitwise_left_shift_, bitwise_right_shift_ = map(_inplace, ("bitwise_left_shift",
                                                               "bitwise_right_shift"))
    __imod__, __ifloordiv__ = remainder_, floor_divide_
    __iand__, __ior__, __ixor__ = bitwise_and_, bitwise_or_, bitwise_xor_
    __ilshift__, __irshift__ = bitwise_left_shift_, bitwise_right_shift_
    clip_ = clamp_
    addmm_, addmv_, addr_, addbmm_, baddbmm_ = map(_inplace, ("addmm", "addmv", "addr", "addbmm",
                                                             "baddbmm"))
    renorm_, mvlgamma_, polygamma_ = map(_inplace, ("renorm", "mvlgamma", "polygamma"))
    i0_, nextafter_ = _inplace("i0"), _inplace("nextafter")
    igamma, igammac = special_numeric.gammainc, special_numeric.gammaincc
    igamma_, igammac_ = _inplace("igamma"), _inplace("igammac")
    conj_physical_ = _inplace("conj_physical", "ConjPhysicalBackward1")

    def float_power_(self, exponent):
        """In place only on a tensor of the dtype float_power computes in: complex128 with a
        complex operand, else float64."""
        complex_ = self.dtype.is_complex or isinstance(exponent, complex) or getattr(
            getattr(exponent, "dtype", None), "is_complex", False)
        want = "ComplexDouble" if complex_ else "Double"
        if self.dtype.legacy != want:
            raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype.legacy} "
                               f"but the operation's result requires dtype {want}")
        return self._update(lambda: self.float_power(exponent))
    t_ = _inplace("t", "TBackward1", write=False)
    transpose_ = _inplace("transpose", "TransposeBackward1", write=False)
    unsqueeze_ = _inplace("unsqueeze", "UnsqueezeBackward1", write=False)

    def squeeze_(self, dim=None):
        """squeeze in place; PyTorch's in-place overloads number their nodes after the
        out-of-place ones (SqueezeBackward3, 4 and 5: no dim, one dim, several)."""
        node = f"SqueezeBackward{int(squeeze_node(dim)[-1]) + 3}"
        return self._update(lambda: self.squeeze(dim), node, write=False)


for _name in IN_PLACE:
    setattr(Tensor, _name + "_", _inplace(_name))
for _name, _op in {**{op: op for op in ("eq", "ne", "lt", "le", "gt", "ge")}, "greater": "gt",
                   "greater_equal": "ge", "less": "lt", "less_equal": "le",
                   "not_equal": "ne"}.items():
    setattr(Tensor, _name + "_", _compared_in_place(_op))
refuse_sequences_in(Tensor)
Tensor.__module__ = "gradjit"
serve(Tensor)
