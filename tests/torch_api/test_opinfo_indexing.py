"""index_select, index_add, index_copy, index_fill, index_reduce of a 0-d tensor (one element
along dim 0 or -1), against torch: values, gradients, refusals."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error, weighted_gradients

torch = pytest.importorskip("torch")

CALLS = {
    "index_select": lambda t, x, s: x.index_select(0, t.tensor([0])),
    "index_select_0d_index": lambda t, x, s: t.index_select(x, -1, t.tensor(0)),
    "index_add": lambda t, x, s: x.index_add(0, t.tensor([0]), s, alpha=-1),
    "index_copy": lambda t, x, s: t.index_copy(x, 0, t.tensor([0]), s),
    "index_fill": lambda t, x, s: x.index_fill(-1, t.tensor([0]), -4.5),
    "index_fill_tensor": lambda t, x, s: x.index_fill(0, t.tensor(0), s),
    "index_reduce_prod": lambda t, x, s: x.index_reduce(0, t.tensor([0]), s, "prod"),
    "index_reduce_amax": lambda t, x, s: x.index_reduce(0, t.tensor([0]), s, "amax",
                                                        include_self=False),
    "index_reduce_mean": lambda t, x, s: x.index_reduce(0, t.tensor([0]), s, "mean"),
}


@pytest.mark.filterwarnings("ignore:index_reduce")
@pytest.mark.parametrize("name", CALLS)
def test_zero_dim_self_is_one_element(name):
    arrays = [np.array(-0.6), np.array(2.5)]
    got, got_grads = weighted_gradients(gradjit, lambda t, x, s: CALLS[name](t, x, s), arrays,
                                        np.float64)
    want, want_grads = weighted_gradients(torch, lambda t, x, s: CALLS[name](t, x, s), arrays,
                                          np.float64)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy())
    for g, w in zip(got_grads, want_grads):
        np.testing.assert_allclose(g.numpy() if g is not None else 0,
                                   w.numpy() if w is not None else 0)


@pytest.mark.parametrize("call", [
    lambda t: t.tensor(2.0).index_add(0, t.tensor([0]), t.tensor([3.0])),
    lambda t: t.tensor(2.0).index_select(1, t.tensor([0])),
])
def test_zero_dim_self_refusals(call):
    same_error(lambda: call(gradjit), lambda: call(torch))


@pytest.mark.parametrize("shape, dim, index_shape, index_dtype", [
    ((5,), 0, (2, 0), "uint8"), ((3, 4), 1, (0,), "int64"), ((), 0, (0, 3), "int64")])
def test_gather_of_no_indices(shape, dim, index_shape, index_dtype):
    def call(t, x):
        return t.gather(x, dim, t.zeros(index_shape, dtype=getattr(t, index_dtype)))
    got, got_grads = weighted_gradients(gradjit, call, [np.ones(shape)], np.float64)
    want, want_grads = weighted_gradients(torch, call, [np.ones(shape)], np.float64)
    assert tuple(got.shape) == tuple(want.shape) and str(got.dtype) == str(want.dtype)
    assert tuple(got_grads[0].shape) == tuple(want_grads[0].shape)


def test_gather_out_of_another_dtype_refused():
    def call(t):
        return lambda: t.gather(t.ones(2, 2), 1, t.zeros(2, 2, dtype=t.long),
                                out=t.empty(2, 2, dtype=t.float64))
    same_error(call(gradjit), call(torch))
