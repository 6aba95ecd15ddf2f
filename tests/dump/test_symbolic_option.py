"""grad(f, symbolic=True): the sympy simplification of elementwise regions in the compile
pipeline keeps compiled results equal to eager numpy and central differences on a sample of
the corpus, and shows in the optimized IR and in the symbolic dump stage."""
import numpy as np
import pytest

import gradjit
from examples.seed import f as tutorial
from tests.e2e.checks import assert_trees_close, central_differences, has_float32, to_float64
from tests.e2e.corpus import CASES

SAMPLE = CASES[::4]


@pytest.mark.parametrize("case", SAMPLE, ids=lambda c: c.name)
def test_symbolic_compilation_matches_eager_and_finite_differences(case):
    f = gradjit.value_and_grad(case.fn, argnums=case.argnums, symbolic=True)
    for args in case.inputs:
        value, grads = f(*args)
        rtol, atol = (2e-3, 2e-4) if has_float32(args) else (1e-6, 1e-8)
        with np.errstate(all="ignore"):
            np.testing.assert_allclose(value, case.fn(*args), rtol=rtol, atol=atol)
        if case.finite_differences:
            eps = 1e-3 if has_float32(args) else 1e-6
            expected = central_differences(case.fn, to_float64(args), case.argnums, eps)
            assert_trees_close(grads, expected, rtol=10 * rtol, atol=10 * atol)
    assert f.cache_info().traces == case.traces


def test_symbolic_option_keeps_the_tutorial_gradient_whose_rewrite_is_not_exact():
    # d_x = 2*((x + 2)*0.75) is 3*(x + 2)/2 for the reals, but (y*0.75)*2 and y*1.5 differ
    # where y*0.75 is subnormal, so the ops stay; the formula still says what they compute.
    x = np.ones((2, 2), np.float32)
    plain = gradjit.grad(tutorial).ir(x)
    symbolic = gradjit.grad(tutorial, symbolic=True)
    assert len(symbolic.ir(x).ops) == len(plain.ops)
    np.testing.assert_array_equal(symbolic(x), np.full((2, 2), 4.5, np.float32))
    text = gradjit.dump(symbolic, x, stage="symbolic")
    assert "(on): 11 ops -> 11 ops" in text and "d_x = 3*(x + 2)/2" in text


def test_symbolic_option_merges_what_is_bitwise_the_same():
    f = gradjit.jit(lambda x, y: x * y + y * x, symbolic=True)  # 2*(x*y): one product
    x = np.ones(3, np.float32)
    assert [op.prim.name for op in f.ir(x, x).ops] == ["mul", "add"]
