"""uint16/uint32/uint64 tensors: torch 2.13 builds few CPU kernels for them; the operations
it leaves out, by grad_fn name, raise its NotImplementedError instead of wrapping."""
from __future__ import annotations

_WIDE_UNSIGNED = frozenset(("ui16", "ui32", "ui64"))

# grad_fn name -> the CPU kernel torch names in its refusal.
KERNELS = {
    **dict.fromkeys(("AddBackward0", "SubBackward0", "RsubBackward1"), "add_stub"),
    "FloorDivideBackward0": "div_floor_cpu",
    **dict.fromkeys(("RemainderBackward0", "RemainderBackward1"), "remainder_cpu"),
    **dict.fromkeys(("FmodBackward0", "FmodBackward1"), "fmod_cpu"),
    "NegBackward0": "neg_cpu", "AbsBackward0": "abs_cpu", "SignBackward0": "sign_cpu",
    "LtBackward0": "lt_cpu", "LeBackward0": "le_cpu", "GtBackward0": "gt_cpu",
    "GeBackward0": "ge_cpu", "MaxBackward1": "max_all", "MinBackward1": "min_all",
    "MaximumBackward0": "maximum_cpu", "MinimumBackward0": "minimum_cpu",
    "ClampBackward1": "clamp_scalar_cpu", "BitwiseNotBackward0": "bitwise_not_cpu",
    "BitwiseLeftShiftBackward0": "lshift_cpu", "BitwiseRightShiftBackward0": "rshift_cpu",
    "GcdBackward0": "gcd_cpu", "LcmBackward0": "lcm_cpu", "DotBackward0": "dot",
    "PowBackward0": "pow", "TopkBackward0": "topk_cpu", "FlipBackward0": "flip_cpu",
    "ScatterAddBackward0": "scatter_gather_tensor_cpu", "CummaxBackward0": "cummax_cpu",
    "CumminBackward0": "cummin_cpu", "MedianBackward0": "median_cpu",
    "KthvalueBackward0": "kthvalue_cpu", "ModeBackward0": "mode_cpu",
    "LogicalNotBackward0": "logical_not_cpu", "AmaxBackward0": "max_values_cpu",
    "AminBackward0": "min_values_cpu", "AminmaxBackward0": "aminmax_cpu",
    "MaxBackward0": "max_cpu", "MinBackward0": "min_cpu",
}
# Operations whose other tensor operands are indices: only the first tensor's dtype counts.
_INDEXED = frozenset(("ScatterAddBackward0", "TopkBackward0", "CummaxBackward0",
                      "CumminBackward0", "KthvalueBackward0", "ModeBackward0", "MaxBackward0",
                      "MinBackward0", "MedianBackward0"))


def refuse_wide_unsigned(name, args):
    """Raise torch's refusal when the operation `name` (in KERNELS) has wide unsigned tensor
    operands; tensors of several dtypes are left to promotion, which torch refuses first."""
    tensors = [a for a in args if hasattr(a, "_edge")]
    dtypes = {a.dtype for a in tensors[:1 if name in _INDEXED else None]}
    if len(dtypes) == 1:
        refuse(KERNELS[name], dtypes.pop())


def refuse(kernel, dtype):
    """torch's refusal of a wide unsigned `dtype` by its CPU kernel `kernel`."""
    if dtype.ir.name in _WIDE_UNSIGNED:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dtype.legacy}\'')
