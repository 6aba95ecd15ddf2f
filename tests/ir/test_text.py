"""The text form: print -> parse -> print is identical; malformed text is located."""
import numpy as np
import pytest
from hypothesis import given, settings

from gradjit.ir import ParseError, interpret, parse, verify
from gradjit.fuzz.programs import programs, sample_arguments

HAND_WRITTEN = """\
func @loss(%x: f32[4,3], %y: f32[3], %i: i64[2]) -> (f32[], f32[2,3]) {
  %0 = broadcast_to(%y) {shape=[4,3]} : f32[4,3]
  %1 = mul(%x, %0) : f32[4,3]
  %2 = reduce_sum(%1) {axes=[0,1], keepdims=false} : f32[]
  %3 = full() {value=0.0, shape=[], dtype=f32} : f32[]
  %4 = gt(%2, %3) : bool[]
  guard(%4) {expected=true, site="model.py:12"} loc("model.py:12")
  %5 = gather(%1, %i) {axis=0} : f32[2,3]
  %6 = constant() {value=[[1.5,inf],[nan,-2.0]], shape=[2,2], dtype=f64} : f64[2,2]
  %7 = pad(%5) {low=[0,1], high=[0,0], interior=[0,0], value=-inf} : f32[2,4]
  %8 = slice(%7) {start=[0,1], stop=[2,4], step=[1,1]} : f32[2,3]
  return %2, %8
}"""


def test_hand_written_round_trip():
    fn = parse(HAND_WRITTEN)
    assert str(fn) == HAND_WRITTEN
    verify(fn)


def test_round_trip_preserves_meaning():
    fn = parse(HAND_WRITTEN)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    y = np.array([1, 2, 3], np.float32)
    total, rows = interpret(fn, x, y, np.array([3, 0]))
    assert total == np.sum(x * y)
    np.testing.assert_array_equal(rows, (x * y)[[3, 0]])


@settings(max_examples=150, deadline=None)
@given(programs(guards=False, empty=False))
def test_random_functions_round_trip(fn):
    text = str(fn)
    again = parse(text)
    assert str(again) == text
    verify(again)
    for a, b in zip(interpret(fn, *sample_arguments(fn)), interpret(again, *sample_arguments(fn))):
        np.testing.assert_array_equal(a, b)


def test_printing_is_deterministic():
    assert str(parse(HAND_WRITTEN)) == str(parse(HAND_WRITTEN))


@pytest.mark.parametrize("mutation,message", [
    (("mul(%x, %0)", "mul(%x, %9)"), r"line 3, column 16: %9 is used before it is defined"),
    (("%1 = mul", "%0 = mul"), r"line 3, column 3: %0 is defined twice"),
    (("mul(%x", "mull(%x"), r"line 3, column 8: unknown primitive"),
    (("reduce_sum(%1) {axes=[0,1], keepdims=false} : f32[]",
      "reduce_sum(%1) {axes=[0,1], keepdims=false} : f32[4]"),
     r"line 4, column \d+: reduce_sum gives f32\[\], the text declares f32\[4\]"),
    (("mul(%x, %0) : f32[4,3]", "mul(%x, %y) : f32[4,3]"),
     r"line 3, column 8: mul\(f32\[4,3\], f32\[3\]\): shapes"),
    (("{shape=[4,3]}", "{shape=[4,3"), r"line 2, column \d+: expected \]"),
    (("f32[4,3]", "q32[4,3]"), r"line 1, column \d+: expected an element type"),
    (("return %2, %8", "return %2"),
     r"line 12, column 3: @\w+ declares results \(f32\[\], f32\[2,3\]\)"),
    (("\n}", "\n} extra"), r"line 13, column 3: expected the end of the text"),
    (("%x: f32", "%x: f32 $"), r"line 1, column \d+: unexpected character '\$'"),
])
def test_parse_errors_give_line_and_column(mutation, message):
    old, new = mutation
    with pytest.raises(ParseError, match=message):
        parse(HAND_WRITTEN.replace(old, new, 1))


@pytest.mark.parametrize("dtype, values", [
    ("f64", [[1.5, float("inf")], [float("nan"), -0.0]]), ("f32", [[0.1, -1e-30]]),
    ("i64", [[-(2 ** 62), 7]]), ("bool", [[True, False, True]]), ("i32", [])])
def test_a_constant_built_from_an_array_prints_as_its_nested_lists(dtype, values):
    """Traced constants hold the array itself; their text is what nested lists would print."""
    from gradjit.ir import Builder
    from gradjit.ir.types import dtype as resolve
    array = np.array(values, dtype=resolve(dtype).numpy)
    with Builder("c") as b:
        const = b.constant(array)
    fn = verify(b.build([const]))
    text = str(fn)
    assert str(parse(text)) == text and parse(text).ops[0].params == fn.ops[0].params
    np.testing.assert_array_equal(interpret(parse(text))[0], array)
    array[...] = 0  # the IR kept its own copy
    assert str(fn) == text
