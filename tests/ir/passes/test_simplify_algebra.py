import pytest

from gradjit.ir.passes import eliminate_dead_code, simplify_algebra
from tests.ir.passes.helpers import canonical, run


def simplified(text):
    return run(lambda fn: eliminate_dead_code(simplify_algebra(fn)), text)


@pytest.mark.parametrize("op, fill, side", [
    ("mul", "1.0", 0), ("mul", "1.0", 1), ("add", "-0.0", 0), ("add", "-0.0", 1),
    ("sub", "0.0", 1), ("div", "1.0", 1), ("pow", "1.0", 1)])
def test_identities(op, fill, side):
    operands = ["%x", "%0"] if side else ["%0", "%x"]
    out = simplified(f"""
    func @f(%x: f32[3]) -> (f32[3]) {{
      %0 = full() {{value={fill}, shape=[3], dtype=f32}} : f32[3]
      %1 = {op}({operands[0]}, {operands[1]}) : f32[3]
      return %1
    }}""")
    assert out == canonical("func @f(%x: f32[3]) -> (f32[3]) {\n  return %x\n}")


def test_non_identities_stay():
    text = """
    func @f(%x: f32[3]) -> (f32[3], f32[3]) {
      %0 = full() {value=1.0, shape=[3], dtype=f32} : f32[3]
      %1 = sub(%0, %x) : f32[3]
      %2 = div(%0, %x) : f32[3]
      return %1, %2
    }"""
    assert simplified(text) == canonical(text)


def test_double_transpose_composes_and_cancels():
    out = simplified("""
    func @f(%x: f32[2,3,4]) -> (f32[4,2,3], f32[2,3,4]) {
      %0 = transpose(%x) {perm=[1,2,0]} : f32[3,4,2]
      %1 = transpose(%0) {perm=[1,2,0]} : f32[4,2,3]
      %2 = transpose(%1) {perm=[1,2,0]} : f32[2,3,4]
      return %1, %2
    }""")
    assert out == canonical("""
    func @f(%x: f32[2,3,4]) -> (f32[4,2,3], f32[2,3,4]) {
      %0 = transpose(%x) {perm=[2,0,1]} : f32[4,2,3]
      return %0, %x
    }""")


def test_reshape_and_broadcast_chains_collapse():
    out = simplified("""
    func @f(%x: f32[6], %y: f32[3]) -> (f32[3,2], f32[6], f32[4,2,3]) {
      %0 = reshape(%x) {shape=[2,3]} : f32[2,3]
      %1 = reshape(%0) {shape=[3,2]} : f32[3,2]
      %2 = reshape(%1) {shape=[6]} : f32[6]
      %3 = broadcast_to(%y) {shape=[2,3]} : f32[2,3]
      %4 = broadcast_to(%3) {shape=[4,2,3]} : f32[4,2,3]
      return %1, %2, %4
    }""")
    assert out == canonical("""
    func @f(%x: f32[6], %y: f32[3]) -> (f32[3,2], f32[6], f32[4,2,3]) {
      %0 = reshape(%x) {shape=[3,2]} : f32[3,2]
      %1 = broadcast_to(%y) {shape=[4,2,3]} : f32[4,2,3]
      return %0, %x, %1
    }""")


def test_fills_are_reshaped_and_broadcast_in_place():
    out = simplified("""
    func @f() -> (f64[2,3]) {
      %0 = full() {value=1.5, shape=[], dtype=f64} : f64[]
      %1 = reshape(%0) {shape=[1,1]} : f64[1,1]
      %2 = broadcast_to(%1) {shape=[2,3]} : f64[2,3]
      return %2
    }""")
    assert out == canonical("""
    func @f() -> (f64[2,3]) {
      %0 = full() {value=1.5, shape=[2,3], dtype=f64} : f64[2,3]
      return %0
    }""")


def test_no_op_shapes_casts_where_and_stop_gradient():
    out = simplified("""
    func @f(%x: f32[3], %y: f32[3]) -> (f32[3], f32[3], f32[3], f32[3], f32[3], f32[3]) {
      %0 = reshape(%x) {shape=[3]} : f32[3]
      %1 = cast(%0) {dtype=f32} : f32[3]
      %2 = stop_gradient(%1) : f32[3]
      %3 = neg(%y) : f32[3]
      %4 = neg(%3) : f32[3]
      %5 = full() {value=true, shape=[3], dtype=bool} : bool[3]
      %6 = where(%5, %2, %y) : f32[3]
      %7 = full() {value=false, shape=[3], dtype=bool} : bool[3]
      %8 = where(%7, %x, %y) : f32[3]
      %9 = gt(%x, %y) : bool[3]
      %10 = where(%9, %x, %x) : f32[3]
      %11 = reduce_sum(%x) {axes=[], keepdims=false} : f32[3]
      return %2, %4, %6, %8, %10, %11
    }""")
    assert out == canonical("""
    func @f(%x: f32[3], %y: f32[3]) -> (f32[3], f32[3], f32[3], f32[3], f32[3], f32[3]) {
      return %x, %y, %x, %y, %x, %x
    }""")


def test_a_scatter_into_zeros_added_to_a_value_scatters_into_it():
    out = run(simplify_algebra, """
    func @f(%x: f64[3,2], %i: i64[2], %u: f64[2,2]) -> (f64[3,2]) {
      %0 = full() {value=0.0, shape=[3,2], dtype=f64} : f64[3,2]
      %1 = scatter_add(%0, %i, %u) {axis=0} : f64[3,2]
      %2 = add(%x, %1) : f64[3,2]
      return %2
    }""")
    assert "scatter_add(%x, %i, %u) {axis=0}" in out and "= add(" not in out


def test_a_product_with_the_identity_is_the_other_operand():
    eye = "[[1.0,0.0],[0.0,1.0]]"
    out = simplified(f"""
    func @f(%x: f64[2,2,3], %y: f64[2,2], %z: f64[2,1]) -> (f64[2,2,3], f64[2,2], f64[2,1]) {{
      %0 = constant() {{value=[{eye},{eye}], shape=[2,2,2], dtype=f64}} : f64[2,2,2]
      %1 = matmul(%0, %x) : f64[2,2,3]
      %2 = constant() {{value={eye}, shape=[2,2], dtype=f64}} : f64[2,2]
      %3 = matmul(%y, %2) : f64[2,2]
      %4 = matmul(%2, %z) : f64[2,1]
      return %1, %3, %4
    }}""")
    assert out == canonical("""
    func @f(%x: f64[2,2,3], %y: f64[2,2], %z: f64[2,1]) -> (f64[2,2,3], f64[2,2], f64[2,1]) {
      return %x, %y, %z
    }""")


def test_a_product_with_another_matrix_stays():
    text = """
    func @f(%y: f64[2,2]) -> (f64[2,2], f64[2,2]) {
      %0 = constant() {value=[[0.0,1.0],[1.0,0.0]], shape=[2,2], dtype=f64} : f64[2,2]
      %1 = matmul(%y, %0) : f64[2,2]
      %2 = full() {value=1.0, shape=[2,2], dtype=f64} : f64[2,2]
      %3 = matmul(%2, %y) : f64[2,2]
      return %1, %3
    }"""
    assert simplified(text) == canonical(text)


def test_a_one_by_one_fill_of_one_is_the_identity():
    out = simplified("""
    func @f(%x: f64[3,1]) -> (f64[3,1]) {
      %0 = full() {value=1.0, shape=[1,1], dtype=f64} : f64[1,1]
      %1 = matmul(%x, %0) : f64[3,1]
      return %1
    }""")
    assert out == canonical("func @f(%x: f64[3,1]) -> (f64[3,1]) {\n  return %x\n}")
