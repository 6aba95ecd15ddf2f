"""The scenarios of numpy's own test_numeric.py (non-array arguments, clip, allclose/isclose,
nonzero counts, correlate/convolve modes, roll, rollaxis, moveaxis, cross, tensordot, resize)
written as numpy code: eager on Tensors, compiled and differentiated against numpy."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import arg, case, check_eager, check_grad, check_jit

A = arg((5, 3))
C = arg((5, 3), "c16")
X4 = arg((1, 2, 3, 4))
NAN = np.array([1.0, np.nan, 3.0, np.inf, -np.inf, 0.0])

FUNCTIONS = {  # numpy function calls only: the same code runs on eager Tensors
    # TestNonarrayArgs: nested lists and Python numbers beside the array
    "choose-lists": lambda a: np.choose([2, 0, 1], [a[0], a[1], a[2]]),
    "clip-list-bounds": lambda a: np.clip(a, [-1.0, 0.0, 0.5], 1.0),
    "compress-axis0": lambda a: np.compress([0, 1], a, axis=0),
    "compress-flat": lambda a: np.compress([True, False, True, True], a),
    "count_nonzero-axis1": lambda a: np.count_nonzero(a > 0, axis=1),
    "count_nonzero-keepdims": lambda a: np.count_nonzero(a > 0, axis=0, keepdims=True),
    "count_nonzero-keepdims-all": lambda a: np.count_nonzero(a > 0, keepdims=True),
    "count_nonzero-axis-empty": lambda a: np.count_nonzero(a > 0, axis=()),
    "count_nonzero-axes": lambda a: np.count_nonzero(a, axis=(0, 1)),
    "diagonal": lambda a: np.diagonal(a), "diagonal-offset": lambda a: np.diagonal(a, -2),
    "mean-axes": lambda a: np.mean(a, 0) + np.mean(a), "ptp-axis0": lambda a: np.ptp(a, axis=0),
    "ptp-keepdims": lambda a: np.ptp(a, axis=1, keepdims=True),
    "prod-last": lambda a: np.prod(a, axis=-1), "ravel": lambda a: np.ravel(a),
    "ravel-F": lambda a: np.ravel(a, order="F"),
    "repeat-flat": lambda a: np.repeat(a, 2), "repeat-counts": lambda a: np.repeat(a, [1, 0, 2],
                                                                                   axis=1),
    "reshape-kw": lambda a: np.reshape(a, shape=(3, 5)),
    "reshape-order-positional": lambda a: np.reshape(a, (3, 5), "F"),
    "around-decimals": lambda a: np.around(a * 10, decimals=1),
    "round-negative": lambda a: np.round(a * 100, -1),
    "searchsorted-scalar": lambda a: np.searchsorted(np.sort(a[:, 0]), 0.0),
    "squeeze-axis": lambda a: np.squeeze(a[None, :, None], axis=0),
    "squeeze-negative": lambda a: np.squeeze(a[None, :, None], axis=-1),
    "std-axis": lambda a: np.std(a, 1), "var-axis": lambda a: np.var(a, 0),
    "swapaxes": lambda a: np.swapaxes(a[None], 0, 2),
    "sum-keepdims": lambda a: np.sum(a, axis=1, keepdims=True),
    "take-list": lambda a: np.take(a, [1, 2, 4]), "trace": lambda a: np.trace(a),
    "trace-offset": lambda a: np.trace(a, offset=-1),
    "transpose-negative": lambda a: np.transpose(a, (-1, -2)),
    "matrix_transpose": lambda a: np.matrix_transpose(a),
    "var-mean-kw": lambda a: np.var(a, axis=1, keepdims=True, mean=np.mean(a, 1, keepdims=True)),
    "std-mean-kw": lambda a: np.std(a, axis=1, mean=np.mean(a, 1, keepdims=True)),
    "std-mean-where": lambda a: np.std(a, axis=1, where=a > 0, mean=np.mean(a, 1, keepdims=True,
                                                                            where=a > 0)),
    "var-mean-axes": lambda a: np.var(a, axis=(0, 1), mean=np.mean(a, (0, 1), keepdims=True)),
    "std-correction": lambda a: np.std(a, correction=1), "var-ddof2": lambda a: np.var(a, ddof=2),
    "size-axes": lambda a: a * np.size(a) + np.size(a, 0) + np.size(a, (0, 1)) + np.size(a, ()),
    "ndim-shape": lambda a: a * np.ndim(a) + np.shape(a)[1],
    "resize-larger": lambda a: np.resize(a, (4, 6)), "resize-smaller": lambda a: np.resize(a, 7),
    "resize-zero": lambda a: np.resize(a, (0, 2)),
    # TestClip
    "clip-scalars": lambda a: np.clip(a, 0.1, 0.6), "clip-arrays": lambda a: np.clip(
        a, np.zeros(a.shape), np.zeros(a.shape) + 0.5),
    "clip-flip": lambda a: np.clip(a, 1, 0), "clip-flip-array": lambda a: np.clip(
        a, 1, np.zeros(3)),
    "clip-none-low": lambda a: np.clip(a, None, 0.2), "clip-none-high": lambda a: np.clip(
        a, -0.2, None),
    "clip-no-bounds": lambda a: np.clip(a), "clip-min-max-kw": lambda a: np.clip(a, min=-1, max=1),
    "clip-min-kw-only": lambda a: np.clip(a, max=0.3),
    "clip-nan-bound": lambda a: np.clip(a, np.nan, 1.0),
    "clip-nan-max": lambda a: np.clip(a, -2, np.nan),
    "clip-non-contiguous": lambda a: np.clip(a.T[:, ::2], -0.5, 0.5),
    "clip-via-choose": lambda a: np.choose(np.less(a, -0.5) + 2 * np.greater(a, 0.5),
                                           (a, np.full(a.shape, -0.5), np.full(a.shape, 0.5))),
    # TestAllclose / TestIsclose
    "allclose": lambda a: np.allclose(a, a + 1e-9), "allclose-not": lambda a: np.allclose(
        a, a + 1e-3),
    "allclose-equal_nan": lambda a: np.allclose(np.where(a > 0, np.nan, a), np.where(
        a > 0, np.nan, a), equal_nan=True),
    "isclose": lambda a: np.isclose(a, a + np.where(a > 0, 1e-9, 1e-3)),
    "isclose-tolerances": lambda a: np.isclose(a, a * 1.01, rtol=0.02, atol=0.0),
    "isclose-broadcast": lambda a: np.isclose(a, a[0]),
    "isclose-scalar": lambda a: np.isclose(a[0, 0], 0.0, atol=10.0),
    "array_equal": lambda a: np.array_equal(a, a * 1),
    "array_equal-shape": lambda a: np.array_equal(a, a[:2]),
    "array_equal-nan": lambda a: np.array_equal(a / (a > 0), a / (a > 0), equal_nan=True),
    "array_equiv": lambda a: np.array_equiv(a, a[:1]) + np.array_equiv(a[:1], a[:1] + 0),
    # TestCorrelate / TestConvolve
    "correlate-valid": lambda a: np.correlate(a[:, 0], a[:3, 1]),
    "correlate-full": lambda a: np.correlate(a[:, 0], a[:3, 1], "full"),
    "correlate-same": lambda a: np.correlate(a[:, 0], a[:2, 1], mode="same"),
    "correlate-swapped": lambda a: np.correlate(a[:3, 1], a[:, 0], "full"),
    "correlate-reversed": lambda a: np.correlate(np.flip(a[:, 0]), a[:3, 1], "full"),
    "convolve-full": lambda a: np.convolve(a[:, 0], a[:3, 1]),
    "convolve-same": lambda a: np.convolve(a[:, 0], a[:3, 1], "same"),
    "convolve-valid": lambda a: np.convolve(a[:2, 0], a[:, 1], mode="valid"),
    "convolve-mode-ints": lambda a: [np.convolve(a[:, 0], a[:3, 1], mode=m) for m in range(3)],
    "correlate-mode-int": lambda a: np.correlate(a[:, 0], a[:3, 1], mode=1),
    "convolve-mode-bad-int": lambda a: np.convolve(a[:, 0], a[:3, 1], mode=-1),
    "correlate-mode-bad-name": lambda a: np.correlate(a[:, 0], a[:3, 1], mode="v"),
    "convolve-mode-none": lambda a: np.convolve(a[:, 0], a[:3, 1], mode=None),
    "convolve-empty": lambda a: np.convolve(a[:0, 0], a[:, 1]),
    "correlate-empty": lambda a: np.correlate(a[:, 0], a[:0, 1], "full"),
    # TestRoll
    "roll-flat": lambda a: np.roll(a, 2), "roll-axis0": lambda a: np.roll(a, 1, axis=0),
    "roll-axes": lambda a: np.roll(a, 1, axis=(0, 1)),
    "roll-shifts": lambda a: np.roll(a, (-1, 2), axis=(0, 1)),
    "roll-same-axis-twice": lambda a: np.roll(a, 1, axis=(1, 1)),
    "roll-turns": lambda a: np.roll(a, 7, axis=1) + np.roll(a, -4, axis=1),
    "roll-numpy-int": lambda a: np.roll(a, np.uint16(2)),
    "roll-big": lambda a: np.roll(a, 2 ** 100),
    # TestMoveaxis, TestRollaxis (a shape (1, 2, 3, 4) argument)
    "moveaxis-end": lambda a: np.moveaxis(a[None], 0, -1),
    "moveaxis-lists": lambda a: np.moveaxis(a[None, None], [0, 1], [2, 3]),
    "moveaxis-ranges": lambda a: np.moveaxis(a[None], range(3), range(3)),
    # TestCross
    "cross-3": lambda a: np.cross(a[0], a[1]), "cross-2": lambda a: np.cross(a[0, :2], a[1, :2]),
    "cross-2-3": lambda a: np.cross(a[0, :2], a[1]),
    "cross-broadcast": lambda a: np.cross(a[:, None], a[None, :3]),
    "cross-axisb": lambda a: np.cross(a, a[:3].T, axisb=0),
    # TestTensordot / outer
    "tensordot-empty-axes": lambda a: np.tensordot(a[0, 0], a[1, 1], ([], [])),
    "tensordot-zero-size": lambda a: np.tensordot(a[:, :0], a[:0, :], (1, 0)),
    "tensordot-int": lambda a: np.tensordot(a, a, 2), "tensordot-lists": lambda a: np.tensordot(
        a, a.T, axes=([0], [1])),
    "outer": lambda a: np.outer(a[0], a[:, 1]), "outer-2d": lambda a: np.outer(a, a[0]),
    # TestIndices, TestBroadcast
    "indices-take": lambda a: a[tuple(np.indices((2, 3)))],
    "indices-sparse": lambda a: a[np.indices((2, 3), sparse=True)],
    "broadcast_arrays": lambda a: np.broadcast_arrays(a, a[0], 1.0),
    "astype-fn": lambda a: np.astype(a, np.float32),
}

ROLLAXIS = {f"rollaxis-{axis}-{start}": (lambda a, axis=axis, start=start:
                                         np.rollaxis(a, axis, start))
            for axis in (0, 2, 3, -1, -4) for start in (0, 1, 4, -1, -4)}
MOVEAXIS = {f"moveaxis-{s}-{d}": (lambda a, s=s, d=d: np.moveaxis(a, s, d))
            for s, d in [(0, 1), (1, -1), ([0, -1], [0, -1]), ([2, 0], [2, 0]),
                         ([0, 1, 2], [2, 3, 0]), ([3, 0], [1, 0]), ([0, 3], [0, 1])]}
CROSS_AXES = {  # shapes (10, 3, 5) with (3, 5) and (10, 3, 5, 7) with (5, 7, 3)
    "cross-axisa-axisb": lambda a, b: np.cross(a, b, axisa=1, axisb=0),
    "cross-axisa-axisc": lambda a, b: np.cross(a[..., None], b[:, None, :], axisa=1, axisc=2),
    "cross-axis": lambda a, b: np.cross(a, b[None], axis=1),
}
DTYPES = {  # one scenario over the dtypes numpy's tests sweep
    "clip-ints": lambda a: np.clip(a, -2, 4), "clip-int-float-bound": lambda a: np.clip(a, 0.5, 2),
    "clip-int-array-bounds": lambda a: np.clip(a, np.zeros(3, np.int32), 2),
    "count_nonzero": lambda a: np.count_nonzero(a, axis=0),
    "roll": lambda a: np.roll(a, -1, axis=1), "cross": lambda a: np.cross(a[0], a[1]),
    "cross-uint8-int32": lambda a: np.cross(np.astype(np.abs(a[:1]), np.uint8),
                                            np.astype(a[1], np.int32)),
    "isclose": lambda a: np.isclose(a, a + 1),
    "correlate": lambda a: np.correlate(a[:, 0], a[:2, 1], "full"),
    "array_equal": lambda a: np.array_equal(a, np.copy(a)),
    "resize": lambda a: np.resize(a, (2, 8)), "take": lambda a: np.take(a, np.array([0, 2, 2, 3],
                                                                                    np.int32)),
}


LIKE = {  # TestLikeFuncs, TestBoolArray: the like functions and boolean logic
    "zeros_like": lambda a: np.zeros_like(a) + a, "ones_like-dtype": lambda a: np.ones_like(
        a, dtype="f4"),
    "full_like": lambda a: np.full_like(a, 123.456), "full_like-inf": lambda a: np.full_like(
        a, np.inf, dtype=np.float32),
    "full_like-shape": lambda a: np.full_like(a, 2, shape=(2, 3)),
    "zeros_like-shape-order": lambda a: np.zeros_like(a, shape=(4,), order="F"),
    "full_like-int64-scalar": lambda a: np.full_like(a, np.int64(1000)),
    "full_like-overflow": lambda a: np.full_like(np.astype(a, np.int8), 1000),
    "empty_like-written": lambda a: _filled_like(a),
    "bool-and-or-xor": lambda a: ((a > 0) | (a > 1), (a > 0) & (a < 1), (a > 0) ^ (a < 1)),
    "bool-not-abs": lambda a: (~(a > 0), np.abs(~(a > 0)), np.logical_not(a > 0)),
    "bool-all-any": lambda a: (np.all(a > -5), np.any(a > 5), np.all(a > 0, axis=0),
                               np.any(a > 0, axis=1, keepdims=True)),
    "logical-out": lambda a: np.logical_or(a > 0, a < -1, out=np.zeros_like(a, dtype=bool)),
}


def _filled_like(a):
    e = np.empty_like(a, dtype=np.float64)
    e[...] = a * 2
    return e


NONZERO = {  # TestNonzero, TestArgwhere: shapes that depend on values, so eager Tensors only
    "nonzero-1d": lambda a: np.nonzero(a[0]), "nonzero-2d": lambda a: np.nonzero(a),
    "nonzero-T": lambda a: np.nonzero(np.transpose(a)), "nonzero-0d": lambda a: np.nonzero(
        a[0, 0]),
    "argwhere-2d": lambda a: np.argwhere(a), "argwhere-0d": lambda a: np.argwhere(a[0, 0]),
    "argwhere-compare": lambda a: np.argwhere(a > 1), "flatnonzero": lambda a: np.flatnonzero(a),
    "count_nonzero-all": lambda a: np.count_nonzero(a),
    "nonzero-empty": lambda a: np.nonzero(a[:0]), "argwhere-empty": lambda a: np.argwhere(a[:0]),
}
NONZERO_CASES = [case(f"{name}-{dt}", fn, arg((3, 4), dt)) for name, fn in NONZERO.items()
                 for dt in ("b1", "i1", "u1", "i8", "f4", "f8")]


def _cases():
    out = [case(name, fn, A) for name, fn in FUNCTIONS.items()]
    out += [case(f"{name}-{dt}", fn, A.astype(dt)) for name, fn in LIKE.items()
            for dt in ("f8", "i4", "b1")]
    out += [case(name, fn, X4) for name, fn in {**ROLLAXIS, **MOVEAXIS}.items()]
    out += [case("cross-axisa-axisb", CROSS_AXES["cross-axisa-axisb"], arg((10, 3, 5)),
                 arg((3, 5))),
            case("cross-axisa-axisc", CROSS_AXES["cross-axisa-axisc"], arg((10, 3, 5)),
                 arg((5, 3))),
            case("cross-axis", CROSS_AXES["cross-axis"], arg((4, 3, 2)), arg((3, 2)))]
    out += [case(f"{name}-{dtype}", fn, arg((5, 3), dtype)) for name, fn in DTYPES.items()
            for dtype in ("i1", "i4", "i8", "u1", "f4", "f8", "b1")]
    out += [case("isclose-non-finite", lambda a: np.isclose(a, np.flip(a)), NAN),
            case("isclose-equal_nan", lambda a: np.isclose(a, a, equal_nan=True), NAN),
            case("allclose-inf", lambda a: np.allclose(a[3:5], a[3:5]), NAN),
            case("clip-nan-values", lambda a: np.clip(a, -1, 1), NAN),
            case("count_nonzero-nan", lambda a: np.count_nonzero(a), NAN),
            case("correlate-complex", lambda z: np.correlate(z[:, 0], z[:3, 1], "full"), C),
            case("convolve-complex", lambda z: np.convolve(z[:, 0], z[:3, 1], "same"), C),
            case("cross-complex", lambda z: np.cross(z[0], z[1]), C),
            case("clip-complex", lambda z: np.clip(z, 0.1 + 0.1j, 0.5 + 0.5j), C),
            case("isclose-complex", lambda z: np.isclose(z, z + 1e-9j), C)]
    return out


CASES = _cases()


@pytest.mark.parametrize("c", CASES + NONZERO_CASES, ids=lambda c: c.id)
def test_eager(c):
    check_eager(c)


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)


@pytest.mark.parametrize("c", [c for c in CASES if c.grad], ids=lambda c: c.id)
def test_grad(c):
    check_grad(c)


@pytest.mark.parametrize("name", ["nonzero-2d", "argwhere-2d", "argwhere-compare",
                                  "flatnonzero", "nonzero-empty"])
def test_nonzero_of_a_run_time_value_follows_its_pattern(name):
    """Which elements are nonzero decides the shape: the trace holds for the pattern it saw."""
    check_jit(case(f"{name}-traced", NONZERO[name], A))


def test_nonzero_of_constants_indexes_a_traced_array():
    def pick(a):
        mask = np.eye(5, 3) > 0
        return a[np.nonzero(mask)], a[tuple(np.argwhere(mask).T)], a.ravel()[np.flatnonzero(mask)]
    check_jit(case("nonzero-constants", pick, A))
