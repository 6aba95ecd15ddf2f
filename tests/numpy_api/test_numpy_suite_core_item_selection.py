"""numpy's _core/tests/test_item_selection.py scenarios: take with every mode along an axis
(empty, 0-d and 2-d index arrays, out of range), put and putmask over every numeric dtype and
mode (an empty value list leaves the array alone), partitions by no index; index arrays traced
or constant, eager and compiled against numpy, writes differentiated."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import case, suite_tests

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

MODES = ("raise", "wrap", "clip")
DTYPES = ("?", "b", "B", "h", "H", "i", "I", "l", "L", "q", "Q", "e", "f", "d", "F", "D")


def _index_array(shape, value):
    index = np.zeros(shape, np.intp)
    if index.size:
        index.flat[0] = value
    return index


def _take_cases():
    out = []
    for dtype in ("i8", "f8", "c16", "?"):
        a = np.array([[1, 2], [3, 4]]).astype(dtype)
        for shape in ((0,), (), (1, 1)):
            for mode in MODES:
                for value in (-1, 4):
                    name = f"take-{dtype}-{len(shape)}d{sum(shape)}-{mode}{value}"
                    index = _index_array(shape, value)
                    out += [
                        case(name, lambda a, i, m=mode: np.take(a, i, mode=m, axis=1),
                             a, index),
                        case(name + "-const", lambda a, i=index, m=mode:
                             np.take(a, i, mode=m, axis=1), a),
                    ]
    return out + [
        case("take-bad-mode", lambda a: np.take(a, 5, mode="\u00e4"), np.arange(10)),
        case("take-flat-out-of-range", lambda a, i: np.take(a, i), np.arange(10.0),
             np.array([2, 12])),
        case("take-scalar-index", lambda a: np.take(a, 5, mode="wrap"), np.arange(4.0)),
        case("take-float-index", lambda a, i: np.take(a, i), np.arange(4.0), np.array([1.0])),
        case("take-out", lambda a: np.take(a, [2, 2, 4, 5, 3, 5], out=np.zeros(6)),
             np.arange(10.0)),
        case("take-grad-repeats", lambda a: np.take(a, [[2, 2], [4, 0]], axis=0, mode="clip"),
             np.arange(12.0).reshape(4, 3) / 7),
    ]


def _put(a, index, values, mode="raise"):
    a = np.copy(a)
    np.put(a, index, values, mode=mode)
    return a


def _putmask(a, mask, values):
    a = np.copy(a)
    np.putmask(a, mask, values)
    return a


MASK = np.random.default_rng(3).integers(0, 2, 40).astype(bool)
PERMUTED = np.random.default_rng(4).permutation(37)[:-17]


def _put_cases():
    out = []
    for dtype in DTYPES:
        values = np.arange(41).astype(dtype)
        zeros = np.zeros(40, dtype)
        out.append(case(f"putmask-{dtype}", _putmask, zeros, MASK, values))
        for mode in MODES:
            if mode == "clip":
                index = np.random.default_rng(5).permutation(38)[:-18] + 1
                index[-1], index[-2] = -1389, 1321
            else:
                index = PERMUTED + (40 if mode == "wrap" else 0)
            out += [
                case(f"put-{dtype}-{mode}", lambda a, i, v, m=mode: _put(a, i, v, m),
                     zeros, index, values),
                case(f"put-empty-{dtype}-{mode}", lambda a, m=mode: _put(a, [1, 2, 3], [], m),
                     zeros),
                case(f"putmask-empty-{dtype}-{mode}", lambda a, i: _put(a, i, []), zeros, MASK),
            ]
    return out + [
        case("put-raise-out-of-range", lambda a, i: _put(a, i, 1.0), np.zeros(5), np.array([5])),
        case("put-bad-mode", lambda a: _put(a, [1], [1.0], "nope"), np.zeros(5)),
        case("put-cycle-values", lambda a, v: _put(a, [0, 2, 4, 1], v), np.zeros((2, 3)),
             np.array([1.5, -2.0])),
        case("put-repeat-last-wins", lambda a, v: _put(a, [1, 1, 3], v), np.zeros(5),
             np.array([1.0, 2.0, 3.0])),
        case("put-traced-repeats", lambda a, i, v: _put(a, i, v), np.zeros(5),
             np.array([1, 1, 3, -1, 3]), np.array([1.0, 2.0, 3.0])),
        case("put-traced-argsort", lambda a: _put(a * 2, np.argsort(a), -a), np.array(
            [0.3, -1.2, 2.5, 0.7])),
        case("put-traced-2d-index", lambda a, i, v: _put(a, i, v, "clip"), np.zeros((2, 3)),
             np.array([[7, -2], [4, 4]]), np.array([1.5, -2.0, 3.0])),
        case("put-grad", lambda a, v: _put(a, [0, 5, -1], v, "wrap"),
             np.linspace(-1, 1, 8), np.array([0.5, -1.5])),
        case("putmask-grad", lambda a, v: _putmask(a, a > 0.2, v),
             np.linspace(-1, 1, 8), np.array([0.5, -1.5, 2.5])),
        case("putmask-traced-mask", lambda a, m, v: _putmask(a, m, v),
             np.linspace(-1, 1, 8), np.arange(8) % 3 == 0, np.array([7.0])),
        case("putmask-shape-mismatch", lambda a: _putmask(a, np.ones(3, bool), [1.0]),
             np.zeros(5)),
        case("putmask-cast", lambda a, v: _putmask(a, a > 1, v), np.arange(5),
             np.array([9.7, -1.2])),
    ]


def _partition_cases():
    return [
        case("partition-empty-kth", lambda a: np.partition(a, np.array([], np.int16)),
             np.array([0, 2, 4, 6, 8, 10])),
        case("argpartition-empty-kth", lambda a: np.argpartition(a, np.array([], np.int16)),
             np.array([0, 2, 4, 6, 8, 10])),
    ]


# Indices and masks are constant across a finite difference: the float values differentiate
# through the reads and writes, except where a value is written twice (only the last counts).
CASES = _take_cases() + _put_cases() + _partition_cases()


test_eager, test_jit, test_grad = suite_tests(CASES)
