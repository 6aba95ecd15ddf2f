"""complex32 (ComplexHalf) tensors: torch 2.13's CPU builds few kernels for them; the methods
whose kernels it leaves out raise its NotImplementedError, by the kernel torch names."""
from __future__ import annotations

from gradjit.tensor import dtypes

_VML = ("acos", "asin", "atan", "cos", "exp", "expm1", "log", "log10", "log1p", "log2", "sin",
        "sqrt", "tan", "tanh")
_CPU = ("acosh", "angle", "asinh", "atanh", "cosh", "reciprocal", "rsqrt", "sigmoid", "sinh",
        "sinc", "logit", "xlogy", "atan2", "logical_not", "logical_and", "take")
# method -> the CPU kernel torch names in its refusal; an in-place form (exp_) refuses as well
KERNELS = {
    **{m: f"{m}_vml_cpu" for m in _VML}, **{m: f"{m}_cpu" for m in _CPU},
    **dict.fromkeys(("div", "true_divide", "__truediv__"), "div_cpu"),
    **dict.fromkeys(("pow", "square", "__pow__", "__rpow__"), "pow"),
    "exp2": "exp2", "__rtruediv__": "reciprocal_cpu",
    **dict.fromkeys(("sum", "mean", "sum_to_size"), "sum_cpu"),
    "prod": "prod_out_cpu", "cumsum": "cumsum_out_cpu", "cumprod": "cumprod_out_cpu",
    "logsumexp": "exp_vml_cpu", "nan_to_num": "nan_to_num", "trace": "trace",
    "unique": "unique", "fliplr": "flip_cpu", "rot90": "flip_cpu", "dot": "dot",
    "vdot": "vdot", "equal": "equal_cpu", "lerp": "lerp_kernel_scalar",
    "addcdiv": "addcdiv_cpu_out", "gather": "scatter_gather_tensor_cpu",
    **dict.fromkeys(("matmul", "mm", "inner", "__matmul__"), "addmm_impl_cpu_"),
}


def refuse_complex_half_in(cls):
    """Wrap the methods in KERNELS (and their in-place forms) so that a complex32 tensor
    raises torch's refusal; an accumulation in another dtype (sum(dtype=...)) runs."""
    for name, kernel in KERNELS.items():
        for method in (name, name + "_"):
            if hasattr(cls, method):
                setattr(cls, method, _refusing(getattr(cls, method), kernel))
    return cls


def _refusing(method, kernel):
    def refusing(self, *args, **kwargs):
        if self.dtype is dtypes.complex32 and kwargs.get("dtype") in (None, dtypes.complex32):
            raise NotImplementedError(f'"{kernel}" not implemented for \'{self.dtype.legacy}\'')
        return method(self, *args, **kwargs)
    refusing.__name__, refusing.__doc__ = method.__name__, method.__doc__
    return refusing
