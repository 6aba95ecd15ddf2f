import numpy as np

from gradjit.ir import interpret, parse
from gradjit.ir.passes import fold_constants
from tests.ir.passes.helpers import canonical, run


def test_uniform_results_become_fills_and_small_ones_constants():
    out = run(fold_constants, """
    func @f(%x: f32[3]) -> (f32[3], f32[2]) {
      %0 = full() {value=2.0, shape=[3], dtype=f32} : f32[3]
      %1 = exp(%0) : f32[3]
      %2 = mul(%x, %1) : f32[3]
      %3 = constant() {value=[1.0,2.0], shape=[2], dtype=f32} : f32[2]
      %4 = mul(%3, %3) : f32[2]
      return %2, %4
    }""")
    assert out == canonical(f"""
    func @f(%x: f32[3]) -> (f32[3], f32[2]) {{
      %0 = full() {{value=2.0, shape=[3], dtype=f32}} : f32[3]
      %1 = full() {{value={float(np.exp(np.float32(2)))!r}, shape=[3], dtype=f32}} : f32[3]
      %2 = mul(%x, %1) : f32[3]
      %3 = constant() {{value=[1.0,2.0], shape=[2], dtype=f32}} : f32[2]
      %4 = constant() {{value=[1.0,4.0], shape=[2], dtype=f32}} : f32[2]
      return %2, %4
    }}""")


def test_large_varied_results_stay_run_time_ops():
    text = """
    func @f() -> (i64[100]) {
      %0 = iota() {shape=[100], dtype=i64, axis=0} : i64[100]
      %1 = full() {value=1, shape=[100], dtype=i64} : i64[100]
      %2 = add(%0, %1) : i64[100]
      return %2
    }"""
    assert run(fold_constants, text) == canonical(text)


def test_guards_on_known_predicates_that_hold_are_dropped():
    out = run(fold_constants, """
    func @f(%x: f64[]) -> (f64[]) {
      %0 = full() {value=1.0, shape=[], dtype=f64} : f64[]
      %1 = gt(%0, %0) : bool[]
      guard(%1) {expected=false, site="a.py:1"}
      guard(%1) {expected=true, site="a.py:2"}
      return %x
    }""")
    assert 'site="a.py:1"' not in out and 'site="a.py:2"' in out


def test_folding_preserves_values():
    text = """
    func @f(%x: f64[2]) -> (f64[2]) {
      %0 = full() {value=0.5, shape=[2], dtype=f64} : f64[2]
      %1 = log(%0) : f64[2]
      %2 = sub(%x, %1) : f64[2]
      return %2
    }"""
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(interpret(parse(run(fold_constants, text)), x),
                                  interpret(parse(text), x))


def test_fills_fold_from_one_element_whatever_their_size():
    """Eight billion elements would take gigabytes if a fill were materialized to fold it."""
    out = run(fold_constants, """
    func @f() -> (f32[2000,2000,2000], f32[2000,2000,2000]) {
      %0 = full() {value=-0.0, shape=[2000,2000,2000], dtype=f32} : f32[2000,2000,2000]
      %1 = full() {value=nan, shape=[2000,2000,2000], dtype=f32} : f32[2000,2000,2000]
      %2 = neg(%0) : f32[2000,2000,2000]
      %3 = maximum(%2, %1) : f32[2000,2000,2000]
      return %2, %3
    }""")
    assert "%2 = full() {value=0.0, shape=[2000,2000,2000]" in out
    assert "%3 = full() {value=nan, shape=[2000,2000,2000]" in out


def test_fills_and_one_element_constants_broadcast_and_reshape_without_materializing():
    """A gradient's seed (a one-element constant broadcast to the input's shape) folds in
    one step however large the shape: eight billion elements would take gigabytes."""
    out = run(fold_constants, """
    func @f() -> (f32[2000,2000,2000], f32[4000,2000,1000]) {
      %0 = constant() {value=[-0.0], shape=[1], dtype=f32} : f32[1]
      %1 = broadcast_to(%0) {shape=[2000,2000,2000]} : f32[2000,2000,2000]
      %2 = transpose(%1) {perm=[2,0,1]} : f32[2000,2000,2000]
      %3 = reshape(%2) {shape=[4000,2000,1000]} : f32[4000,2000,1000]
      %4 = neg(%3) : f32[4000,2000,1000]
      return %2, %4
    }""")
    assert "full() {value=-0.0, shape=[2000,2000,2000]" in out
    assert "full() {value=0.0, shape=[4000,2000,1000]" in out
    assert "broadcast_to" not in out.split("return")[1]
