"""Shaping functions against torch where the operator database found them apart: flip's dims
keyword, cat's skipping of 1-d empty tensors and its checks of its arguments."""
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


@pytest.mark.parametrize("call", [
    lambda t, e, x: t.cat([e, x], 1), lambda t, e, x: t.cat([x, e, x], -1),
    lambda t, e, x: t.cat([e, e.double(), x], 0), lambda t, e, x: t.cat([e, e]),
])
def test_cat_skips_one_dim_empty_tensors(call):
    arrays = [np.zeros(0, np.float32), np.arange(4.0).reshape(2, 2)]
    got, got_grads = weighted_gradients(gradjit, call, arrays, np.float32)
    want, want_grads = weighted_gradients(torch, call, arrays, np.float32)
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    for g, w in zip(got_grads, want_grads):
        assert (g is None) == (w is None)
        if w is not None:
            assert tuple(g.shape) == tuple(w.shape)
            np.testing.assert_array_equal(g.numpy(), w.numpy())


@pytest.mark.parametrize("call", [lambda t: t.cat([t.zeros(0), t.zeros(2, 2, 2)], 3),
                                  lambda t: t.cat([t.zeros(0), t.zeros(2, 2)], -3)])
def test_cat_with_empty_tensors_refuses_a_dim_out_of_range(call):
    same_error(lambda: call(gradjit), lambda: call(torch))


@pytest.mark.parametrize("call", [
    lambda t: t.cat([t.ones(2, 3), t.ones(2)], 1),
    lambda t: t.cat([t.zeros(0), t.ones(2, 3), t.ones(3, 3)], 1),
    lambda t: t.cat([t.ones(2, 3), t.tensor(1.0)]),
    lambda t: t.cat([t.tensor(1.0), t.ones(2)]),
    lambda t: t.cat([t.ones(2, 3), t.ones(2, 2, 2)], 5),
    lambda t: t.cat([t.ones(2), None]),
    lambda t: t.cat((t.ones(2), 3)),
    lambda t: t.cat(t.ones(2, 2)),
    lambda t: t.cat([]),
    lambda t: t.cat([t.ones(2, 3), t.ones(2, 4)], 0),
    lambda t: t.cat([t.ones(2, 3), t.ones(2, 4)], out=t.empty(0)),
], ids=["rank", "size-after-empty", "0d", "0d-first", "dim", "none", "number", "tensor", "empty",
        "size", "size-with-out"])
def test_cat_refuses_as_torch(call):
    same_error(lambda: call(gradjit), lambda: call(torch))
