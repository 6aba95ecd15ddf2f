"""Shaping functions against torch where the operator database found them apart: flip's dims
keyword."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error, weighted_gradients

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("call", [
    lambda t, x: x.flip(dims=(0,)), lambda t, x: t.flip(x, dims=[0, 1]),
    lambda t, x: t.flip(x, (-1,)), lambda t, x: x.flip(0, 1), lambda t, x: x.flip([1]),
])
def test_flip_dims(call):
    data = [np.arange(6.0).reshape(2, 3)]
    got, got_grads = weighted_gradients(gradjit, call, data, np.float64)
    want, want_grads = weighted_gradients(torch, call, data, np.float64)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    np.testing.assert_array_equal(got_grads[0].numpy(), want_grads[0].numpy())


@pytest.mark.parametrize("call", [lambda t: t.ones(2).flip(), lambda t: t.flip(t.ones(2)),
                                  lambda t: t.ones(2).flip(0, 0), lambda t: t.ones(2).flip(dim=0)])
def test_flip_refusals(call):
    same_error(lambda: call(gradjit), lambda: call(torch))
