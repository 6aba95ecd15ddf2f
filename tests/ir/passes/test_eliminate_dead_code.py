from gradjit.ir.passes import eliminate_dead_code
from tests.ir.passes.helpers import canonical, run


def test_unused_ops_go_guards_and_used_ops_stay():
    out = run(eliminate_dead_code, """
    func @f(%x: f32[3]) -> (f32[3]) {
      %0 = exp(%x) : f32[3]
      %1 = sin(%0) : f32[3]
      %2 = full() {value=0.0, shape=[], dtype=f32} : f32[]
      %3 = reduce_sum(%x) {axes=[0], keepdims=false} : f32[]
      %4 = gt(%3, %2) : bool[]
      guard(%4) {expected=true, site="a.py:1"}
      %5 = cos(%x) : f32[3]
      return %0
    }""")
    assert out == canonical("""
    func @f(%x: f32[3]) -> (f32[3]) {
      %0 = exp(%x) : f32[3]
      %1 = full() {value=0.0, shape=[], dtype=f32} : f32[]
      %2 = reduce_sum(%x) {axes=[0], keepdims=false} : f32[]
      %3 = gt(%2, %1) : bool[]
      guard(%3) {expected=true, site="a.py:1"}
      return %0
    }""")


def test_chains_feeding_nothing_disappear_entirely():
    out = run(eliminate_dead_code, """
    func @f(%x: f64[2]) -> (f64[2]) {
      %0 = exp(%x) : f64[2]
      %1 = mul(%0, %0) : f64[2]
      %2 = neg(%1) : f64[2]
      return %x
    }""")
    assert out == canonical("func @f(%x: f64[2]) -> (f64[2]) {\n  return %x\n}")
