"""The method-level scenarios of numpy's own test_multiarray.py (TestMethods: compress,
choose, repeat, round, sort/argsort/partition/searchsorted, put, diagonal, trace, ravel,
swapaxes, conjugate; TestArgmax/Argmin, TestClip, TestTake, TestPutmask, TestChoose,
TestRepeat, TestStats, TestDot/matmul) written as ndarray methods on traced values, compiled
and differentiated against numpy; the numpy-function forms also run on eager Tensors."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import arg, case, check_eager, check_grad, check_jit

A = arg((3, 4))
B = arg((2, 3, 4))
V = arg((7,))
Z = arg((3, 4), "c16")
DUPS = np.array([3.0, 1.0, 2.0, 1.0, 3.0, 0.0, 2.0, 1.0])
NANS = np.array([1.0, np.nan, -np.inf, 0.0, np.inf, np.nan, -1.0])
CNANS = (np.array([0, 0, 1, 1, 0, 1, np.nan, np.nan, np.nan])
         + 1j * np.array([0, 1, 0, 1, np.nan, np.nan, 0, 1, np.nan]))  # in numpy's sort order


def _put(a, ind, v, mode="raise"):
    a = a.copy()
    a.put(ind, v, mode=mode)
    return a


def _putmask(a, mask, values):
    a = np.copy(a)
    np.putmask(a, mask=mask, values=values) if isinstance(values, list) else \
        np.putmask(a, mask, values)
    return a


def _sorted(a, **kwargs):
    a = a.copy()
    a.sort(**kwargs)
    return a


def _partitioned(a, kth, **kwargs):
    a = a.copy()
    a.partition(kth, **kwargs)
    return a


def _filled(a, value):
    a = a.copy()
    a.fill(value)
    return a


def _kth_ok(part, a, kth, axis=-1):
    """What numpy promises of a partition: the kth elements in sorted place, smaller before
    and larger after (the order within each side is the implementation's)."""
    s = np.sort(a, axis=axis)
    kths = np.atleast_1d(kth)
    picked = np.take(part, kths, axis=axis)
    return picked, np.all(np.take(part, kths, axis=axis) == np.take(s, kths, axis=axis))


METHODS = {
    # TestMethods
    "compress-axis0": lambda a: a.compress([0, 1], axis=0),
    "compress-axis1": lambda a: a.compress([0, 1, 0, 1], axis=1),
    "compress-short": lambda a: a.compress([0, 1], axis=1), "compress-flat": lambda a: a.compress(
        [0, 1]),
    "choose-tuple": lambda a: (np.abs(a) > 1).astype(int).choose((a, -a)),
    # a numpy array's own methods are numpy's: traced choices go through np.choose
    "choose-broadcast": lambda a: np.choose(np.array([0, 0, 1, 1]), (a[0], a)),
    "choose-wrap": lambda a: np.choose([0, 3, -1, 2], (a[0], a[1], a[2]), mode="wrap"),
    "choose-clip": lambda a: np.choose([0, 3, -1, 2], (a[0], a[1], a[2]), mode="clip"),
    "choose-raise": lambda a: np.choose([0, 3, 1, 2], (a[0], a[1], a[2])),
    "choose-0d": lambda a: np.choose(np.array(1), [a[0, 0], a[1, 1], a[2, 2]]),
    "prod": lambda a: a.prod(axis=0), "prod-last": lambda a: a.prod(axis=-1),
    "repeat-list": lambda a: a.ravel()[:6].repeat([1, 3, 2, 1, 1, 2]),
    "repeat-axis0": lambda a: a.repeat([2, 1, 0], axis=0), "repeat-axis1": lambda a: a.repeat(
        2, axis=1),
    "repeat-flat": lambda a: a.repeat(2), "repeat-bad": lambda a: a.repeat([1, 2], axis=0),
    "reshape-F": lambda a: a.reshape((6, 2), order="F"), "reshape-T-C": lambda a: a.T.reshape(
        (4, 3), order="C"),
    "round": lambda a: (a * 10).round(), "round-1": lambda a: (a * 10).round(1),
    "round-neg": lambda a: (a * 100).round(-1), "round-decimals-kw": lambda a: a.round(decimals=2),
    "squeeze-axis-tuple": lambda a: a[None, :, None].squeeze(axis=(0,)),
    "squeeze-not-one": lambda a: a[None].squeeze(axis=(1,)),
    "transpose": lambda a: a.transpose(), "transpose-bad": lambda a: a.transpose(0),
    "transpose-repeated": lambda a: a.transpose(0, 0),
    "sort": lambda a: _sorted(a), "sort-axis0": lambda a: _sorted(a, axis=0),
    "sort-kinds": lambda a: [_sorted(a, kind=k) for k in ("quicksort", "mergesort", "heapsort",
                                                          "stable")],
    "sort-stable": lambda a: _sorted(a, stable=True), "sort-axis-None": lambda a: np.sort(
        a, axis=None),
    "sort-size-0": lambda a: _sorted(a[:, :0]), "argsort": lambda a: a.argsort(),
    "argsort-axis0": lambda a: a.argsort(axis=0), "argsort-axis-None": lambda a: a.argsort(
        axis=None, stable=True),
    "argsort-kind": lambda a: a.argsort(kind="mergesort"), "argsort-stable": lambda a: a.argsort(
        stable=True),
    "sort-function": lambda a: np.sort(a, axis=0, kind="stable"),
    "partition": lambda a: _kth_ok(_partitioned(a, 2), a, 2),
    "partition-list": lambda a: _kth_ok(_partitioned(a, [0, 3]), a, [0, 3]),
    "partition-negative": lambda a: _kth_ok(_partitioned(a, -1), a, -1),
    "partition-axis0": lambda a: _kth_ok(_partitioned(a, 1, axis=0), a, 1, 0),
    "partition-out-of-range": lambda a: _partitioned(a, 4),
    "argpartition": lambda a: _kth_ok(np.take_along_axis(a, a.argpartition(1), -1), a, 1),
    "argpartition-list": lambda a: _kth_ok(np.take_along_axis(a, a.argpartition([1, 2]), -1), a,
                                           [1, 2]),
    "argpartition-axis-None": lambda a: _kth_ok(a.ravel()[a.argpartition(5, axis=None)],
                                                a.ravel(), 5),
    "argpartition-out-of-range": lambda a: a.argpartition(-5),
    "searchsorted": lambda a: np.sort(a[0]).searchsorted(a[1]),
    "searchsorted-right": lambda a: np.sort(a[0]).searchsorted(a[1:], side="right"),
    "searchsorted-self": lambda a: np.sort(a[0]).searchsorted(np.sort(a[0]), side="left"),
    "searchsorted-self-right": lambda a: np.sort(a[0]).searchsorted(np.sort(a[0]), "right"),
    "searchsorted-v-kw": lambda a: np.sort(a[0]).searchsorted(v=0.5),
    "searchsorted-sorter": lambda a: a[0].searchsorted(a[1], sorter=a[0].argsort()),
    "searchsorted-sorter-right": lambda a: a[0].searchsorted(a[1], "right", a[0].argsort()),
    "searchsorted-empty": lambda a: a[0, :0].searchsorted([0, 1, 2], "right"),
    "searchsorted-one": lambda a: np.searchsorted(np.ones(1), a[0]),
    "searchsorted-bad-side": lambda a: a[0].searchsorted(a[1], side="middle"),
    "put": lambda a: _put(a, [1, 3, 5], [1.0, 3.0, 5.0]),
    "put-cycled": lambda a: _put(a, [1, 3, 5, 7], [8.0, 9.0]),
    "put-wrap": lambda a: _put(a, [-1, 13, 25], a[0, :3], mode="wrap"),
    "put-clip": lambda a: _put(a, [-5, 100], 0.0, mode="clip"),
    "put-raise": lambda a: _put(a, [12], 0.0),
    "put-scalar-index": lambda a: _put(a, 2, a[1, 1]),
    "diagonal": lambda a: a.diagonal(), "diagonal-offset": lambda a: a.diagonal(1),
    "diagonal-negative": lambda a: a.diagonal(-2), "diagonal-past": lambda a: a.diagonal(5),
    "diagonal-axes": lambda a: a[None].diagonal(0, 2, 1),
    "trace": lambda a: a.trace(), "trace-offset": lambda a: a.trace(1),
    "trace-dtype": lambda a: a.trace(dtype=np.float32),
    "ravel": lambda a: a.ravel(), "ravel-F": lambda a: a.ravel("F"),
    "swapaxes": lambda a: a.swapaxes(0, 1), "swapaxes-negative": lambda a: a[None].swapaxes(
        -1, 0),
    "swapaxes-bad": lambda a: a.swapaxes(0, 2),
    "conjugate": lambda a: a.conjugate(), "conj": lambda a: a.conj(),
    "flatten": lambda a: a.flatten(), "flatten-F": lambda a: a.flatten("F"),
    "fill": lambda a: _filled(a, 2.5), "fill-int": lambda a: _filled(a, 3),
    "astype-f32": lambda a: a.astype(np.float32), "astype-int": lambda a: a.astype(int),
    "astype-bool": lambda a: a.astype(bool), "astype-same_kind": lambda a: a.astype(
        np.float32, casting="same_kind"),
    "astype-safe-refused": lambda a: a.astype(np.int32, casting="safe"),
    "astype-uint8-unsafe": lambda a: (a * 10).astype(np.int16).astype(np.uint8),
    "item-0": lambda a: a * a.item(0), "item-tuple": lambda a: a * a.item((1, 2)),
    "item-args": lambda a: a * a.item(1, 2), "item-negative": lambda a: a * a.item(-1),
    "astype-same-copies": lambda a: _written(a, lambda b: b.astype(b.dtype)),
    "astype-copy-false": lambda a: _written(a, lambda b: b.astype(b.dtype, copy=False)),
    "round-copies": lambda a: _written(a, lambda b: b.round()),
    "clip-copies": lambda a: _written(a, lambda b: b.clip(None, None)),
    "conj-of-real-is-itself": lambda a: _written(a, lambda b: b.conj()),
    "copy-copies": lambda a: _written(a, lambda b: b.copy()),
    "tolist-rows": lambda a: [row.sum() for row in a], "ptp": lambda a: np.ptp(a, axis=1),
    "ptp-keepdims": lambda a: np.ptp(a, 0, keepdims=True), "cumsum": lambda a: a.cumsum(),
    "cumsum-axis": lambda a: a.cumsum(axis=1), "cumsum-dtype": lambda a: a.cumsum(
        0, dtype=np.float32),
    "cumprod": lambda a: a.cumprod(axis=0), "cumprod-flat": lambda a: a.cumprod(),
    # TestArgmax / TestArgmin
    "argmax": lambda a: a.argmax(), "argmax-axis": lambda a: a.argmax(axis=1),
    "argmax-keepdims": lambda a: a.argmax(axis=0, keepdims=True),
    "argmax-keepdims-None": lambda a: a.argmax(keepdims=True),
    "argmin-keepdims": lambda a: a.argmin(axis=-1, keepdims=True),
    "argmin-keepdims-None": lambda a: np.argmin(a, keepdims=True),
    "argmax-bad-axis": lambda a: a.argmax(axis=2),
    "argmin": lambda a: a.argmin(0), "argmax-function": lambda a: np.argmax(a, 1),
    "max-min": lambda a: (a.max(), a.min(axis=0)), "max-keepdims": lambda a: a.max(
        1, keepdims=True),
    "max-initial": lambda a: a.max(axis=0, initial=0.5), "min-where": lambda a: a.min(
        axis=1, where=a > 0, initial=10.0),
    # TestClip (the method)
    "clip": lambda a: a.clip(-0.5, 0.5), "clip-arrays": lambda a: a.clip(a[0] * 0, a[0] * 0 + 1),
    "clip-min-kw": lambda a: a.clip(min=0.0), "clip-max-kw": lambda a: a.clip(max=0.0),
    # TestTake
    "take": lambda a: a.take([0, 5, -1]), "take-axis": lambda a: a.take([2, 0], axis=1),
    "take-2d-index": lambda a: a.take([[0, 1], [2, 0]], axis=0),
    "take-wrap": lambda a: a.take([-5, 13], mode="wrap"), "take-clip": lambda a: a.take(
        [-5, 13], axis=1, mode="clip"),
    "take-raise": lambda a: a.take([13]), "take-scalar": lambda a: a.take(3),
    "take-axis-neg": lambda a: a.take([1], axis=-2), "take-empty": lambda a: a.take([],
                                                                                   axis=1),
    # TestStats
    "mean": lambda a: a.mean(), "mean-axis": lambda a: a.mean(axis=(0, 1)),
    "mean-dtype": lambda a: a.mean(0, dtype=np.float32), "mean-where": lambda a: a.mean(
        1, where=a > -0.5),
    "var": lambda a: a.var(0), "var-ddof": lambda a: a.var(ddof=1),
    "var-keepdims": lambda a: a.var(1, keepdims=True), "std": lambda a: a.std(axis=1, ddof=1),
    "std-where": lambda a: a.std(0, where=a > -1.0), "sum-dtype": lambda a: a.sum(
        dtype=np.float32),
    "sum-axis-tuple": lambda a: a.sum(axis=(1, 0)), "sum-initial": lambda a: a.sum(initial=3.0),
    # TestDot / TestMatmul / TestInner / TestVdot
    "dot": lambda a: a.dot(a.T), "dot-vector": lambda a: a.dot(a[0]),
    "dot-scalar": lambda a: a.dot(2.0), "dot-mismatch": lambda a: a.dot(a),
    "matmul": lambda a: a @ a.T, "matmul-vector": lambda a: a[0] @ a.T,
    "matmul-batched": lambda a: np.matmul(a[None], a.T[None]), "matmul-scalar": lambda a: a @ 2.0,
    "matmul-mismatch": lambda a: a @ a, "imatmul": lambda a: _imatmul(a),
    "inner": lambda a: np.inner(a, a), "inner-scalar": lambda a: np.inner(a, 2.0),
    "vdot": lambda a: np.vdot(a, a), "vdot-complex": lambda a: np.vdot(a * 1j, a + 1j),
    "dot-3d": lambda a: np.dot(a[None], a.T), "dot-0d": lambda a: np.dot(a[0, 0], a),
    "dot-out": lambda a: _into(np.dot, a, a.T, (3, 3)),
    "matmul-out": lambda a: _into(np.matmul, a, a.T, (3, 3)),
    "matmul-1d-3d": lambda a: np.matmul(a[0], np.stack([a.T, 2 * a.T])),
    "matmul-3d-1d": lambda a: np.stack([a, a]) @ a[1], "matmul-1d-1d": lambda a: a[0] @ a[1],
    "matmul-broadcast": lambda a: a[None, :, :2] @ np.ones((2, 2, 5)),
    "inner-3d": lambda a: np.inner(a[None], a[:2]), "vdot-2d": lambda a: a[:2].T.dot(a[1:]),
    "dot-out-dtype": lambda a: np.dot(a.astype(np.float32), a.T),
}


def _written(a, make):
    """a write into make(a): numpy changes `a` too exactly when make gives a itself or a view."""
    a = np.copy(a)
    b = make(a)
    b[0] = 7
    return a, b


COPIES = {  # numpy functions that give new arrays, even when gradjit computes them as no-ops
    "copies-round-int": lambda a: _written(np.astype(a, np.int64), np.round),
    "copies-floor-int": lambda a: _written(np.astype(a, np.int64), np.floor),
    "copies-positive": lambda a: _written(a, np.positive),
    "copies-astype": lambda a: _written(a, lambda b: np.astype(b, b.dtype)),
    "copies-nan_to_num": lambda a: _written(a, np.nan_to_num),
    "copies-roll-0": lambda a: _written(a, lambda b: np.roll(b, 0)),
    "copies-pad-0": lambda a: _written(a, lambda b: np.pad(b, 0)),
    "copies-tile-1": lambda a: _written(a, lambda b: np.tile(b, 1)),
    "copies-repeat-1": lambda a: _written(a, lambda b: np.repeat(b, 1)),
    "copies-choose": lambda a: _written(a, lambda b: np.choose(0, [b])),
    "copies-concatenate": lambda a: _written(a, lambda b: np.concatenate([b])),
    "copies-clip": lambda a: _written(a, np.clip),
    "copies-conj": lambda a: _written(a, np.conj),
    "copies-array": lambda a: _written(a, np.array),
    "views-asarray": lambda a: _written(a, np.asarray),
    "views-reshape": lambda a: _written(a, lambda b: np.reshape(b, b.shape)),
    "views-real": lambda a: _written(a, np.real),
    "views-diff-0": lambda a: _written(a, lambda b: np.diff(b, 0)),
    "readonly-broadcast_to": lambda a: _written(a, lambda b: np.broadcast_to(b, b.shape)),
    "readonly-broadcast_to-rows": lambda a: _written(a[0], lambda b: np.broadcast_to(b,
                                                                                     (2, 4))),
}


def _putmask_overlap(a):
    """putmask into a view, its values read from an overlapping view: numpy reads first."""
    x = np.copy(a[0])
    np.putmask(x[1:4], [True, True, True], x[:3])
    y = np.copy(a[1])
    np.putmask(y[1:4], y[:3] > 0, [1.0, 2.0, 3.0])
    return x, y


def _take_out_overlap(a):
    x = np.copy(a[0])
    y = np.take(x, [1, 2, 3], out=x[1:4], mode="wrap")
    return x, y


def _choose_out_overlap(a):
    x = np.copy(a[0])
    y = np.choose([0, 0, 0], [x[:3], x[:3], x[:3]], out=x[1:4], mode="wrap")
    return x, y


def _cumsum_out(a):
    out = np.zeros_like(a)
    got = a.cumsum(axis=1, out=out)
    return out, got


def _round_out(a):
    out = np.zeros_like(a)
    got = a.round(1, out=out)
    return out, got


def _clip_out_inplace(a):
    x = np.copy(a)
    got = np.clip(x, -0.5, 0.5, out=x)
    return x, got, got is x


def _clip_into(a, bounds, out_dtype, **kwargs):
    """TestClip's out= cases: the clipped values written into an array of out_dtype."""
    out = np.zeros_like(a, dtype=out_dtype)
    got = a.clip(*bounds, out=out, **kwargs)
    return out, got


OUTS = {  # out= arguments and writes through overlapping views
    "putmask-overlap": _putmask_overlap, "take-out-overlap": _take_out_overlap,
    "choose-out-overlap": _choose_out_overlap, "cumsum-out": _cumsum_out,
    "round-out": _round_out, "clip-out-inplace": _clip_out_inplace,
    "putmask-kwargs": lambda a: _putmask(a, mask=a > 0, values=[-1.0, -2.0]),
    "putmask-mask-size": lambda a: _putmask(a, [True], 5.0),
    "clip-out-int32-refused": lambda a: _clip_into(np.astype(a * 3, np.int32),
                                                   (np.float64(0), np.float64(2)), np.int32),
    "clip-out-int32-unsafe": lambda a: _clip_into(np.astype(a * 3, np.int32),
                                                  (np.float64(0), np.float64(2)), np.int32,
                                                  casting="unsafe"),
    "clip-out-int64": lambda a: _clip_into(np.astype(a * 3, np.int32),
                                           (np.int32(-1), np.int32(1)), np.int64),
    "clip-out-array-bound": lambda a: _clip_into(np.astype(a * 3, np.int32),
                                                 (np.zeros(a.shape), np.float64(1)), np.int32,
                                                 casting="unsafe"),
    "clip-float-into-int32": lambda a: _clip_into(a, (-1.0, 2.0), np.int32, casting="unsafe"),
    "clip-casting-garbage": lambda a: a.clip(1, 8, casting="garbage"),
    "clip-type-cast-float64-bounds": lambda a: np.clip(np.astype(a * 3, np.int32),
                                                       np.float64(-2), np.float64(4)),
    "clip-int8-bounds-int16": lambda a: np.clip(np.astype(a * 3, np.int8), np.int16(-2),
                                                np.int16(4)),
    "take-out": lambda a: np.take(a, [[0, 1]], out=np.zeros_like(a[:1, :2])),
    "take-raise-axis": lambda a: a.take([-4], axis=0),
    "take-wrap-axis": lambda a: a.take([3, -1], axis=0, mode="wrap"),
    "take-clip-axis": lambda a: a.take([3, -1], axis=0, mode="clip"),
}


def _into(fn, a, b, shape):
    out = np.zeros_like(a, shape=shape)
    got = fn(a, b, out=out)
    return out, got


def _imatmul(a):
    b = a.copy()
    b @= np.eye(4)
    return b


PUTMASK = {  # TestPutmask
    "putmask": lambda a: _putmask(a, a > 0, a * 10),
    "putmask-cycled": lambda a: _putmask(a, a > 0, [1.0, 2.0, 3.0]),
    "putmask-scalar": lambda a: _putmask(a, a < 0, 0.0),
    "putmask-mask-shape": lambda a: _putmask(a, np.ones(5, bool), 0.0),
    "putmask-int-values": lambda a: _putmask(a, a > 0, np.arange(12)),
}

STABLE = {  # sorts on repeated values and NaN: positions are fully determined
    "argsort-stable-dups": lambda d: d.argsort(kind="stable"),
    "argsort-mergesort-dups": lambda d: np.argsort(d, kind="mergesort"),
    "sort-nans": lambda d: np.sort(d), "argsort-nans": lambda d: np.argsort(d, stable=True),
    "searchsorted-nans": lambda d: np.sort(d).searchsorted(np.sort(d)),
    "searchsorted-nans-right": lambda d: np.sort(d).searchsorted(np.sort(d), side="right"),
    "argmax-nans": lambda d: np.argmax(d), "argmin-nans": lambda d: d.argmin(),
    "max-nans": lambda d: d.max(), "unique-sorted": lambda d: np.searchsorted(
        np.sort(d), [0.0, 1.0, 2.0], sorter=None),
    "argmax-ties": lambda d: d.argmax(), "argmin-ties": lambda d: d.argmin(keepdims=True),
}


WHERE_FULL = np.array([[False, True, False, True], [True, False, True, False],
                       [True, True, False, False]])
STATS = {  # TestStats, as numpy functions (so eager Tensors run them too)
    "mean-axis0": lambda a: np.mean(a, axis=0), "mean-None": lambda a: np.mean(a, axis=None),
    "var-axis1": lambda a: np.var(a, axis=1), "std-None": lambda a: np.std(a),
    "mean-keepdims": lambda a: np.mean(a, 1, keepdims=True),
    "var-keepdims": lambda a: np.var(a, 0, keepdims=True),
    "mean-f32": lambda a: np.mean(a, axis=1, dtype=np.float32),
    "var-f32": lambda a: np.var(a, axis=None, dtype="f4"),
    "var-ddof": lambda a: [np.var(a, axis=1, ddof=d) for d in range(3)],
    "std-ddof": lambda a: [np.std(a, axis=1, ddof=d) for d in range(3)],
    "var-ddof-too-big": lambda a: np.var(a, axis=1, ddof=5),
    "std-ddof-equal": lambda a: np.std(a, axis=0, ddof=3),
    "mean-empty-axis0": lambda a: np.mean(a[:0], axis=0),
    "var-empty-None": lambda a: np.var(a[:0]), "std-empty-axis1": lambda a: np.std(a[:0],
                                                                                  axis=1),
    "mean-where-full": lambda a: np.mean(a, axis=1, where=WHERE_FULL),
    "mean-where-full-0": lambda a: np.mean(a, axis=0, where=WHERE_FULL),
    "mean-where-partial": lambda a: np.mean(a, axis=0, where=np.array([[False], [True],
                                                                      [True]])),
    "var-where": lambda a: np.var(a, axis=1, where=WHERE_FULL),
    "std-where-ddof": lambda a: np.std(a, axis=1, ddof=1, where=WHERE_FULL),
    "mean-axis-error": lambda a: np.mean(a, axis=2), "var-axis-error": lambda a: np.var(a, 3),
    "mean-f16-input": lambda a: np.mean(np.astype(a, np.float16)),
    "var-complex": lambda a: np.var(a * (1 + 2j), axis=0),
    "std-complex": lambda a: np.std(a + 1j * a[::-1], axis=1),
}


FUNCTION_FORMS = {  # the methods' scenarios as numpy functions, which eager Tensors run too
    "compress": lambda a: np.compress([0, 1, 0, 1], a, axis=1),
    "choose": lambda a: np.choose([0, 2, 1, 0], (a[0], a[1], a[2])),
    "repeat": lambda a: np.repeat(a, [2, 1, 0], axis=0), "round": lambda a: np.round(a * 10, 1),
    "around-neg": lambda a: np.around(a * 100, -1), "sort-kind": lambda a: np.sort(
        a, axis=0, kind="mergesort"),
    "sort-None": lambda a: np.sort(a, axis=None), "argsort-stable": lambda a: np.argsort(
        a, axis=0, stable=True),
    "partition-kths": lambda a: np.partition(a, [0, 3])[:, [0, 3]],
    "argpartition-kth": lambda a: np.take_along_axis(a, np.argpartition(a, 2), -1)[:, 2],
    "searchsorted-sides": lambda a: (np.searchsorted(np.sort(a[0]), a[1], side="left"),
                                     np.searchsorted(np.sort(a[0]), a[1], side="right")),
    "searchsorted-sorter": lambda a: np.searchsorted(a[0], a[1:], sorter=np.argsort(a[0])),
    "take-modes": lambda a: (np.take(a, [-5, 13], mode="wrap"), np.take(a, [-5, 13], axis=1,
                                                                        mode="clip")),
    "put": lambda a: _put_function(a), "diagonal": lambda a: np.diagonal(a, 1),
    "trace": lambda a: np.trace(a, -1), "ptp": lambda a: np.ptp(a, axis=0),
    "cumsum-dtype": lambda a: np.cumsum(a, axis=1, dtype=np.float32),
    "cumprod": lambda a: np.cumprod(a, axis=0), "argmax-keepdims": lambda a: np.argmax(
        a, axis=1, keepdims=True),
    "argmin-None-keepdims": lambda a: np.argmin(a, keepdims=True),
    "swapaxes": lambda a: np.swapaxes(a, 0, 1), "clip": lambda a: np.clip(a, -0.5, None),
    "dot": lambda a: np.dot(a, np.transpose(a)), "matmul": lambda a: np.matmul(a, np.ones(4)),
    "astype": lambda a: np.astype(a, np.int16), "fill-copyto": lambda a: _copyto_function(a),
}


def _put_function(a):
    a = np.copy(a)
    np.put(a, [1, 3, 25], [7, 8], mode="wrap")
    return a


def _copyto_function(a):
    a = np.copy(a)
    np.copyto(a, 2)
    return a


def _arg_keepdims(a, axis):
    """argmax/argmin with keepdims (of the array and its transpose), and into out=."""
    out = np.zeros_like(np.argmax(a, axis=axis, keepdims=True))
    np.argmin(a, axis=axis, out=out, keepdims=True)
    return (np.argmax(a, axis=axis, keepdims=True), np.argmin(a.T, axis=axis, keepdims=True),
            out)


ARG_SIZES = [(), (3,), (3, 2), (2, 3, 4), (1, 2, 3, 4)]
ARG_KEEPDIMS = [case(f"arg-keepdims-{len(size)}d-{axis}", lambda a, axis=axis: _arg_keepdims(
    a, axis), arg(size)) for size in ARG_SIZES for axis in [*range(-len(size), len(size)), None]]


def _cases():
    out = [case(f"method-{name}", fn, A) for name, fn in METHODS.items()]
    out += [case(f"method-{name}-int", fn, A.astype(np.int64)) for name, fn in METHODS.items()
            if not name.startswith(("round", "vdot-complex"))]
    out += [case(f"method-{name}-c16", METHODS[name], Z) for name in (
        "sort", "argsort", "searchsorted", "conjugate", "round-1", "cumprod", "dot", "vdot",
        "trace", "take", "put", "argmax", "argmin-keepdims", "mean", "var", "clip")]
    out += [case(f"method-{name}-f32", METHODS[name], A.astype(np.float32)) for name in (
        "sort", "cumsum-dtype", "argmax", "take", "mean-dtype", "dot", "astype-int", "clip")]
    out += [case(f"{name}", fn, A) for name, fn in PUTMASK.items()]
    out += [case(name, fn, A) for name, fn in COPIES.items()]
    out += [case(name, fn, A) for name, fn in OUTS.items()] + ARG_KEEPDIMS
    out += [case(f"function-{name}-{dt}", fn, A.astype(dt)) for name, fn in FUNCTION_FORMS.items()
            for dt in ("f8", "i8", "f4")]
    out += [case(f"choose-dtype-{i}", lambda x, first=first: np.choose([0], (first, x)), x)
            for i, (first, x) in enumerate([(1000, np.array([1], np.uint8)),
                                            (-1, np.array([1], np.uint8)),
                                            (1.0, np.array(3, np.float32)),
                                            (1.0, np.array([3], np.float32))])]
    out += [case(f"stats-{name}-{dt}", fn, A.astype(dt)) for name, fn in STATS.items()
            for dt in ("f8", "f4", "i4", "u1", "b1", "c16")]
    out += [case(f"{name}-int", fn, A.astype(np.int32)) for name, fn in PUTMASK.items()]
    out += [case(f"{name}", fn, DUPS if "nans" not in name else NANS)
            for name, fn in STABLE.items()]
    out += [case(f"complex-nans-{name}", fn, CNANS[::-1]) for name, fn in {
        "sort": np.sort, "argsort": lambda z: np.argsort(z, stable=True),
        "searchsorted-left": lambda z: np.sort(z).searchsorted(np.sort(z)),
        "searchsorted-right": lambda z: np.sort(z).searchsorted(np.sort(z), side="right"),
        "argmax": np.argmax, "argmin": np.argmin}.items()]
    out += [case("method-3d-argmax-keepdims", lambda b: b.argmax(axis=1, keepdims=True), B),
            case("method-3d-sort-axis-None", lambda b: np.sort(b, axis=None), B),
            case("method-3d-partition-axis-None", lambda b: np.partition(b, [3, 10], axis=None)[
                [3, 10]], B),
            case("method-3d-diagonal", lambda b: b.diagonal(1, 0, 2), B),
            case("method-3d-trace-axes", lambda b: b.trace(0, 2, 1), B),
            case("method-3d-swapaxes", lambda b: b.swapaxes(2, 0), B),
            case("method-3d-matmul", lambda b: b @ np.swapaxes(b, -1, -2), B),
            case("method-3d-take-axis", lambda b: b.take([3, 0], axis=-1), B),
            case("method-0d-item", lambda v: v[0] * v.sum().item(), V),
            case("method-0d-round", lambda v: v.sum().round(2), V),
            case("method-0d-astype", lambda v: v.sum().astype(np.int8), V),
            case("method-tolist-length", lambda v: v * len(v.tolist()), V)]
    return out


CASES = _cases()
EAGER = [c for c in CASES if c.name.startswith(("putmask", "argsort-mergesort", "sort-nans",
                                                "argsort-nans", "argmax-nans", "unique",
                                                "copies", "views", "stats", "function"))
         and "complex" not in c.name]  # a Tensor's operators and [::-1] are PyTorch's
# ndarray.item gives a Python number, a constant to differentiation (as numpy's own would be)
NO_GRAD = {"method-item-0", "method-item-tuple", "method-item-args", "method-item-negative",
           "method-0d-item", "method-dot-out-dtype",
           "stats-std-ddof-equal-f8"}  # an infinite std: no derivative to compare


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)


@pytest.mark.parametrize("c", EAGER, ids=lambda c: c.id)
def test_eager(c):
    check_eager(c)


@pytest.mark.parametrize("c", [c for c in CASES if c.grad and c.name not in NO_GRAD],
                         ids=lambda c: c.id)
def test_grad(c):
    check_grad(c)
