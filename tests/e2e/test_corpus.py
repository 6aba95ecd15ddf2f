"""Compiled vs eager: for each corpus function, the compiled value equals numpy's, the
compiled gradient equals central differences (float64), each input is traced once per path
and every later call with the same inputs hits the cache."""
import numpy as np
import pytest

import gradjit
from tests.e2e.checks import (assert_trees_close, central_differences, has_float32,
                              to_float64)
from tests.e2e.corpus import CASES


def test_the_corpus_is_large_and_covers_branches():
    assert len(CASES) >= 80
    assert len({c.name for c in CASES}) == len(CASES)
    branchy = [c for c in CASES if c.traces > 1]
    assert len(branchy) >= 10 and all(len(c.inputs) >= 2 for c in CASES)


def _tolerances(args):
    return (2e-3, 2e-4) if has_float32(args) else (1e-6, 1e-8)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_compiled_gradient_matches_eager_value_and_finite_differences(case):
    f = gradjit.value_and_grad(case.fn, argnums=case.argnums)
    for args in case.inputs:
        value, grads = f(*args)
        rtol, atol = _tolerances(args)
        with np.errstate(all="ignore"):
            np.testing.assert_allclose(value, case.fn(*args), rtol=rtol, atol=atol)
        if case.finite_differences:
            eps = 1e-3 if has_float32(args) else 1e-6
            expected = central_differences(case.fn, to_float64(args), case.argnums, eps)
            assert_trees_close(grads, expected, rtol=10 * rtol, atol=10 * atol)
        if case.reference is not None:
            with np.errstate(all="ignore"):
                assert_trees_close(grads, case.reference(*args), rtol=rtol, atol=atol)
        leaves = []
        gradjit.tracer.pytree.flatten(grads, leaves)
        assert all(np.all(np.isfinite(g)) for g in leaves)
    info = f.cache_info()
    assert info.traces == case.traces
    for args in case.inputs:
        f(*args)
    again = f.cache_info()
    assert again.traces == case.traces and again.hits == info.hits + len(case.inputs)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_interpreted_jit_matches_numpy(case):
    """The same traces run by the reference interpreter (the gradient test uses the default,
    native backend)."""
    f = gradjit.jit(case.fn, backend="interpreter")
    for args in case.inputs:
        with np.errstate(all="ignore"):
            np.testing.assert_allclose(f(*args), case.fn(*args), rtol=1e-6, atol=1e-7)
    assert f.cache_info().traces == case.traces


def _tensors(tree, requires_grad):
    leaves = []
    structure = gradjit.tracer.pytree.flatten(tree, leaves)
    made = [gradjit.from_numpy(np.array(x)).requires_grad_(requires_grad) for x in leaves]
    return gradjit.tracer.pytree.unflatten(structure, iter(made)), made


PORTABLE = [c for c in CASES if c.portable]


def test_enough_of_the_corpus_runs_on_tensors():
    assert len(PORTABLE) >= 20


@pytest.mark.parametrize("case", PORTABLE, ids=lambda c: c.name)
def test_tensor_inputs_compiled_gradient_equals_eager_autograd(case):
    """The same function on Tensors: eager autograd (.backward()) and the compiled gradient
    agree, and the compiled one comes back as Tensors."""
    argnums = (case.argnums,) if isinstance(case.argnums, int) else case.argnums
    f = gradjit.grad(case.fn, argnums=argnums)
    for args in case.inputs:
        eager_args, made = _tensors(args, requires_grad=True)
        case.fn(*eager_args).backward()
        wanted = [made[i].grad.numpy() for i in argnums]
        compiled_args, _ = _tensors(args, requires_grad=False)
        got = f(*compiled_args)
        assert all(isinstance(g, gradjit.Tensor) for g in got)
        rtol, atol = _tolerances(args)
        for g, w in zip(got, wanted):
            np.testing.assert_allclose(g.numpy(), w, rtol=rtol, atol=atol)
    assert f.cache_info().traces == case.traces
