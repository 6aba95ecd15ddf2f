"""Large results are recycled only when nothing references them any more: a caller that keeps
a result, or a view of it, never sees it overwritten."""
import gc

import numpy as np

from gradjit.codegen import compile_function
from gradjit.ir import parse
from gradjit.runtime.program import RECYCLED_MIN

N = RECYCLED_MIN // 4  # float32 elements: a result just large enough to be recycled
FN = f"""func @scale(%x: f32[{N}], %k: f32[]) -> (f32[{N}], f32[]) {{
  %0 = broadcast_to(%k) {{shape=[{N}]}} : f32[{N}]
  %1 = mul(%x, %0) : f32[{N}]
  return %1, %k
}}"""


def call(program, k):
    return program(np.ones(N, np.float32), np.float32(k) + np.zeros((), np.float32))[0]


def test_kept_results_and_views_are_never_overwritten():
    program = compile_function(parse(FN))
    kept = [call(program, k) for k in range(4)]
    view = call(program, 10)[::2]
    for k in range(20, 26):
        call(program, k)
    for k, result in enumerate(kept):
        assert (result == k).all()
    assert (view == 10).all()


def test_a_dropped_result_is_reused_with_new_contents():
    program = compile_function(parse(FN))
    seen = set()
    for k in range(6):
        result = call(program, k)
        assert (result == k).all()
        seen.add(result.ctypes.data)
        del result
        gc.collect()
    assert len(seen) <= 2


def test_a_loop_that_rebinds_its_result_allocates_at_most_two():
    program = compile_function(parse(FN))
    addresses = set()
    result = None
    for k in range(6):
        result = call(program, k)  # the previous result is alive during the call
        assert (result == k).all()
        addresses.add(result.ctypes.data)
    assert len(addresses) <= 3
