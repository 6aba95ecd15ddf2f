"""PyTorch's module-level functions (torch.add, torch.mm, ...): the Tensor methods, with
`out=` where PyTorch has it."""
from __future__ import annotations

import builtins
import functools
import warnings

from gradjit.tensor.aliases import accept_numpy_names
from gradjit.tensor import dtypes, overlap, ufuncs
from gradjit.ir.primitive import is_python_scalar
from gradjit.tensor.arith import ELEMENTWISE, apply, hot_binary, operand
from gradjit.tensor.arith import where as arith_where
from gradjit.tensor import contract
from gradjit.tensor.contract import cross  # noqa: F401
from gradjit.tensor.einsum import einsum  # noqa: F401
from gradjit.tensor.defaults import result_type
from gradjit.tensor.refusals import refuse_bool_subtraction, refuse_cast
from gradjit.tensor.factories import tensor
from gradjit.tensor.signatures import NUMBERS_AS_TENSORS, check_function
from gradjit.tensor.grad_mode import is_grad_enabled, no_grad
from gradjit.tensor.reductions import hash_tensor, std_mean, var_mean  # noqa: F401
from gradjit.tensor.shape import cat as _cat
from gradjit.tensor.shape import cat_arguments
from gradjit.tensor.shape import stack as _stack
from gradjit.tensor.shaping import *  # noqa: F401,F403
from gradjit.tracer.torch_surface import TRACING, converting, traced_as_tensors
from gradjit.tensor.composites import histogramdd  # noqa: F401
from gradjit.tensor import sorting
from gradjit.tensor.sorting import unique, unique_consecutive  # noqa: F401


# How torch's kernel for an op checks out= against its inputs' memory. These read their
# inputs in another order than they write out, so they refuse out=input itself too:
_ANY_OVERLAP = {"gather", "index_select", "take", "take_along_dim", "masked_select", "cat",
                "stack", "hstack", "vstack", "dstack", "column_stack"}
# TensorIterator's kernels (elementwise, scans, selections along a dim) refuse a partial
# overlap; the rest (full reductions, matrix products, transforms) check none.
_PARTIAL_OVERLAP = {
    *ufuncs.METHOD_NAMES, *ELEMENTWISE, "pow", "abs", "neg", "exp", "expm1", "log", "log1p",
    "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "relu", "sign", "square", "floor",
    "ceil", "round", "trunc", "reciprocal", "clamp", "maximum", "minimum", "eq", "ne", "lt",
    "le", "gt", "ge", "logical_and", "logical_or", "logical_not", "remainder", "fmod",
    "floor_divide", "float_power", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
    "bitwise_left_shift", "bitwise_right_shift", "gcd", "lcm", "addcmul", "addcdiv", "lerp",
    "xlog1py", "polygamma", "complex", "cumsum", "cumprod", "logcumsumexp", "diff", "outer",
    "sort", "msort", "topk", "max", "min", "median", "nanmedian", "mode", "kthvalue", "aminmax",
    "scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy", "index_reduce"}
_REFUSED = {**dict.fromkeys(_PARTIAL_OVERLAP, ("partial",)),
            **dict.fromkeys(_ANY_OVERLAP, ("partial", "full"))}


# Kernels whose out= must have the input's dtype, or be bool, checked before they run
_SAME_DTYPE_OUT = {"ceil", "floor", "round", "trunc", "fix", "frac", "sign", "sgn", "neg",
                   "negative", "abs", "absolute", "bitwise_not"}
_BOOL_OUT = {"signbit", "isposinf", "isneginf"}
# PyTorch's functions without an out= argument
_NO_OUT = {"isnan", "isinf", "isfinite", "isreal", "positive"}


def _check_out_first(name, source, have):
    """PyTorch's check of out='s dtype against the input's `source`, which comes before the
    kernel's own refusals (of bool, of complex)."""
    if name in _SAME_DTYPE_OUT and have is not source and not (
            name in ("abs", "absolute") and source.is_complex) and not (
            name in ("neg", "negative") and source is dtypes.bool_):
        raise RuntimeError(f"Found dtype {have.legacy} but expected {source.legacy}")
    if name == "nan_to_num" and have is not source:
        raise RuntimeError(f"nan_to_num: dtype of out: {have.legacy} should be same as input: "
                           f"{source.legacy}")
    if name in _BOOL_OUT and have is not dtypes.bool_ and not source.is_complex:
        raise RuntimeError(f"{name} does not support non-boolean outputs.")


def write_out(name, result_fn, inputs, out):
    """Compute into the existing tensor `out` (kept by identity; resized if its shape
    differs, as PyTorch does)."""
    if out is None:
        return result_fn()
    several = isinstance(out, (tuple, list))  # aminmax(..., out=(min, max)), each written
    outs = tuple(out) if several else (out,)
    if not several and inputs and hasattr(inputs[0], "dtype"):
        _check_out_first(name, inputs[0].dtype, out.dtype)
    if is_grad_enabled() and builtins.any(getattr(t, "requires_grad", False)
                                          for t in (*inputs, *outs)):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    for written in outs:
        overlap.check_internal(written)
    with no_grad():
        result = result_fn()
        for written, value in zip(outs, result if several else (result,)):
            shape = value.shape if name in _ANY_OVERLAP else None  # they resize out= first
            overlap.check_out(written, shape, inputs, _REFUSED.get(name, ()))
        if several:
            written = [_write(name, r, inputs, o) for r, o in zip(result, out)]
            if not hasattr(result, "_fields"):
                return type(result)(written)
            copy = type(result)(*written)
            if hasattr(result, "__dict__"):  # max/min's kind, which names it in its repr
                copy.__dict__.update(vars(result))
            return copy
        return _write(name, result, inputs, out)


def with_out(aten, fn):
    """fn taking out=, its result written there; `aten` names it in out='s errors."""
    @functools.wraps(fn)
    def function(*args, out=None, **kwargs):
        return write_out(aten, lambda: fn(*args, **kwargs), args, out)
    return function


# reductions whose out= gives the dtype they accumulate in, as their dtype= would: any cast
_OUT_DTYPE_ACCUMULATES = frozenset({"sum", "prod", "cumsum", "cumprod"})


def _write(name, result, inputs, out):
    result = _out_dtype(name, result, inputs, out)
    if tuple(out.shape) != tuple(result.shape):
        if out.numel():
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{list(out.shape)}, which does not match the required output shape "
                          f"{list(result.shape)}. This behavior is deprecated, and in a future "
                          "PyTorch release outputs will not be resized unless they have zero "
                          "elements. You can explicitly reuse an out tensor t by resizing it, "
                          "inplace, to zero elements with t.resize_(0).", UserWarning,
                          stacklevel=4)
        if name not in _OUT_DTYPE_ACCUMULATES:
            refuse_cast(result.dtype, out.dtype)
        out._value = result._value.astype(out.dtype.ir.numpy)
        out._counter.value += 1
        return out
    return out._update(lambda: result)


# torch.sub(2, t), torch.xlogy(2, t), ...: functions with a Scalar-first overload; the
# number runs as a 0-dim tensor of the dtype it promotes to with t, as a wrapped number would
_SCALAR_FIRST = {"add", "sub", "mul", "div", "subtract", "multiply", "divide", "true_divide",
                 "remainder", "floor_divide", "float_power", "xlogy",
                 "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
                 "bitwise_right_shift"}

# PyTorch's Scalar_Tensor overloads, the operators' reflected forms (without a derivative)
_NUMBER_FIRST = {"remainder": "__rmod__", "floor_divide": "__rfloordiv__"}


# How the kernels returning (values, indices) word an out= values tensor of another dtype
_VALUES_WORDS = {
    "mode": "expected scalar type '{want}' but got '{have}' for values output",
    "kthvalue": "output values must be of same type as input",
    "cummax": "expected scalar_type {want} but found {have}",
    "cummin": "expected scalar_type {want} but found {have}",
    "logcumsumexp": "expected scalar_type {want} but found {have}",
    **dict.fromkeys(("median", "nanmedian"), (
        "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; "
        "but type torch.{have}Tensor does not equal torch.{want}Tensor (while checking "
        "arguments for median)")),
}


def _out_dtype(name, result, inputs, out):
    """result, checked against out='s dtype as PyTorch checks it for `name` (its words differ by
    operation); elsewhere the in-place write's casting rule holds."""
    have, want = out.dtype, result.dtype
    if have is want:
        return result
    values = want is getattr(inputs[0], "dtype", None)  # not the indices of (values, indices)
    if values and name in _VALUES_WORDS:
        raise RuntimeError(_VALUES_WORDS[name].format(have=have.legacy, want=want.legacy))
    if name in ("matmul", "mm", "bmm", "aminmax", "gather", "max", "min", "sort", "topk",
                "tril", "triu", "diag"):
        raise RuntimeError(f"Expected out tensor to have dtype {dtypes.CPP_NAMES[want.legacy]}, "
                           f"but got {dtypes.CPP_NAMES[have.legacy]} instead")
    if name in ("cat", "stack") and not dtypes.can_cast(want, have):
        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                        f"{have.legacy}")
    if name in ("complex", "polar"):
        raise RuntimeError(f"Expected object of scalar type {want.legacy} but got scalar type "
                           f"{have.legacy} for argument 'out'")
    if name == "nonzero":
        raise RuntimeError(f"nonzero: Expected out tensor to have scalar type Long but got "
                           f"scalar type{have.legacy}")  # no space, as in PyTorch
    if name in ("neg", "negative", "abs", "absolute") and have is not inputs[0].dtype:
        refuse_cast(want, have)  # (abs of a complex tensor may go into its real type)
        raise RuntimeError(f"Found dtype {have.legacy} but expected {want.legacy}")
    if name == "float_power":
        raise RuntimeError(f"the output given to float_power has dtype {have.legacy} but the "
                           f"operation's result requires dtype {want.legacy}")
    if name == "clamp":
        raise RuntimeError(f"Found dtype {have.legacy} but expected {want.legacy}")
    if name in ("amax", "amin"):
        raise RuntimeError(f"Expected the dtype for input and out to match, but got "
                           f"{inputs[0].dtype.legacy} for input's dtype and {have.legacy} for "
                           "out's dtype.")
    return result


def _function(name):
    scalar_first = name in _SCALAR_FIRST
    hot = name in ELEMENTWISE

    @converting
    def function(input, *args, out=None, **kwargs):
        if name in _NO_OUT:
            if out is not None:
                raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
            if is_python_scalar(input):
                raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                                f"{type(input).__name__}")
        if hot and out is None and not kwargs and len(args) == 1:  # the operator's own path
            result = hot_binary(name, input, args[0])
            if result is not None:
                return result
        if TRACING:
            (input, *args), kwargs = traced_as_tensors((input, *args), kwargs)
        check_function(name, (input, *args), kwargs)
        if scalar_first and is_python_scalar(input) and args and hasattr(args[0], "_edge"):
            if name == "sub":  # a Python bool is a bool tensor there, which sub refuses
                refuse_bool_subtraction(input, args[0])
            if name in _NUMBER_FIRST:
                reflected = getattr(args[0], _NUMBER_FIRST[name])
                return write_out(name, lambda: reflected(input), (input, *args), out)
            # float_power computes in double: its number stays one
            input = tensor(input, dtype=dtypes.complex128 if isinstance(input, complex) else
                           dtypes.float64) if name == "float_power" else tensor(
                input, dtype=result_type(args[0], input))
        elif name in NUMBERS_AS_TENSORS and is_python_scalar(input):  # torch.add(2, 3)
            input = tensor(input)
        method = getattr(operand(input), name)
        return write_out(name, lambda: method(*args, **kwargs), (input, *args), out)
    function.__name__ = name
    return function


add, sub, mul, div = map(_function, ("add", "sub", "mul", "div"))
subtract, multiply, divide, true_divide = map(_function, ("subtract", "multiply", "divide",
                                                     "true_divide"))
addcmul, addcdiv, lerp = map(_function, ("addcmul", "addcdiv", "lerp"))
mm, matmul, dot, mv = map(_function, ("mm", "matmul", "dot", "mv"))
spmm = mm  # torch.spmm: mm, whose first operand may be sparse


def pow(input, exponent, *, out=None):
    """torch.pow(number, t) is pow.Scalar, the reflected `number ** t`."""
    check_function("pow", (input, exponent), {})
    if is_python_scalar(input):
        return write_out("pow", lambda: operand(exponent).__rpow__(input), (input, exponent), out)
    return _function("pow")(input, exponent, out=out)
abs, neg, exp, expm1, log, log1p = map(_function, ("abs", "neg", "exp", "expm1", "log", "log1p"))
sqrt, rsqrt, sin, cos, tan, tanh = map(_function, ("sqrt", "rsqrt", "sin", "cos", "tan", "tanh"))
sigmoid, relu, sign, square = map(_function, ("sigmoid", "relu", "sign", "square"))
floor, ceil, round, trunc, reciprocal = map(_function, ("floor", "ceil", "round", "trunc",
                                                         "reciprocal"))
clamp = clip = _function("clamp")
maximum, minimum = _function("maximum"), _function("minimum")
eq, ne, lt, le, gt, ge = map(_function, ("eq", "ne", "lt", "le", "gt", "ge"))
logical_and, logical_or, logical_not = map(_function, ("logical_and", "logical_or",
                                                       "logical_not"))
remainder, fmod, floor_divide, float_power = map(_function, ("remainder", "fmod",
                                                             "floor_divide", "float_power"))
bitwise_and, bitwise_or, bitwise_xor, bitwise_not = map(_function, (
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"))
bitwise_left_shift, bitwise_right_shift = map(_function, ("bitwise_left_shift",
                                                          "bitwise_right_shift"))
gcd, lcm = _function("gcd"), _function("lcm")
isclose, isfinite, isnan = _function("isclose"), _function("isfinite"), _function("isnan")
sum, mean, norm, var, std = map(_function, ("sum", "mean", "norm", "var", "std"))
max, min, amax, amin = map(_function, ("max", "min", "amax", "amin"))
argmax, argmin, all, any = map(_function, ("argmax", "argmin", "all", "any"))
prod, cumsum, cumprod, cummax, cummin = map(_function, ("prod", "cumsum", "cumprod", "cummax",
                                                      "cummin"))
logcumsumexp, diff, nansum, nanmean = map(_function, ("logcumsumexp", "diff", "nansum",
                                                      "nanmean"))
aminmax, count_nonzero, take_along_dim = map(_function, ("aminmax", "count_nonzero",
                                                         "take_along_dim"))
logsumexp, softmax, log_softmax = map(_function, ("logsumexp", "softmax", "log_softmax"))
reshape, flatten, squeeze, unsqueeze = map(_function, ("reshape", "flatten", "squeeze",
                                                       "unsqueeze"))
transpose, permute, t, clone = map(_function, ("transpose", "permute", "t", "clone"))
swapaxes = swapdims = transpose
outer, inner, kron = map(_function, ("outer", "inner", "kron"))
vdot = with_out("vdot", contract.vdot)
ger = outer


def tensordot(a, b, dims=2, out=None):
    return write_out("tensordot", lambda: contract.tensordot(a, b, dims), (a, b), out)


sort, argsort, msort, topk, kthvalue = map(_function, ("sort", "argsort", "msort", "topk",
                                                       "kthvalue"))
median, nanmedian, quantile, nanquantile = map(_function, ("median", "nanmedian", "quantile",
                                                           "nanquantile"))
mode, index_reduce, angle, histogram = map(_function, ("mode", "index_reduce", "angle",
                                                       "histogram"))
is_inference, get_device = _function("is_inference"), _function("get_device")
as_strided = _function("as_strided")
gather, scatter, scatter_add, scatter_reduce = map(_function, (
    "gather", "scatter", "scatter_add", "scatter_reduce"))
index_select, index_add, index_copy, index_fill, index_put = map(_function, (
    "index_select", "index_add", "index_copy", "index_fill", "index_put"))
masked_fill, masked_select, masked_scatter = map(_function, ("masked_fill", "masked_select",
                                                             "masked_scatter"))
take, put, select, _nonzero, argwhere = map(_function, ("take", "put", "select", "nonzero",
                                                        "argwhere"))


def nonzero(input, *, out=None, as_tuple=False):
    if as_tuple and out is not None:
        raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
    return _nonzero(input, out=out, as_tuple=as_tuple)
conj, conj_physical, resolve_conj, resolve_neg = map(_function, (
    "conj", "conj_physical", "resolve_conj", "resolve_neg"))
is_conj, is_neg, is_signed, split_with_sizes = map(_function, ("is_conj", "is_neg", "is_signed",
                                                               "split_with_sizes"))
# torch.asin, torch.atan2, torch.lgamma, ...: every method of gradjit.tensor.ufuncs
globals().update({name: _function(name) for name in ufuncs.METHOD_NAMES})



def _in_place(name):
    @converting
    def function(input, *args, **kwargs):
        if TRACING:
            (input, *args), kwargs = traced_as_tensors((input, *args), kwargs)
        return getattr(input, name)(*args, **kwargs)
    function.__name__ = name
    return function


# torch.sin_(x), torch.clamp_(x, min=0), ...: the in-place methods PyTorch also offers as
# functions of the torch namespace.
globals().update({name: _in_place(name) for name in (
    "abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
    "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_",
    "clamp_min_", "clip_", "cos_", "cosh_", "deg2rad_", "detach_", "erf_", "erfc_", "exp2_",
    "exp_", "expm1_", "fill_", "floor_", "gcd_", "lcm_", "log10_", "log1p_", "log2_", "log_",
    "logit_", "nan_to_num_", "neg_", "rad2deg_", "reciprocal_", "relu_", "round_", "rsqrt_",
    "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_",
    "xlogy_", "zero_", "index_put_", "fix_", "frac_", "conj_physical_")})


def fill(input, value):
    """A copy of input with every element value."""
    if hasattr(value, "_edge"):
        return apply("FillBackward1", lambda x, v: x.clone().fill_(v), input, value)
    return apply("FillBackward0", lambda x: x.clone().fill_(value), input)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    check_function("allclose", (input, other), {})
    return input.allclose(other, rtol, atol, equal_nan)


def equal(input, other) -> bool:
    check_function("equal", (input, other), {})
    return input.equal(other)


def where(condition, input=None, other=None):
    """torch.where(condition, input, other); torch.where(condition) is
    condition.nonzero(as_tuple=True)."""
    if input is None and other is None:
        return operand(condition).nonzero(as_tuple=True)
    check_function("where", (condition, input, other), {})
    if not hasattr(other, "_edge") and not hasattr(input, "_edge"):
        input = tensor(input)
    return arith_where(condition, input, other)


@accept_numpy_names
def cat(tensors, dim=0, *, out=None):
    tensors = cat_arguments(tensors)
    return write_out("cat", lambda: _cat(tensors, dim), tensors, out)


concat = concatenate = cat


@accept_numpy_names
def stack(tensors, dim=0, *, out=None):
    tensors = list(tensors)
    return write_out("stack", lambda: _stack(tensors, dim), tensors, out)


searchsorted = with_out("searchsorted", sorting.searchsorted)
bucketize = with_out("bucketize", sorting.bucketize)
tril, triu, diag = map(_function, ("tril", "triu", "diag"))


def is_tensor(obj) -> bool:
    return hasattr(obj, "_edge") and hasattr(obj, "_value")


def _assert(condition, message):
    """torch._assert: an assert that symbolic tracing records (fx specializes arguments so)."""
    assert condition, message


def numel(input) -> int:
    return input.numel()
