"""Every primitive compiled for the PTX target and run by the grid emulator equals the
interpreter (the same cases as the CPU backend's table test), in both scatter modes."""
import numpy as np
import pytest

from gradjit.codegen import compile_function
from gradjit.ir import PRIMITIVES, interpret

from tests.codegen.helpers import assert_same, many_ops, one_op
from tests.codegen.test_primitives import CASES


def emulated(fn, **options):
    return compile_function(fn, target="cuda-emulator", **options)


def test_every_primitive_has_a_case():
    assert not set(PRIMITIVES) - set(CASES), "a primitive has no case, so no PTX test"


@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_primitive_matches_interpreter(name):
    ulps = 64 if name == "reduce_sum" else 4  # the tree sums in another order than numpy
    fn, arrays = many_ops(name, CASES[name]())
    program = emulated(fn)
    assert_same(program(*arrays), interpret(fn, *arrays), ulps)


def test_deterministic_scatter_add_runs_in_one_thread_and_equals_the_cpu_bitwise():
    x = np.random.default_rng(1).normal(size=(6, 3))
    idx = np.array([5, 0, 5, 5, -1, 2, 0, 5])
    updates = np.random.default_rng(2).normal(size=(8, 3)) * 1e6
    fn = one_op("scatter_add", [x, idx, updates], axis=0)
    program = emulated(fn, deterministic=True)
    launches = [s for s in program.steps if hasattr(s, "grid")]
    scatter = [k for k in program.kernels if k.grid == k.block == 1]
    assert scatter and all(s.grid >= 1 for s in launches)
    got = program(x, idx, updates)[0]
    np.testing.assert_array_equal(got, compile_function(fn)(x, idx, updates)[0])


def test_scatter_add_by_atomics_spreads_over_the_grid():
    x, idx, updates = np.zeros(4), np.arange(4000) % 4, np.ones(4000)
    fn = one_op("scatter_add", [x, idx, updates], axis=0)
    program = emulated(fn)
    assert max(k.grid * k.block for k in program.kernels) >= 4000
    np.testing.assert_array_equal(program(x, idx, updates)[0], [1000.0] * 4)


def test_unknown_target_names_the_choices():
    fn = one_op("neg", [np.zeros(3)])
    with pytest.raises(ValueError, match="'cpu' or one of 'cuda', 'cuda-emulator'"):
        compile_function(fn, target="tpu")

