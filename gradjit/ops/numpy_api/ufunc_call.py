"""A ufunc called on gradjit values as numpy calls it: operands cast to the loop numpy picks
(int8's sin in float16, bool's floor_divide in int8), `where=` masking and `out=` as a
functional write into the out array (a traced array takes the new value, a Tensor is copied
into), with numpy's shape and casting errors."""
from __future__ import annotations

import warnings

import numpy as np

from gradjit import ops
from gradjit.ir.primitive import ir_type, is_python_scalar
from gradjit.ops.numpy_api.writes import assign, fresh
from gradjit.ops.promote import numpy_shape


def _operand(x):
    return np.asarray(x) if isinstance(x, (list, tuple)) else x


def _loop_type(x):
    """What numpy's loop resolution reads of x: a Python number (or a traced one) as its
    Python type, so that it promotes weakly; anything else as its dtype."""
    dt = np.result_type(x) if is_python_scalar(x) else ir_type(x).dtype.numpy
    weak = is_python_scalar(x) or getattr(x, "__gradjit_weak__", False)
    return {"i": int, "f": float, "c": complex}.get(dt.kind, dt) if weak else dt


def _cast(x, dt):
    """x in the loop's dtype (a traced array only when its dtype differs, so a bfloat16
    Tensor, float32 to numpy, stays bfloat16)."""
    if is_python_scalar(x):
        return x
    return x if ir_type(x).dtype.numpy == dt else ops.astype(x, dt)


def _outs(out):
    """numpy's out tuple (one entry per output, numpy checks), () when nothing is written."""
    out = out if isinstance(out, tuple) else (out,)
    return out if any(o is not None for o in out) else ()


def call(ufunc, fn, inputs, kwargs, outer=False):
    """numpy's `ufunc(*inputs, **kwargs)` (or `ufunc.outer`) computed by gradjit's `fn`;
    kwargs other than numpy's call options are `fn`'s (a gufunc's axes)."""
    kwargs = dict(kwargs)
    out = _outs(kwargs.pop("out", None))
    where = kwargs.pop("where", True)
    casting = kwargs.pop("casting", "same_kind")
    signature = kwargs.pop("signature", None)
    dtype = kwargs.pop("dtype", None)
    for ignored in ("order", "subok"):  # a traced value has no layout nor subclass
        kwargs.pop(ignored, None)
    if dtype is not None:
        signature = (None,) * ufunc.nin + (np.dtype(dtype),) * ufunc.nout
    inputs = [_operand(x) for x in inputs]
    requested = [_loop_type(x) for x in inputs] + \
        [ir_type(o).dtype.numpy if o is not None else None for o in out or (None,) * ufunc.nout]
    options = {"casting": casting} | ({"signature": signature} if signature else {})
    loop = ufunc.resolve_dtypes(tuple(requested), **options)
    # numpy's float16 loops compute in float32 and round each result, as gradjit does here
    # (but those that step through float16's own values)
    widen = ufunc not in (np.spacing, np.nextafter)
    inputs = [_cast(x, np.dtype(np.float32) if dt == np.float16 and widen else dt)
              for x, dt in zip(inputs, loop)]
    if outer:  # every pair: the first operand's axes before the second's
        a, b = inputs
        inputs = [ops.reshape(a, ops.shape_of(a) + (1,) * len(ops.shape_of(b))), b]
    results = fn(*inputs, **kwargs)
    results = results if isinstance(results, tuple) else (results,)
    results = [ops.astype(r, dt) if ir_type(r).dtype.numpy != dt else r
               for r, dt in zip(results, loop[ufunc.nin:])]
    shape = np.broadcast_shapes(ops.shape_of(results[0]),
                                *(() if where is True else (np.shape(_operand(where)),)))
    if not out:
        if where is not True:
            warnings.warn("'where' used without 'out', expect unitialized memory in output. "
                          "If this is intentional, use out=None.", UserWarning, stacklevel=4)
            # numpy leaves the masked-out elements uninitialized: gradjit gives zeros
            results = [ops.where(_operand(where), r, np.zeros((), ir_type(r).dtype.numpy))
                       for r in results]
        results = [fresh(r, inputs) for r in results]
        return results[0] if ufunc.nout == 1 else tuple(results)
    for dst, r in zip(out, results):
        if dst is not None:
            _write(ufunc, dst, r, shape, where)
    written = tuple(d if d is not None else r for d, r in zip(out, results))
    return written[0] if ufunc.nout == 1 else written


def _write(ufunc, dst, result, shape, where):
    """numpy's store of a result into `out`: the operands broadcast to out's shape (never
    the other way), the masked-out elements keeping out's values."""
    target = ops.shape_of(dst)
    try:
        full = np.broadcast_shapes(shape, target)
    except ValueError:
        full = None
    if full != target:
        raise ValueError(f"non-broadcastable output operand with shape {numpy_shape(target)} "
                         f"doesn't match the broadcast shape {numpy_shape(full or shape)}")
    value = ops.broadcast_to(ops.astype(result, ir_type(dst).dtype.numpy), target)
    if where is not True:
        value = ops.where(_operand(where), value, dst)
    assign(dst, value, ufunc.__name__)
