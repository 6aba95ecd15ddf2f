"""Sorting primitives. They are library primitives: compiled programs run them on the host
through numpy's sort, between kernels, as matrix products run through BLAS."""
from __future__ import annotations

import numpy as np

from gradjit.ir.primitive import Primitive, register, require
from gradjit.ir.structural import batch_shifted
from gradjit.ir.types import TensorType, int64


def _argsort_rule(x, *, axis):
    require(0 <= axis < x.rank, f"axis {axis} out of range for rank {x.rank}")
    return TensorType(x.shape, int64)


def _argsort_eval(x, *, axis):
    # Stable, so equal elements keep their order and gradients through a sort are
    # deterministic; NaNs go last, as numpy sorts them.
    return np.argsort(x, axis=axis, kind="stable")


argsort = register(Primitive("argsort", "library", _argsort_rule, _argsort_eval,
                             lambda g, y, x, *, axis: (None,), params=("axis",),
                             differentiable=False, batch=batch_shifted(
                                 "argsort", lambda size, axis: {"axis": axis + 1})))
