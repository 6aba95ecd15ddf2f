"""The scenarios of numpy's own test_shape_base.py (atleast_*, hstack/vstack/dstack,
concatenate with axis=None, dtype= and casting=, stack/unstack, block of every nesting) written
as numpy code: eager on Tensors, compiled and differentiated against numpy."""
import numpy as np

from tests.numpy_api.jax_suite import arg, case, suite_tests

A = arg((2, 3))
I = arg((2, 3), "i8")
T = arg((2, 3, 7))


def _written_copy(a):
    """numpy's concatenate of one array is a copy: writing into it leaves the input alone."""
    b = np.concatenate([a])
    b[0, 0] = 2.0
    return a, b


FUNCTIONS = {
    # TestAtleast1d/2d/3d: every rank, and several arrays at once
    "atleast_1d-0d": lambda a: np.atleast_1d(a[0, 0]), "atleast_1d-many": lambda a: np.atleast_1d(
        a[0, 0], a[0], a),
    "atleast_2d-0d": lambda a: np.atleast_2d(a[0, 0]), "atleast_2d-1d": lambda a: np.atleast_2d(
        a[0]),
    "atleast_2d-many": lambda a: np.atleast_2d(a[0, 0], a[0], a, a[None]),
    "atleast_3d-0d": lambda a: np.atleast_3d(a[0, 0]), "atleast_3d-1d": lambda a: np.atleast_3d(
        a[0]),
    "atleast_3d-2d": lambda a: np.atleast_3d(a), "atleast_3d-many": lambda a: np.atleast_3d(
        a[0, 0], a[0], a, a[None]),
    # TestHstack / TestVstack / dstack
    "hstack-0d": lambda a: np.hstack([a[0, 0], a[1, 1]]), "hstack-1d": lambda a: np.hstack(
        [a[0, :1], a[1, :1]]),
    "hstack-2d": lambda a: np.hstack([a[:, :1], a[:, 1:]]),
    "hstack-dtype": lambda a: np.hstack((np.astype(a[0], np.int64), a[1]), dtype=np.int64,
                                        casting="unsafe"),
    "hstack-dtype-safe": lambda a: np.hstack((a[0], a[1]), dtype=np.int64, casting="safe"),
    "hstack-empty": lambda a: np.hstack(()),
    "vstack-0d": lambda a: np.vstack([a[0, 0], a[1, 1]]), "vstack-1d": lambda a: np.vstack(
        [a[0], a[1]]),
    "vstack-2d": lambda a: np.vstack([a, a[:1]]), "vstack-dtype": lambda a: np.vstack(
        (a[0], a[1]), dtype=np.int64, casting="unsafe"),
    "vstack-empty": lambda a: np.vstack(()),
    "dstack": lambda a: np.dstack([a, a]), "dstack-1d": lambda a: np.dstack([a[0], a[1]]),
    "column_stack": lambda a: np.column_stack([a[0], a[1]]),
    "row_stack-like": lambda a: np.vstack([a[0], a]),
    # TestConcatenate
    "concatenate-one": lambda a: np.concatenate([a]), "concatenate-copy": _written_copy,
    "concatenate-axis-None": lambda a: np.concatenate((a, a), axis=None),
    "concatenate-axis-None-list": lambda a: np.concatenate((a, [0.0, 1.0, 2.0]), axis=None),
    "concatenate-axis-None-positional": lambda a: np.concatenate(a, None),
    "concatenate-lists": lambda a: np.concatenate(([0, 1, 2, 3], a[0])),
    "concatenate-tuple-list": lambda a: np.concatenate(((0.0, 1.0), [2], a[1])),
    "concatenate-negative": lambda a: np.concatenate((a, a[:, :1]), -1),
    "concatenate-transposed": lambda a: np.concatenate((a.T, a[:1].T), 1),
    "concatenate-mismatch": lambda a: np.concatenate((a.T, a[:1].T), 0),
    "concatenate-axis-out-of-range": lambda a: np.concatenate((a, a), axis=2),
    "concatenate-axis-negative-out": lambda a: np.concatenate((a, a), axis=-3),
    "concatenate-scalars": lambda a: np.concatenate((a[0, 0],)),
    "concatenate-ranks": lambda a: np.concatenate((a[0], a)),
    "concatenate-empty": lambda a: np.concatenate(()),
    "concatenate-dtype": lambda a: np.concatenate((a, a), dtype=np.float32),
    "concatenate-dtype-int-unsafe": lambda a: np.concatenate((a, a), axis=None, dtype=np.int64,
                                                             casting="unsafe"),
    "concatenate-dtype-int-same_kind": lambda a: np.concatenate((a, a), dtype=np.int64),
    "concatenate-dtype-c8": lambda a: np.concatenate((a, a), dtype="c8"),
    "concatenate-casting-no": lambda a: np.concatenate((a, a), dtype=np.float32, casting="no"),
    "concatenate-casting-equiv": lambda a: np.concatenate((a, a), dtype=np.float64,
                                                          casting="equiv"),
    "concatenate-casting-bad": lambda a: np.concatenate((a, a), casting="same_value"),
    "concatenate-promotes": lambda a: np.concatenate((a, np.ones((1, 3), np.int32))),
    "concatenate-3d": lambda a: np.concatenate((a[..., :4], a[..., 4:6], a[..., 6:]), 2),
    "concatenate-3d-T": lambda a: np.concatenate((a[..., :4].T, a[..., 4:].T), 0),
    # test_stack / test_unstack
    "stack-0d": lambda a: np.stack((a[0, 0], a[0, 1], a[1, 2])),
    "stack-axis1": lambda a: np.stack((a[0], a[1]), axis=1),
    "stack-axis-neg": lambda a: np.stack([a, a, a], -2), "stack-axis-last": lambda a: np.stack(
        [a, a], 2),
    "stack-array": lambda a: np.stack(a), "stack-empty-rows": lambda a: np.stack(
        [a[0, :0], a[1, :0]], axis=1),
    "stack-dtype": lambda a: np.stack((a[0], a[1]), axis=1, casting="unsafe", dtype=np.int64),
    "stack-dtype-safe": lambda a: np.stack((a[0], a[1]), dtype=np.int64, casting="safe"),
    "stack-axis-out": lambda a: np.stack([a, a], axis=3),
    "stack-shapes": lambda a: np.stack([a[0], a[0, :2]]),
    "stack-nothing": lambda a: np.stack([]),
    "stack-casting-bad": lambda a: np.stack([a, a], casting="garbage"),
    "hstack-casting-bad": lambda a: np.hstack([a, a], casting="same_value"),
    "unstack": lambda a: np.unstack(a), "unstack-axis": lambda a: np.unstack(a, axis=-1),
    "unstack-out": lambda a: np.unstack(a, axis=3),
}

BLOCKS = {  # TestBlock
    "row": lambda a: np.block([a, 2 * a]), "column": lambda a: np.block([[a], [2 * a]]),
    "1d-row": lambda a: np.block([a[0], a[1]]), "1d-rows": lambda a: np.block(
        [[a[0], a[1]], [a[1], a[0]]]),
    "1d-column": lambda a: np.block([[a[0]], [a[1]]]),
    "mixed": lambda a: np.block([[a[:, :2]], [a[0, :2]]]),
    "complicated": lambda a: np.block([[a[:1], a[1:]], [np.concatenate([a[0], a[1]])[None]],
                                       [np.concatenate([a[1], a[0]])], [a[0, 0], a.ravel()[1:]],
                                       [np.zeros((2, 6))]]),
    "nested": lambda a: np.block([[np.block([[a[0]], [a[1]], [a[0] * 2]]), np.ones((3, 3))],
                                  [a[1, 1], a.ravel()[:5]]]),
    "3d": lambda a: np.block([[[a[:, :2, :2], a[:, :2, :3]], [a[:, :3, :2], a[:, :3, :3]]],
                              [[a[:1, :2, :2], a[:1, :2, :3]], [a[:1, :3, :2], a[:1, :3, :3]]]]),
    "scalar": lambda a: np.block(a[0, 0, 0]), "array": lambda a: np.block(a),
    "different-ndims": lambda a: np.block([1.0, a[:1, 0, :2], a[:1, :1, :3]]),
    "different-depths": lambda a: np.block([[1.0, a[:1, 0, :2]], [a[:1, :2, :3]]]),
    "mismatched": lambda a: np.block([a[0, 0, :2], np.eye(2)]),
    "mismatched-2d": lambda a: np.block([[a[0, :2, :3], a[0, :2, :2]], [a[1, :2, :2],
                                                                        a[1, :2, :2]]]),
    "depths-mismatched": lambda a: np.block([a[0, 0, 0], [a[0, 0, 1]]]),
    "empty": lambda a: np.block([[a[0, 0]], []]), "tuple": lambda a: np.block(
        [(a[0, 0, 0], a[0, 0, 1])]),
}


def _cases():
    out = [case(name, fn, T if name.startswith("concatenate-3d") else A)
           for name, fn in FUNCTIONS.items()]
    out += [case(f"block-{name}", fn, arg((3, 3, 3))) for name, fn in BLOCKS.items()]
    out += [case(f"{name}-int", fn, I) for name, fn in FUNCTIONS.items()
            if name.startswith(("stack", "concatenate-dtype", "hstack", "vstack", "atleast"))]
    out += [case(f"{name}-c16", FUNCTIONS[name], arg((2, 3), "c16"))
            for name in ("concatenate-dtype-c8", "stack-axis1", "concatenate-promotes")]
    out += [case("concatenate-f32", lambda a: np.concatenate((np.astype(a, np.float32), a)), A,
                 grad=())]  # finite differences through float32 are too coarse
    return out


CASES = _cases()


test_eager, test_jit, test_grad = suite_tests(CASES)
