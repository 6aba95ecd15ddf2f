"""numpy's automated multi-index sweep (test_indexing's TestMultiIndexingAutomated): every
complex index (ellipsis, ints, masks of 1 to 3 dimensions, empty and reversed slices, index
arrays of several shapes and dtypes, a float array) beside every simple one, read and written
through a compiled function, against numpy on the same array."""
import itertools

import numpy as np
import pytest

from tests.numpy_api.jax_suite import case, check_jit

SKIP = "skip"
COMPLEX = [SKIP, Ellipsis, 0, np.array([True, False, False]),
           np.array([[True, False], [False, True]]), np.array([[[False, False], [False, False]]]),
           slice(-5, 5, 2), slice(1, 1, 100), slice(4, -1, -2), slice(None, None, -3),
           np.empty((0, 1, 1), dtype=np.intp), np.array([0, 1, -2]), np.array([[2], [0], [1]]),
           np.array([[0, -1], [0, 1]]), np.array([2, -1], dtype=np.int8), np.array([0.0, 1.0])]
SIMPLE = [Ellipsis, None, -1, [1], np.array([True]), SKIP]
FILL = [slice(None), 0]


def _indices():
    seen = {}
    for simple_pos in (0, 2, 3):
        slots = [FILL, COMPLEX, FILL, FILL]
        slots[simple_pos] = SIMPLE
        for index in itertools.product(*slots):
            index = tuple(i for i in index if not (isinstance(i, str) and i == SKIP))
            seen.setdefault(repr(index), index)
    return list(seen.values())


INDICES = _indices()
X = np.arange(3 * 1 * 5 * 6, dtype=np.float64).reshape(3, 1, 5, 6)
EMPTY = np.zeros((3, 0, 5, 6))


def _read(index):
    return lambda a: a[index]


def _write(index):
    def write(a):
        a = a.copy()
        a[index] = -1.0
        return a
    return write


@pytest.mark.parametrize("chunk", range(8))
def test_reads_and_writes_of_every_index_combination(chunk):
    for index in INDICES[chunk::8]:
        for array in (X, EMPTY):
            check_jit(case("read", _read(index), array, grad=()))
            check_jit(case("write", _write(index), array, grad=()))
