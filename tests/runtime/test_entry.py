"""The native entry point: which programs get one, results equal to the step-by-step path and
the interpreter, guards reported with their site, no leaked references, threads."""
import gc
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from gradjit.codegen import compile_function
from gradjit.ir import GuardFailed, interpret, parse
from gradjit.runtime.program import ArgumentsDiffer

SMALL = """func @small(%x: f32[16], %y: f32[16]) -> (f32[], f32[16]) {
  %0 = mul(%x, %y) : f32[16]
  %1 = reduce_sum(%0) {axes=[0], keepdims=false} : f32[]
  %2 = add(%x, %0) : f32[16]
  return %1, %2
}"""

GUARDED = """func @guarded(%x: f64[3]) -> (f64[3]) {
  %0 = reduce_sum(%x) {axes=[0], keepdims=false} : f64[]
  %1 = full() {value=0.0, shape=[], dtype=f64} : f64[]
  %2 = gt(%0, %1) : bool[]
  guard(%2) {expected=true, site="model.py:7"}
  %3 = mul(%x, %x) : f64[3]
  return %3
}"""

# a product BLAS computes (a smaller one is a fused loop)
MATMUL = """func @mm(%a: f32[64,96], %b: f32[96,64]) -> (f32[64,64]) {
  %0 = matmul(%a, %b) : f32[64,64]
  return %0
}"""


def step_by_step(program, *args, out=None):
    """The program run one step at a time from Python, as programs without an entry are."""
    enter, program._enter = program._enter, None
    try:
        return program(*args, out=out)
    finally:
        program._enter = enter


def test_small_programs_get_an_entry_and_blas_programs_do_not():
    assert compile_function(parse(SMALL))._enter is not None
    assert compile_function(parse(GUARDED))._enter is not None
    assert compile_function(parse(MATMUL))._enter is None
    small_product = MATMUL.replace("64", "2").replace("96", "3")
    assert compile_function(parse(small_product))._enter is not None


def test_entry_results_equal_step_by_step_and_the_interpreter():
    program = compile_function(parse(SMALL))
    rng = np.random.default_rng(0)
    for _ in range(5):
        x, y = rng.standard_normal((2, 16)).astype(np.float32)
        got = program(x, y)
        for g, s, i in zip(got, step_by_step(program, x, y), interpret(parse(SMALL), x, y)):
            np.testing.assert_array_equal(g, s)
            np.testing.assert_allclose(g, i, rtol=1e-6)


def test_arguments_that_are_not_plain_contiguous_arrays_still_run_through_checks():
    program = compile_function(parse(SMALL))
    x = np.arange(32, dtype=np.float32)[::2]
    y = np.ones(16, np.float32)
    np.testing.assert_array_equal(program(x, y)[1], x + x * y)
    with pytest.raises(TypeError, match="%x must be f32\\[16\\]"):
        program(np.ones(16), y)
    with pytest.raises(TypeError, match="takes 2 arguments"):
        program(x)


def test_out_buffers_through_the_entry():
    program = compile_function(parse(SMALL))
    x, y = np.ones(16, np.float32), np.full(16, 2, np.float32)
    out = [np.empty((), np.float32), np.empty(16, np.float32)]
    assert program(x, y, out=out)[1] is out[1]
    assert out[0] == 32 and (out[1] == 3).all()


def test_a_failed_guard_raises_with_its_site_and_leaks_no_reference():
    program = compile_function(parse(GUARDED))
    ok, bad = np.array([1.0, 2.0, 3.0]), np.array([-1.0, -2.0, 0.5])
    np.testing.assert_array_equal(program(ok)[0], ok * ok)
    before = sys.getrefcount(program._table)
    for _ in range(100):
        with pytest.raises(GuardFailed) as failure:
            program(bad)
        assert failure.value.site == "model.py:7"
        np.testing.assert_array_equal(program(ok)[0], ok * ok)  # the status is reset
    del failure  # its traceback holds frames
    gc.collect()
    after = sys.getrefcount(program._table)  # outside the assert, which keeps its operands
    assert after == before


def test_threads_calling_one_program_get_their_own_results():
    program = compile_function(parse(SMALL))
    rng = np.random.default_rng(3)
    inputs = [tuple(rng.standard_normal((2, 16)).astype(np.float32)) for _ in range(64)]
    expected = [step_by_step(program, *a)[1] for a in inputs]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda a: program(*a)[1], inputs * 4))
    for g, e in zip(got, expected * 4):
        np.testing.assert_array_equal(g, e)


class Subclass(np.ndarray):
    pass


def wrong_arguments():
    """Arguments unlike SMALL's (x, y: C-contiguous float32[16]), each with what is wrong."""
    x = np.arange(16, dtype=np.float32)
    same_dtype = np.dtype(np.float32).newbyteorder("=")  # equal, but another dtype object
    return {
        "too few": (x,),
        "too many": (x, x, x),
        "not an array": (x, list(x)),
        "a subclass": (x, x.view(Subclass)),
        "float64": (x, x.astype(np.float64)),
        "two dimensions": (x, x.reshape(2, 8)),
        "another length": (x, np.arange(15, dtype=np.float32)),
        "strided": (x, np.arange(32, dtype=np.float32)[::2]),
        "an equal dtype object": (x, np.array(x, dtype=same_dtype)),
    }


def test_the_entry_runs_nothing_for_arguments_that_are_not_its_arrays():
    program = compile_function(parse(SMALL))
    run = program.fast_call()
    x = np.arange(16, dtype=np.float32)
    before = sys.getrefcount(program._table)
    for what, args in wrong_arguments().items():
        if what == "an equal dtype object" and args[1].dtype is np.dtype(np.float32):
            continue  # this numpy hands back the one float32 dtype object
        with pytest.raises(ArgumentsDiffer):
            run(args)
        np.testing.assert_array_equal(run((x, x))[1], x + x * x)
    gc.collect()
    after = sys.getrefcount(program._table)
    assert after == before  # each refusal's reference to the table was released


def test_the_checked_call_takes_what_the_entry_refuses_as_numpy_would():
    program = compile_function(parse(SMALL))
    x = np.arange(16, dtype=np.float32)
    for what, args in wrong_arguments().items():
        y = args[-1]
        if what in ("too few", "too many"):
            with pytest.raises(TypeError, match="takes 2 arguments"):
                program(*((x,) if what == "too few" else (x, x, x)))
        elif what in ("float64", "two dimensions", "another length"):
            with pytest.raises(TypeError, match="argument %y must be f32\\[16\\]"):
                program(x, y)
        else:
            want = np.asarray(y, np.float32).reshape(16)
            np.testing.assert_array_equal(program(x, y)[1], x + x * want, err_msg=what)
