"""numpy's shape manipulation, assembly, splitting, creation from arrays and window functions
as JAX's lax_numpy tests call them (0-d, empty, bool/int/float/complex operands): eager,
compiled and differentiated against numpy."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import arg, case, check_eager, check_grad, check_jit

A, B, C = arg((2, 3)), arg((2, 3)), arg((3, 4, 2))
I, Z, E = arg((2, 3), "i4"), arg((2, 3), "c8"), arg((0, 3))

CASES = [
    case("reshape", lambda a: np.reshape(a, (3, -1)), A),
    case("reshape-F", lambda a: np.reshape(a, (3, 2), order="F"), A),
    case("ravel-F", lambda a: np.ravel(a, order="F"), C),
    case("transpose", lambda a: np.transpose(a, (2, 0, 1)), C),
    case("permute_dims", lambda a: np.permute_dims(a, (1, 0, 2)), C),
    case("matrix_transpose", lambda a: np.matrix_transpose(a), C),
    case("swapaxes", lambda a: np.swapaxes(a, 0, -1), C),
    case("moveaxis", lambda a: np.moveaxis(a, (0, 1), (-1, 0)), C),
    case("rollaxis", lambda a: np.rollaxis(a, 2, 1), C),
    case("expand_dims", lambda a: np.expand_dims(a, (0, -1)), A),
    case("squeeze", lambda a: np.squeeze(a[:, :1], axis=1), A),
    case("atleast_3d", lambda a, b: np.atleast_3d(a, b[0, 0]), A, B),
    case("broadcast_to", lambda a: np.broadcast_to(a[:, :1], (4, 2, 3)), A),
    case("broadcast_arrays", lambda a, b: np.broadcast_arrays(a[:1], b[:, :1, None]), A, B),
    case("flip", lambda a: np.flip(a, (0, 2)), C), case("flip-all", lambda a: np.flip(a), C),
    case("fliplr", np.fliplr, A), case("flipud", np.flipud, I),
    case("rot90", lambda a: np.rot90(a, 3, axes=(2, 0)), C),
    case("rot90-neg", lambda a: np.rot90(a, -1), A),
    case("roll", lambda a: np.roll(a, 2), C),
    case("roll-axes", lambda a: np.roll(a, (1, -2), axis=(0, 2)), C),
    case("tile", lambda a: np.tile(a, (2, 1, 2)), A), case("tile-int", lambda a: np.tile(a, 2), I),
    case("repeat", lambda a: np.repeat(a, 2, axis=1), A),
    case("repeat-list", lambda a: np.repeat(a, [1, 0, 2], axis=1), A),
    case("repeat-flat", lambda a: np.repeat(a, 2), Z),
    case("resize", lambda a: np.resize(a, (4, 4)), A),
    case("concatenate", lambda a, b: np.concatenate([a, b, a], axis=1), A, B),
    case("concatenate-none", lambda a, b: np.concatenate([a, b[0]], axis=None), A, B),
    case("concatenate-mixed", lambda a, b: np.concatenate([a, b]), A, I),
    case("concat", lambda a, b: np.concat((a, b), axis=-1), A, B),
    case("stack", lambda a, b: np.stack([a, b], axis=-1), A, B),
    case("hstack", lambda a, b: np.hstack((a, b)), A, B),
    case("vstack", lambda a, b: np.vstack((a[0], b)), A, B),
    case("dstack", lambda a, b: np.dstack((a, b)), A, B),
    case("column_stack", lambda a, b: np.column_stack((a[0], b.T)), A, B),
    case("block", lambda a, b: np.block([[a, b], [b, a]]), A, B),
    case("append", lambda a, b: np.append(a, b, axis=0), A, B),
    case("append-flat", lambda a, b: np.append(a, b[0]), A, B),
    case("split", lambda a: np.split(a, 3, axis=1), A),
    case("split-indices", lambda a: np.split(a, [1, 3], axis=0), C),
    case("array_split", lambda a: np.array_split(a, 2, axis=1), A),
    case("hsplit", lambda a: np.hsplit(a, [1]), A), case("vsplit", lambda a: np.vsplit(a, 2), A),
    case("dsplit", lambda a: np.dsplit(a, 2), C),
    case("unstack", lambda a: np.unstack(a, axis=1), A),
    case("delete", lambda a: np.delete(a, 1, axis=1), A),
    case("delete-slice", lambda a: np.delete(a, slice(0, 3, 2), axis=0), C),
    case("delete-list", lambda a: np.delete(a, [0, 2]), A),
    case("delete-mask", lambda a: np.delete(a, np.array([True, False, True]), axis=1), A),
    case("insert", lambda a: np.insert(a, 1, 5.0, axis=1), A),
    case("insert-values", lambda a, b: np.insert(a, [0, 2], b[:, :2], axis=1), A, B),
    case("insert-flat", lambda a: np.insert(a, 3, [7.0, 8.0]), A),
    case("pad-constant", lambda a: np.pad(a, ((1, 2), (0, 1)), constant_values=3.0), A),
    case("pad-edge", lambda a: np.pad(a, 2, mode="edge"), A),
    case("pad-reflect", lambda a: np.pad(a, (2, 1), mode="reflect"), A),
    case("pad-reflect-odd", lambda a: np.pad(a, 2, mode="reflect", reflect_type="odd"), A),
    case("pad-symmetric", lambda a: np.pad(a, 4, mode="symmetric"), A),
    case("pad-wrap", lambda a: np.pad(a, ((3, 0), (4, 1)), mode="wrap"), A),
    case("pad-linear_ramp", lambda a: np.pad(a, 2, mode="linear_ramp", end_values=(1, 2)), A),
    case("pad-maximum", lambda a: np.pad(a, 1, mode="maximum"), A),
    case("pad-mean", lambda a: np.pad(a, ((1, 1), (2, 0)), mode="mean", stat_length=2), A),
    case("pad-median", lambda a: np.pad(a, 1, mode="median"), A),
    case("pad-minimum-int", lambda a: np.pad(a, 1, mode="minimum"), I),
    case("pad-empty", lambda a: np.pad(a, ((0, 0), (1, 1))), E),
    case("pad-0d", lambda a: np.pad(a[0, 0], 0), A),
    case("pad-callable", lambda a: np.pad(a, 1, _pad_with_ten), A),
    case("diag", lambda a: np.diag(a, 1), A), case("diag-vector", lambda a: np.diag(a[0], -1), A),
    case("diagflat", lambda a: np.diagflat(a, 1), A),
    case("diagonal", lambda a: np.diagonal(a, 1, 2, 0), C),
    case("trace", lambda a: np.trace(a, -1, 0, 2), C),
    case("tril", lambda a: np.tril(a, -1), C), case("triu", lambda a: np.triu(a, 1), A),
    case("tril-int", lambda a: np.tril(a), I),
    case("fill_diagonal", lambda a: _filled(a), A),
    case("zeros_like", lambda a: np.zeros_like(a, dtype=np.int32), A),
    case("ones_like", lambda a: np.ones_like(a, shape=(2,)), Z),
    case("full_like", lambda a: np.full_like(a, 2.5), I),
    case("empty_like", lambda a: np.empty_like(a).shape, A),
    case("copy", lambda a: np.copy(a), A), case("array", lambda a: np.array(a, ndmin=3), A),
    case("asarray-dtype", lambda a: np.asarray(a, dtype=np.float32), A),
    case("array-list", lambda a, b: np.array([a, b, a]), A, B),
    case("astype", lambda a: np.astype(a, np.int16), A),
    case("astype-bool", lambda a: np.astype(a, bool), Z),
    case("meshgrid", lambda a, b: np.meshgrid(a[0], b[:, 0]), A, B),
    case("meshgrid-ij", lambda a, b: np.meshgrid(a[0], b[:, 0], a[1], indexing="ij"), A, B),
    case("meshgrid-sparse", lambda a, b: np.meshgrid(a[0], b[0], sparse=True), A, B),
    case("vander", lambda a: np.vander(a[0]), A),
    case("vander-increasing", lambda a: np.vander(a[0], 4, increasing=True), A),
    case("linspace", lambda a, b: np.linspace(a[0], b[0], 5), A, B),
    case("linspace-axis", lambda a, b: np.linspace(a[0], b[0], 4, endpoint=False, axis=1), A, B),
    case("linspace-retstep", lambda a: np.linspace(0.0, a[0, 0], 3, retstep=True), A),
    case("logspace", lambda a, b: np.logspace(a[0], b[0], 4, base=2.0), A, B),
    case("geomspace", lambda a: np.geomspace(1.0 + a[0] ** 2, 3.0, 4), A),
    case("sliding_window_view",
         lambda a: np.lib.stride_tricks.sliding_window_view(a, (2, 2)), A),
    case("apply_along_axis", lambda a: np.apply_along_axis(lambda v: v * v.sum(), 1, a), A),
    case("apply_over_axes", lambda a: np.apply_over_axes(np.sum, a, [0, 2]), C),
    case("piecewise", lambda a: np.piecewise(a, [a < 0, a > 1], [lambda v: -v, 2.0, np.sin]), A),
    case("select", lambda a, b: np.select([a > 0, b > 0], [a, b * 2], default=-1.0), A, B),
    case("where", lambda a, b: np.where(a > b, a, b), A, B),
    case("where-scalar", lambda a: np.where(a > 0, a, 0), A),
    case("choose", lambda i, a, b: np.choose(np.abs(i) % 2, [a, b]), I, A, B),
    case("choose-clip", lambda i, a, b: np.choose(i, [a, b], mode="clip"), I, A, B),
    case("choose-wrap", lambda i, a, b: np.choose(i, [a, b], mode="wrap"), I, A, B),
    case("clip", lambda a: np.clip(a, -0.5, 0.5), A),
    case("clip-arrays", lambda a, b: np.clip(a, b, 1.0), A, B),
    case("clip-none", lambda a: np.clip(a, None, 0.3), A),
    case("clip-int", lambda a: np.clip(a, -1, 2), I),
    case("compress", lambda a: np.compress([True, False, True], a, axis=1), A),
    case("compress-flat", lambda a: np.compress([False, True], a), A),
    case("extract-const", lambda a: np.extract(np.arange(6).reshape(2, 3) % 2 == 0, a), A),
    case("ix_", lambda a: a[np.ix_([1, 0], [0, 2])], A),
    case("indices-sparse", lambda a: a[np.indices((2, 3), sparse=True)], A),
    case("unravel_index", lambda i: np.unravel_index(np.abs(i), (2, 4)), I),
    case("ravel_multi_index", lambda i: np.ravel_multi_index((np.abs(i), np.abs(i)), (4, 4)), I),
    case("ravel_multi_index-wrap",
         lambda i: np.ravel_multi_index((i, i), (2, 3), mode="wrap"), I),
    case("kaiser", lambda a: np.kaiser(5, 2.0) * a[0, 0], A),
    case("windows", lambda a: (np.hanning(4) + np.hamming(4) + np.bartlett(4) + np.blackman(4))
         * a[0, 0], A),
]


def _pad_with_ten(vector, pad_width, iaxis, kwargs):
    vector[:pad_width[0]] = 10.0
    vector[len(vector) - pad_width[1]:] = 10.0


def _filled(a):
    a = np.copy(a)
    np.fill_diagonal(a, 7.0)
    return a


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_eager(c):
    check_eager(c)


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)


@pytest.mark.parametrize("c", [c for c in CASES if c.grad], ids=lambda c: c.id)
def test_grad(c):
    check_grad(c)
