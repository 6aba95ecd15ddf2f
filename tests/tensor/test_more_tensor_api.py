"""Tensor and torch.* names run side by side with torch: asarray, storage and layout
queries, resize_/new/apply_/map_, mode, index_reduce, histogram, angle, fill, float_power_
and post-accumulate-grad hooks. Each case returns plain Python data from either library."""
import warnings

import numpy as np
import pytest

import gradjit
from tests.nn.helpers import same_error, torch

X = np.random.default_rng(1).integers(0, 4, (3, 7)).astype(np.float32)


def _plain(value):
    if hasattr(value, "detach"):
        return (value.detach().numpy().tolist(), str(value.dtype).split(".")[-1],
                type(value.grad_fn).__name__ if value.grad_fn is not None else None)
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value if isinstance(value, (bool, int, float, str, type(None))) else repr(value)


def _asarray(L):
    t = L.ones(2, requires_grad=True) * 2
    n = np.ones(3)
    shared = L.asarray(n)
    n[0] = 5
    leaf = L.ones(2)
    return [L.asarray(t) is t, L.asarray(t, requires_grad=False).requires_grad,
            L.asarray(t, copy=True), L.asarray(t, dtype=L.float64), shared,
            L.asarray(np.ones(3), dtype=L.float32), L.asarray(leaf, requires_grad=True) is leaf,
            leaf.requires_grad, L.asarray([1, 2.5]), L.asarray(3), L.asarray(range(3)),
            L.asarray([[1, 2]], dtype=L.int8), L.asarray(True)]


def _queries(L):
    t = L.ones(2, 3, requires_grad=True)
    flags = [getattr(t, name) for name in ("is_sparse", "is_quantized", "is_meta", "is_nested",
                                           "is_mkldnn", "is_sparse_csr")]
    a, b = (t * 2).split(1)
    return flags + [t.is_pinned(), t.is_shared(), repr(t.layout), t.layout == L.strided,
                    t.dim_order(), t.t().dim_order(), t.is_set_to(t), t.is_set_to(t.view(3, 2)),
                    t.to_dense() is t, a.output_nr, L.get_device(t), L.is_inference(t),
                    t.share_memory_() is t, t.is_shared()]


def _resize_new_apply(L):
    y = L.arange(6.0)
    shrunk = y.resize_(2, 2).clone()
    z = L.arange(4.0)
    z.resize_as_(L.ones(2, 2))
    t = L.tensor([1.0, 2.0])
    t.apply_(lambda v: v * 10)
    t.map_(L.tensor([1.0, 1.0]), lambda a, b: a + b)
    x = L.ones(2, 3, dtype=L.float64)
    return [shrunk, z, t, tuple(x.new(2, 3).shape), x.new([1, 2]), tuple(x.new().shape),
            tuple(y.resize_(3, 3).shape), x.float_power_(2)]


def _mode(L):
    x = L.tensor(X, requires_grad=True)
    out = [x.mode(), x.mode(0), x.mode(1, True), L.mode(L.tensor([2.0, 1, 1, 2, 3])),
           L.mode(L.tensor(5.0))]
    (x.mode(1).values * L.arange(3.0)).sum().backward()
    return out + [x.grad]


def _index_reduce(L):
    source = L.tensor([[2.0, 3, 4], [5, 6, 7]], requires_grad=True)
    out = [L.ones(2, 3).index_reduce(1, L.tensor([0, 0, 2]), source, reduce, include_self=keep)
           for reduce in ("prod", "mean", "amax", "amin") for keep in (True, False)]
    base = L.ones(3, 3)
    base.index_reduce_(0, L.tensor([2, 0]), source.detach()[:, :3] + 4, "amax")
    sum(o.sum() for o in out).backward()
    return out + [base, source.grad]


def _histogram_angle_fill(L):
    x = L.tensor([-1.0, 0.0, -0.0, 2.0, float("inf"), -float("inf")], requires_grad=True)
    angle = x.angle()
    angle.sum().backward()
    h = L.histogram(L.tensor([1.0, 2, 1, 4]), 3)
    return [angle, x.grad, L.angle(L.tensor([-1, 0, 2])), L.angle(L.tensor([float("nan")])),
            h.hist, h.bin_edges,
            list(L.histogram(L.tensor([1.0, 2, 1, 4]), L.tensor([0.0, 1.5, 5]),
                             weight=L.tensor([1.0, 2, 3, 4]), density=True)),
            list(L.tensor([0.1, 0.2, 0.3], dtype=L.float64).histogram(2, range=(0.0, 1.0))),
            L.fill(x, 3), L.fix_(L.tensor([-1.5, 2.5])), L.frac_(L.tensor([-1.5, 2.25]))]


def _post_accumulate_hooks(L):
    w = L.ones(3, requires_grad=True)
    seen = []
    handle = w.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
    (w * 2).sum().backward()
    (w * 3).sum().backward()
    handle.remove()
    (w * 3).sum().backward()
    return seen + [w.grad]


def _gradient(L):
    x = L.tensor([1.0, 4, 9, 16, 25], requires_grad=True)
    grid = L.ones(3, 3) * L.arange(3.0) * L.arange(3.0).reshape(3, 1) ** 2
    out = [L.gradient(x), L.gradient(x, spacing=2.0),
           L.gradient(x, spacing=(L.tensor([0.0, 1, 3, 4, 7]),)),
           L.gradient(x.reshape(1, 5) * L.arange(1.0, 4.0).reshape(3, 1), dim=1, edge_order=2),
           L.gradient(grid), L.gradient(grid, spacing=[1.0, 2.0], dim=(1, 0))]
    (out[2][0] * L.arange(5.0)).sum().backward()
    return out + [x.grad]


def _as_strided(L):
    x = L.arange(12.0, requires_grad=True)
    y = x.as_strided((3, 3), (2, 1), 1)
    (y * y).sum().backward()
    z = L.arange(12.0).reshape(3, 4).t()
    return [y, x.grad, z.as_strided((2, 2), (1, 4)), L.as_strided(z, (2,), (3,), 2),
            z[1:].as_strided((2,), (1,)), L.arange(12.0).reshape(3, 4)[1:].as_strided((2, 2),
                                                                                  (1, 1), 0)]


CASES = {f.__name__[1:]: f for f in (_asarray, _queries, _resize_new_apply, _mode,
                                     _index_reduce, _histogram_angle_fill,
                                     _post_accumulate_hooks, _gradient, _as_strided)}


@pytest.mark.parametrize("name", CASES)
def test_matches_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, got = _plain(CASES[name](torch)), _plain(CASES[name](gradjit))
    np.testing.assert_equal(got, want)


ERRORS = {
    "asarray-sequence": lambda L: L.asarray([1, 2], copy=False),
    "asarray-numpy-dtype": lambda L: L.asarray(np.ones(2), dtype=L.float32, copy=False),
    "asarray-tensor-dtype": lambda L: L.asarray(L.ones(2, dtype=L.float64), dtype=L.float32,
                                                copy=False),
    "resize-grad": lambda L: L.ones(2, requires_grad=True).resize_(3),
    "float_power_": lambda L: L.ones(2).float_power_(2),
    "pin_memory": lambda L: L.ones(2).pin_memory(),
    "mode-empty": lambda L: L.ones(2, 0).mode(1),
    "index_reduce-kind": lambda L: L.ones(2).index_reduce(0, L.tensor([0]), L.ones(1), "sum"),
    "histogram-int": lambda L: L.histogram(L.tensor([1, 2]), 2),
    "post-hook-no-grad": lambda L: L.ones(2).register_post_accumulate_grad_hook(print),
    "post-hook-non-leaf": lambda L: (L.ones(2, requires_grad=True) * 2)
    .register_post_accumulate_grad_hook(print),
    "as_strided-range": lambda L: L.arange(4.0).as_strided((3,), (2,)),
    "gradient-edge": lambda L: L.gradient(L.ones(2), edge_order=2),
    "gradient-spacing": lambda L: L.gradient(L.ones(3, 3), spacing=[1.0, 2.0], dim=0),
    "apply-leaf": lambda L: L.ones(2, requires_grad=True).apply_(abs),
    "map-graph": lambda L: (L.ones(2, requires_grad=True) * 2).map_(L.ones(2), max),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


def test_asarray_warns_once_as_torch_about_the_new_requires_grad_default():
    t = gradjit.ones(2, requires_grad=True) * 2
    from gradjit.tensor import factories
    factories._ASARRAY_WARNED.clear()
    with pytest.warns(UserWarning, match="unspecified requires_grad now defaults"):
        gradjit.asarray(t)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gradjit.asarray(t).requires_grad


def test_mode_compiles_with_its_indices():
    x = gradjit.tensor(X)
    got = gradjit.jit(lambda t: t.mode(1))(x)
    want = torch.tensor(X).mode(1)
    np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())
    np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy())


def test_histogram_bins_of_another_dtype_are_refused():
    with pytest.raises(RuntimeError, match="input tensor and bins tensors should have the same"):
        gradjit.histogram(gradjit.tensor([1.0, 2.0]), gradjit.tensor([1, 2]))


def test_a_scalar_of_a_graph_warns_once_as_torch():
    from gradjit.tensor import conversions
    conversions._SCALAR_WARNED.clear()
    x = gradjit.ones(1, requires_grad=True) * 2
    with pytest.warns(UserWarning, match="Converting a tensor with requires_grad=True to a "
                                         "scalar"):
        assert float(x) == 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert int(x) == 2 and x.item() == 2.0
