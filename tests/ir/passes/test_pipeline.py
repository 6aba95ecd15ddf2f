"""The pipeline as a whole: it preserves meaning on random programs, every pass keeps the
function well formed, and it reaches a fixed point."""
import numpy as np
from hypothesis import given, settings

from gradjit.ir import interpret, verify
from gradjit.ir.autodiff import differentiate
from gradjit.ir.passes import PIPELINE, optimize
from gradjit.fuzz.programs import programs, sample_arguments


@settings(max_examples=60, deadline=None)
@given(programs(max_ops=10, guards=False, empty=False))
def test_optimize_preserves_meaning_and_is_idempotent(fn):
    arrays = sample_arguments(fn)
    for run in PIPELINE:
        verify(run(fn))
    optimized = verify(optimize(fn))
    assert len(optimized.ops) <= len(fn.ops)
    for got, want in zip(interpret(optimized, *arrays), interpret(fn, *arrays)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    assert str(optimize(optimized)) == str(optimized)


def test_gradient_of_sum_of_squares_optimizes_to_three_ops():
    from gradjit.ir import parse
    fn = parse("""func @f(%x: f32[16]) -> (f32[]) {
      %0 = mul(%x, %x) : f32[16]
      %1 = reduce_sum(%0) {axes=[0], keepdims=false} : f32[]
      return %1
    }""")
    out = optimize(differentiate(fn, [0]))
    assert [op.prim.name for op in out.ops] == ["mul", "reduce_sum", "add"]
