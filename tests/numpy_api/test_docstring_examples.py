"""numpy's own docstring examples (numpy, numpy.linalg, numpy.fft) on traced values: each
example's call, its array inputs traced by gradjit.jit, gives numpy's result, type and error
type; where the result is floating, gradjit.grad of a weighted sum matches central differences
wherever the example's point is smooth. EXCLUDED lists the examples that cannot work traced,
with the reason; they are checked to fail still, so that the list stays true."""
import collections

import numpy as np
import pytest

import gradjit
from tests.numpy_api.docstring_examples import (calls, difference, documented_functions, flat,
                                                float_positions, quiet)

BACKEND = "interpreter"  # the executable specification: no compile time, every dtype

_LAYOUT = "asks for memory layout or sharing, which a traced value does not have"
_TEXT = "formats the values into text, which a traced value does not have"
_UNSPECIFIED = "numpy leaves the order or the values unspecified (partition, empty_like, " \
    "unique_values' hash order)"
_OBJECT = "object arrays, masked arrays, np.matrix or np.poly1d results, which gradjit does " \
    "not trace"
_ITER = "np.nested_iters iterates over writable operands"
_SCALAR_FORMAT = "formats a traced float32 or float16 as the float64 its guard reads"
EXCLUDED = {
    _LAYOUT: "np.shares_memory[2] np.shares_memory[3] np.shares_memory[4] np.shares_memory[9] "
             "np.may_share_memory[1] np.may_share_memory[3] np.isfortran[6] np.isfortran[12] "
             "np.ravel[6]",
    _TEXT: "np.array2string[2] np.array2string[4] np.array2string[6] np.array_repr[1] "
           "np.array_repr[3] np.array_repr[5] np.array_str[1] np.einsum_path[4] "
           "np.einsum_path[9] np.mintypecode[3]",
    _SCALAR_FORMAT: "np.format_float_positional[1] np.format_float_positional[2] "
                    "np.format_float_positional[3] np.format_float_scientific[1] "
                    "np.format_float_scientific[4]",
    _UNSPECIFIED: "np.partition[4] np.empty_like[2] np.empty_like[4] np.unique_values[1]",
    _OBJECT: "np.isin[12] np.tensordot[17] np.tensordot[18] np.tensordot[19] np.tensordot[20] "
             "np.tensordot[21] np.tensordot[22] np.tensordot[23] np.array[8] np.array[9] "
             "np.bmat[5] np.bmat[6] np.linalg.cholesky[8] np.linalg.eigh[11] np.linalg.inv[6] "
             "np.asmatrix[2] np.array_repr[2] np.concat[11] np.polyval[2]",
    _ITER: "np.nested_iters[2]",
}
WHY = {key: reason for reason, keys in EXCLUDED.items() for key in keys.split()}


def _numpy_calls():
    """Every example call whose numpy result is something to compare (not None: those write
    into an argument), grouped by function."""
    grouped = collections.defaultdict(list)
    for name, function in documented_functions():
        for call in calls(name, function):
            try:
                with quiet():
                    call.expected = call(*_copies(call.leaves))
            except Exception as error:
                call.expected = error
            if call.expected is not None:
                grouped[name].append(call)
    return grouped


def _copies(leaves):
    return [leaf.copy(order="K") for leaf in leaves]  # Fortran-ordered examples stay so


CALLS = _numpy_calls()


def mismatch(call):
    """Why the traced call differs from numpy's, or None."""
    try:
        with quiet():
            got = gradjit.jit(call, backend=BACKEND)(*_copies(call.leaves))
    except Exception as error:
        if isinstance(call.expected, Exception):
            return None if isinstance(error, type(call.expected)) else \
                f"numpy raises {type(call.expected).__name__}, gradjit {error!r}"
        return f"raises {error!r}"
    if isinstance(call.expected, Exception):
        return f"numpy raises {call.expected!r}, gradjit returns"
    return difference(got, call.expected)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_examples_give_numpys_results(name):
    wrong = {call.key: mismatch(call) for call in CALLS[name] if call.key not in WHY}
    assert not {k: v for k, v in wrong.items() if v}, [c.source for c in CALLS[name]]


def test_excluded_examples_are_examples_that_still_fail():
    by_key = {call.key: call for group in CALLS.values() for call in group}
    assert set(WHY) <= set(by_key), set(WHY) - set(by_key)
    # (unspecified values, an empty array's memory, may agree by chance)
    assert not [key for key, why in WHY.items() if why != _UNSPECIFIED and
                mismatch(by_key[key]) is None]


def test_the_examples_cover_numpys_surface():
    assert len(CALLS) >= 330 and sum(map(len, CALLS.values())) >= 1000


def _weighted_sum(call, positions, weights):
    def total(*leaves):
        leaves = [x.copy() if isinstance(x, np.ndarray) else x for x in leaves]
        out = flat(call(*leaves))
        return sum((out[p] * w).sum() for p, w in zip(positions, weights))
    return total


def _differences(fn, leaves, n, side=0, eps=1e-6):
    """d fn / d leaves[n]: central differences, or one-sided towards `side` (1 or -1)."""
    def moved(index, step):
        x = leaves[n].copy()
        x[index] += step * eps
        return float(fn(*leaves[:n], x, *leaves[n + 1:]))
    at = float(fn(*leaves)) if side else None
    grad = np.zeros_like(leaves[n])
    for index in np.ndindex(grad.shape):
        grad[index] = (moved(index, 1) - moved(index, -1)) / (2 * eps) if not side else \
            side * (moved(index, side) - at) / eps
    return grad


def _smooth(fn, leaves, n, central):
    """Whether fn is differentiable at the point along leaves[n]: both one-sided differences
    and central ones over a larger step agree with the central ones (at a kink or a jump, no
    gradient is the reference)."""
    return all(np.allclose(_differences(fn, leaves, n, side, eps), central, 1e-3, 1e-4)
               for side, eps in ((1, 1e-6), (-1, 1e-6), (0, 1e-4)))


def _gradient_cases(name):
    for call in CALLS[name]:
        floats = [i for i, leaf in enumerate(call.leaves) if leaf.dtype == np.float64]
        expected = call.expected
        if call.key in WHY or isinstance(expected, Exception) or not floats or \
                sum(call.leaves[i].size for i in floats) > 64:
            continue
        positions = float_positions(expected)
        leaves = flat(expected)
        if positions and all(np.all(np.abs(leaves[p]) < 1e100) for p in positions):
            yield call, floats, positions


@pytest.mark.parametrize("name", sorted(CALLS))
def test_example_gradients_match_central_differences(name):
    for call, floats, positions in _gradient_cases(name):
        weights = [np.linspace(0.5, 1.5, max(np.size(flat(call.expected)[p]), 1))
                   [:np.size(flat(call.expected)[p])].reshape(np.shape(flat(call.expected)[p]))
                   for p in positions]
        total = _weighted_sum(call, positions, weights)
        with quiet():
            got = gradjit.grad(total, argnums=tuple(floats), backend=BACKEND)(*call.leaves)
        with quiet():
            for g, n in zip(got, floats):
                want = _differences(total, call.leaves, n)
                # a larger step where the sum's large terms round away the small step's change
                if not np.allclose(g, want, 1e-5, 1e-6) and not np.allclose(
                        g, _differences(total, call.leaves, n, eps=1e-4), 1e-4, 1e-5):
                    assert not _smooth(total, call.leaves, n, want), (call.key, g, want)
