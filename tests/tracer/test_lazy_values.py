"""Traced values are computed only when Python asks for one (a bool, a number, a constant
index): tracing costs what recording the ops costs, not a numpy evaluation of every op."""
import subprocess
import sys

import numpy as np
import pytest

import gradjit
from gradjit.tracer import trace as T


@pytest.fixture
def evaluated(monkeypatch):
    """The names of the primitives the tracer evaluates with numpy."""
    names = []
    real = T.evaluate

    def counting(prim, args, params):
        names.append(prim.name)
        return real(prim, args, params)
    monkeypatch.setattr(T, "evaluate", counting)
    return names


def test_a_trace_that_asks_for_no_value_evaluates_nothing(evaluated):
    f = gradjit.grad(lambda x: np.sum(np.sin(x) * np.exp(-x * x)))
    x = np.linspace(-1, 1, 7)
    np.testing.assert_allclose(f(x), np.cos(x) * np.exp(-x * x)
                               - 2 * x * np.sin(x) * np.exp(-x * x), rtol=1e-12)
    assert evaluated == []


def test_a_branch_evaluates_only_what_its_condition_needs(evaluated):
    def g(x):
        y = np.sin(x) * 3.0  # not needed by the condition: never evaluated
        return np.sum(y) if np.sum(x * x) > 1.0 else np.sum(y * y)
    f = gradjit.grad(g)
    x = np.array([0.5, 2.0])
    np.testing.assert_allclose(f(x), 3 * np.cos(x), rtol=1e-12)
    assert sorted(evaluated) == ["gt", "mul", "reduce_sum"]
    np.testing.assert_allclose(f(x / 10), 18 * np.sin(x / 10) * np.cos(x / 10), rtol=1e-12)
    assert f.cache_info().traces == 2


def test_a_long_chain_is_evaluated_without_recursion():
    def g(x):
        for _ in range(5000):
            x = x * 0.5 + 0.25
        return x if float(np.sum(x)) > 0 else -x
    np.testing.assert_allclose(gradjit.jit(g)(np.ones(3)), np.full(3, 0.5), rtol=1e-12)


def test_importing_gradjit_imports_no_llvm_sympy_scipy_or_mpmath():
    code = ("import sys, gradjit; loaded = [m for m in ('llvmlite', 'sympy', 'scipy', 'mpmath') "
            "if m in sys.modules]; assert not loaded, loaded")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_value_computed_before_an_in_place_update_keeps_the_old_operand():
    def g(x):
        y = x * 2.0
        x[0] = 100.0  # rebinds x; y was computed from the x before it
        return np.sum(y) if float(np.sum(y)) < 50 else np.sum(x)
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(gradjit.grad(g)(x), [2.0, 2.0, 2.0])
    np.testing.assert_allclose(gradjit.jit(g)(x), 12.0)
