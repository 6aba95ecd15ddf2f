"""softmax and log_softmax of tensors without elements, against torch (shape, dtype, grad)."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import weighted_gradients

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape, dim", [((5, 0, 0), -1), ((5, 0, 0), 0), ((5, 3, 0), 1),
                                        ((0,), 0)])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_normalizing_no_elements(name, shape, dim):
    call = lambda t, x: getattr(t, name)(x, dim, dtype=t.float64)  # noqa: E731
    got, got_grads = weighted_gradients(gradjit, call, [np.zeros(shape)], np.float32)
    want, want_grads = weighted_gradients(torch, call, [np.zeros(shape)], np.float32)
    assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
    assert tuple(got_grads[0].shape) == tuple(want_grads[0].shape)
