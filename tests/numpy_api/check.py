"""One check for a numpy-written function: compiled values (CPU and the PTX grid emulator)
against numpy itself, and compiled gradients against central differences in float64."""
import numpy as np
import pytest

import gradjit
from tests.e2e.checks import assert_trees_close, central_differences

BACKENDS = ("cpu", "cuda-emulator")


def check_values(fn, *args, backends=BACKENDS, rtol=1e-10, atol=1e-12, static_argnums=()):
    """jit(fn) on each backend gives numpy's result: same shapes, dtypes and values."""
    want = fn(*args)
    for backend in backends:
        got = gradjit.jit(fn, backend=backend, static_argnums=static_argnums)(*args)
        _same_structure_and_dtype(got, want)
        assert_trees_close(got, want, rtol=rtol, atol=atol)


def _same_structure_and_dtype(got, want):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            _same_structure_and_dtype(g, w)
        return
    assert np.shape(got) == np.shape(want), (np.shape(got), np.shape(want))
    assert np.asarray(got).dtype == np.asarray(want).dtype, (np.asarray(got).dtype,
                                                              np.asarray(want).dtype)


def check_grad(fn, *args, argnums=0, backends=BACKENDS, rtol=1e-6, atol=1e-8, eps=1e-6):
    """grad of sum(fn(...) * weights) on each backend against central differences; random
    weights make every output element count with its own factor."""
    out = np.asarray(fn(*args), np.float64)
    weights = np.random.default_rng(0).uniform(0.5, 1.5, out.shape)

    def scalar(*a):
        return (fn(*a) * weights).sum()
    want = central_differences(scalar, args, argnums, eps)
    for backend in backends:
        got = gradjit.grad(scalar, argnums=argnums, backend=backend)(*args)
        assert_trees_close(got, want, rtol=rtol, atol=atol)


def raises_as_numpy(call, error, *args):
    """call(*args) raises `error` in numpy, and compiled raises it with numpy's message in it."""
    with pytest.raises(error) as want:
        call(*args)
    with pytest.raises(error) as got:
        gradjit.jit(call)(*args)
    assert str(want.value) in str(got.value)


def check_eager(fn, *args, rtol=1e-10, atol=1e-12):
    """fn on eager Tensors gives numpy's result on the arrays (Tensors back, same dtypes)."""
    want = fn(*args)
    got = fn(*(gradjit.tensor(a) if isinstance(a, np.ndarray) else a for a in args))
    got = _to_numpy(got)
    _same_structure_and_dtype(got, want)
    assert_trees_close(got, want, rtol=rtol, atol=atol)


def _to_numpy(tree):
    if isinstance(tree, (tuple, list)):
        return type(tree)(_to_numpy(t) for t in tree) if not hasattr(tree, "_fields") else \
            type(tree)(*(_to_numpy(t) for t in tree))
    return tree.numpy() if hasattr(tree, "_edge") else tree
