"""symbolic=True changes no result bit: programs full of rewrites that hold for the reals but
not for floats (signed zeros, overflow, inf and nan, rounding) give, compiled with and without
the sympy simplification, bitwise the same values and gradients (NaN payloads aside) on
+-0, +-inf, nan, huge, tiny and subnormal inputs; and so do random programs."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gradjit
from gradjit.codegen import compile_function
from gradjit.fuzz.programs import arguments, programs
from gradjit.ir.passes import optimize
from gradjit.ir.symbolic_simplify import simplify_elementwise
from tests.reliability.test_special_values import assert_bitwise_equal, specials

PROGRAMS = {
    "-0.0 + x": lambda x, y: -0.0 + x,
    "x + 0.0 - 0.0": lambda x, y: (x + 0.0) - 0.0,
    "(x * 2) / 2": lambda x, y: (x * 2) / 2,
    "x - x": lambda x, y: x - x,
    "x * 0": lambda x, y: x * 0,
    "x / x": lambda x, y: x / x,
    "log(exp(x))": lambda x, y: np.log(np.exp(x)),
    "exp(log(x))": lambda x, y: np.exp(np.log(x)),
    "sqrt(x) * sqrt(x)": lambda x, y: np.sqrt(x) * np.sqrt(x),
    "(x + y) - y": lambda x, y: (x + y) - y,
    "x*3 + x*2": lambda x, y: x * 3 + x * 2,
    "0.75*x*2": lambda x, y: (0.75 * x) * 2,
    "x*0.1*3": lambda x, y: x * 0.1 * 3,
    "x*y + y*x": lambda x, y: x * y + y * x,
    "neg(neg(x)) * 1": lambda x, y: np.negative(np.negative(x)) * 1,
    "x / 4 + y / 3": lambda x, y: x / 4 + y / 3,
    "where(x == x, x, y)": lambda x, y: np.where(x == x, x, y),
    "max(x, x) - min(y, y)": lambda x, y: np.maximum(x, x) - np.minimum(y, y),
    "x**2 / x": lambda x, y: x ** 2 / x,
    "tanh(x)*(1 - tanh(x))": lambda x, y: np.tanh(x) * (1 - np.tanh(x)),
}


def _grid(dt):
    values = specials(dt)
    return [a.reshape(-1) for a in np.meshgrid(values, values)]


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("name", PROGRAMS)
def test_symbolic_keeps_every_bit_of_values_and_gradients(name, dt):
    f = PROGRAMS[name]
    x, y = _grid(dt)
    with np.errstate(all="ignore"):
        for transform in (gradjit.jit, lambda g, **o: gradjit.value_and_grad(
                lambda x, y: np.sum(g(x, y)), argnums=(0, 1), **o)):
            plain, symbolic = transform(f), transform(f, symbolic=True)
            for got, want in zip(_leaves(symbolic(x, y)), _leaves(plain(x, y))):
                assert_bitwise_equal(got, want)


def _leaves(tree):
    if isinstance(tree, (tuple, list)):
        return [leaf for t in tree for leaf in _leaves(t)]
    return [np.asarray(tree)]


@settings(max_examples=25, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(programs(max_ops=10, guards=False, empty=False), st.data())
def test_random_programs_compile_to_the_same_bits_with_the_simplification(fn, data):
    args = data.draw(arguments(fn))
    plain = optimize(fn)
    simplified = optimize(simplify_elementwise(plain))
    with np.errstate(all="ignore"):
        want = compile_function(plain)(*args)
        got = compile_function(simplified)(*args)
    for g, w in zip(got, want):
        assert_bitwise_equal(g, w)
