"""Fusion drops an index check that a checked index proves will pass (flat positions formed
from a checked index and ramps), and only such a check: native code never reads out of
bounds."""
import numpy as np
import pytest

from gradjit.codegen import compile_function
from gradjit.ir import elementwise as E
from gradjit.ir import interpret
from gradjit.ir import structural as S
from gradjit.ir.core import Builder
from gradjit.ir.types import TensorType, float64, int64
from gradjit.runtime.steps import CheckIndex

WORDS = "index {index} is out of bounds for dimension 1 with size 6"


def _checks(program):
    return [s for s in program.steps if isinstance(s, CheckIndex)]


def test_flat_positions_of_a_checked_index_need_no_check_of_their_own():
    """gather(x, 1, i) as PyTorch's gather is lowered: i checked along dim 1, then
    i * 1 + row * 6 on the flattened x."""
    with Builder("f") as b:
        x = b.param(TensorType((4, 6), float64), "x")
        i = b.param(TensorType((4, 2), int64), "i")
        checked = S.check_index(i, bound=6, low=0, error="RuntimeError", words=WORDS)
        flat = E.add(checked, E.mul(S.iota(shape=(4, 2), dtype="i64", axis=0), 6))
        out = S.gather(S.reshape(x, shape=(24,)), S.reshape(flat, shape=(8,)), axis=0)
    fn = b.build([out])
    program = compile_function(fn)
    assert [s.words for s in _checks(program)] == [WORDS]
    x, i = np.arange(24.0).reshape(4, 6), np.array([[0, 5], [1, 2], [3, 4], [5, 0]])
    np.testing.assert_array_equal(program(x, i)[0], interpret(fn, x, i)[0])
    with pytest.raises(RuntimeError, match="^index 6 is out of bounds for dimension 1 "):
        program(x, np.where(i == 5, 6, i))


def test_a_check_of_part_of_a_buffer_proves_nothing_of_the_rest():
    """Row 0 of i checked against 3 says nothing of row 1, which indexes an axis of 5."""
    with Builder("f") as b:
        x = b.param(TensorType((5,), float64), "x")
        i = b.param(TensorType((2, 2), int64), "i")
        first = S.check_index(S.reshape(S.slice_(i, start=(0, 0), stop=(1, 2), step=(1, 1)),
                                        shape=(2,)),
                              bound=3, low=-3, error="IndexError", words="{index} of 3")
        second = S.reshape(S.slice_(i, start=(1, 0), stop=(2, 2), step=(1, 1)), shape=(2,))
        out = E.add(S.gather(x, first, axis=0), S.gather(x, second, axis=0))
    program = compile_function(b.build([out]))
    x = np.arange(5.0)
    np.testing.assert_array_equal(program(x, np.array([[0, 2], [4, -5]]))[0], [4.0, 2.0])
    with pytest.raises(IndexError, match="out of bounds for axis with size 5"):
        program(x, np.array([[0, 2], [4, 5]]))
