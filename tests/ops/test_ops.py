"""The array surface on numpy arrays (numpy flavor) equals numpy itself."""
import itertools

import numpy as np
import pytest

import gradjit.ops as O
from gradjit.ir import ShapeError

rng = np.random.default_rng(2)
DTYPES = [np.bool_, np.int32, np.int64, np.float32, np.float64]


@pytest.mark.parametrize("a,b", list(itertools.product(DTYPES, DTYPES)))
def test_promotion_of_two_arrays_matches_numpy(a, b):
    x, y = np.ones(2, a), np.ones(2, b)
    assert O.result_type(x, y).numpy == np.result_type(x, y)


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("scalar", [True, 2, 2.5])
def test_python_scalars_promote_weakly_like_numpy(a, scalar):
    x = np.ones(2, a)
    assert O.result_type(x, scalar).numpy == (x + scalar).dtype


@pytest.mark.parametrize("sa,sb", [((3, 1), (1, 4)), ((8, 1, 6, 1), (7, 1, 5)), ((), (2,)),
                                   ((0, 3), (1, 3)), ((2, 3), (3,))])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "true_divide", "maximum", "lt"])
def test_binary_broadcasting(sa, sb, op):
    a, b = rng.standard_normal(sa), rng.uniform(1, 2, sb)
    reference = {"sub": np.subtract, "mul": np.multiply, "lt": np.less}.get(op) or getattr(np, op)
    np.testing.assert_allclose(getattr(O, op)(a, b), reference(a, b))


def test_incompatible_shapes_name_both():
    with pytest.raises(ShapeError, match=r"could not be broadcast together with shapes "
                                         r"\(2,3\) \(4,\) "):
        O.add(np.ones((2, 3)), np.ones(4))


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), (-1, -3)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_with_negative_axes(axis, keepdims):
    x = rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(O.sum_(x, axis, keepdims), np.sum(x, axis, keepdims=keepdims))
    np.testing.assert_allclose(O.mean(x, axis, keepdims), np.mean(x, axis, keepdims=keepdims))
    np.testing.assert_allclose(O.amax(x, axis, keepdims), np.max(x, axis, keepdims=keepdims))
    np.testing.assert_allclose(O.vector_norm(x, 2, axis, keepdims),
                               np.sqrt(np.sum(x * x, axis, keepdims=keepdims)))


def test_integer_sum_widens_and_mean_divides():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    assert O.sum_(x).dtype == np.sum(x).dtype
    np.testing.assert_allclose(O.mean(x, 1), np.mean(x, 1))


def test_logsumexp_and_softmax():
    x = rng.standard_normal((3, 5)) * 50
    expected = np.log(np.sum(np.exp(x - x.max(1, keepdims=True)), 1)) + x.max(1)
    np.testing.assert_allclose(O.logsumexp(x, 1), expected)
    np.testing.assert_allclose(O.softmax(x, 1), np.exp(x - expected[:, None]), atol=1e-12)
    assert O.logsumexp(np.full((2,), -np.inf)) == -np.inf


@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 5)), ((4,), (4, 2)), ((3, 4), (4,)), ((4,), (4,)),
                                   ((2, 1, 3, 4), (5, 4, 2)), ((7, 3, 4), (4,))])
def test_matmul_matches_numpy(sa, sb):
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    np.testing.assert_allclose(O.matmul(a, b), a @ b)


def test_matmul_mismatch_names_shapes():
    with pytest.raises(ShapeError, match=r"shapes \(3, 4\) and \(5, 2\) cannot be multiplied"):
        O.matmul(np.ones((3, 4)), np.ones((5, 2)))


def test_shape_functions():
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(O.reshape(x, (-1, 4)), x.reshape(-1, 4))
    np.testing.assert_array_equal(O.transpose(x), x.T)
    np.testing.assert_array_equal(O.swapaxes(x, 0, -1), np.swapaxes(x, 0, -1))
    np.testing.assert_array_equal(O.expand_dims(x, -1), x[..., None])
    np.testing.assert_array_equal(O.squeeze(np.ones((1, 3, 1)), 0), np.ones((3, 1)))
    np.testing.assert_array_equal(O.stack([x, x], 1), np.stack([x, x], 1))
    np.testing.assert_array_equal(O.concatenate([x, x[:, :1]], 1),
                                  np.concatenate([x, x[:, :1]], 1))
    with pytest.raises(ShapeError, match="invalid for input of size 24"):
        O.reshape(x, (5, -1))


INDICES = [(0,), (-1,), (slice(None, None, -1),), (Ellipsis, 1), (None, 1, slice(1, None, 2)),
           (1, [0, 2]), ([True, False],), (slice(None), slice(None), [3, 0, 3]), (-1, -2, -3),
           (slice(5, 0, -2),), (slice(1, 1),), (np.array([[0, 1], [1, 0]]),),
           (x_mask := np.arange(24).reshape(2, 3, 4) % 3 == 0,)]


@pytest.mark.parametrize("index", INDICES, ids=range(len(INDICES)))
def test_getitem_matches_numpy(index):
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(O.getitem(x, index), x[index])


@pytest.mark.parametrize("index", INDICES, ids=range(len(INDICES)))
def test_index_put_matches_numpy(index):
    x = np.arange(24.0).reshape(2, 3, 4)
    expected = x.copy()
    value = -np.arange(expected[index].size, dtype=float).reshape(expected[index].shape)
    expected[index] = value
    np.testing.assert_array_equal(O.index_put(x, index, value), expected)


def test_index_put_duplicates_last_write_wins():
    x = np.zeros(3)
    expected = x.copy()
    expected[[1, 1, 2]] = [5.0, 6.0, 7.0]
    np.testing.assert_array_equal(O.index_put(x, ([1, 1, 2],), np.array([5.0, 6.0, 7.0])),
                                  expected)


@pytest.mark.parametrize("index", [(2,), (0, 3), (slice(None), 4), ([0, 5],), (0, 0, 0, 0)])
def test_bad_indices_raise_index_error(index):
    with pytest.raises(IndexError):
        O.getitem(np.ones((2, 3)), index)
