"""The scenarios of numpy's own test_indexing.py (ellipsis, newaxis, 0-d, boolean masks of
every shape, integer arrays beside slices, negative steps, broadcast assignment, writes
through views and `.flat`, numpy's index errors) written as numpy code, compiled and
differentiated against numpy."""
import numpy as np
import pytest

from gradjit import jit
from tests.numpy_api.jax_suite import arg, case, check_grad, check_jit

A = arg((3, 3))
B = arg((3, 4, 5))
Z = arg(())
V = arg((6,))
MASK = np.array([[True, False, True], [False, True, False], [True, False, True]])


def _set(index, value):
    """a copy of the argument with a[index] = value(a)."""
    def write(a):
        a = a.copy()
        a[index] = value(a) if callable(value) else value
        return a
    return write


def _through(view, index, value):
    """a write into a view of the argument: numpy changes the argument too."""
    def write(a):
        a = a.copy()
        v = view(a)
        v[index] = value
        return a, v
    return write


READS = {
    "ellipsis": lambda a: a[...], "ellipsis-first": lambda a: a[0, ...],
    "ellipsis-last": lambda a: a[..., 0], "ellipsis-middle-0d": lambda a: a[0, ..., 1],
    "none": lambda a: a[None], "newaxis-between": lambda a: a[:, np.newaxis, 1],
    "empty-tuple": lambda a: a[()], "int": lambda a: a[-1], "negative-steps": lambda a: a[::-1,
                                                                                          ::-2],
    "reversed-slice": lambda a: a[2:0:-1], "empty-slice": lambda a: a[2:0],
    "bool-0d-true": lambda a: a[np.array(True)], "bool-0d-false": lambda a: a[np.array(False)],
    "bool-scalar-true": lambda a: a[True], "bool-np-bool": lambda a: a[np.bool(True)],
    "bool-2d": lambda a: a[MASK], "bool-row": lambda a: a[MASK[1]],
    "bool-list": lambda a: a[[True, False, True]], "bool-none-list": lambda a: a[
        None, [True, False, True]],
    "bool-onedim": lambda a: a[:1][np.array([True])], "bool-after-slice": lambda a: a[
        :, np.array([False, True, True])],
    "bool-all-false": lambda a: a[np.zeros((3, 3), bool)],
    "bool-3d-leading": lambda a: a[np.zeros((3, 4), bool) | (np.arange(4) == 1)],
    "bool-3d-none": lambda a: a[None, np.eye(3, 4, dtype=bool)],
    "empty-list": lambda a: a[[]], "empty-intp": lambda a: a[np.array([], np.intp)],
    "fancy-reversed": lambda a: a[np.arange(3)[::-1]],
    "fancy-2d-index": lambda a: a.ravel()[np.arange(6).reshape(2, 1, 3)[:, :, 0]],
    "fancy-slice-fancy": lambda a: a[[0, 2], 1:, [1, 0]],
    "fancy-ellipsis-fancy": lambda a: a[[1, 2], ..., [1, 2]],
    "fancy-broadcast": lambda a: a[[[0], [1], [2]], [0, 1]],
    "fancy-then-newaxis": lambda a: a[[1], None, 2],
    "fancy-negative": lambda a: a[[-1, -3], -1], "fancy-int-arrays": lambda a: a[
        np.array([[0, 1], [2, 0]]), 1:3],
    "fancy-np-ints": lambda a: a[np.int8(1), np.uint16(2)],
    "fancy-0d-array": lambda a: a[np.array(1), np.array([0, 2])],
    "tuple-of-lists": lambda a: a[([0, 1], [1, 2])],
    "slice-steps": lambda a: a[1::2, :, ::-3], "slice-past-ends": lambda a: a[-10:10, 3:10],
    "int-out-of-bounds": lambda a: a[1 << 30], "int-overflow": lambda a: a[1 << 64],
    "float-index": lambda a: a[0.0], "float-slice": lambda a: a[0.0:],
    "float-in-tuple": lambda a: a[:, 0.0], "array-as-slice": lambda a: a[a:a],
    "too-many": lambda a: a[0, 0, 0, 0], "too-many-fancy": lambda a: a[0, 0, [1], 0],
    "bool-mismatch": lambda a: a[np.array([True])], "bool-mismatch-2d": lambda a: a[
        :, np.zeros((4, 4), bool)],
    "fancy-mismatch": lambda a: a[[0, 1], [0, 1, 2]],
    "fancy-out-of-bounds": lambda a: a[np.array([1, 1, 10])],
    "float-array-index": lambda a: a[np.array([])],
    "two-ellipses": lambda a: a[..., 0, ...],
    "flat-int": lambda a: a.flat[4], "flat-negative": lambda a: a.flat[-1],
    "flat-slice": lambda a: a.flat[5:10], "flat-step": lambda a: a.flat[::-1],
    "flat-ellipsis": lambda a: a.flat[...], "flat-fancy": lambda a: a.flat[[1, 3, 5]],
    "flat-fancy-2d": lambda a: a.flat[np.array([[1, 2], [3, 4]])],
    "flat-mask": lambda a: a.flat[np.arange(a.size) % 2 == 0],
    "flat-out-of-bounds": lambda a: a.flat[a.size],
}

WRITES = {
    "ellipsis": _set(..., 2.0), "ellipsis-broadcast": _set(..., lambda a: a[0]),
    "prepending-ones": _set(..., lambda a: a[None]),
    "fancy-subspace": _set(([0, 1, 2], slice(None)), lambda a: a[None]),
    "fancy-transposed": _set((slice(None), [0, 1]), lambda a: a[None, :, :2]),
    "fancy-broadcast-index": _set(([[0], [1], [2]], [0, 1]), lambda a: a[None, :, :2]),
    "index-is-larger": _set(([[0], [1], [2]], [0, 1, 2]), [2.0, 3.0, 4.0]),
    "bool-2d": _set(MASK, 0.0), "bool-onedim": _set(np.array([True, True, True]), 1.0),
    "bool-values": _set(MASK, lambda a: np.arange(5.0)),
    "bool-value-mismatch": _set(MASK, [1.0, 2.0, 3.0]),
    "bool-value-empty": _set(MASK, []),
    "fancy-reversed-source": _set(np.array([2, 1, 0]), lambda a: a),
    "fancy-2d-self": _set((np.zeros(3, int), np.array([2, 1, 0])), lambda a: a[0]),
    "overlap": _set(slice(1, None), lambda a: a[:-1]),
    "fancy-reversed-index": _set(np.zeros(3, np.intp)[::-1], lambda a: np.arange(3.0)[:, None]),
    "broadcast-subspace": _set(np.arange(3)[::-1], lambda a: np.arange(3.0)[:, None]),
    "negative-step": _set((slice(None, None, -1), 0), lambda a: a[:, 1]),
    "0d-ellipsis-tuple": _set((Ellipsis,), 2.0),
    "too-large": _set(..., np.ones((2, 1))), "fancy-too-large": _set(([1, 2],), np.ones((2, 1))),
    "fancy-shape-error": _set((slice(None), [0]), np.zeros((3, 2))),
    "too-many": _set((0, 0, 0), 0.0), "fancy-out-of-bounds": _set(np.array([1, 10]), 0.0),
    "fancy-mismatch": _set(([0, 1], [0, 1, 2]), 0.0),
    "repeated-fancy": _set(np.array([0, 0, 2]), np.array([[1.0], [2.0], [3.0]])),
    "int-cast": _set(0, 7), "iadd-fancy": lambda a: _iadd(a, [0, 0, 1]),
    "flat-int": lambda a: _flat(a, 4, 9.0), "flat-slice": lambda a: _flat(a, slice(2, 7), 1.0),
    "flat-fancy": lambda a: _flat(a, [1, 1, 5], np.array([1.0, 2.0, 3.0])),
    "flat-mask": lambda a: _flat(a, np.arange(a.size) % 3 == 0, 0.0),
    "flat-cycled-values": lambda a: _flat(a, slice(None), np.array([1.0, 2.0])),
    "flat-mask-cycled": lambda a: _flat(a, np.arange(a.size) % 2 == 0, a[0, :2]),
    "flat-cut-values": lambda a: _flat(a, [1, 1, 5], np.arange(4.0)),
}

VIEWS = {  # writes into a basic-index view reach the array it views
    "row": _through(lambda a: a[1], 0, 5.0), "slice": _through(lambda a: a[1:], (0, 0), 5.0),
    "step": _through(lambda a: a[::-2], ..., 0.5), "ellipsis": _through(lambda a: a[...], 1, 2.0),
    "none": _through(lambda a: a[None, 0], (0, 2), 8.0),
    "transpose": _through(lambda a: a.T, (0, 1), 3.0),
    "reshape": _through(lambda a: a.reshape(9), 4, -1.0),
    "ravel": _through(lambda a: a.ravel(), slice(0, 3), -2.0),
    "fancy-copy": _through(lambda a: a[[0, 1]], 0, 7.0),  # a copy: the array stays
    "swapaxes": _through(lambda a: a.swapaxes(0, 1), 2, 1.5),
    "fancy-through-slice": _through(lambda a: a[1:], [0, 1], 4.0),
    "nested": _through(lambda a: a[1:][::-1], (0, 0), 6.0),
}


def _iadd(a, index):
    a = a.copy()
    a[index] += 1.0  # numpy reads once and writes once: a repeated index adds once
    return a


def _flat(a, index, value):
    a = a.copy()
    a.flat[index] = value
    return a


CASES = ([case(f"read-{name}", fn, A) for name, fn in READS.items()]
         + [case(f"read-{name}-int", fn, A.astype(np.int64)) for name, fn in READS.items()]
         + [case(f"write-{name}", fn, Z if name.startswith("0d") else A)
            for name, fn in WRITES.items()]
         + [case(f"write-{name}-int", fn, A.astype(np.int32)) for name, fn in WRITES.items()
            if not name.startswith("0d")]
         + [case(f"view-{name}", fn, A) for name, fn in VIEWS.items()]
         + [case("read-3d-multi", lambda b: b[[0, 2], :, [1, 4]][:, ::-1], B),
            case("read-3d-ellipsis-array", lambda b: b[..., [1, 2], [1, 2]], B),
            case("read-3d-bool-middle", lambda b: b[1:, np.arange(4) > 1, ::2], B),
            case("read-3d-bool-2d", lambda b: b[:, np.eye(4, 5, dtype=bool)], B),
            case("read-0d-bool", lambda z: z[np.array(True)], Z),
            case("read-0d-empty-tuple", lambda z: z[()], Z),
            case("read-0d-ellipsis", lambda z: z[...], Z),
            case("read-0d-none", lambda z: z[None], Z),
            case("read-1d-flat", lambda v: v.flat[[True, 1]], V),
            case("write-0d-bool", _set(np.array(True), 1.0), Z)])


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)


@pytest.mark.parametrize("c", [c for c in CASES if c.grad], ids=lambda c: c.id)
def test_grad(c):
    check_grad(c)


SHAPE_ERRORS = [((..., [1, 2], slice(None)), (100, 100)), (([0, 1], ..., 0), (100, 100)),
                ((..., [1, 2], [1, 2]), (100, 100)), ((...,), (2, 3)),
                ((np.ones((3, 4, 5, 6, 7), bool),), (3,)), ((slice(1, 3),), (2, 3))]


@pytest.mark.parametrize("index, shape", SHAPE_ERRORS, ids=range(len(SHAPE_ERRORS)))
def test_write_shape_errors_in_numpys_words(index, shape):
    """numpy's ValueError for a value that cannot broadcast names the indexing result's
    shape (without spaces) at its end, and so does a compiled write."""
    def write(a, v):
        a = a.copy()
        a[index] = v
        return a
    a, v = np.zeros((3, 4, 5, 6, 7)), np.zeros(shape)
    with pytest.raises(ValueError) as want:
        write(a, v)
    with pytest.raises(ValueError) as got:
        jit(write, backend="interpreter")(a, v)
    assert str(got.value).startswith(str(want.value))
