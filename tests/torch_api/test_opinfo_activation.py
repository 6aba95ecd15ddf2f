"""Activations of torch.nn.functional against torch on the cases PyTorch's operator database
(op_db) samples: values, gradients and error types with messages."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import agree, same_error

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("name", ["softmax", "softmin", "log_softmax"])
@pytest.mark.parametrize("shape, dim", [((5, 0, 0), -1), ((3, 0), 1), ((0, 4), 1)])
def test_softmax_family_of_empty_axes(name, shape, dim):
    agree(lambda t, x: getattr(t.nn.functional, name)(x, dim), np.zeros(shape))


@pytest.mark.parametrize("training", [False, True])
def test_rrelu_refuses_a_lower_bound_above_the_upper(training):
    same_error(lambda: gradjit.nn.functional.rrelu(gradjit.ones(3), 0.3, 0.1, training),
               lambda: torch.nn.functional.rrelu(torch.ones(3), 0.3, 0.1, training))


@pytest.mark.parametrize("name, args", [("hardtanh", (-1.5, 2.5)), ("hardtanh", (-1, 2)),
                                        ("relu6", ())])
def test_hardtanh_of_integers_keeps_the_dtype(name, args):
    x = np.array([-3, -1, 0, 2, 3, 8])
    t_out = getattr(torch.nn.functional, name)(torch.tensor(x), *args)
    g_out = getattr(gradjit.nn.functional, name)(gradjit.tensor(x), *args)
    assert str(g_out.dtype) == str(t_out.dtype)
    np.testing.assert_array_equal(g_out.numpy(), t_out.numpy())


@pytest.mark.parametrize("x, args", [(np.ones(2), (2.0, 1.0)), (np.array([True]), ())])
def test_hardtanh_errors(x, args):
    same_error(lambda: gradjit.nn.functional.hardtanh(gradjit.tensor(x), *args),
               lambda: torch.nn.functional.hardtanh(torch.tensor(x), *args))


def _batch_norm(t, x, mean, var, weight=None, bias=None, **kwargs):
    return t.nn.functional.batch_norm(x, mean, var, weight, bias, **kwargs)


@pytest.mark.parametrize("training", [False, True])
@pytest.mark.parametrize("shape", [(0,), (0, 3), (0, 3, 2)])
def test_batch_norm_of_an_empty_input(shape, training):
    channels = shape[1] if len(shape) > 1 else 0
    stats = np.zeros(channels), np.ones(channels)
    agree(lambda t, x: _batch_norm(t, x, *map(t.tensor, stats), training=training),
          np.zeros(shape))
    agree(lambda t, x, w, b: _batch_norm(t, x, *map(t.tensor, stats), w, b, training=training),
          np.zeros(shape), np.full(3, 2.0), np.full(3, 0.5))


@pytest.mark.parametrize("shape, stats, kwargs", [
    ((1, 3), (3, 3, None, None), dict(training=True)),
    ((1, 3, 1), (3, 3, None, None), dict(training=True)),
    ((2, 3), (3, 3, None, None), dict(training=True, eps=0.0)),
    ((2, 3), (3, 3, None, None), dict(eps=-1.0)),
    ((2, 3), (None, None, None, None), {}),
    ((2, 3), (3, None, None, None), {}),
    ((2, 3), (4, 3, None, None), {}),
    ((2, 3), (3, 4, None, None), {}),
    ((2, 3), (3, 3, 4, None), {}),
    ((2, 3), (3, 3, 3, 4), {}),
])
def test_batch_norm_errors(shape, stats, kwargs):
    def call(t):
        tensors = [None if n is None else t.ones(n) for n in stats]
        return t.nn.functional.batch_norm(t.ones(shape), *tensors, **kwargs)
    same_error(lambda: call(gradjit), lambda: call(torch))


@pytest.mark.parametrize("call", [
    lambda t: t.nn.functional.softshrink(t.ones(2), -0.5),
    lambda t: t.nn.functional.softshrink(t.ones(2, dtype=t.float64), -0.5),
    lambda t: t.nn.functional.softshrink(t.ones(2), 1e39),
    lambda t: t.nn.functional.prelu(t.tensor(1.0), t.ones(2)),
    lambda t: t.nn.functional.prelu(t.ones(2, 3), t.ones(3, 1)),
    lambda t: t.nn.functional.prelu(t.ones(2, 3), t.ones(2)),
])
def test_softshrink_and_prelu_errors(call):
    same_error(lambda: call(gradjit), lambda: call(torch))


def test_prelu_of_a_zero_dim_input_with_one_weight():
    agree(lambda t, x, w: t.nn.functional.prelu(x, w), np.array(-2.0), np.array([0.25]))
