"""Normalizations of torch.nn.functional against torch on the cases PyTorch's operator
database (op_db) samples: values, gradients and error types with messages."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import agree, same_error

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("call", [
    lambda t: t.nn.functional.rms_norm(t.ones(2, 3), []),
    lambda t: t.nn.functional.rms_norm(t.ones(2, 3), [3], t.ones(2)),
    lambda t: t.nn.functional.rms_norm(t.ones(1, 2, 3), [1, 2, 3], t.ones(1, 2)),
    lambda t: t.nn.functional.rms_norm(t.ones(2, 3), [2], t.ones(2)),
])
def test_rms_norm_errors(call):
    same_error(lambda: call(gradjit), lambda: call(torch))


@pytest.mark.parametrize("shape, groups", [((0, 1, 3), 1), ((0, 4, 2, 2), 2), ((0, 6), 3)])
def test_group_norm_of_an_empty_batch(shape, groups):
    agree(lambda t, x, w, b: t.nn.functional.group_norm(x, groups, w, b), np.zeros(shape),
          np.full(shape[1], 2.0), np.full(shape[1], 0.5))


def test_group_norm_refuses_one_dimension():
    same_error(lambda: gradjit.nn.functional.group_norm(gradjit.ones(3), 1),
               lambda: torch.nn.functional.group_norm(torch.ones(3), 1))


@pytest.mark.parametrize("shape", [(2, 6, 3, 4), (1, 6, 3)])
@pytest.mark.parametrize("kwargs", [dict(size=2, beta=0.5, k=1.25), dict(size=3),
                                    dict(size=4, alpha=0.1)])
def test_local_response_norm_of_integers_averages_as_avg_pool(shape, kwargs):
    x = np.random.default_rng(0).integers(-9, 9, shape)
    t_out = torch.nn.functional.local_response_norm(torch.tensor(x), **kwargs)
    g_out = gradjit.nn.functional.local_response_norm(gradjit.tensor(x), **kwargs)
    assert str(g_out.dtype) == str(t_out.dtype)
    np.testing.assert_allclose(g_out.numpy(), t_out.numpy(), rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda t: t.nn.functional.layer_norm(t.ones(2, 3), []),
    lambda t: t.nn.functional.layer_norm(t.ones(1, 2, 3), [1, 2, 3], t.ones(1, 2)),
    lambda t: t.nn.functional.layer_norm(t.ones(1, 2, 3), [1, 2, 3], None, t.ones(1, 2)),
    lambda t: t.native_layer_norm(t.ones(2, 3), [3], t.ones(2), None, 1e-5),
], ids=["empty-shape", "weight", "bias", "native"])
def test_layer_norm_checks_its_shapes_as_torch(call):
    same_error(lambda: call(gradjit), lambda: call(torch))


def test_native_group_norm_of_an_empty_batch():
    agree(lambda t, x, w, b: t.native_group_norm(x, w, b, 0, 2, 1, 1, 1e-5)[0],
          np.zeros((0, 2)), np.ones(2), np.zeros(2))
    out = gradjit.native_group_norm(gradjit.zeros(0, 2), None, None, 0, 2, 1, 1, 1e-5)
    assert [tuple(t.shape) for t in out] == [(0, 2), (0, 1), (0, 1)]
