"""The same inputs give bitwise the same outputs, call after call, process after process and
whatever the number of threads: reductions combine their chunks in a fixed order."""
import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gradjit
from gradjit.codegen import compile_function, get_num_threads, set_num_threads
from gradjit.ir import parse
from gradjit.runtime.steps import THREADED_MIN

N = 4 * THREADED_MIN + 3  # large enough to be split across threads, with a ragged end


def digest(arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def loss(w, x):
    h = np.tanh(x * w[0] + w[1])
    return np.sum(h * h) + np.max(h) - np.min(x) + np.sum(np.exp(-x * x)) / x.size


@pytest.fixture
def threads():
    before = get_num_threads()
    yield set_num_threads
    set_num_threads(before)


def inputs():
    rng = np.random.default_rng(7)
    return np.array([0.7, -0.2]), rng.normal(size=N)


def test_results_are_bitwise_equal_whatever_the_thread_count(threads):
    f = gradjit.value_and_grad(loss, argnums=(0, 1))
    w, x = inputs()
    seen = set()
    for n in (1, 2, 3, 8, 1):
        threads(n)
        value, (dw, dx) = f(w, x)
        seen.add(digest([np.asarray(value), dw, dx]))
    assert len(seen) == 1
    assert f.cache_info().traces == 1


def test_row_sums_and_float32_sums_are_bitwise_equal_whatever_the_thread_count(threads):
    program = compile_function(parse(f"""func @f(%x: f32[{N // 64},64]) -> (f32[64], f32[]) {{
      %0 = reduce_sum(%x) {{axes=[0], keepdims=false}} : f32[64]
      %1 = reduce_sum(%x) {{axes=[0,1], keepdims=false}} : f32[]
      return %0, %1
    }}"""))
    x = np.random.default_rng(3).normal(size=(N // 64, 64)).astype(np.float32) * 1e4
    seen = set()
    for n in (1, 2, 5, 8):
        threads(n)
        seen.add(digest(program(x)))
    assert len(seen) == 1


def test_repeated_calls_are_bitwise_equal():
    f = gradjit.grad(loss, argnums=(0, 1))
    w, x = inputs()
    first = digest(f(w, x))
    assert all(digest(f(w, x)) == first for _ in range(5))


SCRIPT = """
import hashlib, sys
import numpy as np
sys.path.insert(0, ".")
from tests.reliability.test_determinism import digest, inputs, loss
import gradjit
print(digest(gradjit.grad(loss, argnums=(0, 1))(*inputs())))
"""


def test_another_process_gets_the_same_bits():
    w, x = inputs()
    here = digest(gradjit.grad(loss, argnums=(0, 1))(w, x))
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=120, env={"GRADJIT_CACHE_DIR": "off"},
                          cwd=Path(__file__).parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == here


def test_the_grid_emulator_scatters_deterministically_when_asked():
    fn = parse("""func @f(%x: f64[6], %i: i64[1000], %u: f64[1000]) -> (f64[6]) {
      %0 = scatter_add(%x, %i, %u) {axis=0} : f64[6]
      return %0
    }""")
    rng = np.random.default_rng(0)
    args = np.zeros(6), rng.integers(0, 6, 1000), rng.normal(size=1000) * 1e8
    program = compile_function(fn, target="cuda-emulator", deterministic=True)
    assert len({digest(program(*args)) for _ in range(3)}) == 1
    np.testing.assert_array_equal(program(*args)[0], compile_function(fn)(*args)[0])
