"""What grad differentiates: a size-1 array counts as its element, a constant function has a
zero gradient of each argument's shape and dtype."""
import numpy as np
import pytest

import gradjit

X = np.array([0.5, -1.0, 2.0])


@pytest.mark.parametrize("fn,want", [
    (lambda x: np.sum(x ** 2, keepdims=True), 2 * X),
    (lambda x: x[:1] * 3.0, np.array([3.0, 0, 0])),
    (lambda x: np.reshape(np.sum(x), (1, 1, 1)), np.ones(3)),
])
def test_a_size_one_result_is_differentiated_as_a_scalar(fn, want):
    np.testing.assert_array_equal(gradjit.grad(fn)(X), want)
    value, grad = gradjit.value_and_grad(fn)(X)
    assert np.shape(value) == () and float(value) == float(np.sum(fn(X)))
    np.testing.assert_array_equal(grad, want)


@pytest.mark.parametrize("fn", [lambda x: 3.0, lambda x: np.float32(2.0),
                                lambda x: np.ones((1,)), lambda x: np.sum(np.ones(3))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_constant_function_has_a_zero_gradient_of_the_arguments_shape(fn, dtype):
    x = X.astype(dtype)
    grad = gradjit.grad(fn)(x)
    assert grad.shape == x.shape and grad.dtype == dtype and not grad.any()
    t = gradjit.tensor(x)
    tgrad = gradjit.grad(fn)(t)
    assert isinstance(tgrad, gradjit.Tensor) and not tgrad.numpy().any()


def test_integer_results_are_still_refused():
    with pytest.raises(TypeError, match="float scalar"):
        gradjit.grad(lambda x: 3)(X)
    with pytest.raises(TypeError, match="float scalar"):
        gradjit.grad(lambda x: np.sum(x > 0, keepdims=True))(X)
