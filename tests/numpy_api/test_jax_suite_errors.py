"""numpy's refusals as JAX's lax_numpy tests provoke them (bad axes, shapes that do not fit,
bad splits, repeated axes, wrong kinds of arguments): a traced call raises the exception kind
numpy raises (AxisError, ValueError, TypeError, IndexError)."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import arg, case, check_jit

A, V, I = arg((3, 4)), arg((4,)), arg((3, 4), "i4")

CALLS = {
    "sum-axis": lambda a: np.sum(a, axis=2), "sum-axis-repeated": lambda a: np.sum(a, (0, 0)),
    "mean-axis": lambda a: np.mean(a, -3), "argmax-axis": lambda a: np.argmax(a, 5),
    "cumsum-axis": lambda a: np.cumsum(a, 2), "sort-axis": lambda a: np.sort(a, 3),
    "expand_dims-repeated": lambda a: np.expand_dims(a, (1, 1)),
    "expand_dims-axis": lambda a: np.expand_dims(a, 4), "squeeze-size": lambda a: np.squeeze(a, 0),
    "moveaxis-repeated": lambda a: np.moveaxis(a, (0, 0), (1, 0)),
    "transpose-perm": lambda a: np.transpose(a, (0, 0)), "swapaxes": lambda a: np.swapaxes(a, 0, 2),
    "trace-same-axes": lambda a: np.trace(a, axis1=1, axis2=1),
    "diagonal-same-axes": lambda a: np.diagonal(a, 0, 0, 0),
    "tensordot-axes": lambda a: np.tensordot(a, a, ([0], [1])),
    "tensordot-count": lambda a: np.tensordot(a, a, 3), "dot": lambda a: np.dot(a, a),
    "matmul": lambda a: a @ a, "inner": lambda a: np.inner(a, a.T),
    "cross": lambda a: np.cross(a, a),
    "reshape": lambda a: a.reshape(5, -1), "reshape-two-unknown": lambda a: a.reshape(-1, -1),
    "broadcast_to": lambda a: np.broadcast_to(a, (4, 4)),
    "broadcast_to-rank": lambda a: np.broadcast_to(a, (4,)),
    "concatenate": lambda a: np.concatenate([a, a.T]), "concatenate-axis": lambda a:
        np.concatenate([a, a], 2), "concatenate-rank": lambda a: np.concatenate([a, a[0]]),
    "stack": lambda a: np.stack([a, a[:2]]), "stack-empty": lambda a: np.stack([]) + a,
    "split-uneven": lambda a: np.split(a, 3, axis=1), "split-axis": lambda a: np.split(a, 2, 2),
    "array_split-zero": lambda a: np.array_split(a, 0),
    "hsplit-0d": lambda a: np.hsplit(a[0, 0], 1),
    "vsplit-1d": lambda a: np.vsplit(a[0], 2), "dsplit-2d": lambda a: np.dsplit(a, 2),
    "compress-long": lambda a: np.compress([True] * 5, a, axis=0),
    "compress-axis": lambda a: np.compress([True], a, axis=2),
    "take-raise": lambda a: np.take(a, 20), "take-axis": lambda a: np.take(a, [0], axis=3),
    "take_along_axis-rank": lambda a: np.take_along_axis(a, np.zeros(3, int), 0),
    "take_along_axis-float": lambda a: np.take_along_axis(a, a, 0),
    "index-out-of-range": lambda a: a[3], "index-too-many": lambda a: a[0, 0, 0],
    "index-float": lambda a: a[1.0], "index-bool-shape": lambda a: a[np.array([True, False])],
    "index-array-out-of-range": lambda a: a[np.array([0, 5])],
    "repeat-negative": lambda a: np.repeat(a, -1), "repeat-count": lambda a: np.repeat(a, [1, 2]),
    "tile-negative": lambda a: np.tile(a, -1), "pad-negative": lambda a: np.pad(a, -1),
    "pad-mode": lambda a: np.pad(a, 1, mode="nope"), "pad-empty": lambda a: np.pad(a[:0], 1,
    "edge"),
    "pad-keyword": lambda a: np.pad(a, 1, mode="edge", constant_values=2),
    "interp-lengths": lambda a: np.interp(a, [0.0, 1.0], [1.0]),
    "interp-empty": lambda a: np.interp(a, [], []),
    "interp-2d": lambda a: np.interp(a, a, a), "polyval-0d": lambda a: np.polyval(a[0, 0], 2.0),
    "diff-order": lambda a: np.diff(a, -1), "diff-0d": lambda a: np.diff(a[0, 0]),
    "gradient-short": lambda a: np.gradient(a[:1]), "gradient-edge": lambda a:
        np.gradient(a, edge_order=3),
    "quantile-range": lambda a: np.quantile(a, 1.5), "quantile-method": lambda a:
        np.quantile(a, 0.5, method="nope"), "percentile-range": lambda a: np.percentile(a, -1),
    "argmax-empty": lambda a: np.argmax(a[:0]), "max-empty": lambda a: np.max(a[:0]),
    "histogram-bins": lambda a: np.histogram(a, bins=0), "histogram-range": lambda a:
        np.histogram(a, range=(1, 0)), "histogram-decreasing": lambda a: np.histogram(a, [1, 0]),
    "bincount-negative": lambda a: np.bincount(np.array([-1, 2])) + a[0, 0],
    "bincount-2d": lambda i: np.bincount(i), "searchsorted-side": lambda a:
        np.searchsorted(a[0], a[1], side="up"), "searchsorted-2d": lambda a: np.searchsorted(a, 1),
    "clip-complex": lambda a: np.clip(a + 1j, 0, 1), "hypot-complex": lambda a: np.hypot(a + 1j, a),
    "where-shapes": lambda a: np.where(a > 0, a, a[:2]), "select-lengths": lambda a:
        np.select([a > 0], [a, a]), "choose-out-of-range": lambda i: np.choose(i + 3, [i, i]),
    "unravel_index-range": lambda i: np.unravel_index(i + 20, (2, 3)),
    "ravel_multi_index-range": lambda i: np.ravel_multi_index((i + 5, i), (3, 4)),
    "delete-out-of-range": lambda a: np.delete(a, 10, axis=0),
    "insert-out-of-range": lambda a: np.insert(a, 10, 1.0, axis=0),
    "linspace-negative": lambda a: np.linspace(a[0], a[1], -1),
    "full-shape": lambda a: np.full((2, -1), a[0, 0]), "zeros-float-shape": lambda a:
        np.zeros(2.5) + a[0, 0], "eye-float": lambda a: np.eye(2.5) + a[0, 0],
    "unique-axis": lambda a: np.unique(a, axis=3), "kron-nothing": lambda a: np.kron(a),
    "einsum-labels": lambda a: np.einsum("ij,jk->ik", a, a),
    "einsum-operands": lambda a: np.einsum("ij,jk->ik", a),
    "einsum-output": lambda a: np.einsum("ij->k", a),
    "vdot-size": lambda a: np.vdot(a, a[0]), "outer-fine": lambda a: np.outer(a, a[0]),
    "round-decimals-float": lambda a: np.round(a, 1.5), "ldexp-float": lambda a: np.ldexp(a, a),
    "left_shift-float": lambda a: np.left_shift(a, 1), "bitwise-float": lambda a: a & a,
    "invert-float": lambda a: ~a, "gcd-float": lambda a: np.gcd(a, a),
    "fmod-complex": lambda a: np.fmod(a + 1j, a), "floor-complex": lambda a: np.floor(a + 1j),
    "packbits-float": lambda a: np.packbits(a), "unpackbits-int": lambda i: np.unpackbits(i),
    "array_equal-shapes": lambda a: np.array_equal(a, a[0]) + a[0, 0],
}
CASES = [case(name, fn, I if "int" in name.split("-")[-1] or name.startswith(("bincount-2d",
                                                                               "choose", "unravel",
                                                                               "ravel_multi"))
              else A, grad=()) for name, fn in CALLS.items()]


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)
