"""The PTX target's kernel shapes, run by the grid emulator against numpy: tree and
per-thread reductions, chunked partials, several reductions in one pass, grid-stride loops
on small grids, tiled matrix products; and the emulator's barrier semantics."""
import numpy as np
import pytest
from llvmlite import ir

from gradjit.codegen import compile_function
from gradjit.codegen.body import I64
from gradjit.codegen.ptx import compile as ptx_compile
from gradjit.codegen.ptx import lower, matmul
from gradjit.codegen.ptx.grid import GridKernel, emit_module
from gradjit.codegen.ptx.target import compile_host
from gradjit.ir import PRIMITIVES, Builder, TensorType
from gradjit.ir import dtype as resolve
from gradjit.runtime.emulator import Emulator

rng = np.random.default_rng(7)
P = PRIMITIVES


def build(shapes, body, dt="f64"):
    with Builder("k") as b:
        xs = [b.param(TensorType(s, resolve(dt)), f"x{i}") for i, s in enumerate(shapes)]
        outs = body(*xs)
    return b.build(list(outs))


def run(fn, *arrays, **options):
    program = compile_function(fn, target="cuda-emulator", **options)
    return program, program(*arrays)


def test_long_reductions_use_a_block_tree_and_short_ones_a_thread_each():
    x = rng.normal(size=(30, 1000))
    fn = build([x.shape], lambda x: [P["reduce_sum"](x, axes=(1,), keepdims=False),
                                     P["reduce_max"](x, axes=(0,), keepdims=False)])
    program, (rows, cols) = run(fn, x)
    np.testing.assert_allclose(rows, x.sum(1), rtol=1e-13)
    np.testing.assert_array_equal(cols, x.max(0))
    shapes = sorted((k.block, k.shared > 0) for k in program.kernels)
    assert shapes == [(256, False), (256, True)]  # 30 rows: a thread each; 1000: a tree


@pytest.mark.parametrize("shape,axes", [((70001,), (0,)), ((1000, 300), (0,)),
                                        ((257, 3, 129), (0, 2))])
def test_chunked_reductions_sum_partials_then_combine(shape, axes):
    x = rng.normal(size=shape)
    fn = build([shape], lambda x: [P["reduce_sum"](x, axes=axes, keepdims=False),
                                   P["reduce_min"](x, axes=axes, keepdims=False),
                                   P["mul"](x, x)])
    program, (total, low, square) = run(fn, x)
    assert "chunk" in program.text and "combine" in program.text
    np.testing.assert_allclose(total, x.sum(axes), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(low, x.min(axes))
    np.testing.assert_array_equal(square, x * x)


def test_integer_and_bool_reductions_are_exact():
    x = rng.integers(-1000, 1000, size=(5, 700)).astype(np.int64)
    fn = build([x.shape], lambda x: [P["reduce_sum"](x, axes=(1,), keepdims=False),
                                     P["reduce_max"](P["gt"](x, P["full"](
                                         value=990, shape=x.type.shape, dtype="i64")),
                                         axes=(1,), keepdims=False)], dt="i64")
    _, (total, any_big) = run(fn, x)
    np.testing.assert_array_equal(total, x.sum(1))
    np.testing.assert_array_equal(any_big, (x > 990).any(1))


def test_many_reductions_in_one_pass_split_over_kernels():
    x = rng.normal(size=(3, 500))
    fn = build([x.shape], lambda x: [P["reduce_sum"](P["mul"](x, P["full"](
        value=float(k), shape=x.type.shape, dtype="f64")), axes=(1,), keepdims=False)
        for k in range(1, 11)])
    program, results = run(fn, x)
    assert len(program.kernels) == 2  # 8 reductions share shared memory, then 2 more
    for k, got in enumerate(results, 1):
        np.testing.assert_allclose(got, (x * k).sum(1), rtol=1e-12)


def test_grid_stride_loops_cover_problems_larger_than_the_grid(monkeypatch):
    monkeypatch.setattr(lower, "MAX_GRID", 2)
    monkeypatch.setattr(matmul, "MAX_GRID", 2)
    monkeypatch.setattr(ptx_compile, "_memory", {})
    a, b = rng.normal(size=(50, 40)), rng.normal(size=(40, 70))
    fn = build([a.shape, b.shape], lambda a, b: [
        P["exp"](a), P["reduce_sum"](a, axes=(0,), keepdims=False),
        P["reduce_sum"](b, axes=(1,), keepdims=False), P["matmul"](a, b)])
    program, (e, cols, rows, product) = run(fn, a, b)
    assert all(k.grid <= 2 for k in program.kernels)
    np.testing.assert_allclose(e, np.exp(a), rtol=1e-15)
    np.testing.assert_allclose(cols, a.sum(0), rtol=1e-12)
    np.testing.assert_allclose(rows, b.sum(1), rtol=1e-12)
    np.testing.assert_allclose(product, a @ b, rtol=1e-12)


def test_launch_shape_follows_the_problem_size():
    small = build([(10,)], lambda x: [P["neg"](x)])
    large = build([(3_000_000,)], lambda x: [P["neg"](x)], dt="f32")
    for fn, grid in [(small, 1), (large, lower.MAX_GRID)]:
        (kernel,) = compile_function(fn, target="cuda-emulator").kernels
        assert (kernel.grid, kernel.block) == (grid, lower.BLOCK)
    x = np.arange(3_000_000, dtype=np.float32)
    np.testing.assert_array_equal(compile_function(large, target="cuda-emulator")(x)[0], -x)


@pytest.mark.parametrize("dt", ["f32", "f64", "i32", "i64"])
@pytest.mark.parametrize("m,k,n", [(17, 33, 5), (1, 1, 1), (40, 100, 30), (3, 0, 4)])
def test_tiled_matmul(dt, m, k, n):
    a = rng.integers(-4, 5, (m, k)).astype(resolve(dt).numpy)
    b = rng.integers(-4, 5, (k, n)).astype(resolve(dt).numpy)
    fn = build([a.shape, b.shape], lambda a, b: [P["matmul"](a, b)], dt=dt)
    _, (got,) = run(fn, a, b)
    np.testing.assert_array_equal(got, a @ b)  # small integers: exact in every dtype


def test_batched_matmul_of_strided_operands():
    a, b = rng.normal(size=(3, 20, 17)), rng.normal(size=(3, 20, 9))
    fn = build([a.shape, b.shape], lambda a, b: [
        P["matmul"](P["transpose"](a, perm=(0, 2, 1)), b)])
    program, (got,) = run(fn, a, b)
    assert "matmul" in " ".join(k.name for k in program.kernels)
    np.testing.assert_allclose(got, np.swapaxes(a, 1, 2) @ b, rtol=1e-12, atol=1e-12)


def test_emulator_runs_phases_in_lockstep_like_a_barrier():
    """Each thread reads the slot its neighbour wrote in the phase before: right only if
    every thread finished the first phase before any started the second."""
    def write(t):
        slot = t.b.gep(t.shared, [t.tid], source_etype=ir.IntType(64))
        t.b.store(t.b.add(t.tid, t.b.mul(t.ctaid, I64(100))), slot)

    def read(t):
        b = t.b
        neighbour = b.urem(b.add(t.tid, I64(1)), t.ntid)
        value = b.load(b.gep(t.shared, [neighbour], source_etype=ir.IntType(64)),
                       typ=ir.IntType(64))
        out = b.gep(t.buffer(0), [b.add(b.mul(t.ctaid, t.ntid), t.tid)],
                    source_etype=ir.IntType(64))
        b.store(value, out)

    kernel = GridKernel("neighbours", (0,), 3, 8, lambda d: (d.threads(write),
                                                             d.threads(read, sync=False)),
                        shared=8 * 8)
    device = Emulator()
    module = device.load(compile_host(str(emit_module("m", [kernel], nvptx=False))),
                         ["neighbours"])
    out = np.zeros(24, np.int64)
    pointer = device.alloc(out.nbytes)
    device.launch(module, "neighbours", 3, 8, [pointer])
    device.download(pointer, out)
    device.free(pointer)
    tids, blocks = np.arange(24) % 8, np.arange(24) // 8
    np.testing.assert_array_equal(out, (tids + 1) % 8 + 100 * blocks)


def test_emulator_refuses_launches_cuda_would_refuse():
    device = Emulator()
    with pytest.raises(ValueError, match="1 to 1024 threads"):
        device.launch(None, "k", 1, 2048, [])
    with pytest.raises(ValueError, match="not an emulated allocation"):
        device.free(12345)


def test_loaded_code_can_be_dropped_and_more_loaded(monkeypatch):
    """An execution engine frees its target machine with it: the next one needs its own."""
    fn = build([(5,)], lambda x: [P["sin"](x)])
    x = np.linspace(0, 1, 5)
    for _ in range(3):
        monkeypatch.setattr(ptx_compile, "_memory", {})
        _, (got,) = run(fn, x)
        np.testing.assert_allclose(got, np.sin(x), rtol=1e-15)


def test_intrinsics_nvptx_cannot_select_are_refused_before_llvm_sees_them():
    from gradjit.codegen.ptx.target import UnsupportedIntrinsic, check_intrinsics
    fma = "declare float @llvm.fma.f32(float, float, float)\n"
    check_intrinsics(fma + "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n")
    for bad in ["llvm.exp.f64", "llvm.sin.f32", "llvm.pow.f64", "expf"]:
        with pytest.raises(UnsupportedIntrinsic, match=bad.replace(".", r"\.")):
            check_intrinsics(fma + f"declare double @{bad}(double)\n")
