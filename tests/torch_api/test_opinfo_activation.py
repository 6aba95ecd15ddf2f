"""Activations of torch.nn.functional against torch on the cases PyTorch's operator database
(op_db) samples: values, gradients and error types with messages."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error, weighted_gradients  # noqa: F401

torch = pytest.importorskip("torch")


def agree(fn, *arrays, dtype=np.float64, rtol=1e-7):
    """fn(library, *tensors): the same values and weighted-sum gradients in torch and gradjit."""
    (t_out, t_grads), (g_out, g_grads) = (weighted_gradients(lib, fn, arrays, dtype)
                                          for lib in (torch, gradjit))
    assert str(g_out.dtype) == str(t_out.dtype) and tuple(g_out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(g_out.detach().numpy(), t_out.detach().numpy(), rtol=rtol)
    for g, t in zip(g_grads, t_grads):
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name", ["softmax", "softmin", "log_softmax"])
@pytest.mark.parametrize("shape, dim", [((5, 0, 0), -1), ((3, 0), 1), ((0, 4), 1)])
def test_softmax_family_of_empty_axes(name, shape, dim):
    agree(lambda t, x: getattr(t.nn.functional, name)(x, dim), np.zeros(shape))


@pytest.mark.parametrize("training", [False, True])
def test_rrelu_refuses_a_lower_bound_above_the_upper(training):
    same_error(lambda: gradjit.nn.functional.rrelu(gradjit.ones(3), 0.3, 0.1, training),
               lambda: torch.nn.functional.rrelu(torch.ones(3), 0.3, 0.1, training))
