"""Every primitive's batching rule (vmap) equals a Python loop of unbatched evaluations, with
the batch axis first, last or in the middle of each operand and with operands shared."""
import numpy as np
import pytest

from gradjit.ir import PRIMITIVES, interpret
from gradjit.ir.batching import batch
from gradjit.ir.core import Builder
from gradjit.ir.primitive import BatchingError, evaluate
from gradjit.ir.types import type_of
from tests.ir.test_table import GRADIENT_CASES, _operand

SIZE = 3
# the primitives without a gradient, next to the table's gradient cases
CASES = {
    **GRADIENT_CASES,
    **{n: ([(3, 4)], {}) for n in ["sign", "floor", "ceil", "round", "stop_gradient",
                                       "stop_reverse"]},
    **{n: ([(3, 4), (3, 4)], {}) for n in ["eq", "ne", "lt", "le", "gt", "ge"]},
    **{n: ([("bool", (4,)), ("bool", (4,))], {}) for n in ["logical_and", "logical_or"]},
    "logical_not": ([("bool", (2, 3))], {}),
    **{n: ([("idx", (4,)), ("idx", (4,))], {}) for n in [
        "trunc_div", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"]},
    "argsort": ([(3, 4)], {"axis": 1}),
    "guard": ([("bool", ())], {"expected": True, "site": None}),
    "check_index": ([("idx", (4,))], {"bound": 5, "low": -5, "error": "IndexError",
                                      "words": "index {index} is out of bounds"}),
}
SOURCES = {n for n, p in PRIMITIVES.items() if p.arity == 0}  # no operand to batch


def test_every_primitive_has_a_rule_and_a_case():
    assert {n for n, p in PRIMITIVES.items() if p.batch is None} == SOURCES
    assert set(PRIMITIVES) - SOURCES == set(CASES)


def _one_op(prim, operands, params):
    builder = Builder(prim.name)
    with builder:
        params_ = [builder.param(type_of(x)) for x in operands]
        out = builder.emit(prim, params_, params)
    return builder.build([out] if out is not None else [])


def _axes_choices(operands):
    """Per operand: the batch axis first, last, in the middle, or shared (None)."""
    ranks = [np.ndim(x) for x in operands]
    yield [0] * len(ranks)
    yield [r for r in ranks]
    yield [r // 2 + (r > 1) for r in ranks]
    for i in range(len(ranks)):  # each operand alone batched, the others shared
        yield [0 if j == i else None for j in range(len(ranks))]
    if len(ranks) > 1:  # each one alone shared
        for i in range(len(ranks)):
            yield [None if j == i else -1 % (ranks[j] + 1) for j in range(len(ranks))]


def _stack(examples, axis):
    return examples[0] if axis is None else np.stack(examples, axis=axis)


@pytest.mark.parametrize("name", sorted(set(CASES) - {"guard"}))
def test_rule_equals_a_loop(name):
    prim = PRIMITIVES[name]
    specs, params = CASES[name]
    fn = _one_op(prim, [_operand(s) for s in specs], params)
    seen = set()
    for axes in _axes_choices([_operand(s) for s in specs]):
        if tuple(axes) in seen:
            continue
        seen.add(tuple(axes))
        per_example = [[_operand(s) for _ in range(SIZE)] for s in specs]
        for i, a in enumerate(axes):  # a shared operand is the same in every example
            if a is None:
                per_example[i] = [per_example[i][0]] * SIZE
        stacked = [_stack(xs, a) for xs, a in zip(per_example, axes)]
        for out_axis in {0, prim.infer(*[type_of(x[0]) for x in per_example], **params).rank}:
            (got,) = interpret(batch(fn, axes, SIZE, [out_axis]), *stacked)
            want = np.stack([evaluate(prim, [xs[k] for xs in per_example], params)
                             for k in range(SIZE)], axis=out_axis)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12,
                                       err_msg=f"{name} in_axes={axes} out_axes={out_axis}")
            assert got.dtype == want.dtype


def test_guard_on_a_batched_value_is_refused_with_the_line():
    fn = _one_op(PRIMITIVES["guard"], [np.bool_(True)], {"expected": True, "site": "f.py:3"})
    with pytest.raises(BatchingError, match="differs along the mapped axis.*\n  at f.py:3"):
        batch(fn, [0], SIZE, [])
    assert batch(fn, [None], SIZE, []).ops == fn.ops  # a shared decision stays one guard


def test_shared_ops_are_kept_and_unbatched_outputs_broadcast():
    builder = Builder("f")
    with builder:
        x, w = builder.param(type_of(np.zeros(3))), builder.param(type_of(np.zeros(3)))
        shared = PRIMITIVES["exp"](w)
        out = PRIMITIVES["mul"](x, shared)
    fn = builder.build([out, shared])
    batched = batch(fn, [1, None], 2, [0, 1])
    assert fn.ops[0] in batched.ops  # exp(w) once for the whole batch
    xs, w0 = np.arange(6.0).reshape(3, 2), np.ones(3)
    got, spread = interpret(batched, xs, w0)
    np.testing.assert_allclose(got, xs.T * np.e)
    np.testing.assert_allclose(spread, np.full((3, 2), np.e))
    with pytest.raises(BatchingError, match="output 0 varies along the mapped axis"):
        batch(fn, [0, None], 2, [None, None])


def test_per_example_gather_keeps_index_errors():
    fn = _one_op(PRIMITIVES["gather"], [np.zeros((4, 2)), np.zeros(3, int)], {"axis": 0})
    batched = batch(fn, [0, 0], 2, [0])
    x = np.arange(16.0).reshape(2, 4, 2)
    with pytest.raises(IndexError):  # 4 is past example 0's rows, not example 1's first row
        interpret(batched, x, np.array([[0, 1, 4], [0, 0, 0]]))
    got = interpret(batched, x, np.array([[0, -1, 3], [2, 2, -4]]))[0]
    np.testing.assert_array_equal(got, [x[0][[0, -1, 3]], x[1][[2, 2, -4]]])



@pytest.mark.parametrize("name", ["solve", "triangular_solve"])
def test_right_hand_sides_against_one_matrix_are_one_solve(name):
    prim = PRIMITIVES[name]
    params = CASES[name][1]
    a, bs = _operand(("spd", (3, 3))), _operand((4, 3, 2))
    fn = batch(_one_op(prim, [a, bs[0]], params), [None, 0], 4, [0])
    assert [op.prim.name for op in fn.ops].count(name) == 1
    assert all(op.inputs[0].type.shape == (3, 3) for op in fn.ops if op.prim is prim)
    want = np.stack([evaluate(prim, [a, b], params) for b in bs])
    np.testing.assert_allclose(interpret(fn, a, bs)[0], want, rtol=1e-12)


@pytest.mark.parametrize("axis", [0, 1, 3])
def test_one_matrix_times_stacked_vectors_is_one_product(axis):
    """A shared matrix times a stack of vectors (a Jacobian's basis pushed through a matmul)
    is one 2-D product with the vectors as rows, not a product per example."""
    fn = _one_op(PRIMITIVES["matmul"], [_operand((1, 3, 4)), _operand((1, 4, 1))], {})
    a, vectors = _operand((1, 3, 4)), [_operand((1, 4, 1)) for _ in range(SIZE)]
    batched = batch(fn, [None, axis], SIZE, [0])
    (got,) = interpret(batched, a, np.stack(vectors, axis))
    np.testing.assert_allclose(got, np.stack([a @ v for v in vectors]), rtol=1e-12)
    assert [op.out.type.rank for op in batched.ops if op.prim.name == "matmul"] == [2]
