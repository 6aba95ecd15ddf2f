"""Programs rebuilt from a disk entry's plan: the same plan, steps and results as the compiled
program (guards, BLAS calls, index checks and constants included); programs whose steps are not
plain data reuse the entry's object code after fusing again."""
import numpy as np
import pytest

from gradjit.codegen import compile as compile_module
from gradjit.ir import GuardFailed, interpret, parse
from gradjit.runtime import cache, programs

GUARDED = """func @guarded(%x: f64[3], %i: i64[2]) -> (f64[3], f64[2]) {
  %0 = reduce_sum(%x) {axes=[0], keepdims=false} : f64[]
  %1 = constant() {value=[0.5,1.5,2.5], shape=[3], dtype=f64} : f64[3]
  %2 = full() {value=0.0, shape=[], dtype=f64} : f64[]
  %3 = gt(%0, %2) : bool[]
  guard(%3) {expected=true, site="model.py:7"}
  %4 = mul(%x, %1) : f64[3]
  %5 = gather(%x, %i) {axis=0} : f64[2]
  return %4, %5
}"""

# a product large enough for BLAS
MATMUL = """func @mm(%a: f32[64,96], %b: f32[96,64]) -> (f32[64,64]) {
  %0 = matmul(%a, %b) : f32[64,64]
  %1 = tanh(%0) : f32[64,64]
  return %1
}"""

# a product split into blocks of rows, tanh and a product of its rows its tail
TAILED = """func @tailed(%a: f64[1024,256], %b: f64[256,64], %c: f64[64,8]) -> (f64[1024,8]) {
  %0 = matmul(%a, %b) : f64[1024,64]
  %1 = tanh(%0) : f64[1024,64]
  %2 = matmul(%1, %c) : f64[1024,8]
  return %2
}"""

# argsort runs on the host through numpy: a step that is no plain data
LIBRARY = """func @order(%x: f64[3]) -> (i64[3]) {
  %0 = argsort(%x) {axis=0} : i64[3]
  %1 = full() {value=2, shape=[3], dtype=i64} : i64[3]
  %2 = mul(%0, %1) : i64[3]
  return %2
}"""


@pytest.fixture
def compiled(monkeypatch, tmp_path):
    """Compile IR text into a fresh cache directory with nothing kept in memory between calls:
    (the program, whether it came from the disk, whether its entry holds a plan)."""
    monkeypatch.setattr(programs, "memory", cache.LeastRecentlyUsed())

    def compile_(text):
        programs.memory.clear()
        fn = parse(text)
        program = compile_module.compile_function(fn, cache_dir=tmp_path)
        meta, _ = cache.load(tmp_path, programs.cache_key(fn, "cpu"))
        return program, "plan" in meta
    return compile_


@pytest.mark.parametrize("text", [GUARDED, MATMUL, TAILED])
def test_a_plan_rebuilds_the_program_it_was_stored_for(compiled, text):
    first, planned = compiled(text)
    again, _ = compiled(text)
    assert planned and not first.from_disk and again.from_disk
    assert again.text == first.text and again.llvm_ir == first.llvm_ir
    assert [str(s) for s in again.steps] == [str(s) for s in first.steps]
    assert any(getattr(s, "tail", None) and s.next for s in again.steps) == (text is TAILED)
    assert again.workspace_bytes == first.workspace_bytes
    assert (again._enter is None) == (first._enter is None)
    for mine, theirs in zip(again.constants, first.constants):
        assert mine.dtype == theirs.dtype
        np.testing.assert_array_equal(mine, theirs)
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(p.shape).astype(p.dtype) if p.dtype.kind == "f"
            else np.array([2, -1]) for p in first.params]
    for got, want in zip(again(*args), interpret(parse(text), *args)):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_a_rebuilt_program_keeps_its_guards_and_index_checks(compiled):
    compiled(GUARDED)
    program, _ = compiled(GUARDED)
    assert program.from_disk
    with pytest.raises(GuardFailed) as failure:
        program(-np.ones(3), np.array([0, 1]))
    assert failure.value.site == "model.py:7"
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis with size 3"):
        program(np.ones(3), np.array([0, 3]))


def test_a_program_with_host_steps_stores_no_plan_and_still_skips_llvm(compiled):
    first, planned = compiled(LIBRARY)
    again, _ = compiled(LIBRARY)
    assert not planned and not first.from_disk and again.from_disk
    x = np.array([3.0, 1.0, 2.0])
    np.testing.assert_array_equal(again(x)[0], np.argsort(x) * 2)


@pytest.mark.parametrize("text", [MATMUL, LIBRARY])  # rebuilt from the plan, or fused again
def test_an_entry_holds_the_llvm_ir_packed_and_a_program_from_it_unpacks_it_when_read(
        compiled, tmp_path, text):
    first, _ = compiled(text)
    again, _ = compiled(text)
    assert again.from_disk and not isinstance(again._llvm_ir, str)  # not unpacked yet
    assert again.llvm_ir == first.llvm_ir and "define" in again.llvm_ir
    meta, _ = cache.load(tmp_path, first.cache_key)
    assert len(meta["llvm_ir"]) * 3 < len(first.llvm_ir) * 2


def test_a_plan_this_version_cannot_read_is_a_miss(compiled, monkeypatch):
    compiled(GUARDED)
    monkeypatch.setattr(programs, "PLAIN_STEPS", {})  # as if written by a newer gradjit
    program, _ = compiled(GUARDED)
    assert program.from_disk  # fused again, with the entry's object code
    np.testing.assert_array_equal(program(np.ones(3), np.array([0, 2]))[1], [1.0, 1.0])
