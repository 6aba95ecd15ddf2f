"""The compiled-vs-eager corpus on the PTX target, its kernels run by the grid emulator:
values equal numpy's and gradients the interpreter backend's (itself checked against
central differences by test_corpus). A sample runs by default, the whole corpus under
`-m slow`."""
import numpy as np
import pytest

import gradjit
from tests.e2e.checks import assert_trees_close, has_float32
from tests.e2e.corpus import CASES

SAMPLE = CASES[::2]


def _tolerances(args):
    return (2e-4, 2e-5) if has_float32(args) else (1e-9, 1e-11)


def _check(case):
    emulated = gradjit.value_and_grad(case.fn, argnums=case.argnums, backend="cuda-emulator")
    reference = gradjit.value_and_grad(case.fn, argnums=case.argnums)
    jitted = gradjit.jit(case.fn, backend="cuda-emulator")
    for args in case.inputs:
        rtol, atol = _tolerances(args)
        value, grads = emulated(*args)
        want_value, want_grads = reference(*args)
        with np.errstate(all="ignore"):
            np.testing.assert_allclose(value, case.fn(*args), rtol=rtol, atol=atol)
            assert_trees_close(jitted(*args), case.fn(*args), rtol=rtol, atol=atol)
        assert_trees_close(grads, want_grads, rtol=rtol, atol=atol)
        np.testing.assert_allclose(value, want_value, rtol=rtol, atol=atol)
    assert emulated.cache_info().traces == case.traces
    assert jitted.cache_info().traces == case.traces


@pytest.mark.parametrize("case", SAMPLE, ids=lambda c: c.name)
def test_emulated_gpu_code_matches_eager(case):
    _check(case)


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in CASES if c not in SAMPLE], ids=lambda c: c.name)
def test_emulated_gpu_code_matches_eager_whole_corpus(case):
    _check(case)
