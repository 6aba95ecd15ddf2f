"""The runtime's plain-data steps: fields in the order their class annotates them, defaults,
value semantics where a step is a key (Operand, KernelCall), copies with changes, and a
TypeError for fields a class does not have."""
import pytest

from gradjit.ir.types import float32
from gradjit.runtime.steps import Buffer, Guard, KernelCall, Operand


def test_fields_are_positional_or_named_with_the_class_defaults():
    b = Buffer(3, float32, 10, kind="param")
    assert (b.id, b.dtype, b.size, b.kind, b.index, b.offset) == (3, float32, 10, "param", 0, 0)
    assert b.nbytes == 40 and str(b) == "b3"
    assert repr(Operand(1, (2,), (1,))) == \
        "Operand(buffer=1, shape=(2,), strides=(1,), offset=0)"


def test_operands_and_kernel_calls_compare_and_hash_by_value_buffers_by_identity():
    assert Operand(1, (2,), (1,)) == Operand(1, (2,), (1,), 0) != Operand(1, (2,), (1,), 1)
    assert len({KernelCall("k", 1, 8), KernelCall("k", 1, 8, frozenset())}) == 1
    assert Buffer(0, float32, 1) != Buffer(0, float32, 1)
    assert Operand(1, (2,), (1,)) != (1, (2,), (1,), 0)


def test_replace_copies_with_changes():
    b = Buffer(0, float32, 16, "temp", 0, 64)
    c = b.replace(size=32)
    assert (c.size, c.offset, b.size) == (32, 64, 16) and c is not b


@pytest.mark.parametrize("make", [lambda: Guard(Operand(0, (), ())),
                                  lambda: Guard(Operand(0, (), ()), True, "f.py:1", 4),
                                  lambda: Guard(Operand(0, (), ()), True, sight="f.py:1")])
def test_missing_extra_or_unknown_fields_raise(make):
    with pytest.raises(TypeError, match="Guard takes the fields pred, expected, site"):
        make()
