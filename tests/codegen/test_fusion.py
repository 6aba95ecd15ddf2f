"""Fused combinations equal the interpreter, and fuse as intended: views become strided
loads, reductions share the loop of their operand, value and gradient come out of one pass."""
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from gradjit.codegen import compile_function, set_num_threads
from gradjit.codegen.fuse import fuse
from gradjit.ir import Builder, TensorType, parse
from gradjit.ir import dtype as resolve
from gradjit.ir import elementwise as E
from gradjit.fuzz.programs import programs, sample_arguments
from gradjit.ir import structural as S

from tests.codegen.helpers import check, data

LOSS = """func @loss(%x: {t}) -> ({s}, {t}) {{
  %0 = sin(%x) : {t}
  %1 = mul(%x, %x) : {t}
  %2 = neg(%1) : {t}
  %3 = exp(%2) : {t}
  %4 = mul(%0, %3) : {t}
  %5 = tanh(%x) : {t}
  %6 = add(%4, %5) : {t}
  %7 = reduce_sum(%6) {{axes=[0], keepdims=false}} : {s}
  %8 = cos(%x) : {t}
  %9 = mul(%8, %3) : {t}
  %10 = full() {{value=-2.0, shape={shape}, dtype={dt}}} : {t}
  %11 = mul(%10, %x) : {t}
  %12 = mul(%11, %4) : {t}
  %13 = add(%9, %12) : {t}
  %14 = mul(%5, %5) : {t}
  %15 = full() {{value=1.0, shape={shape}, dtype={dt}}} : {t}
  %16 = sub(%15, %14) : {t}
  %17 = add(%13, %16) : {t}
  return %7, %17
}}"""


def loss_and_gradient(n, dt="f32"):
    """sum(sin(x) exp(-x^2) + tanh(x)) and its hand-written gradient, as IR text."""
    return parse(LOSS.format(t=f"{dt}[{n}]", s=f"{dt}[]", shape=f"[{n}]", dt=dt))


def build(name, types, body):
    with Builder(name) as b:
        params = [b.param(TensorType(shape, resolve(dt)), f"p{i}")
                  for i, (shape, dt) in enumerate(types)]
        results = body(*params)
    return b.build(list(results))


@pytest.mark.parametrize("dt", ["f32", "f64"])
def test_value_and_gradient_in_one_pass(dt):
    fn = loss_and_gradient(1000, dt)
    program = check(fn, data((1000,), dt))
    assert len(program.kernels) == 1
    assert sorted(o.kind for o in program.kernels[0].outputs) == ["store", "sum"]


@pytest.mark.parametrize("dt", ["f32", "f64"])
def test_broadcast_and_transposed_operands_fuse_into_strided_loads(dt):
    fn = build("f", [((3, 4), dt), ((4, 3), dt), ((4,), dt)], lambda x, y, b: [
        E.tanh(E.add(E.mul(x, S.transpose(y, perm=(1, 0))), S.broadcast_to(b, shape=(3, 4))))])
    program = check(fn, data((3, 4), dt), data((4, 3), dt), data((4,), dt))
    (kernel,) = program.kernels
    strides = sorted(i.attrs.strides for i in kernel.body if i.op == "load")
    assert strides == [(0, 1), (1, 3), (4, 1)]


def test_reshape_that_strides_cannot_express_is_copied_first():
    fn = build("f", [((3, 4), "f64")], lambda x: [
        E.exp(S.reshape(S.transpose(x, perm=(1, 0)), shape=(2, 6)))])
    program = check(fn, data((3, 4), "f64"))
    assert len(program.kernels) == 2


@pytest.mark.parametrize("keepdims", [False, True])
def test_fused_reductions_over_every_axis_subset(keepdims):
    shape = (3, 4, 5)
    subsets = [a for n in range(1, 4) for a in itertools.combinations(range(3), n)]
    fn = build("f", [(shape, "f64"), (shape, "f64")], lambda x, y: [
        reduce(E.mul(E.exp(x), y), axes=axes, keepdims=keepdims)
        for axes in subsets for reduce in (S.reduce_sum, S.reduce_max, S.reduce_min)])
    check(fn, data(shape, "f64"), data(shape, "f64"), ulps=16)


def test_reductions_of_a_transposed_operand_and_of_the_inner_axis():
    fn = build("f", [((64, 33), "f32")], lambda x: [
        S.reduce_sum(S.transpose(x, perm=(1, 0)), axes=(1,), keepdims=False),
        S.reduce_max(x, axes=(1,), keepdims=True)])
    check(fn, data((64, 33), "f32"), ulps=64)


def test_a_cheap_forward_intermediate_is_recomputed_in_the_gradient_loop():
    """softmax-style: the second loop needs the reduced value, so it is a second kernel; it
    recomputes x*x+1 rather than reading it back from memory."""
    fn = build("f", [((1000,), "f64")], lambda x: [
        E.div(E.add(E.mul(x, x), x), S.broadcast_to(
            S.reduce_sum(E.add(E.mul(x, x), x), axes=(0,), keepdims=False), shape=(1000,)))])
    program = check(fn, data((1000,), "f64"))
    assert len(program.kernels) == 2
    temps = [b for b in fuse(fn).buffers if b.kind == "temp"]
    assert [b.size for b in temps] == [1]


def test_a_transcendental_intermediate_is_stored_once_and_loaded_back():
    """The same with exp(x): computing it again costs more than a store and a load."""
    fn = build("f", [((1000,), "f64")], lambda x: [
        E.div(E.exp(x), S.broadcast_to(S.reduce_sum(E.exp(x), axes=(0,), keepdims=False),
                                       shape=(1000,)))])
    program = check(fn, data((1000,), "f64"))
    assert len(program.kernels) == 2
    assert sorted(b.size for b in fuse(fn).buffers if b.kind == "temp") == [1, 1000]
    assert [sum(i.op == "exp" for i in k.body) for k in program.kernels] == [1, 0]


def test_a_cheap_value_is_recomputed_by_two_kernels_and_loaded_by_the_others():
    """x*x+x read by four kernels, each after the previous one's sum: the first two compute
    it, the second stores it, the last two load it (one computation, at most two copies)."""
    def body(x):
        v = E.add(E.mul(x, x), x)
        y = v
        for _ in range(3):
            y = E.mul(v, S.broadcast_to(S.reduce_sum(y, axes=(0,), keepdims=False),
                                        shape=(1000,)))
        return [y]
    fn = build("f", [((1000,), "f64")], body)
    program = check(fn, data((1000,), "f64", low=-1, high=1))
    assert len(program.kernels) == 4
    assert [sum(i.op == "add" for i in k.body) for k in program.kernels] == [1, 1, 0, 0]
    assert sorted(b.size for b in fuse(fn).buffers if b.kind == "temp") == [1, 1, 1, 1000]


def test_broadcast_of_a_computed_value_is_stored_not_recomputed():
    fn = build("f", [((50,), "f32"), ((40, 50), "f32")], lambda b, x: [
        E.mul(x, S.broadcast_to(E.exp(b), shape=(40, 50)))])
    program = check(fn, data((50,), "f32"), data((40, 50), "f32"))
    assert len(program.kernels) == 2


def test_indexing_ops_fuse_with_elementwise_consumers():
    fn = build("f", [((6, 3), "f64"), ((4,), "i64"), ((4, 3), "f64")], lambda x, i, u: [
        E.exp(S.gather(E.sin(x), i, axis=0)),
        S.scatter_add(E.neg(x), i, E.mul(u, u), axis=0),
        S.concatenate(E.cos(x), S.pad(u, low=(1, 0), high=(1, 0), interior=(0, 0), value=2.0),
                      axis=0)])
    check(fn, data((6, 3), "f64"), np.array([5, -1, 0, 5]), data((4, 3), "f64"))


def test_a_value_reshaped_for_a_matmul_is_stored_by_the_loop_over_its_own_shape():
    # the error of a loss, summed squared and reshaped to [1, n, m] for the gradient's product
    fn = build("f", [((300, 10), "f32"), ((300, 10), "f32"), ((1, 10, 200), "f32")],
               lambda p, y, w: [
                   S.reduce_sum(E.mul(E.sub(p, y), E.sub(p, y)), axes=(0, 1), keepdims=False),
                   S.matmul(S.reshape(E.mul(E.sub(p, y), E.sub(p, y)), shape=(1, 300, 10)),
                            w)])
    program = check(fn, data((300, 10), "f32"), data((300, 10), "f32"),
                    data((1, 10, 200), "f32"), ulps=16)
    assert len([k for k in program.kernels if k.extents == (3000,)]) == 1


def test_matmul_of_transposed_operands_and_its_consumers():
    fn = build("f", [((5, 4), "f32"), ((6, 5), "f32")], lambda a, b: [
        E.tanh(S.matmul(S.transpose(a, perm=(1, 0)), S.transpose(b, perm=(1, 0))))])
    check(fn, data((5, 4), "f32"), data((6, 5), "f32"), ulps=16)


def test_guard_on_a_computed_predicate():
    fn = build("f", [((10,), "f64")], lambda x: [
        S.guard(E.gt(S.reduce_sum(x, axes=(0,), keepdims=False), 0.0), expected=True,
                site="model.py:3") or E.exp(x)])
    program = compile_function(fn)
    np.testing.assert_allclose(program(np.ones(10))[0], np.exp(np.ones(10)))
    from gradjit.ir import GuardFailed
    with pytest.raises(GuardFailed):
        program(-np.ones(10))


def test_results_that_alias_own_their_memory():
    fn = build("f", [((3,), "f32")], lambda x: [x, x, S.reshape(x, shape=(3, 1))])
    x = data((3,), "f32")
    outs = compile_function(fn)(x)
    assert all(o.flags.owndata for o in outs)
    assert not any(np.shares_memory(o, x) for o in outs)
    assert not np.shares_memory(outs[0], outs[1])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(guards=False, empty=False))
def test_random_programs_match_the_interpreter(fn):
    check(fn, *sample_arguments(fn), ulps=64)


@pytest.mark.parametrize("n", [(1 << 16) + 13, 1 << 20])
def test_results_do_not_depend_on_the_thread_count(n):
    fn = loss_and_gradient(n)
    x = data((n,), "f32")
    program = compile_function(fn)
    try:
        set_num_threads(1)
        one = program(x)
        set_num_threads(2)
        two = program(x)
    finally:
        set_num_threads(2)
    assert program.kernels[0].n_chunks > 1
    for a, b in zip(one, two):
        assert a.tobytes() == b.tobytes()
    x64 = x.astype(np.float64)
    terms = np.sin(x64) * np.exp(-x64 * x64) + np.tanh(x64)
    # The terms cancel: the error is measured against the sum of their magnitudes.
    np.testing.assert_allclose(one[0], terms.sum(), atol=1e-6 * np.abs(terms).sum())


def test_column_sums_of_a_large_matrix_split_across_chunks():
    fn = build("f", [((4096, 64), "f64")], lambda x: [S.reduce_sum(x, axes=(0,),
                                                                   keepdims=False)])
    check(fn, data((4096, 64), "f64"), ulps=4096)


@pytest.mark.parametrize("a_shape, b_shape, dt, transposed", [
    ((200, 100), (100, 1), "f64", False),   # a matrix times a vector
    ((5, 3, 4), (5, 4, 3), "f32", False),    # a stack of tiny products
    ((1, 64), (64, 32), "f64", True),        # b read down its columns, small enough
    ((6, 7), (7, 1), "i64", True)])
def test_small_products_are_loops_that_sum_over_the_inner_axis(a_shape, b_shape, dt,
                                                               transposed):
    """The product fuses with what computes its operands and what reads it; a transposed
    operand is a strided load."""
    def body(a, b):
        rank = len(a_shape)
        flip = tuple(range(rank - 2)) + (rank - 1, rank - 2)
        a = S.transpose(a, perm=flip) if transposed else a
        return [E.add(S.matmul(a, E.mul(b, b)), E.full(value=1, shape=out_shape, dtype=dt))]
    out_shape = a_shape[:-1] + b_shape[-1:]
    stored = a_shape[:-2] + a_shape[:-3:-1] if transposed else a_shape
    fn = build("f", [(stored, dt), (b_shape, dt)], body)
    program = check(fn, data(stored, dt), data(b_shape, dt), ulps=64)
    assert not [s for s in program.steps if "matmul" in str(s)]
    assert any(o.kind == "sum" for k in program.kernels for o in k.outputs)


def test_larger_products_and_wide_columns_stay_blas_calls():
    for a_shape, b_shape in [((128, 256), (256, 2)), ((1, 256), (256, 128))]:
        fn = build("f", [(a_shape, "f64"), (b_shape, "f64")], lambda a, b: [S.matmul(a, b)])
        program = check(fn, data(a_shape, "f64"), data(b_shape, "f64"), ulps=64)
        assert [str(s) for s in program.steps if "matmul" in str(s)]
