"""Differential fuzzing, the quick profile: random programs over the primitive table must
round-trip through text, keep their results through every pass, compile for the CPU and the
PTX grid emulator to what the interpreter computes, and have compiled gradients equal to
eager autograd and to finite differences; a long program (thousands of ops) must too; the disk
cache must round-trip entries and recompile damaged ones. (Mutated IR text is fuzzed in
tests/ir/test_verify.py.) `-m slow` runs many more; `python -m gradjit.fuzz --minutes N` runs
all of these for a while."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradjit.fuzz import surfaces
from gradjit.fuzz.check import Reference, check_program, compare_arrays, describe, outcome
from gradjit.fuzz.programs import arguments, programs
from gradjit.ir import PRIMITIVES, interpret, verify

QUICK = settings(max_examples=30, deadline=None, database=None, derandomize=True,
                 suppress_health_check=list(HealthCheck))
MANY = settings(QUICK, max_examples=600)


def check(fn, args, **options):
    failures = check_program(fn, args, **options)
    assert not failures, describe(fn, args, failures)


@QUICK
@given(programs(), st.data())
def test_random_programs_on_the_cpu(fn, data):
    check(fn, data.draw(arguments(fn)))


@settings(QUICK, max_examples=12)
@given(programs(max_ops=6), st.data())
def test_random_programs_on_the_grid_emulator(fn, data):
    check(fn, data.draw(arguments(fn)), targets=("cuda-emulator",), passes=())


@pytest.mark.slow
@MANY
@given(programs(max_ops=14), st.data())
def test_many_random_programs(fn, data):
    check(fn, data.draw(arguments(fn)), targets=("cpu", "cuda-emulator"))


@pytest.mark.parametrize("n_ops", [300, pytest.param(2000, marks=pytest.mark.slow)])
def test_a_long_program(n_ops):
    fn, args, failures = surfaces.check_long_program(0, n_ops)
    assert len(fn.ops) >= n_ops
    assert not failures, describe(fn, args, failures)


@settings(QUICK, max_examples=10)
@given(programs(max_ops=5, guards=False), programs(max_ops=3, guards=False),
       st.sampled_from(surfaces.DAMAGE), st.data())
def test_disk_cache_round_trips_and_damaged_entries(fn, other, damage, data):
    args = data.draw(arguments(fn))
    failures = surfaces.check_disk_cache(fn, other, args, damage)
    assert not failures, describe(fn, args, failures)


def test_the_generator_reaches_every_primitive():
    seen = set()

    @settings(QUICK, max_examples=900, derandomize=True)
    @given(programs())
    def collect(fn):
        verify(fn)
        seen.update(op.prim.name for op in fn.ops)
    collect()
    assert seen == set(PRIMITIVES)


# ---- the oracle itself: it must catch what it is meant to catch ----

def test_the_oracle_flags_a_wrong_value_a_nan_and_a_zero_of_the_wrong_sign():
    want = np.array([1.0, np.nan, 0.0, np.inf])
    moved = [want.copy()]
    assert compare_arrays(want, want.copy(), moved) is None
    for bad in ([1.0 + 1e-6, np.nan, 0.0, np.inf], [1.0, 2.0, 0.0, np.inf],
                [1.0, np.nan, -0.0, np.inf], [1.0, np.nan, 0.0, -np.inf]):
        assert compare_arrays(want, np.array(bad), moved) is not None


def test_the_oracle_forgives_only_where_the_program_is_ill_conditioned():
    want = np.array([1.0, 1.0])
    moved = [np.array([1.0, 1.0 + 1e-9])]  # the second element moves under perturbation
    assert compare_arrays(want, np.array([1.0, 1.0 + 2e-9]), moved) is None
    assert compare_arrays(want, np.array([1.0 + 2e-9, 1.0]), moved) is not None


def test_an_error_only_in_dead_code_may_be_dropped_but_not_invented():
    from gradjit.ir import parse
    fn = parse("""func @f(%x: f64[0]) -> (f64[0]) {
      %0 = reduce_max(%x) {axes=[0], keepdims=false} : f64[]
      %1 = neg(%x) : f64[0]
      return %1
    }""")
    x = np.zeros(0)
    ref = Reference(fn, [x])
    assert ref.compare(outcome(lambda: interpret(fn, x))) is None
    assert ref.compare(outcome(lambda: [np.zeros(0)])) is None
    live = parse("""func @f(%x: f64[2]) -> (f64[2]) {
      %0 = neg(%x) : f64[2]
      return %0
    }""")
    def invented():
        raise ValueError("not raised by the reference")
    assert Reference(live, [np.ones(2)]).compare(outcome(invented)) is not None


def test_an_overflow_that_depends_on_the_order_of_summation_is_not_compared():
    """Compiled loops add in another order than numpy: max + max - max is inf one way and
    max the other, so neither answer is wrong."""
    from gradjit.ir import parse
    fn = parse("""func @f(%x: f64[3]) -> (f64[]) {
      %0 = reduce_sum(%x) {axes=[0], keepdims=false} : f64[]
      return %0
    }""")
    big = np.finfo(np.float64).max
    ref = Reference(fn, [np.array([big, big, -big])])
    assert ref.compare(outcome(lambda: [np.array(big)])) is None
    assert ref.compare(outcome(lambda: [np.array(np.inf)])) is None
    assert Reference(fn, [np.array([1.0, 2.0, 4.0])]).compare(
        outcome(lambda: [np.array(7.5)])) is not None


def test_an_error_that_simplification_makes_dead_may_be_dropped():
    """where(c, x, x) is x, so the error computing c (max over nothing) does not matter."""
    from gradjit.ir import parse
    fn = parse("""func @f(%x: f64[2]) -> (f64[2]) {
      %0 = broadcast_to(%x) {shape=[0,2]} : f64[0,2]
      %1 = reduce_max(%0) {axes=[0], keepdims=false} : f64[2]
      %2 = eq(%x, %1) : bool[2]
      %3 = where(%2, %x, %x) : f64[2]
      return %3
    }""")
    check(fn, [np.array([1.5, 0.625])], targets=("cpu",))


def test_finite_differences_skip_arguments_where_the_vjp_absorbs_the_gradient():
    """d(x/x)/dx is 1/x - x/x^2: for tiny x both terms are huge and absorb the rest."""
    from gradjit.ir import parse
    fn = parse("""func @f(%x: f64[2]) -> (f64[2], f64[2]) {
      %0 = div(%x, %x) : f64[2]
      %1 = add(%x, %x) : f64[2]
      return %0, %1
    }""")
    check(fn, [np.array([1.625, 2.2250738585072014e-308])], targets=("cpu",))


def test_an_f32_value_inside_an_f64_program_sets_the_tolerance():
    """Perturbing an f64 argument by a few f64 ulps does not move its cast to f32, so the
    f32 rounding of expm1 is not visible to the perturbation: the tolerance is f32's."""
    from gradjit.ir import parse
    fn = parse("""func @f(%x: f64[]) -> (f64[]) {
      %0 = cast(%x) {dtype=f32} : f32[]
      %1 = expm1(%0) : f32[]
      %2 = cast(%1) {dtype=f64} : f64[]
      return %2
    }""")
    check(fn, [np.array(-0.2642097265826038)], targets=("cpu", "cuda-emulator"))


def test_the_math_librarys_few_ulps_amplified_by_cancellation_are_allowed():
    """tanh's derivative 1 - tanh(x)^2 at x = 8.5 cancels all but a few digits: a 1-ulp
    difference in tanh moves it by 1e-9 relative, which input perturbations do not show."""
    from gradjit.ir import parse
    fn = parse("""func @f(%x: f64[2]) -> (f64[2]) {
      %0 = tanh(%x) : f64[2]
      return %0
    }""")
    check(fn, [np.array([-8.10101144054719, 8.5220074183319])])


def test_the_transpose_check_flags_a_wrong_forward_mode(monkeypatch):
    """Forward mode's tangent against reverse mode's <gradient, tangent>: equal for the real
    JVP rules, flagged when forward mode differentiates another function (cos for sin)."""
    from gradjit.fuzz import check
    from gradjit.ir import parse
    from gradjit.ir.text import print_function
    loss = parse("func @f(%x: f64[3]) -> (f64[]) {\n  %0 = sin(%x) : f64[3]\n"
                 "  %1 = reduce_sum(%0) {axes=[0], keepdims=false} : f64[]\n  return %1\n}\n")
    x, t = np.array([0.3, 1.0, -2.0]), np.array([1.0, -0.5, 2.0])
    assert check.transpose_identity(loss, [0], [x], [t]) is None
    real = check.forward
    monkeypatch.setattr(check, "forward", lambda fn, wrt: real(
        parse(print_function(fn).replace("sin(", "cos(")), wrt))
    assert "forward mode's tangent" in check.transpose_identity(loss, [0], [x], [t])
