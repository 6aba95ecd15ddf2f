"""JAX's batching scenarios: vmap of each lax operation (those of the autodiff scenarios) with
in_axes and out_axes variants, unbatched arguments, nested vmap and vmap of grad, equal to
jax's."""
import numpy as np
import pytest

import gradjit
from tests.jax_port.test_jax_suite_autodiff import CASES, _close, _function

jax = pytest.importorskip("jax")

SCALES = (1.0, 0.9, 0.8)  # each example a scaled copy: the arguments stay in their domains


def _stack(x, axis):
    return np.stack([x * s for s in SCALES], axis=axis)


def _variants(top, f, args):
    """vmap with the first argument mapped along its last axis and results on axis 0; with
    the others unbatched and results on the last axis; vmap of grad; vmap of vmap."""
    first = (_stack(args[0], -1),) + tuple(_stack(a, 0) for a in args[1:])
    axes = (-1,) + (0,) * (len(args) - 1)
    loss = lambda *xs: (f(*xs) ** 2).sum()  # noqa: E731
    nested = tuple(np.stack([_stack(a, 0) * s for s in SCALES[:2]], 1) for a in args)
    return (top.vmap(f, in_axes=axes)(*first),
            top.vmap(f, in_axes=(0,) + (None,) * (len(args) - 1), out_axes=-1)(
                _stack(args[0], 0), *args[1:]),
            top.vmap(top.grad(loss, tuple(range(len(args)))))(*(_stack(a, 0) for a in args)),
            top.vmap(top.vmap(f), in_axes=1, out_axes=1)(*nested))


@pytest.mark.parametrize("name", CASES)
def test_vmap_matches_jax(name):
    args = CASES[name][1]
    expected = _variants(jax, _function(name, "jax"), args)
    actual = _variants(gradjit, _function(name, "gradjit"), args)
    _close(actual, expected, rtol=1e-9, atol=1e-12)


def _indexed(l, n, x, i, which):
    """Operations whose indices, bounds or selectors are the mapped values."""
    dn = l.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0, 1),
                                  start_index_map=(0, 1))
    sdn = l.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0, 1),
                                    scatter_dims_to_operand_dims=(0, 1))
    pairs = n.stack([i, 3 - i]) % 3
    return (l.dynamic_slice(x, (i, i + 1), (2, 2)),
            l.dynamic_update_slice(x, x[:1, :2] * 5, (i, 2 * i)),
            l.dynamic_slice_in_dim(x, i - 1, 2, axis=1),
            l.gather(x, pairs[None], dn, (1, 1)),
            l.scatter_add(x, pairs[None], x[0, :1], sdn),
            l.select_n(which, x, -x, x * 2), l.clamp(x[0, 0] - i, x, x[1, 1] + i),
            l.argmax(x, 1, n.int32), l.top_k(x * (i + 1), 2),
            l.sort_key_val(x[0], x[1] * i, dimension=0))


def test_vmap_of_indices_and_selectors():
    x = np.random.RandomState(5).randn(4, 3, 4)
    i, which = np.array([0, 1, 2, 5]), np.random.RandomState(6).randint(0, 3, (4, 3, 4))
    args = (x, i, which)
    for axes in ((0, 0, 0), (None, 0, None)):
        expected = jax.vmap(lambda *a: _indexed(jax.lax, jax.numpy, *a), axes)(
            *(a if ax == 0 else a[0] for a, ax in zip(args, axes)))
        actual = gradjit.vmap(lambda *a: _indexed(gradjit.lax, np, *a), axes)(
            *(a if ax == 0 else a[0] for a, ax in zip(args, axes)))
        _close(actual, expected, rtol=1e-12)
