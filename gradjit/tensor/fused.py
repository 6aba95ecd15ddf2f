"""Eager operations that numpy computes at once and the tape records as one entry: a closed-form
VJP (log_softmax, softmax, nll_loss of class indices, relu, clamp by numbers, addmm) or the one
primitive they are (sum, transposes), where composing primitives cost a Python call per
primitive each way; traced values take the primitives."""
from __future__ import annotations

import math

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.primitive import Partials, ir_type, quietly
from gradjit.ir.types import _asarray
from gradjit.runtime.blas import product
from gradjit.tensor import graph, overlap
from gradjit.tensor.grad_mode import _state
from gradjit.tensor.hot_path import _CPU, _RESULT_CLASS, _record, _stale, plain_float


class Rule:
    """Stands where a primitive stands in a tape record: `vjp(g, out, *operands, **params)`
    (or a Partials of one rule per operand) is written with primitives, so backward runs it on
    arrays, and with create_graph=True records it and differentiates it again (forward-mode
    AD takes that route too)."""

    differentiable = True

    def __init__(self, name, vjp):
        self.name, self.vjp = name, vjp

    def __repr__(self) -> str:
        return f"<fused {self.name}>"


def fused(rule, name, tensors, evaluate):
    """The operation `name` on `tensors` as `evaluate(*arrays) -> (values, params)`, recorded
    as one `rule` record {params} under a grad_fn `name` where one requires grad: for CPU
    tensors over numpy arrays of one float32/float64 dtype that are no stale saved values,
    outside any other tensor operation. None otherwise (the general path runs)."""
    if graph._scopes.active is not None:
        return None
    cls = _RESULT_CLASS.get(type(tensors[0]))
    dt = getattr(tensors[0]._value, "dtype", None) if cls is not None else None
    if not plain_float(dt):
        return None
    history = False
    for t in tensors:
        x = t._value
        if type(t) not in _RESULT_CLASS or type(x) is not np.ndarray or x.dtype is not dt or \
                t._device is not _CPU or (t._saved is not None or t._poison is not None) and \
                _stale(t):
            return None
        history = history or t._edge is not None or t._base is not None
    out, params = quietly(evaluate, *[t._value for t in tensors])
    if type(out) is not np.ndarray:  # a 0-d result comes back as a numpy scalar
        out = _asarray(out)
    result = cls._wrap(out)
    if out.base is not None and overlap.same_memory(out, tensors[0]._value):
        result._share(tensors[0], lambda array: evaluate(array)[0])  # a view, as numpy made it
    if history and _state.enabled:
        _record(rule, name, tensors, result, None, out, params)
    return result


def permuted(name, t, perm):
    """t's axes permuted (a view), recorded as the transpose primitive itself; None where the
    general path runs."""
    return fused(S.transpose, name, (t,),
                 lambda x: (S.transpose.evaluate(x, perm=perm), {"perm": perm}))


# ---- softmax and log_softmax over one axis ----
# The forward is the general path's primitives' numpy evaluations in its order (the shift by
# the maximum, unguarded: a row holding +inf is nan throughout, as PyTorch's), so values agree
# bit for bit; the maximum starts at -inf, so an empty axis gives an empty result. The VJPs are
# the closed forms PyTorch's kernels compute.

def _softmax(x, *, axis):
    shifted = np.exp(x - np.maximum.reduce(x, axis=axis, keepdims=True, initial=-np.inf))
    return shifted / np.add.reduce(shifted, axis=axis, keepdims=True)


def _log_softmax(x, *, axis):
    shifted = x - np.maximum.reduce(x, axis=axis, keepdims=True, initial=-np.inf)
    return shifted - np.log(np.add.reduce(np.exp(shifted), axis=axis, keepdims=True))


def _summed(g, axis):
    """g summed over `axis` and broadcast back to g's shape."""
    return S.broadcast_to(S.reduce_sum(g, axes=(axis,), keepdims=True), shape=tuple(g.shape))


def _softmax_vjp(g, out, x, *, axis):
    return (E.mul(out, E.sub(g, _summed(E.mul(g, out), axis))),)


def _log_softmax_vjp(g, out, x, *, axis):
    return (E.sub(g, E.mul(E.exp(out), _summed(g, axis))),)


SOFTMAX = Rule("softmax", _softmax_vjp), _softmax
LOG_SOFTMAX = Rule("log_softmax", _log_softmax_vjp), _log_softmax


def normalized(which, name, t, axis):
    """softmax (which: SOFTMAX) or log_softmax (LOG_SOFTMAX) of t over the axis `axis` (an int
    in range), fused; None where the general path runs."""
    rule, evaluate = which
    return fused(rule, name, (t,), lambda x: (evaluate(x, axis=axis), {"axis": axis}))


# ---- nll_loss of class indices ----

def class_picks(input, target, ignore_index):
    """For nll_loss of an (N, C) float32/float64 CPU tensor and N > 0 int64 class indices in
    range (ignore_index aside): the flat positions ((N, 1) int64) of the entries it picks and
    the kept targets' weights (N values of the input's dtype). None otherwise: the general
    path checks and words the errors."""
    x, t = getattr(input, "_value", None), getattr(target, "_value", None)
    if type(x) is not np.ndarray or type(t) is not np.ndarray or x.ndim != 2 or \
            not plain_float(x.dtype) or t.dtype is not _I64 or t.shape != x.shape[:1] or \
            not t.size or input._device is not _CPU or target._device is not _CPU:
        return None
    kept = t != ignore_index
    index = np.where(kept, t, 0)
    if index.min() < 0 or index.max() >= x.shape[1]:
        return None
    positions = np.arange(t.size, dtype=np.int64)[:, None] * x.shape[1] + index[:, None]
    return positions, kept.astype(x.dtype)


_I64 = np.dtype(np.int64)


def _nll(x, *, positions, weights, reduction):
    """The picked entries negated and weighted, then summed, or divided by the weights' sum
    ('mean'), or not reduced ('none'), in the general path's order."""
    loss = -x.reshape(-1)[positions.reshape(-1)] * weights
    if reduction == "none":
        return loss
    total = np.add.reduce(loss, axis=(0,))
    return total if reduction == "sum" else total / np.add.reduce(weights, axis=(0,))


def _nll_vjp(g, out, x, *, positions, weights, reduction):
    if reduction == "mean":  # with no target kept, the loss is 0/0 = nan and the gradient 0
        total = np.add.reduce(weights, axis=(0,))
        g = E.div(g, _asarray(total)) if total != 0 else np.zeros_like(total)
    if reduction != "none":
        g = S.broadcast_to(g, shape=weights.shape)
    picked = S.reshape(E.neg(E.mul(g, weights)), shape=positions.shape)
    t = ir_type(x)
    flat = S.scatter_add(np.zeros(t.size, t.dtype.numpy), positions, picked, axis=0)
    return (S.reshape(flat, shape=tuple(x.shape)),)


NLL = Rule("nll_loss", _nll_vjp)


def nll(input, picks, reduction):
    """nll_loss of class indices given class_picks, fused; None where the general path runs."""
    params = {"positions": picks[0], "weights": picks[1], "reduction": reduction}
    return fused(NLL, "NllLossBackward0", (input,), lambda x: (_nll(x, **params), params))


# ---- relu and clamp by numbers: x, or a bound where x passes it ----
# The values are the general path's wheres in its order (nan and -0.0 stay); the derivative
# is 1 where x is kept and 0 where a bound (or, for clamp, nan) replaced it, as the general
# path's wheres pass the cotangent.

def _dropped_vjp(g, out, x, *, dropped):
    return (E.where(dropped, 0, g),)


DROPPED = Rule("dropped", _dropped_vjp)


def relu_values(x):
    """ops.relu's values and where its derivative is 0 (x <= 0: its where's condition)."""
    return np.where(x < 0, x.dtype.type(0), x), {"dropped": x <= 0}


def clamp_values(lo, hi):
    """ops.clip's values with number bounds (either may be None), and where its derivative
    is 0: at nan and where a bound replaced x."""
    def clamp(x):
        number = x.dtype.type
        dropped = x != x
        y = np.where(dropped, number(math.nan), x)
        for bound, beyond in ((lo, np.less), (hi, np.greater)):
            if bound is not None:
                passed = beyond(y, number(bound))
                dropped |= passed
                y = np.where(passed, number(bound), y)
        return y, {"dropped": dropped}
    return clamp


def kept(name, t, values):
    """relu or clamp (`values`: relu_values or clamp_values's) of t, fused; None where the
    general path runs."""
    return fused(DROPPED, name, (t,), values)


# ---- addmm of matrices, c the product's shape or its row's (nn.Linear) ----
# The forward is the general path's matmul and add; the VJP is matmul's rules and, for a row,
# the sum over the rows it was broadcast to, as the general path's broadcast_to gives it.

def _row_sum(g, out, c, a, b):
    return S.reduce_sum(g, axes=(0,), keepdims=False) if len(c.shape) == 1 else g


_PRODUCT = S.matmul.vjp.rules
ADDMM = Rule("addmm", Partials(_row_sum, lambda g, out, c, a, b: _PRODUCT[0](g, out, a, b),
                               lambda g, out, c, a, b: _PRODUCT[1](g, out, a, b)))


def _addmm(c, a, b):
    return np.add(product(a, b), c), {}  # matmul's evaluation: OpenBLAS on one thread


def addmm(c, a, b):
    """c + a @ b of 2-d a and b and a c shaped as the product or its row, fused; None where
    the general path runs."""
    return fused(ADDMM, "AddmmBackward0", (c, a, b), _addmm)
