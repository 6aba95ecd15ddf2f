"""On an NVIDIA GPU: every primitive, the kernel shapes and a corpus sample run by the CUDA
driver equal the CPU backend (and the grid emulator). Skipped where no GPU is present."""
import numpy as np
import pytest

import gradjit
from gradjit.codegen import compile_function
from gradjit.ir import PRIMITIVES
from gradjit.runtime import cuda_driver

from tests.codegen.helpers import assert_same, many_ops
from tests.codegen.test_primitives import CASES
from tests.e2e.checks import assert_trees_close
from tests.e2e.corpus import CASES as CORPUS

# Asks the driver itself: the emulator switch (GRADJIT_CUDA_EMULATOR) is no GPU.
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(cuda_driver.device_count() == 0, reason="no CUDA device")]


@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_primitive_on_the_gpu_equals_the_cpu_backend(name):
    fn, arrays = many_ops(name, CASES[name]())
    ulps = 64 if name == "reduce_sum" else 4
    got = compile_function(fn, target="cuda")(*arrays)
    assert_same(got, compile_function(fn)(*arrays), ulps)
    assert_same(got, compile_function(fn, target="cuda-emulator")(*arrays), ulps)


@pytest.mark.parametrize("shape,axes", [((30, 1000), (1,)), ((1000, 300), (0,)),
                                        ((3_000_001,), (0,))])
def test_reductions_on_the_gpu(shape, axes):
    x = np.random.default_rng(3).normal(size=shape)

    def f(x):
        return np.sum(np.exp(x) * x, axis=axes), np.max(x, axis=axes)
    gpu, cpu = gradjit.jit(f, backend="cuda"), gradjit.jit(f, backend="cpu")
    assert_trees_close(gpu(x), cpu(x), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int64])
def test_tiled_matmul_on_the_gpu(dt):
    rng = np.random.default_rng(4)
    a, b = rng.integers(-3, 4, (4, 129, 77)).astype(dt), rng.integers(-3, 4, (4, 77, 65)).astype(dt)
    got = gradjit.jit(lambda a, b: a @ b, backend="cuda")(a, b)
    np.testing.assert_array_equal(got, a @ b)


def test_deterministic_scatter_add_is_reproducible_on_the_gpu():
    fn, arrays = many_ops("scatter_add", CASES["scatter_add"]())
    program = compile_function(fn, target="cuda", deterministic=True)
    first = program(*arrays)
    for got, again, cpu in zip(first, program(*arrays), compile_function(fn)(*arrays)):
        np.testing.assert_array_equal(got, again)
        np.testing.assert_array_equal(got, cpu)


@pytest.mark.parametrize("case", CORPUS[::3], ids=lambda c: c.name)
def test_corpus_on_the_gpu_equals_the_cpu_backend(case):
    gpu = gradjit.value_and_grad(case.fn, argnums=case.argnums, backend="cuda")
    cpu = gradjit.value_and_grad(case.fn, argnums=case.argnums, backend="cpu")
    for args in case.inputs:
        assert_trees_close(gpu(*args), cpu(*args), rtol=2e-4, atol=2e-5)
