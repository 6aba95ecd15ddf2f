"""numpy's indexing as JAX's indexing tests sweep it (slices, ellipses, new axes, index arrays
constant or traced, masks; reads, writes, ufunc.at, take/put families): eager, compiled and
differentiated against numpy."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import arg, case, check_eager, check_grad, check_jit

X = arg((3, 4, 5))
V = arg((6,))
I = np.array([[0, 2], [-1, 1]])  # an index array passed as a traced argument
MASK = np.array([True, False, True, True])

READS = {
    "int": lambda x: x[1], "negative": lambda x: x[-1, -2], "slice": lambda x: x[1:, ::2],
    "negative-step": lambda x: x[::-1, 3:0:-2], "ellipsis": lambda x: x[..., 1],
    "newaxis": lambda x: x[None, :, None, 1], "empty-slice": lambda x: x[2:1],
    "out-of-range-slice": lambda x: x[1:10, -10:2], "tuple": lambda x: x[(0, slice(None), 2)],
    "array": lambda x: x[np.array([2, 0, 2])], "list": lambda x: x[[0, -1]],
    "arrays": lambda x: x[np.array([0, 2]), np.array([1, 3])],
    "broadcast-arrays": lambda x: x[np.array([[0], [2]]), np.array([1, 3, 0])],
    "array-slice-array": lambda x: x[np.array([0, 1]), :, np.array([4, 2])],
    "slice-array": lambda x: x[:, np.array([3, 0])],
    "array-ellipsis": lambda x: x[..., np.array([1, 1])],
    "newaxis-array": lambda x: x[None, np.array([1]), 2],
    "mask": lambda x: x[:, MASK], "mask-full": lambda x: x[x.shape[0] * [True]],
    "mask-scalar": lambda x: x[True], "0d-array": lambda x: x[np.array(1)],
    "empty-array": lambda x: x[np.array([], dtype=int)],
    "int-array-2d": lambda x: x[np.array([[1, 2], [0, 0]])],
}

TRACED = {  # the index is an argument, known only when the program runs
    "first": lambda x, i: x[i], "second": lambda x, i: x[:, i],
    "last": lambda x, i: x[..., i], "two": lambda x, i: x[i, i],
    "split": lambda x, i: x[i, :, i], "scalar": lambda x, i: x[i[0, 0], 1:],
    "take": lambda x, i: np.take(x, i, axis=1), "take-flat": lambda x, i: np.take(x, i),
    "take-clip": lambda x, i: np.take(x, i * 3, axis=2, mode="clip"),
    "take-wrap": lambda x, i: np.take(x, i * 3, mode="wrap"),
    "take_along_axis": lambda x, i: np.take_along_axis(x, np.abs(i)[:, :, None], axis=1),
    "take_along_axis-mismatch": lambda x, i: np.take_along_axis(x, i[:, :, None], axis=2),
    "take_along_axis-none": lambda x, i: np.take_along_axis(x, np.ravel(i), axis=None),
}

WRITES = {
    "set-int": lambda x: _written(x, 1, 0.5), "set-slice": lambda x: _written(x, (0, slice(1, 3)),
                                                                          -1.0),
    "set-array": lambda x: _written(x, np.array([2, 0]), x[1] * 2),
    "set-repeated": lambda x: _written(x, np.array([1, 1]), 3.0),
    "set-mask": lambda x: _written(x, x > 0.5, 0.0),
    "set-mask-values": lambda x: _written(x, (slice(None), MASK), x[:, :3] ** 2),
    "set-ellipsis": lambda x: _written(x, (Ellipsis, 0), np.arange(3.0)[:, None]),
    "iadd-slice": lambda x: _added(x, (slice(None, None, 2), 1)),
    "add.at": lambda x: _ufunc_at(np.add, x, np.array([0, 0, 2]), x[1]),
    "multiply.at": lambda x: _ufunc_at(np.multiply, x, (np.array([1, 1]), 2), 3.0),
    "maximum.at": lambda x: _ufunc_at(np.maximum, x, np.array([2, 2]), x[0]),
    "put": lambda x: _put(x, [0, 7, 7, -1], [1.0, 2.0, 3.0, 4.0]),
    "put-clip": lambda x: _put(x, [100, -100], x[0, 0, :2], mode="clip"),
    "put_along_axis": lambda x: _put_along(x, np.array([[[0], [2], [1], [1]]] * 3), x[:, :, :1]),
    "place": lambda x: _place(x, x < 0, [9.0, 8.0]),
    "putmask": lambda x: _putmask(x, x > 0, x * 10),
    "copyto": lambda x: _copyto(x, x[0], x > 0),
}


def _written(x, index, value):
    x = np.copy(x)
    x[index] = value
    return x


def _added(x, index):
    x = np.copy(x)
    x[index] += 2.0 * x[index]
    return x


def _ufunc_at(ufunc, x, index, value):
    x = np.copy(x)
    ufunc.at(x, index, value)
    return x


def _put(x, index, values, mode="raise"):
    x = np.copy(x)
    np.put(x, index, values, mode=mode)
    return x


def _put_along(x, index, values):
    x = np.copy(x)
    np.put_along_axis(x, index, values, axis=2)
    return x


def _place(x, mask, values):
    x = np.copy(x)
    np.place(x, mask, values)
    return x


def _putmask(x, mask, values):
    x = np.copy(x)
    np.putmask(x, mask, values)
    return x


def _copyto(x, values, where):
    x = np.copy(x)
    np.copyto(x, values, where=where)
    return x


CASES = ([case(f"read-{name}", fn, X) for name, fn in READS.items()]
         + [case(f"read-{name}-int", fn, X.astype(np.int32)) for name, fn in READS.items()]
         + [case(f"traced-{name}", fn, X, I) for name, fn in TRACED.items()]
         + [case(f"write-{name}", fn, X) for name, fn in WRITES.items()]
         + [case("read-vector-traced-bool", lambda v, i: v[i > 0], V, I, grad=())])
# refused on purpose: reading through a mask computed at run time has a data-dependent shape
REFUSED = {"read-vector-traced-bool"}
# a Tensor's own indexing is PyTorch's, which refuses negative steps and numpy arrays as the
# values written
TORCH_INDEXING = {"read-negative-step", "read-negative-step-int", "write-set-ellipsis"}


@pytest.mark.parametrize("c", [c for c in CASES if c.name not in REFUSED | TORCH_INDEXING],
                         ids=lambda c: c.id)
def test_eager(c):
    check_eager(c)


@pytest.mark.parametrize("c", [c for c in CASES if c.name not in REFUSED], ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)


@pytest.mark.parametrize("c", [c for c in CASES if c.grad], ids=lambda c: c.id)
def test_grad(c):
    check_grad(c)
