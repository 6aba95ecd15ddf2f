"""Regression tests for bugs that the fuzzer and the reliability checks found, one each."""
import numpy as np

from gradjit.codegen import compile_function
from gradjit.ir import Builder, TensorType, interpret, parse, verify
from gradjit.ir import elementwise as E
from gradjit.ir.text import print_function
from gradjit.ir.types import float64


def test_empty_constant_of_rank_two_builds_prints_and_compiles():
    with Builder("f") as b:
        x = b.param(TensorType((0, 2), float64), "x")
        y = E.add(x, np.zeros((0, 2)))
    fn = verify(b.build([y]))
    again = parse(print_function(fn))
    assert print_function(again) == print_function(fn)
    x = np.zeros((0, 2))
    assert interpret(again, x)[0].shape == (0, 2)
    assert compile_function(fn)(x)[0].shape == (0, 2)
