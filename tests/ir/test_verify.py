"""The verifier rejects ill-formed functions with messages that say why."""
import pytest

from gradjit.ir import Builder, Function, Op, TensorType, Value, VerifyError, verify
from gradjit.ir import elementwise as E
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
