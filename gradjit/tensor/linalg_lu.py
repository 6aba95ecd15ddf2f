"""torch.linalg's LU family (lu_factor, lu_factor_ex, lu, lu_solve), torch.lu_unpack and the
older torch.lu / torch.lu_solve with their Tensor methods, over gradjit.ops.linalg's getrf."""
from __future__ import annotations

import warnings

import numpy as np

from gradjit.ops import linalg as L
from gradjit.tensor.arith import apply, operand
from gradjit.tensor.functions import write_out
from gradjit.tensor.lapack_layout import by_columns, by_rows
from gradjit.tensor.linalg import _result
from gradjit.tracer.leaves import is_traced

linalg_lu_factor = _result("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex = _result("linalg_lu_factor_ex", ("LU", "pivots", "info"))
linalg_lu = _result("linalg_lu", ("P", "L", "U"))
lu_unpack_result = _result("lu_unpack", ("P", "L", "U"))
lu_with_info = _result("_lu_with_info", ("LU", "pivots", "info"))

_ZERO_PIVOT = ("U[{k},{k}] is zero and using it on lu_solve would result in a division by zero. "
               "If you still want to perform the factorization, consider calling "
               "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def _factorable(name, A, pivot):
    A = operand(A)
    if A.dim() < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(A.shape)} instead")
    if A.dtype.ir.name not in ("f32", "f64", "c64", "c128"):
        raise NotImplementedError(f'"lu_cpu" not implemented for \'{A.dtype.legacy}\'')
    if not pivot:
        raise RuntimeError(f"{name}: LU without pivoting is not implemented on the CPU")
    return A


def _tensor(x):
    """A result that does not depend on the operands is computed as a numpy array."""
    from gradjit.tensor.factories import tensor
    return x if hasattr(x, "_edge") else tensor(x)


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    A = _factorable("linalg.lu_factor_ex", A, pivot)
    lu, pivots = apply("LinalgLuFactorExBackward0", L.lu_factor, A)
    lu, pivots = by_columns(lu), by_rows(pivots)
    return linalg_lu_factor_ex(lu, pivots, _tensor(L.lu_info(lu.detach())))


def lu_factor(A, *, pivot=True):
    """LU and pivots; an exactly singular matrix is an error (lu_solve would divide by 0)."""
    lu, pivots, info = lu_factor_ex(_factorable("linalg.lu_factor", A, pivot))
    if is_traced(info):  # the check needs the values; a traced program returns the factors
        return linalg_lu_factor(lu, pivots)
    failed = np.flatnonzero(info.numpy())
    if failed.size:
        where = f"(Batch element {failed[0]}): " if info.dim() else ""
        k = info.numpy().reshape(-1)[failed[0]]
        raise RuntimeError(f"torch.linalg.lu_factor: {where}{_ZERO_PIVOT.format(k=k)}")
    return linalg_lu_factor(lu, pivots)


def lu(A, *, pivot=True):
    """(P, L, U) with A = P L U; only L and U carry a gradient."""
    A = _factorable("linalg.lu_factor", A, pivot)
    p, lower, upper = apply("LinalgLuBackward0",
                            lambda a: L.lu_unpack(*L.lu_factor(a)), A)
    return linalg_lu(by_rows(_tensor(p)).detach(), by_rows(lower), by_rows(upper))


def _pivots(name, pivots, message):
    pivots = operand(pivots)
    if pivots.dtype.ir.name != "i32":
        raise RuntimeError(f"{name}: {message}")
    return pivots


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """(P, L, U) of lu_factor's result; the parts not asked for are empty."""
    return write_out("lu_unpack", lambda: _lu_unpack(LU_data, LU_pivots, unpack_data,
                                                     unpack_pivots), (LU_data, LU_pivots), out)


def _lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots):
    LU_data = operand(LU_data)
    LU_pivots = _pivots("torch.lu_unpack", LU_pivots,
                        "LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                        "Note: this function is intended to be used with the output produced "
                        "by torch.linalg.lu_factor")
    p, lower, upper = apply("LuUnpackBackward0", L.lu_unpack, LU_data, LU_pivots,
                            operands=(LU_data,))
    empty = LU_data.new_empty(0)
    if not unpack_data:
        lower = upper = apply("LuUnpackBackward0", lambda x: x.flatten()[:0], LU_data)
    return lu_unpack_result(by_rows(_tensor(p)).detach() if unpack_pivots else empty,
                            by_rows(lower), by_rows(upper))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    LU, B = operand(LU), operand(B)
    pivots = _pivots("linalg.lu_solve", pivots, "pivots should be a Tensor of scalar type "
                                                "torch.int32")
    if B.dim() < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 "
                           "dimensions.")
    if LU.dim() < 2 or LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError(f"torch.linalg.lu_solve: A must be batches of square matrices, but "
                           f"they are {LU.shape[-2]} by {LU.shape[-1]} matrices")
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{equation} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    if pivots.shape[-1] != n:
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the "
                           "dimension of the matrix")
    if LU.dtype is not B.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but "
                           f"found LU of type {LU.dtype.legacy} and B of type {B.dtype.legacy} "
                           "instead")
    X = apply("LinalgLuSolveBackward0", L.lu_solve, LU, pivots, B, left, adjoint,
              operands=(LU, B))
    # PyTorch solves X A = B as the transposed system: X is that solution's transpose
    return by_columns(X) if left else by_rows(X)


def torch_lu(A, pivot=True, get_infos=False, out=None):
    """torch.lu: (LU, pivots), with the infos when `get_infos`; a singular matrix is no error."""
    warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / "
                  "torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.",
                  UserWarning, stacklevel=2)

    def factor():
        result = lu_factor_ex(_factorable("linalg.lu_factor", A, pivot))
        return lu_with_info(*result) if get_infos else (result.LU, result.pivots)
    return write_out("lu", factor, (A,), out)


def torch_lu_solve(b, LU_data, LU_pivots, out=None):
    """torch.lu_solve: linalg.lu_solve with its arguments in the older order."""
    warnings.warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solve and will be "
                  "removed in a future PyTorch release.", UserWarning, stacklevel=2)
    return write_out("lu_solve", lambda: lu_solve(LU_data, LU_pivots, b), (b, LU_data), out)


class LuMixin:
    """Tensor.lu and Tensor.lu_solve."""

    def lu(self, pivot=True, get_infos=False):
        return torch_lu(self, pivot, get_infos)

    def lu_solve(self, LU_data, LU_pivots):
        return torch_lu_solve(self, LU_data, LU_pivots)
