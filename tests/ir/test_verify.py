"""The verifier rejects ill-formed functions with messages that say why."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gradjit.ir import (PRIMITIVES, Builder, Function, Op, ParseError, TensorType, Value,
                        VerifyError, interpret, parse, verify)
from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.verify import PARAM_KINDS, PARAM_KINDS_BY_PRIMITIVE, check_params
from gradjit.fuzz import surfaces
from gradjit.fuzz.programs import programs
from gradjit.ir.types import float32

T = TensorType((3,), float32)


def _fn():
    with Builder("f") as b:
        x = b.param(T, "x")
        y = E.exp(x)
        z = E.add(x, y)
    return b.build([z])


def test_well_formed_function_passes():
    assert verify(_fn())


def test_use_before_definition():
    fn = _fn()
    fn.ops.reverse()
    with pytest.raises(VerifyError, match=r"op 0 \(add\): operand .* used before it is defined"):
        verify(fn)


def test_value_defined_twice():
    fn = _fn()
    fn.ops[1].out = fn.ops[0].out
    with pytest.raises(VerifyError, match="defined twice"):
        verify(fn)


def test_result_type_must_match_the_shape_rule():
    fn = _fn()
    fn.ops[0].out.type = TensorType((4,), float32)
    with pytest.raises(VerifyError, match=r"op 0 \(exp\): result typed f32\[4\], rule gives "
                                          r"f32\[3\]"):
        verify(fn)


def test_operand_types_checked_by_shape_rule():
    x, y = Value(T, "x"), Value(TensorType((4,), float32), "y")
    out = Value(T)
    fn = Function("g", [x, y], [Op(E.add, [x, y], {}, out)], [out])
    with pytest.raises(VerifyError, match=r"add\(f32\[3\], f32\[4\]\): shapes"):
        verify(fn)


def test_unknown_params_rejected():
    fn = _fn()
    fn.ops[0].params = {"axis": 1}
    with pytest.raises(VerifyError, match=r"exp takes params \(\); got \('axis',\)"):
        verify(fn)


def test_undefined_result():
    fn = _fn()
    fn.results = [Value(T, "ghost")]
    with pytest.raises(VerifyError, match="result .* is never defined"):
        verify(fn)


# ---- untrusted programs: what passes verify must be safe to compile and run ----

def _one_op(prim, inputs, params):
    out_type = TensorType((3,), float32)
    out = Value(out_type)
    return Function("g", list(inputs), [Op(prim, list(inputs), params, out)], [out])


@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_every_primitive_states_its_operand_count(name):
    prim = PRIMITIVES[name]
    assert prim.variadic or isinstance(prim.arity, int)
    wrong = 0 if prim.variadic else prim.arity + 1
    values = [Value(T, f"x{i}") for i in range(wrong)]
    with pytest.raises(VerifyError, match=f"takes .* operands, not {wrong}"):
        verify(_one_op(prim, values, {k: 0 for k in prim.params}))


@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_every_param_of_every_primitive_has_a_checked_kind(name):
    prim = PRIMITIVES[name]
    for key in prim.params:
        assert key in PARAM_KINDS or (name, key) in PARAM_KINDS_BY_PRIMITIVE
        assert check_params(prim, {key: object()}).startswith(f"param {key} must be")


def test_exp_of_two_operands_is_rejected_and_cannot_write_into_its_input():
    text = "func @f(%x: f32[3]) -> (f32[3]) {\n  %0 = exp(%x, %x) : f32[3]\n  return %0\n}"
    with pytest.raises(ParseError, match="line 2, column 8: exp takes 1 operands, not 2"):
        parse(text)
    x = Value(T, "x")
    fn = _one_op(E.exp, [x, x], {})
    fn.params = [x]
    with pytest.raises(VerifyError, match="takes 1 operands, not 2"):
        verify(fn)
    arg = np.ones(3, np.float32)
    with pytest.raises(TypeError, match="exp takes 1 operands"):
        interpret(fn, arg)
    np.testing.assert_array_equal(arg, 1.0)


@pytest.mark.parametrize("shape", ["3,6148914691236517206", "9223372036854775807",
                                   "4294967296,4294967296", "70368744177664,2"])
def test_shapes_past_the_address_space_are_rejected(shape):
    text = f"func @f(%x: f32[{shape}]) -> (f32[{shape}]) {{\n  return %x\n}}"
    with pytest.raises(ParseError, match="line 1, column 13: .* more than can be addressed"):
        parse(text)
    fn = Function("f", [Value(TensorType((3, 6148914691236517206), float32), "x")], [], [])
    with pytest.raises(VerifyError, match="more than can be addressed"):
        verify(fn)


def test_a_reshape_whose_int64_product_wraps_is_rejected():
    x = Value(TensorType((0,), float32), "x")
    out = Value(TensorType((2 ** 61, 8), float32))
    fn = Function("f", [x], [Op(S.reshape, [x], {"shape": (2 ** 61, 8)}, out)], [out])
    with pytest.raises(VerifyError, match=r"reshape\): f32\[2305843009213693952,8\] holds"):
        verify(fn)


def test_an_index_out_of_range_is_an_error_in_compiled_code_not_a_stray_read():
    from gradjit.codegen import compile_function
    text = ("func @f(%x: f32[{n}], %i: i64[3]) -> (f32[3]) {{\n"
            "  %0 = gather(%x, %i) {{axis=0}} : f32[3]\n  return %0\n}}")
    for n, index in [(4, [-1, 1 << 40, 0]), (4, [0, -5, 1]), (0, [0, 0, 0])]:
        run = compile_function(verify(parse(text.format(n=n))))
        with pytest.raises(IndexError, match=f"out of bounds for axis with size {n}"):
            run(np.ones(n, np.float32), np.array(index, np.int64))


@settings(max_examples=300, deadline=None)
@given(programs(max_ops=4), st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 3),
                                               st.sampled_from(surfaces.NOISE)),
                                     min_size=1, max_size=4))
def test_malformed_text_gives_parse_or_verify_errors_and_nothing_else(fn, edits):
    """What passes parse and verify also interprets and compiles and runs (the fuzzer's
    check, gradjit.fuzz.surfaces.check_text)."""
    failures = surfaces.check_text(surfaces.mutate(str(fn), edits))
    assert not failures, failures


def test_deep_nesting_does_not_recurse():
    deep = "[" * 100_000 + "]" * 100_000
    text = f"func @f(%x: f32[3]) -> (f32[3]) {{\n  %0 = exp(%x) {{axes={deep}}} : f32[3]\n" \
           "  return %0\n}"
    with pytest.raises(ParseError, match="line 2, column 87: lists nest at most 64 deep"):
        parse(text)
    nested = "[" * 64 + "1" + "]" * 64
    text = f"func @f() -> () {{\n  guard() {{expected=true, site={nested}}}\n  return\n}}"
    with pytest.raises(ParseError, match="line 2, column 3: param site must be a string or none"):
        parse(text)


@pytest.mark.parametrize("text,message", [
    ("func @f(%x: f32[1.5]) -> () {\n return\n}", "line 1, column 17: expected a non-neg"),
    ("func @f(%x: f32[-1]) -> () {\n return\n}", "line 1, column 17: expected a non-neg"),
    ('func @f() -> () {\n  guard(%x) loc("\\q")\n return\n}', "line 2, column 9"),
    ('func @f(%x: bool[1]) -> () {\n  guard(%x) {expected=true, site="\\q"}\n return\n}',
     r"line 2, column \d+: malformed string"),
    ("func @f() -> (f32[]) {\n  %0 = full() {value=1e999999, shape=[], dtype=f32} : f32[]\n"
     "  return %0\n}", None),
    ("func @f() -> (f32[2]) {\n  %0 = full() {value=1, shape=[99999999999999999999], "
     "dtype=f32} : f32[2]\n  return %0\n}", r"line 2, column 8: param shape must be"),
    ("func @f() -> () {\n  return", r"line 2, column 9: expected }, found the end"),
    ("func @f(", r"line 1, column 9: expected value, found the end"),
    (b"func", "IR text is a str"),
])
def test_parse_errors_are_parse_errors_with_a_place(text, message):
    if message is None:  # 1e999999 is inf, as Python reads it: a valid fill value
        assert parse(text)
        return
    with pytest.raises(ParseError, match=message):
        parse(text)


def test_a_primitive_over_any_operands_must_state_its_arity():
    from gradjit.ir.primitive import Primitive
    with pytest.raises(TypeError, match="state its arity"):
        Primitive("unstated", "elementwise", lambda *types: types[0], np.negative, None)
    assert Primitive("stated", "elementwise", lambda *types: types[0], np.negative, None,
                     arity=1).accepts(1)
