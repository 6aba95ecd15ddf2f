"""Native code never reads or writes out of bounds: integer indices (negative, too large, of
either integer dtype) are checked before compiled code reads through them and raise IndexError
as numpy does; arguments of the wrong shape, dtype, count or layout are refused (or copied)
before native code runs."""
import numpy as np
import pytest

import gradjit
from gradjit.codegen import compile_function
from gradjit.ir import parse

GATHER = """func @f(%x: f64[5,3], %i: {index}[4]) -> (f64[4,3]) {{
  %0 = gather(%x, %i) {{axis=0}} : f64[4,3]
  return %0
}}"""
SCATTER = """func @f(%x: f64[5], %i: {index}[4], %u: f64[4]) -> (f64[5]) {{
  %0 = scatter_add(%x, %i, %u) {{axis=0}} : f64[5]
  return %0
}}"""
BAD = [[0, 1, 2, 5], [-6, 0, 0, 0], [0, 0, 0, 2**31 - 1], [-2**31, 0, 0, 0], [4, 4, 4, 100]]
TARGETS = ["cpu", "cuda-emulator"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("index", ["i64", "i32"])
def test_gather_checks_every_index_before_reading(target, index):
    x = np.arange(15.0).reshape(5, 3)
    program = compile_function(parse(GATHER.format(index=index)), target=target)
    dt = np.dtype("int64" if index == "i64" else "int32")
    good = np.array([0, -1, 4, -5], dt)
    np.testing.assert_array_equal(program(x, good)[0], x[good])
    for bad in BAD:
        with pytest.raises(IndexError, match="out of bounds"):
            x[np.array(bad, dt)]
        with pytest.raises(IndexError, match="out of bounds"):
            program(x, np.array(bad, dt))


@pytest.mark.parametrize("target", TARGETS)
def test_scatter_add_checks_every_index_before_writing(target):
    program = compile_function(parse(SCATTER.format(index="i64")), target=target)
    x, u = np.zeros(5), np.ones(4)
    np.testing.assert_array_equal(program(x, np.array([0, -1, 0, 2]), u)[0], [2, 0, 1, 0, 1])
    for bad in BAD:
        with pytest.raises(IndexError, match="out of bounds"):
            program(x, np.array(bad), u)


def test_traced_indexing_with_bad_indices_on_a_compiled_trace():
    f = gradjit.jit(lambda x, i: x[i] * 2)
    g = gradjit.grad(lambda x, i: np.sum(x[:, i] ** 2))
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(f(x, np.array([0, -3])), x[[0, -3]] * 2)
    np.testing.assert_array_equal(g(x, np.array([3, -4])), np.where(
        np.arange(4) % 3 == 0, 2 * x, 0) * np.array([1, 0, 0, 1]))
    for bad in (np.array([0, 3]), np.array([-4, 0]), np.array([2**40, 0])):
        with pytest.raises(IndexError):
            f(x, bad)  # same shape and dtype as the compiled trace: the native path
    with pytest.raises(IndexError):
        g(x, np.array([0, 4]))
    assert f.cache_info().traces == 1 and g.cache_info().traces == 1


def test_indices_of_the_wrong_dtype_are_refused_like_numpy():
    f = gradjit.jit(lambda x, i: x[i])
    x = np.arange(4.0)
    for bad in (np.array([0.0, 1.0]), np.array([1.5])):
        with pytest.raises(IndexError):
            x[bad]
        with pytest.raises(IndexError, match="integer"):
            f(x, bad)
    with pytest.raises(IndexError):
        f(x, np.array([True, False]))  # a mask computed at run time has no static shape


@pytest.mark.parametrize("target", TARGETS)
def test_arguments_of_the_wrong_shape_dtype_or_count_are_refused(target):
    program = compile_function(parse(GATHER.format(index="i64")), target=target)
    x, i = np.zeros((5, 3)), np.zeros(4, np.int64)
    for args, problem in [((np.zeros((4, 3)), i), "must be f64"),
                          ((np.zeros((5, 3), np.float32), i), "must be f64"),
                          ((x, np.zeros(4, np.int32)), "must be i64"),
                          ((x, np.zeros(5, np.int64)), "must be i64"),
                          ((x,), "takes 2 arguments"), ((x, i, i), "takes 2 arguments")]:
        with pytest.raises(TypeError, match=problem):
            program(*args)


def test_layouts_that_are_not_c_contiguous_are_copied_first():
    program = compile_function(parse(GATHER.format(index="i64")))
    x = np.asfortranarray(np.arange(15.0).reshape(5, 3))
    strided = np.array([0, 9, 1, 9, 2, 9, 4, 9])[::2]  # a strided view of 0, 1, 2, 4
    np.testing.assert_array_equal(program(x, strided)[0], x[strided])
    f = gradjit.jit(lambda a: a * 2)
    f(np.ones((3, 4)))
    t = np.arange(12.0).reshape(4, 3).T  # the compiled shape, transposed strides
    np.testing.assert_array_equal(f(t), t * 2)


def test_out_buffers_of_the_wrong_kind_are_refused():
    program = compile_function(parse(GATHER.format(index="i64")))
    x, i = np.zeros((5, 3)), np.zeros(4, np.int64)
    for out, problem in [([np.zeros((3, 4))], "out\\[0\\] must be"),
                         ([np.zeros((4, 3), np.float32)], "out\\[0\\] must be"),
                         ([np.zeros((4, 3)).T.copy().T], "out\\[0\\] must be"),
                         ([], "out= holds 0")]:
        with pytest.raises(TypeError, match=problem):
            program(x, i, out=out)
    with pytest.raises(ValueError, match="overlaps"):
        program(x, i, out=[x[:4]])


def test_shapes_that_do_not_broadcast_fail_at_trace_time_naming_the_line():
    f = gradjit.jit(lambda a, b: a + b)
    with pytest.raises(gradjit.ir.ShapeError,
                       match=r"broadcast together with shapes \(3,\) \(4,\) "):
        f(np.ones(3), np.ones(4))
