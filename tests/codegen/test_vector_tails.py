"""Inner loops with and without a scalar tail: extents that are and are not multiples of the
vector width, one-loop kernels cut into chunks, row reductions, all equal to numpy."""
import numpy as np
import pytest

from gradjit.codegen import compile_function
from gradjit.codegen.cpu import ACCUMULATORS
from gradjit.codegen.schedule import CHUNK
from gradjit.ir import parse

ROWS = """func @rows(%x: f32[{n},{m}]) -> (f32[{n}], f32[{n},{m}]) {{
  %0 = exp(%x) : f32[{n},{m}]
  %1 = reduce_sum(%0) {{axes=[1], keepdims=false}} : f32[{n}]
  %2 = mul(%x, %0) : f32[{n},{m}]
  return %1, %2
}}"""

FLAT = """func @flat(%x: f32[{n}]) -> (f32[], f32[{n}]) {{
  %0 = mul(%x, %x) : f32[{n}]
  %1 = reduce_max(%0) {{axes=[0], keepdims=false}} : f32[]
  %2 = sin(%x) : f32[{n}]
  return %1, %2
}}"""


@pytest.mark.parametrize("n,m", [(3, 8), (3, 16), (5, 7), (4, 17), (64, 1000), (2, 1)])
def test_row_kernels(n, m):
    x = np.random.default_rng(n * m).standard_normal((n, m)).astype(np.float32)
    sums, prod = compile_function(parse(ROWS.format(n=n, m=m)))(x)
    np.testing.assert_allclose(sums, np.exp(x).sum(1), rtol=1e-5)
    np.testing.assert_allclose(prod, x * np.exp(x), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("n", [7, 8, 64, 4 * CHUNK, 4 * CHUNK + 8, 4 * CHUNK + 3])
def test_one_loop_kernels_chunked_or_not(n):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    x[-1] = 9.0  # the largest square sits in the last lanes
    top, sines = compile_function(parse(FLAT.format(n=n)))(x)
    assert top == np.float32(81.0)
    np.testing.assert_allclose(sines, np.sin(x), rtol=1e-5, atol=1e-6)


EXTREMES = """func @ends(%x: f32[{n},{m}], %k: i32[{n},{m}]) -> (f32[{n}], f32[{n}], i32[{n}]) {{
  %0 = reduce_max(%x) {{axes=[1], keepdims=false}} : f32[{n}]
  %1 = reduce_min(%x) {{axes=[1], keepdims=false}} : f32[{n}]
  %2 = reduce_max(%k) {{axes=[1], keepdims=false}} : i32[{n}]
  return %0, %1, %2
}}"""


@pytest.mark.parametrize("m", [16, 37, 50, 64, 1000])
def test_row_extremes_see_every_lane(m):
    """A NaN or an extreme in the unrolled loop, in a single vector after it or in the masked
    last lanes decides the row's max and min as numpy's does."""
    rng = np.random.default_rng(m)
    unrolled = m - m % (16 * ACCUMULATORS)
    places = sorted({0, 10, m // 2, unrolled, m - m % 16 - 1, m - 1} & set(range(m)))
    n = 2 * len(places) + 1
    x = rng.standard_normal((n, m)).astype(np.float32)
    k = rng.integers(-1000, 1000, (n, m)).astype(np.int32)
    for row, place in enumerate(places):
        x[row, place] = np.nan
        x[len(places) + row, place] = 50.0
        k[len(places) + row, place] = 5000
    top, bottom, itop = compile_function(parse(EXTREMES.format(n=n, m=m)))(x, k)
    np.testing.assert_array_equal(top, np.max(x, axis=1))
    np.testing.assert_array_equal(bottom, np.min(x, axis=1))
    np.testing.assert_array_equal(itop, np.max(k, axis=1))


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_row_extremes_keep_nans_past_infinities(dtype):
    """A vector max/min compares NaN-blind and keeps NaNs apart by their bits: a NaN of
    either sign still wins over infinities and later larger values, and infinities alone
    are extremes."""
    m = 100
    x = np.random.default_rng(7).standard_normal((6, m)).astype({"f32": np.float32,
                                                                 "f64": np.float64}[dtype])
    x[0, 3], x[0, 50:] = np.nan, np.inf
    x[1, 70], x[1, :70] = -np.nan, -np.inf
    x[2, :] = np.inf
    x[3, :] = -np.inf
    x[4, 0], x[4, 1:] = np.nan, 1e30
    x[5, 99] = -np.nan
    text = EXTREMES.format(n=6, m=m).replace("f32", dtype)
    top, bottom, _ = compile_function(parse(text))(x, np.zeros((6, m), np.int32))
    np.testing.assert_array_equal(top, np.max(x, axis=1))
    np.testing.assert_array_equal(bottom, np.min(x, axis=1))
