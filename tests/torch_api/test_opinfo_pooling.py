"""Pooling in torch.nn.functional against torch on the cases PyTorch's operator database
(op_db) samples: values, gradients and error types with messages."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error, weighted_gradients

torch = pytest.importorskip("torch")


def _agree(fn, *arrays, dtype=np.float64, rtol=1e-7):
    (t_out, t_grads), (g_out, g_grads) = (weighted_gradients(lib, fn, arrays, dtype)
                                          for lib in (torch, gradjit))
    np.testing.assert_allclose(g_out.detach().numpy(), t_out.detach().numpy(), rtol=rtol)
    for g, t in zip(g_grads, t_grads):
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name, shape, output_size", [
    ("adaptive_avg_pool1d", (1, 2, 3), ()),
    ("adaptive_avg_pool1d", (1, 1, 1), (-1,)),
    ("adaptive_avg_pool2d", (2, 2), (2, 2)),
    ("adaptive_avg_pool2d", (1, 2, 3, 4), ()),
    ("adaptive_avg_pool2d", (1, 1, 1, 1), (-1, 0)),
    ("adaptive_avg_pool2d", (2, 2), 2),
    ("adaptive_avg_pool3d", (2, 2, 2), (2, 2, 2)),
    ("adaptive_avg_pool3d", (1, 2, 3, 4), ()),
    ("adaptive_avg_pool3d", (1, 1, 1, 1, 1), (-1, 0, 2)),
    ("adaptive_max_pool1d", (1, 2, 3), ()),
    ("adaptive_max_pool1d", (1, 1, 1), (-1,)),
    ("adaptive_max_pool2d", (2, 2), (2, 2)),
    ("adaptive_max_pool2d", (1, 2, 3, 4), ()),
    ("adaptive_max_pool3d", (1, 1, 1, 1, 1), (-1, 0, 2)),
    ("adaptive_max_pool3d", (2, 2), 2),
])
def test_adaptive_pool_errors(name, shape, output_size):
    x = np.ones(shape)
    same_error(lambda: getattr(gradjit.nn.functional, name)(gradjit.tensor(x), output_size),
               lambda: getattr(torch.nn.functional, name)(torch.tensor(x), output_size))


@pytest.mark.parametrize("n, shape, kernel", [(3, (0, 1, 4, 5, 4), (2, 2, 1)),
                                              (2, (0, 2, 5, 4), (2, 2))])
def test_fractional_max_pool_of_an_empty_batch(n, shape, kernel):
    samples = np.random.default_rng(0).random((shape[0], shape[1], n))

    def pool(t, x):
        return getattr(t.nn.functional, f"fractional_max_pool{n}d")(
            x, kernel, output_size=2, _random_samples=t.tensor(samples))
    _agree(pool, np.ones(shape))


@pytest.mark.parametrize("shape, kernel", [((0, 1, 5, 5), 2), ((0, 3, 4, 6), (2, 3))])
def test_unfold_of_an_empty_batch(shape, kernel):
    _agree(lambda t, x: t.nn.functional.unfold(x, kernel), np.zeros(shape))


@pytest.mark.parametrize("n, shape, indices", [(1, (8, 8, 1), (8, 7, 1)),
                                               (2, (1, 1, 4, 4), (1, 1, 4, 1)),
                                               (3, (1, 1, 4, 4, 4), (1, 1, 4, 1, 4))])
def test_max_unpool_refuses_indices_of_another_shape(n, shape, indices):
    def call(t):
        return getattr(t.nn.functional, f"max_unpool{n}d")(
            t.ones(shape), t.zeros(indices, dtype=t.int64), 2)
    same_error(lambda: call(gradjit), lambda: call(torch))


@pytest.mark.parametrize("n, shape", [(1, (0, 3, 9)), (2, (0, 2, 5, 6)), (3, (0, 1, 4, 5, 4))])
def test_avg_pool_of_an_empty_batch(n, shape):
    _agree(lambda t, x: getattr(t.nn.functional, f"avg_pool{n}d")(x, 2), np.zeros(shape))


@pytest.mark.parametrize("kwargs", [dict(kernel_size=3), dict(kernel_size=2, padding=1),
                                    dict(kernel_size=3, padding=1, count_include_pad=False,
                                         ceil_mode=True),
                                    dict(kernel_size=2, divisor_override=3)])
def test_avg_pool_of_integers_truncates_and_keeps_the_dtype(kwargs):
    x = np.random.default_rng(0).integers(-20, 20, (2, 3, 7, 8))
    t_out = torch.nn.functional.avg_pool2d(torch.tensor(x), **kwargs)
    g_out = gradjit.nn.functional.avg_pool2d(gradjit.tensor(x), **kwargs)
    assert str(g_out.dtype) == str(t_out.dtype)
    np.testing.assert_array_equal(g_out.numpy(), t_out.numpy())


@pytest.mark.parametrize("name, args", [
    ("avg_pool1d", ((1, 1, 4), 2, 1, -1)), ("avg_pool1d", ((1, 1, 4), 2, 1, 4)),
    ("avg_pool2d", ((1, 1, 4, 4), 3, 1, (0, 4))),
    ("avg_pool2d", ((1, 1, 4, 4), 2, 1, 0, False, True, 0)),
    ("avg_pool3d", ((0, 1, 4, 4), 2, 1, -1)), ("max_pool2d", ((1, 1, 4, 4), 2, 1, -1)),
])
def test_pooling_parameter_errors(name, args):
    same_error(lambda: getattr(gradjit.nn.functional, name)(gradjit.ones(args[0]), *args[1:]),
               lambda: getattr(torch.nn.functional, name)(torch.ones(args[0]), *args[1:]))


@pytest.mark.parametrize("name, args", [
    ("avg_pool2d", ((3, 3), (1, 1), (1,), True, False, 2)),
    ("max_pool2d", ((3,), (2,), (1,))),
    ("avg_pool3d", ((2,), (1,), (1,))),
])
def test_pooling_takes_one_value_for_every_dim(name, args):
    x = np.random.default_rng(0).standard_normal((2, 3, 9, 9) if "2d" in name else (1, 2, 5, 4, 6))
    _agree(lambda t, x: getattr(t.nn.functional, name)(x, *args), x)
