"""Reductions against torch where the operator database found them apart: extrema over no
elements, aminmax and max with a tuple out=."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error, weighted_gradients

torch = pytest.importorskip("torch")

EMPTY_CALLS = [
    lambda t, x: t.amax(x), lambda t, x: t.amin(x, (0, 1)), lambda t, x: t.amax(x, (2, 1)),
    lambda t, x: t.amin(x, 1, keepdim=True), lambda t, x: t.aminmax(x),
    lambda t, x: t.aminmax(x, dim=1), lambda t, x: t.max(x, 1), lambda t, x: t.min(x),
    lambda t, x: x.amax(-2), lambda t, x: t.amax(x, (0, -2)), lambda t, x: t.max(x, -2),
    lambda t, x: t.aminmax(x, dim=-2), lambda t, x: t.amin(x, (1, 0)),
]


@pytest.mark.parametrize("shape", [(5, 0, 5), (0, 0, 5)])
@pytest.mark.parametrize("call", EMPTY_CALLS)
def test_extremum_over_no_elements_refused(call, shape):
    same_error(lambda: call(gradjit, gradjit.zeros(shape)), lambda: call(torch, torch.zeros(shape)))


@pytest.mark.parametrize("call", [lambda t, x: t.amax(x, 0), lambda t, x: t.aminmax(x, dim=0)])
def test_extremum_over_a_full_dim_of_an_empty_tensor(call):
    got, want = call(gradjit, gradjit.zeros(2, 0)), call(torch, torch.zeros(2, 0))
    for g, w in zip(got if isinstance(got, tuple) else [got],
                    want if isinstance(want, tuple) else [want]):
        assert tuple(g.shape) == tuple(w.shape)


def test_aminmax_writes_a_tuple_out():
    data = np.random.default_rng(0).standard_normal((20, 20)).astype(np.float32)
    outs = {lib: (lib.empty(20), lib.empty(20)) for lib in (gradjit, torch)}
    got = gradjit.aminmax(gradjit.tensor(data), dim=0, out=outs[gradjit])
    want = torch.aminmax(torch.tensor(data), dim=0, out=outs[torch])
    assert got.min is outs[gradjit][0] and got.max is outs[gradjit][1]
    np.testing.assert_array_equal(got.min.numpy(), want.min.numpy())
    np.testing.assert_array_equal(outs[gradjit][1].numpy(), outs[torch][1].numpy())


def test_aminmax_out_of_another_dtype_refused():
    same_error(lambda: gradjit.aminmax(gradjit.ones(4, 4), dim=0, out=(
        gradjit.empty(4), gradjit.empty(4, dtype=gradjit.float64))),
        lambda: torch.aminmax(torch.ones(4, 4), dim=0, out=(
            torch.empty(4), torch.empty(4, dtype=torch.float64))))


def test_max_writes_values_and_indices_out():
    data = np.random.default_rng(1).standard_normal((3, 4))
    got_out = (gradjit.empty(4, dtype=gradjit.float64), gradjit.empty(4, dtype=gradjit.long))
    want_out = (torch.empty(4, dtype=torch.float64), torch.empty(4, dtype=torch.long))
    got = gradjit.max(gradjit.tensor(data), 0, out=got_out)
    want = torch.max(torch.tensor(data), 0, out=want_out)
    assert got.values is got_out[0] and got.indices is got_out[1]
    np.testing.assert_array_equal(got_out[0].numpy(), want_out[0].numpy())
    np.testing.assert_array_equal(got_out[1].numpy(), want.indices.numpy())


@pytest.mark.parametrize("prepend, append", [(None, None), ((1, 5), (2, 5)), (None, (2, 5))])
def test_diff_of_order_zero_is_the_input(prepend, append):
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal((5, 5))]

    def call(t, x):
        extra = {k: t.tensor(rng.standard_normal(s)) for k, s in
                 (("prepend", prepend), ("append", append)) if s is not None}
        return t.diff(x, 0, 0, **extra)
    got, got_grads = weighted_gradients(gradjit, call, arrays, np.float64)
    want, want_grads = weighted_gradients(torch, call, arrays, np.float64)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    np.testing.assert_array_equal(got_grads[0].numpy(), want_grads[0].numpy())


@pytest.mark.parametrize("weights", [
    {"fweights": [1, -1, 2, 1]}, {"aweights": [1.0, -1.0, 2.0, 1.0]}, {"aweights": [1, 1, 2, 1]},
    {"fweights": [1.0, 1.0, 2.0, 1.0]}])
def test_cov_weight_refusals(weights):
    def call(t):
        return lambda: t.cov(t.ones(3, 4), **{k: t.tensor(v) for k, v in weights.items()})
    same_error(call(gradjit), call(torch))


@pytest.mark.parametrize("data, kwargs", [
    (-4.826984902407649, {"dim": 0, "keepdim": True}), (2.5, {"dim": -1}), (3.0, {}),
    ([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], {"dim": ()}), ([[1, 2], [3, 4]], {"dim": [1]})])
def test_hash_tensor_dims(data, kwargs):
    got = gradjit.hash_tensor(gradjit.tensor(data), **kwargs)
    want = torch.hash_tensor(torch.tensor(data), **kwargs)
    assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("kwargs", [
    {"spacing": None}, {"spacing": None, "edge_order": 2},
    {"dim": (0, -1), "spacing": [[1, 2, 3], [4, 2, 6]]},
    {"dim": (0, 1), "spacing": [[1, 3, 2], [8, 6, 1]], "edge_order": 2}])
@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_gradient_spacing(kwargs, dtype):
    data = (np.arange(27) ** 2 % 11).reshape(3, 3, 3)

    def call(t):
        options = dict(kwargs)
        if isinstance(options.get("spacing"), list):
            options["spacing"] = [t.tensor(s) for s in options["spacing"]]
        return t.gradient(t.tensor(data, dtype=getattr(t, dtype)), **options)
    got, want = call(gradjit), call(torch)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert str(g.dtype) == str(w.dtype)
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)


def test_gradient_repeated_dim_refused():
    same_error(lambda: gradjit.gradient(gradjit.ones(3, 3), spacing=0.1, dim=(1, 1)),
               lambda: torch.gradient(torch.ones(3, 3), spacing=0.1, dim=(1, 1)))
