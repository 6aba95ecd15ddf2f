"""Quick code generation of small programs: which programs get it, and that its code computes
bit for bit what the optimizing code generator's does (vector loops, masked tails, math)."""
import numpy as np
import pytest

import gradjit.codegen.compile as compile_module
from gradjit.codegen import compile_function
from gradjit.ir import parse
from gradjit.runtime import cache, programs

MATH = """func @math(%x: {t}[{n}]) -> ({t}[], {t}[], {t}[{n}]) {{
  %0 = exp(%x) : {t}[{n}]
  %1 = tanh(%x) : {t}[{n}]
  %2 = mul(%0, %1) : {t}[{n}]
  %3 = reduce_sum(%2) {{axes=[0], keepdims=false}} : {t}[]
  %4 = sin(%x) : {t}[{n}]
  %5 = reduce_max(%4) {{axes=[0], keepdims=false}} : {t}[]
  %6 = log(%0) : {t}[{n}]
  %7 = add(%6, %4) : {t}[{n}]
  return %3, %5, %7
}}"""


@pytest.fixture
def generated(monkeypatch):
    """The `quick` of every compile_ir call, in order; each test compiles afresh."""
    seen = []
    real = compile_module.compile_ir

    def spy(text, quick=False):
        seen.append(quick)
        return real(text, quick=quick)
    monkeypatch.setattr(compile_module, "compile_ir", spy)
    monkeypatch.setattr(programs, "memory", cache.LeastRecentlyUsed())
    return seen


TYPES = {np.float32: "f32", np.float64: "f64"}


def run(n, dtype, limit, monkeypatch):
    monkeypatch.setattr(compile_module, "QUICK_ELEMENTS", limit)
    monkeypatch.setattr(programs, "memory", cache.LeastRecentlyUsed())
    x = np.random.default_rng(n).uniform(-3, 3, n).astype(dtype)
    return compile_function(parse(MATH.format(t=TYPES[dtype], n=n)), cache_dir=False)(x)


@pytest.mark.parametrize("n,quick", [(8, True), (1000, False)])
def test_only_small_programs_are_generated_quickly(generated, monkeypatch, n, quick):
    run(n, np.float32, compile_module.QUICK_ELEMENTS, monkeypatch)
    assert generated == [quick]


@pytest.mark.parametrize("dtype", list(TYPES))
@pytest.mark.parametrize("n", [1, 7, 37, 300])
def test_quick_code_computes_what_optimized_code_does(generated, monkeypatch, dtype, n):
    quick = run(n, dtype, n * 100, monkeypatch)
    optimized = run(n, dtype, -1, monkeypatch)
    assert generated == [True, False]
    for a, b in zip(quick, optimized):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
