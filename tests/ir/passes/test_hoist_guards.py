from gradjit.ir.passes import hoist_guards
from tests.ir.passes.helpers import canonical, run


def test_guards_and_their_predicates_run_before_other_work():
    out = run(hoist_guards, """
    func @f(%x: f32[64,64], %s: f32[]) -> (f32[64,64]) {
      %0 = matmul(%x, %x) : f32[64,64]
      %1 = exp(%0) : f32[64,64]
      %2 = full() {value=0.0, shape=[], dtype=f32} : f32[]
      %3 = gt(%s, %2) : bool[]
      guard(%3) {expected=true, site="a.py:7"}
      return %1
    }""")
    assert out == canonical("""
    func @f(%x: f32[64,64], %s: f32[]) -> (f32[64,64]) {
      %0 = full() {value=0.0, shape=[], dtype=f32} : f32[]
      %1 = gt(%s, %0) : bool[]
      guard(%1) {expected=true, site="a.py:7"}
      %2 = matmul(%x, %x) : f32[64,64]
      %3 = exp(%2) : f32[64,64]
      return %3
    }""")
