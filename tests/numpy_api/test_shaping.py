"""numpy's shape and assembly functions on traced values: compiled results (CPU and the PTX
grid emulator) against numpy itself, gradients against central differences, and numpy's
exception types for bad arguments."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gradjit
from gradjit import ops
from gradjit.ops.numpy_api import shaping
from tests.numpy_api.check import check_grad, check_values, raises_as_numpy

rng = np.random.default_rng(3)
X = rng.standard_normal((3, 4))
Y = rng.standard_normal((2, 3, 4))
V = rng.standard_normal(4)
W = rng.standard_normal(3)
S = np.float64(1.5)
E = np.zeros((0, 4))
F32 = rng.standard_normal((3, 4)).astype(np.float32)
I32 = rng.integers(-5, 6, (3, 4)).astype(np.int32)
B = X > 0

VALUES = {
    "apply_along_axis": (lambda x, v: np.apply_along_axis(lambda r: np.outer(r, r) * v[0], 1, x),
                         X, V),
    "apply_along_axis_sum": (lambda x, v: np.apply_along_axis(np.sum, 0, x) + v, X, V),
    "apply_over_axes": (lambda y: np.apply_over_axes(np.sum, y, [0, 2]), Y),
    "apply_over_axes_negative": (lambda x: np.apply_over_axes(np.mean, x, -1), X),
    "sliding_window_view": (lambda y: np.lib.stride_tricks.sliding_window_view(y, 2, -1), Y),
    # joining
    "concatenate_mixed_constant": (lambda x, v: np.concatenate([x, v[None], [[1, 2, 3, 4]]]),
                                   X, V),
    "concatenate_axis_none": (lambda x, v: np.concatenate([x, v], axis=None), X, V),
    "concatenate_negative_axis": (lambda x: np.concatenate([x, x[:, :1]], axis=-1), X),
    "concatenate_dtype": (lambda x: np.concatenate([x, x], dtype=np.float32), I32),
    "concatenate_promotes": (lambda a, b: np.concatenate([a, b]), I32, F32),
    "concatenate_empty": (lambda e, x: np.concatenate([e, x]), E, X),
    "stack_negative_axis": (lambda v: np.stack([v, 2 * v, v], axis=-1), V),
    "stack_0d": (lambda s: np.stack([s, s + 1]), S),
    "join_dtype_keywords": (lambda x: (np.stack([x, x], axis=1, dtype=np.float32),
                                       np.hstack([x, x], dtype=np.int64, casting="unsafe"),
                                       np.vstack([x, x.astype(np.int32)], dtype=np.float64)), X),
    "hstack_1d": (lambda v, w: np.hstack([v, w, [7.0]]), V, W),
    "hstack_2d": (lambda x: np.hstack([x, x[:, :2]]), X),
    "vstack": (lambda x, v: np.vstack([x, v, v]), X, V),
    "row_stack": (lambda x, v: np.row_stack([v, x]), X, V),
    "dstack": (lambda x, v: np.dstack([x, x * v, x[:, :, None]]), X, V),
    "column_stack": (lambda x, w: np.column_stack([w, x, w]), X, W),
    "append_flat": (lambda x, v: np.append(x, v), X, V),
    "append_axis": (lambda x, v: np.append(x, v[None], axis=0), X, V),
    "block": (lambda x, v: np.block([[x, x[:, :1]], [v[None], np.full((1, 1), 5.0)]]), X, V),
    "block_1d": (lambda v, w: np.block([v, w]), V, W),
    "broadcast_arrays": (lambda x, w: np.broadcast_arrays(x, w[:, None], 2.0), X, W),
    "broadcast_to": (lambda v: np.broadcast_to(v, (2, 3, 4)), V),
    "expand_dims_tuple": (lambda x: np.expand_dims(x, (0, -1, 2)), X),
    "squeeze_axis": (lambda x: np.squeeze(x[None, :, None], axis=(0, -2)), X),
    "atleast": (lambda s, v, x: (np.atleast_1d(s), np.atleast_2d(v), np.atleast_3d(s, v, x),
                                 np.atleast_1d(x)), S, V, X),
    "ravel": (lambda y: (np.ravel(y), np.ravel(y, "F"), np.ravel(y, order="K")), Y),
    # splitting
    "split_sections": (lambda x: np.split(x, 2, axis=1), X),
    "split_indices": (lambda x: np.split(x, [1, -1, 10], axis=-1), X),
    "array_split_uneven": (lambda x: np.array_split(x, 3, axis=1), X),
    "array_split_more_than_length": (lambda w: np.array_split(w, 5), W),
    "hsplit_vsplit_dsplit": (lambda y: (np.hsplit(y, 3), np.vsplit(y, [1]), np.dsplit(y, 2)), Y),
    "hsplit_1d": (lambda v: np.hsplit(v, 2), V),
    # repetition
    "tile_more_reps": (lambda v: np.tile(v, (2, 1, 3)), V),
    "tile_fewer_reps": (lambda y: np.tile(y, 2), Y),
    "tile_0d": (lambda s: np.tile(s, (2, 2)), S),
    "tile_zero": (lambda x: np.tile(x, (0, 2)), X),
    "repeat_scalar_axis": (lambda x: np.repeat(x, 2, axis=-2), X),
    "repeat_per_element": (lambda x: np.repeat(x, [1, 0, 3, 1], axis=1), X),
    "repeat_flatten": (lambda x: np.repeat(x, 2), X),
    "repeat_method": (lambda x: x.repeat(np.array([2, 1, 1]), 0), X),
    "repeat_int": (lambda i: np.repeat(i, 3, axis=0), I32),
    # reordering
    "flip_all": (lambda y: np.flip(y), Y),
    "flip_axes": (lambda y: np.flip(y, (0, -1)), Y),
    "fliplr_flipud": (lambda x: (np.fliplr(x), np.flipud(x)), X),
    "roll_flat": (lambda x: np.roll(x, 5), X),
    "roll_axes": (lambda y: np.roll(y, (1, -3, 2), (0, 2, 2)), Y),
    "roll_broadcast_shift": (lambda x: np.roll(x, 2, axis=(0, 1)), X),
    "rot90": (lambda y: (np.rot90(y), np.rot90(y, 2), np.rot90(y, -1, axes=(2, 0)),
                         np.rot90(y, 4)), Y),
    "moveaxis": (lambda y: (np.moveaxis(y, 0, -1), np.moveaxis(y, (0, 1), (2, 0))), Y),
    "rollaxis": (lambda y: (np.rollaxis(y, 2), np.rollaxis(y, 0, 3), np.rollaxis(y, -1, 1)), Y),
    "swapaxes": (lambda y: np.swapaxes(y, 0, -1), Y),
    "float32": (lambda a: (np.flip(a, 0), np.roll(a, 1), np.tile(a, 2), np.rot90(a)), F32),
    "ints": (lambda i: (np.flip(i), np.roll(i, -1, 1), np.tril(i), np.diagonal(i),
                        np.trace(i), np.kron(i, i[:1])), I32),
    "bools": (lambda b: (np.triu(b), np.flip(b), np.pad(b, 1), np.repeat(b, 2, 0)), B),
    # padding
    "pad_int_width": (lambda x: np.pad(x, 2), X),
    "pad_pair": (lambda x: np.pad(x, (1, 3), constant_values=7), X),
    "pad_per_axis_values": (lambda x: np.pad(x, ((1, 2), (0, 3)),
                                             constant_values=((1, 2), (3, 4))), X),
    "pad_traced_value": (lambda x, v: np.pad(x, 1, constant_values=v[0]), X, V),
    "pad_traced_pairs": (lambda x, v: np.pad(x, 1, constant_values=v[:2]), X, V),
    "pad_single_pair_list": (lambda y: np.pad(y, [(1, 2)]), Y),
    "pad_edge": (lambda x: np.pad(x, ((2, 1), (0, 3)), mode="edge"), X),
    "pad_reflect_wide": (lambda x: np.pad(x, 5, mode="reflect"), X),
    "pad_symmetric_wide": (lambda x: np.pad(x, (2, 7), mode="symmetric"), X),
    "pad_wrap": (lambda x: np.pad(x, ((3, 1), (5, 0)), mode="wrap"), X),
    "pad_odd": (lambda x, i: (np.pad(x, ((2, 1), (3, 9)), "reflect", reflect_type="odd"),
                              np.pad(x, 5, "symmetric", reflect_type="odd"),
                              np.pad(i, (4, 2), "reflect", reflect_type="odd")), X, I32),
    "pad_statistics": (lambda x: (np.pad(x, ((2, 1), (3, 2)), "maximum"),
                                  np.pad(x, 2, "minimum", stat_length=1),
                                  np.pad(x, (1, 3), "mean", stat_length=((1, 2), (2, 9)))), X),
    "pad_statistics_ints": (lambda i: (np.pad(i, 2, "mean"), np.pad(i, 1, "maximum")), I32),
    "pad_stat_length_rounds": (lambda x: (np.pad(x, 1, "mean", stat_length=1.5),
                                          np.pad(x, 2, "maximum", stat_length=((0.6, 2), (3, 1)))),
                               X),
    "pad_linear_ramp": (lambda x, i: (np.pad(x, ((2, 1), (3, 2)), "linear_ramp"),
                                      np.pad(x, 2, "linear_ramp", end_values=((5, -3), (2, 7))),
                                      np.pad(i, 3, "linear_ramp", end_values=4)), X, I32),
    "pad_int_truncates_value": (lambda i: np.pad(i, 1, constant_values=2.7), I32),
    "pad_0d": (lambda s: np.pad(s, 3), S),
    "pad_empty_axis": (lambda e: np.pad(e, 1), E),
    # triangles and diagonals
    "tril_triu": (lambda x: (np.tril(x), np.tril(x, -1), np.triu(x, 2), np.triu(x, -5)), X),
    "tril_batched": (lambda y: (np.tril(y, 1), np.triu(y)), Y),
    "tril_1d": (lambda v: np.tril(v), V),
    "diag_1d": (lambda v: (np.diag(v), np.diag(v, 2), np.diag(v, -1)), V),
    "diag_2d": (lambda x: (np.diag(x), np.diag(x, 1), np.diag(x, -2), np.diag(x, 9)), X),
    "diag_empty": (lambda e: np.diag(e[:, 0], 1), E),
    "diagonal": (lambda y: (np.diagonal(y), np.diagonal(y, 1, 2, 1), np.diagonal(y, -1, -1, 0),
                            y.diagonal(2, 1, 2)), Y),
    "trace": (lambda y: (np.trace(y), np.trace(y, 1, 1, 2), np.trace(y[0], -1)), Y),
    "trace_dtype": (lambda x: np.trace(x, dtype=np.float32), X),
    "trace_ints": (lambda i: (np.trace(i), np.trace(i > 0)), I32),
    "kron": (lambda x, v: (np.kron(x, v), np.kron(v, x), np.kron(x, x[:2, :2])), X, V),
    "kron_0d": (lambda s, v: np.kron(s, v), S, V),
    "meshgrid": (lambda v, w: (np.meshgrid(v, w), np.meshgrid(v, w, indexing="ij"),
                               np.meshgrid(v, w, v[:2], sparse=True), np.meshgrid(w)), V, W),
    "eye_identity_tri": (lambda x: (np.eye(3) @ x, np.identity(4) * x[0], np.tri(3, 4) * x),
                         X),
    # selection
    "take_flat": (lambda x: np.take(x, [[0, -1], [5, 11]]), X),
    "take_axis": (lambda y: np.take(y, [2, 0, -1, 0], axis=-1), Y),
    "take_scalar_index": (lambda x: np.take(x, 1, axis=0), X),
    "take_modes": (lambda x: (np.take(x, [7, -9], axis=1, mode="wrap"),
                              np.take(x, [7, -9], axis=1, mode="clip")), X),
    "take_traced_indices": (lambda x, i: np.take(x, i, axis=1), X, np.array([3, 0, -1])),
    "take_traced_clip": (lambda x, i: np.take(x, i, mode="clip"), X, np.array([30, -2, 4])),
    "take_method": (lambda x: x.take([1, 2], axis=1), X),
    "select": (lambda x: np.select([x > 0, x < -1], [x, 2 * x], -3.0), X),
    "select_int_default": (lambda a: np.select([a > 0], [a]), F32),
    "select_broadcast": (lambda x, v: np.select([v > 0, x < 0], [v, x]), X, V),
    "piecewise": (lambda x: np.piecewise(x, [x < 0, x > 1], [lambda t: -t, 3.0,
                                                             lambda t: t * t]), X),
    "piecewise_one_condition": (lambda v: np.piecewise(v, v < 0, [np.sin, np.cos]), V),
    "piecewise_array_of_conditions": (lambda v: np.piecewise(v, np.stack([v < 0, v > 1]),
                                                             [-1.0, 1.0, 2.0]), V),
    "piecewise_list_of_bools": (lambda w: np.piecewise(w, [True, False, True], [lambda t: -t]),
                                W),
    "piecewise_int": (lambda i: np.piecewise(i, [i < 0], [lambda t: 2.7 * t]), I32),
    "choose": (lambda v, w: np.choose(np.array([0, 1, 1, 0]), [v, 2 * v]), V, W),
    "choose_traced_index": (lambda i, x: np.choose(i, [x, -x, 2 * x]), np.array([[0], [2], [1]]),
                            X),
    "choose_modes": (lambda v: (np.choose([5, -1, 0, 1], [v, -v], mode="clip"),
                                np.choose([5, -1, 0, 1], [v, -v], mode="wrap")), V),
    "compress": (lambda x: (np.compress([True, False, True], x, axis=0),
                            np.compress([1, 0, 1], x), np.compress([False, True], x, axis=-1)),
                 X),
    "compress_method": (lambda x: x.compress([False, True, True], 0), X),
    "ndarray_methods": (lambda x, i: (x.trace(), x.trace(1, dtype=np.float32), x.diagonal(1),
                                      x.take([0, 2], 1), x.repeat(2, 1), i.choose([x[0], -x[0]])),
                        X, np.array([0, 1, 1, 0])),
    "edge_cases": (lambda s, e: (np.flip(s), np.roll(e, 2, 0), np.tile(e, (2, 1)),
                                 np.repeat(e, 2, 1), np.take(e, np.zeros(0, int), 1),
                                 np.split(e, 2, 1), np.diagonal(e), np.kron(e, e),
                                 np.rot90(e), np.tril(e), np.atleast_2d(s),
                                 np.pad(e, ((0, 0), (1, 1)), mode="edge")),
                   S, E),
    "extract": (lambda x: np.extract(np.arange(12).reshape(3, 4) % 3 == 0, x), X),
    "insert": (lambda x, v: (np.insert(x, 1, v[:3], axis=1), np.insert(x, [1, 3], 9.0),
                             np.insert(x, [0, 2], v[:2], axis=1),
                             np.insert(x, 2, [[1.0], [2.0]], axis=0)), X, V),
    "insert_int_values": (lambda i: np.insert(i, 1, 2.9), I32),
    "insert_slice": (lambda x, v: np.insert(x, slice(0, 4, 2), v[:3, None], axis=1), X, V),
    "delete": (lambda x: (np.delete(x, 1, 0), np.delete(x, [0, -1], axis=1),
                          np.delete(x, slice(1, None, 2), 1), np.delete(x, []),
                          np.delete(x, [True, False, False, True], 1), np.delete(x, 5)), X),
    "resize": (lambda x: (np.resize(x, (5, 5)), np.resize(x, 2), np.resize(x[:0], (2, 2))), X),
    "unstack_diagflat_matrix_transpose": (lambda x: (
        *np.unstack(x, axis=1), np.diagflat(x), np.diagflat(x[0], k=-2),
        np.matrix_transpose(x[None])), X),
}


@pytest.mark.filterwarnings("ignore:`row_stack` alias is deprecated:DeprecationWarning")
@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_match_numpy(name):
    fn, *args = VALUES[name]
    check_values(fn, *args)


def _pieces(parts):
    """Many outputs as one, each weighted differently, so each piece's gradient counts."""
    return np.concatenate([np.ravel(p) * (i + 1) for i, p in enumerate(parts)])


GRADS = {
    "apply_along_axis": (lambda x, v: np.apply_along_axis(np.cumsum, -1, x) * v, (0, 1)),
    "apply_over_axes": (lambda x, v: np.apply_over_axes(np.cumsum, x * v, [1, 0]), (0, 1)),
    "concatenate": (lambda x, v: np.concatenate([x, v[None], np.ones((1, 4))]), (0, 1)),
    "concatenate_axis_none": (lambda x, v: np.concatenate([x, v], axis=None), (0, 1)),
    "stack": (lambda x, v: np.stack([x, x * v], axis=1), (0, 1)),
    "hstack_vstack_dstack": (lambda x, v: _pieces([np.hstack([x, x]), np.vstack([x, v]),
                                                   np.dstack([x, x * v]), np.column_stack([v, v])]),
                             (0, 1)),
    "block": (lambda x, v: np.block([[x, x], [v, v]]), (0, 1)),
    "broadcast_arrays": (lambda x, v: _pieces(np.broadcast_arrays(x, v)), (0, 1)),
    "append_insert": (lambda x, v: _pieces([np.append(x, v), np.insert(x, [1, 1], v[:2], 1)]),
                      (0, 1)),
    "split": (lambda x, v: _pieces(np.array_split(x, 3, axis=1) + np.split(v, [1])), (0, 1)),
    "tile_repeat": (lambda x, v: _pieces([np.tile(x, (2, 1, 2)), np.repeat(x, 3, axis=1),
                                          np.repeat(v, [2, 0, 1, 3])]), (0, 1)),
    "flip_roll_rot90": (lambda x, v: _pieces([np.flip(x), np.roll(x, (1, -1), (0, 1)),
                                              np.rot90(x), np.rot90(x, 3), np.roll(v, 3)]),
                        (0, 1)),
    "pad_modes": (lambda x, v: _pieces([np.pad(x, ((1, 2), (3, 0)), constant_values=2.0),
                                        np.pad(x, 1, constant_values=v[1]),
                                        np.pad(x, 4, mode="reflect"),
                                        np.pad(x, (2, 5), mode="symmetric"),
                                        np.pad(x, 3, mode="wrap"),
                                        np.pad(x, 2, mode="edge"),
                                        np.pad(x, (1, 2), "linear_ramp", end_values=v[0]),
                                        np.pad(x, 2, "maximum", stat_length=2),
                                        np.pad(x, (3, 1), "mean", stat_length=(1, 3)),
                                        np.pad(x, (2, 6), "reflect", reflect_type="odd")]),
                  (0, 1)),
    "moveaxis": (lambda x, v: np.moveaxis(x[None] * v, 0, -1), (0, 1)),
    "tril_triu": (lambda x, v: _pieces([np.tril(x, 1), np.triu(x, -1), np.tril(v)]), (0, 1)),
    "diag_diagonal_trace": (lambda x, v: _pieces([np.diag(v, 1), np.diag(x, -1),
                                                  np.diagonal(x, 1), np.trace(x) * v]), (0, 1)),
    "kron": (lambda x, v: np.kron(x, v[:2]), (0, 1)),
    "axes_and_views": (lambda x, v: _pieces([
        np.rollaxis(x[None], 2), np.atleast_3d(v), np.atleast_2d(x), np.expand_dims(x, (0, 2)),
        np.squeeze(x[:, None], 1), np.fliplr(x), np.flipud(v), np.broadcast_to(v, (2, 4)),
        np.swapaxes(x, 0, 1), np.ravel(x, "F"), *np.hsplit(x, 2), *np.vsplit(x, [1]),
        *np.dsplit(x[..., None] * v, 2)]), (0, 1)),
    "take_traced_indices": (lambda x, v: np.take(x, (v > 0).astype(np.int64) * 2, axis=1),
                            0),
    "meshgrid": (lambda x, v: _pieces(np.meshgrid(v, x[0])), (0, 1)),
    "take": (lambda x, v: _pieces([np.take(x, [[0, 5], [5, -1]]), np.take(v, [1, 1, 3])]),
             (0, 1)),
    "select_piecewise_choose": (lambda x, v: _pieces([
        np.select([x > 0, x < -0.5], [x * v, x * x], v[0]),
        np.piecewise(x, [x < 0], [lambda t: t * t, lambda t: 2 * t]),
        np.choose([0, 1, 0, 1], [v, x])]), (0, 1)),
    "compress_extract_delete_resize": (lambda x, v: _pieces([
        np.compress([True, False, True], x, axis=0), np.extract(np.eye(3, 4), x),
        np.delete(v, [0, 2]), np.resize(x, (4, 5))]), (0, 1)),
    "unstack_diagflat_matrix_transpose": (lambda x, v: _pieces([
        *np.unstack(x * v), np.diagflat(v, 1), np.matrix_transpose(x)]), (0, 1)),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradient_matches_central_differences(name):
    fn, argnums = GRADS[name]
    check_grad(fn, X, V, argnums=argnums)


def _same_error_as_numpy(fn, *args):
    """fn raises the same kind of exception on traced values as numpy does on arrays."""
    with pytest.raises(Exception) as numpy_error:
        fn(*args)
    with pytest.raises(type(numpy_error.value)):
        gradjit.jit(fn)(*args)


ERRORS = {
    "concatenate_0d": (lambda s: np.concatenate([s, s]), S),
    "concatenate_rank": (lambda x, v: np.concatenate([x, v]), X, V),
    "concatenate_shape": (lambda x: np.concatenate([x, x[:2, :2]]), X),
    "concatenate_casting": (lambda x: np.concatenate([x, x], dtype=np.int64), X),
    "concatenate_axis": (lambda x: np.concatenate([x, x], axis=2), X),
    "stack_shapes": (lambda x, v: np.stack([x, v]), X, V),
    "split_unequal": (lambda x: np.split(x, 3, axis=1), X),
    "split_zero_sections": (lambda x: np.split(x, 0), X),
    "array_split_zero_sections": (lambda x: np.array_split(x, 0), X),
    "roll_nested_shift": (lambda x: np.roll(x, [[1]], 0), X),
    "block_empty_list": (lambda x: np.block([x, []]), X),
    "broadcast_to_negative": (lambda x: np.broadcast_to(x, (-1, 4)), X),
    "tile_negative": (lambda x: np.tile(x, -1), X),
    "take_traced_float_indices": (lambda x, i: np.take(x, i), X, np.array([0.5])),
    "ravel_order": (lambda x: np.ravel(x, "X"), X),
    "hsplit_0d": (lambda s: np.hsplit(s, 1), S),
    "vsplit_1d": (lambda v: np.vsplit(v, 2), V),
    "dsplit_2d": (lambda x: np.dsplit(x, 2), X),
    "repeat_negative": (lambda v: np.repeat(v, -1), V),
    "repeat_mismatched": (lambda v: np.repeat(v, [1, 2]), V),
    "repeat_axis": (lambda v: np.repeat(v, 2, axis=1), V),
    "flip_axis": (lambda v: np.flip(v, 3), V),
    "roll_axis": (lambda v: np.roll(v, 1, axis=-2), V),
    "rot90_same_axes": (lambda x: np.rot90(x, axes=(0, 0)), X),
    "rot90_three_axes": (lambda y: np.rot90(y, axes=(0, 1, 2)), Y),
    "rot90_axes_range": (lambda x: np.rot90(x, axes=(0, 5)), X),
    "fliplr_1d": (lambda v: np.fliplr(v), V),
    "pad_negative": (lambda x: np.pad(x, -1), X),
    "pad_float_width": (lambda x: np.pad(x, 1.5), X),
    "pad_width_shape": (lambda x: np.pad(x, ((1, 2), (3, 4), (5, 6))), X),
    "pad_mode": (lambda x: np.pad(x, 1, mode="foo"), X),
    "pad_keyword": (lambda x: np.pad(x, 1, mode="edge", constant_values=3), X),
    "pad_empty_reflect": (lambda e: np.pad(e, 1, mode="reflect"), E),
    "pad_empty_maximum": (lambda e: np.pad(e, 1, mode="maximum"), E),
    "pad_stat_length_zero": (lambda x: np.pad(x, 1, mode="minimum", stat_length=0), X),
    "pad_end_values_shape": (lambda x: np.pad(x, 1, "linear_ramp", end_values=[1, 2, 3]), X),
    "moveaxis_lengths": (lambda x: np.moveaxis(x, (0, 1), 0), X),
    "moveaxis_range": (lambda x: np.moveaxis(x, 2, 0), X),
    "rollaxis_start": (lambda x: np.rollaxis(x, 0, 5), X),
    "expand_dims_repeated": (lambda x: np.expand_dims(x, (0, 0)), X),
    "squeeze_not_one": (lambda x: np.squeeze(x, 0), X),
    "broadcast_to": (lambda x: np.broadcast_to(x, (4, 4)), X),
    "broadcast_arrays": (lambda x, v: np.broadcast_arrays(x, v[:3]), X, V),
    "block_depths": (lambda x, v: np.block([[x], v]), X, V),
    "block_tuple": (lambda x: np.block((x, x)), X),
    "tril_0d": (lambda s: np.tril(s), S),
    "diag_3d": (lambda y: np.diag(y), Y),
    "diagonal_1d": (lambda v: np.diagonal(v), V),
    "diagonal_same_axes": (lambda x: np.diagonal(x, 0, 1, -1), X),
    "meshgrid_indexing": (lambda v: np.meshgrid(v, v, indexing="yx"), V),
    "take_out_of_bounds": (lambda x: np.take(x, [0, 4], axis=1), X),
    "take_float_indices": (lambda x: np.take(x, np.array([0.5])), X),
    "take_axis": (lambda x: np.take(x, 0, axis=2), X),
    "select_lengths": (lambda x: np.select([x > 0], [x, x]), X),
    "select_not_bool": (lambda x: np.select([x], [x]), X),
    "piecewise_functions": (lambda x: np.piecewise(x, [x > 0], [1, 2, 3]), X),
    "choose_out_of_range": (lambda v: np.choose([0, 2, 0, 1], [v, v]), V),
    "choose_traced_out_of_range": (lambda i, v: np.choose(i, [v, v]), np.array([0, 2, 0, 1]),
                                   V),
    "choose_mode": (lambda v: np.choose([0, 1, 0, 1], [v, v], mode="bad"), V),
    "compress_long_condition": (lambda w: np.compress([1, 0, 1, 1], w), W),
    "insert_out_of_bounds": (lambda v: np.insert(v, 9, 1.0), V),
    "delete_out_of_bounds": (lambda v: np.delete(v, 9), V),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_numpy(name):
    fn, *args = ERRORS[name]
    _same_error_as_numpy(fn, *args)


@pytest.mark.parametrize("fn", [
    lambda x: np.compress(x[0] > 0, x, axis=1), lambda x: np.extract(x > 0, x),
    lambda x: np.repeat(x, (x[0] > 0).astype(np.int64), axis=1),
    lambda x: np.delete(x, (x[0] > 0).astype(np.int64))])
def test_counts_and_conditions_computed_at_run_time_follow_their_values(fn):
    f = gradjit.jit(fn)
    for x in (X, -X, X):
        np.testing.assert_array_equal(f(x), fn(x))
    assert f.cache_info().traces == 2


def test_float_condition_computed_at_run_time_is_a_type_error():
    """A float condition is not guarded on its value (NaN never equals itself)."""
    with pytest.raises(TypeError, match="data-dependent shape"):
        gradjit.jit(lambda x: np.compress(x[0], x, axis=1))(X)


def test_choose_range_check_holds_for_new_indices():
    """The range check of a run-time index is guarded: an index out of range in a later call
    is caught again."""
    fn = gradjit.jit(lambda i, v: np.choose(i, [v, -v]))
    np.testing.assert_array_equal(fn(np.array([0, 1, 1, 0]), V), V * [1, -1, -1, 1])
    with pytest.raises(ValueError, match="invalid entry"):
        fn(np.array([0, 1, 2, 0]), V)


def test_out_argument_is_refused():
    one, six = np.zeros(1), np.zeros((6, 4))  # made outside the functions: numpy's own
    for fn in (lambda x: np.take(x, [0], out=one),
               lambda x: np.concatenate([x, x], out=six)):
        with pytest.raises(TypeError, match="out="):
            gradjit.jit(fn)(X)


def test_empty_lists_are_refused_by_the_array_functions():
    for fn, message in ((ops.shaping.concatenate, "need at least one array"),
                        (ops.shaping.stack, "need at least one array"),
                        (lambda xs: ops.select(xs, xs), "empty condition list")):
        with pytest.raises(ValueError, match=message):
            fn([])


def test_every_function_in_the_table_is_tested():
    called = set()
    for fn, *_ in (*VALUES.values(), *GRADS.values(), *ERRORS.values()):
        called |= set(fn.__code__.co_names)
    assert {f.__name__ for f in shaping.FUNCTIONS} <= called


# ---- properties over random shapes: the ops evaluated on numpy arrays (no compilation) ----

@st.composite
def _arrays(draw, min_rank=0, max_rank=3):
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=min_rank, max_size=max_rank)))
    return np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) * 1.5 - 2


@settings(max_examples=60, deadline=None)
@given(_arrays(), st.data())
def test_pad_roll_tile_repeat_match_numpy_on_random_shapes(a, data):
    rank = a.ndim
    width = data.draw(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=rank,
                               max_size=rank))
    modes = ["constant"] + (["edge", "reflect", "symmetric", "wrap", "maximum", "minimum",
                             "mean", "linear_ramp"] if a.size else [])
    mode = data.draw(st.sampled_from(modes))
    odd = {"reflect_type": "odd"} if mode in ("reflect", "symmetric") and data.draw(
        st.booleans()) else {}
    np.testing.assert_allclose(ops.pad(a, width or 0, mode, **odd),
                               np.pad(a, width or 0, mode, **odd), rtol=1e-12, atol=1e-9)
    if rank:
        axes = data.draw(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=3))
        shifts = data.draw(st.lists(st.integers(-9, 9), min_size=len(axes), max_size=len(axes)))
        np.testing.assert_array_equal(ops.roll(a, shifts, axes), np.roll(a, shifts, axes))
        axis = data.draw(st.integers(-rank, rank - 1))
        counts = np.array(data.draw(st.lists(st.integers(0, 3), min_size=a.shape[axis],
                                             max_size=a.shape[axis])), np.int64)
        np.testing.assert_array_equal(ops.repeat(a, counts, axis), np.repeat(a, counts, axis))
    reps = data.draw(st.lists(st.integers(0, 3), max_size=4))
    np.testing.assert_array_equal(ops.tile(a, reps), np.tile(a, reps))
    np.testing.assert_array_equal(ops.flip(a), np.flip(a))


@settings(max_examples=60, deadline=None)
@given(_arrays(min_rank=2, max_rank=4), st.integers(-5, 5), st.data())
def test_diagonals_match_numpy_on_random_shapes(a, offset, data):
    rank = a.ndim
    axis1, axis2 = data.draw(st.lists(st.integers(-rank, rank - 1), min_size=2, max_size=2,
                                      unique_by=lambda i: i % rank))
    np.testing.assert_array_equal(ops.diagonal(a, offset, axis1, axis2),
                                  np.diagonal(a, offset, axis1, axis2))
    np.testing.assert_array_equal(ops.trace(a, offset, axis1, axis2),
                                  np.trace(a, offset, axis1, axis2))
    np.testing.assert_array_equal(ops.tril(a, offset), np.tril(a, offset))
    np.testing.assert_array_equal(ops.triu(a, offset), np.triu(a, offset))
    v = a.reshape(-1)[:5]
    np.testing.assert_array_equal(ops.diag(v, offset), np.diag(v, offset))
    np.testing.assert_array_equal(ops.kron(a, v), np.kron(a, v))
    np.testing.assert_array_equal(ops.kron(v, a), np.kron(v, a))


@settings(max_examples=60, deadline=None)
@given(_arrays(min_rank=1), st.data())
def test_insert_delete_split_match_numpy_on_random_shapes(a, data):
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    n = a.shape[axis]
    where = data.draw(st.lists(st.integers(-n, n), max_size=3)) if n else []
    values = np.float64(data.draw(st.integers(-9, 9)))
    np.testing.assert_array_equal(ops.insert(a, where, values, axis),
                                  np.insert(a, where, values, axis))
    gone = [i for i in where if -n <= i < n]
    np.testing.assert_array_equal(ops.delete(a, gone, axis), np.delete(a, gone, axis))
    points = sorted(data.draw(st.lists(st.integers(-6, 6), max_size=3)))
    for got, want in zip(ops.array_split(a, points, axis), np.array_split(a, points, axis),
                         strict=True):
        np.testing.assert_array_equal(got, want)


def test_apply_along_an_empty_axis_set_raises_numpys_error():
    raises_as_numpy(lambda a: np.apply_along_axis(np.sum, 0, a), ValueError, np.ones((2, 0)))
