"""Programs of any length: every pass, the fusion planner, code generation and the text
form are iterative or bounded, so chains far past Python's recursion limit compile and run."""
import re
import sys

import numpy as np
import pytest
import torch

import gradjit
from benchmarks.program_length import ir_chain
from gradjit.codegen import compile_function
from gradjit.ir import interpret, parse, verify
from gradjit.ir.passes import optimize


def _loop(x, steps, sin):
    for _ in range(steps):
        x = sin(x) + 0.5 * x
    return (x * x).sum()


def test_grad_of_a_300_iteration_loop_matches_torch():
    x = np.linspace(-2.0, 2.0, 5)
    got = gradjit.grad(lambda x: _loop(x, 300, np.sin))(x)
    t = torch.tensor(x, requires_grad=True)
    _loop(t, 300, torch.sin).backward()
    np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("n", [10_000, pytest.param(100_000, marks=pytest.mark.slow)])
def test_an_ir_chain_past_the_recursion_limit_prints_parses_compiles_and_runs(n):
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # Python's default: torch.compile (inductor) raises it to 2000
    try:
        assert n >= 10 * sys.getrecursionlimit()
        fn = verify(parse(str(ir_chain(n))))
    finally:
        sys.setrecursionlimit(limit)
    assert len(fn.ops) >= n
    x = np.linspace(-1.0, 1.0, 8)
    (got,) = compile_function(optimize(fn), cache_dir=False)(x)
    np.testing.assert_allclose(got, x * (2 - 0.5 ** (n // 2)), rtol=1e-12)
    np.testing.assert_allclose(interpret(fn, x)[0], got, rtol=1e-12)


@pytest.mark.slow
def test_grad_of_a_long_loop_with_symbolic_simplification():
    x = np.linspace(-2.0, 2.0, 5)
    got = gradjit.grad(lambda x: _loop(x, 3000, np.sin), symbolic=True)(x)
    t = torch.tensor(x, requires_grad=True)
    _loop(t, 3000, torch.sin).backward()
    np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-9, atol=1e-300)


def _solver(x, steps, lib):
    """Explicit Euler steps of a right-hand side heavy in transcendentals."""
    for _ in range(steps):
        x = x + 0.01 * (lib.sin(x) * lib.exp(-x * x) + lib.tanh(x) - lib.log1p(x * x))
    return (x * x).sum()


def test_an_unrolled_solver_calls_one_copy_of_each_math_function_past_a_budget():
    """Past a module's first calls, sin/exp/tanh/log1p are calls of one copy each, so the
    LLVM IR (and LLVM's time on it) grows by a call per use, not by a function body."""
    from gradjit.codegen import compile_function
    from gradjit.codegen.mathlib import INLINE_CALLS_PER_MODULE
    steps, x = 200, np.linspace(-1.0, 1.0, 7)
    got = gradjit.grad(lambda x: _solver(x, steps, np))(x)
    t = torch.tensor(x, requires_grad=True)
    _solver(t, steps, torch).backward()
    np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-9, atol=1e-300)
    fn = optimize(gradjit.grad(lambda x: _solver(x, steps, np)).ir(x))
    llvm_ir = compile_function(fn, cache_dir=False).llvm_ir
    defined = re.findall(r'define internal \S+ @"gradjit\.math\.(\w+)\.', llvm_ir)
    assert sorted(defined) == ["cos", "exp", "log1p", "sin", "tanh"]
    calls = len(re.findall(r'call \S+ @"gradjit\.math\.', llvm_ir))
    assert calls + INLINE_CALLS_PER_MODULE >= 4 * steps
