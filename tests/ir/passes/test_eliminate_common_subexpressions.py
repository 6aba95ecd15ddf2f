from gradjit.ir.passes import eliminate_common_subexpressions
from tests.ir.passes.helpers import canonical, run


def test_repeated_ops_reuse_the_first_result_transitively():
    out = run(eliminate_common_subexpressions, """
    func @f(%x: f32[3]) -> (f32[3]) {
      %0 = exp(%x) : f32[3]
      %1 = exp(%x) : f32[3]
      %2 = mul(%0, %x) : f32[3]
      %3 = mul(%1, %x) : f32[3]
      %4 = add(%2, %3) : f32[3]
      return %4
    }""")
    assert out == canonical("""
    func @f(%x: f32[3]) -> (f32[3]) {
      %0 = exp(%x) : f32[3]
      %1 = mul(%0, %x) : f32[3]
      %2 = add(%1, %1) : f32[3]
      return %2
    }""")


def test_params_distinguish_ops_but_zero_and_zero_point_zero_meet():
    out = run(eliminate_common_subexpressions, """
    func @f(%x: f64[2,3]) -> (f64[2], f64[3], f64[2,3], f64[2,3], f64[2,3]) {
      %0 = reduce_sum(%x) {axes=[1], keepdims=false} : f64[2]
      %1 = reduce_sum(%x) {axes=[0], keepdims=false} : f64[3]
      %2 = full() {value=0, shape=[2,3], dtype=f64} : f64[2,3]
      %3 = full() {value=0.0, shape=[2,3], dtype=f64} : f64[2,3]
      %4 = full() {value=-0.0, shape=[2,3], dtype=f64} : f64[2,3]
      return %0, %1, %2, %3, %4
    }""")
    assert out.count("reduce_sum") == 2 and out.count("full") == 2
    assert "return %0, %1, %2, %2, %3" in out


def test_guards_are_never_merged():
    text = """
    func @f(%x: bool[]) -> () {
      guard(%x) {expected=true, site="a.py:1"}
      guard(%x) {expected=true, site="a.py:1"}
      return
    }"""
    assert run(eliminate_common_subexpressions, text).count("guard") == 2


def test_equal_constants_meet_but_negative_zero_stays_apart():
    out = run(eliminate_common_subexpressions, """
    func @f(%x: f64[2]) -> (f64[2], f64[2], f64[2]) {
      %0 = constant() {value=[1.5,0.0], shape=[2], dtype=f64} : f64[2]
      %1 = constant() {value=[1.5,0.0], shape=[2], dtype=f64} : f64[2]
      %2 = constant() {value=[1.5,-0.0], shape=[2], dtype=f64} : f64[2]
      %3 = mul(%x, %0) : f64[2]
      %4 = mul(%x, %1) : f64[2]
      %5 = mul(%x, %2) : f64[2]
      return %3, %4, %5
    }""")
    assert out == canonical("""
    func @f(%x: f64[2]) -> (f64[2], f64[2], f64[2]) {
      %0 = constant() {value=[1.5,0.0], shape=[2], dtype=f64} : f64[2]
      %1 = constant() {value=[1.5,-0.0], shape=[2], dtype=f64} : f64[2]
      %2 = mul(%x, %0) : f64[2]
      %3 = mul(%x, %1) : f64[2]
      return %2, %2, %3
    }""")
