"""sin, cos and tan of arguments beyond Cody-Waite's bound (Payne-Hanek's branch): gradjit.jit of
numpy code against numpy in every binade, near multiples of pi/2, at special values, with
gradients, and on the GPU path (emulated, and its PTX through ptxas); the 2/pi table."""
import math
import re
import subprocess
import sys
from pathlib import Path

import mpmath
import numpy as np
import pytest

import gradjit
from gradjit.codegen.mathlib_reduce import pi_scaled, two_over_pi_words
from tests.codegen.test_mathlib import TRIG_BOUND, trig_hard_cases, ulp_error

ROOT = Path(__file__).resolve().parents[2]
DTYPES = [np.float32, np.float64]
NAMES = ("sin", "cos", "tan")
# name -> the derivative (numpy's in extended precision: 1/cos^2 in float64 is 3 ulp off)
DERIVATIVES = {"sin": np.cos, "cos": lambda x: -np.sin(x), "tan": lambda x: 1 / np.cos(x) ** 2}


def every_binade(dtype, per=24, seed=0):
    """`per` random floats of each sign in every binade, from the subnormals to the largest."""
    rng = np.random.default_rng(seed)
    info = np.finfo(dtype)
    e = np.repeat(np.arange(info.minexp - info.nmant, info.maxexp), per)
    x = np.ldexp(rng.uniform(1, 2, e.size), e) * rng.choice([-1.0, 1.0], e.size)
    with np.errstate(over="ignore"):
        x = x.astype(dtype)
    return x[np.isfinite(x)]


def compiled(name):
    return gradjit.jit(getattr(np, name), backend="cpu")


def fast_and_huge(err, x, dtype):
    """The largest errors below the bound (Cody-Waite) and above it (Payne-Hanek)."""
    small = np.abs(x) <= TRIG_BOUND[dtype]
    assert small.any() and (~small).any()
    return err[small].max(), err[~small].max()


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", NAMES)
def test_every_binade_within_an_ulp_of_the_fast_paths_error(name, dtype):
    """Odd lengths: the vector loop and its scalar tail both see huge arguments."""
    x = every_binade(dtype)
    got = np.asarray(compiled(name)(x))
    err = ulp_error(got, getattr(np, name)(x.astype(np.float64)), dtype)
    fast, huge = fast_and_huge(err, x, dtype)
    assert fast <= 4 and huge <= fast + 1, (fast, huge, x[np.argmax(err)])
    if dtype is np.float32:  # numpy's own float32 loops, themselves 1 ulp off at most
        assert ulp_error(got, getattr(np, name)(x).astype(np.float64), dtype).max() <= 2


def _exact(name, x):
    """name(x) by mpmath with the bits of pi that x's magnitude needs, rounded to float64."""
    out = []
    for v in x.astype(np.float64):
        with mpmath.workprec(max(0, math.frexp(v)[1]) + 200):
            out.append(float(getattr(mpmath, name)(mpmath.mpf(float(v)))))
    return np.array(out)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_nearest_to_multiples_of_pi_over_2(dtype):
    """The floats whose reduction cancels the most bits, a quarter of them above the bound
    (float64's: 6381956970095103 * 2^797 among them), against mpmath."""
    info = np.finfo(dtype)
    below = trig_hard_cases(dtype)
    above = trig_hard_cases(dtype, TRIG_BOUND[dtype], float(info.max))[::4]
    if dtype is np.float64:
        worst = 6381956970095103 * 2.0 ** 797
        above = np.append(above, [worst, -worst])
        assert abs(_exact("cos", np.array([worst]))[0]) < 5e-19
    for name in NAMES:
        errors = [ulp_error(np.asarray(compiled(name)(x)), _exact(name, x), dtype)
                  for x in (below, above)]
        assert errors[1].max() <= errors[0].max() + 1, (name, errors[0].max(), errors[1].max())


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_special_values(dtype):
    info = np.finfo(dtype)
    bound = dtype(TRIG_BOUND[dtype])
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, info.max, -info.max, bound,
                  np.nextafter(bound, dtype(np.inf)), -np.nextafter(bound, dtype(np.inf)),
                  info.smallest_subnormal, -info.smallest_subnormal], dtype)
    for name in NAMES:
        got = np.asarray(compiled(name)(x))
        with np.errstate(invalid="ignore"):
            want = getattr(np, name)(x.astype(np.float64))
        rounded = want.astype(dtype)
        signed = np.isinf(rounded) | (rounded == 0)
        assert np.array_equal(np.isnan(got), np.isnan(rounded)), name
        assert np.array_equal(np.signbit(got[signed]), np.signbit(rounded[signed])), name
        assert ulp_error(got, want, dtype).max() <= 2, name


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", NAMES)
def test_gradients(name, dtype):
    """cos, -sin and 1/cos^2 from the compiled backward pass, huge arguments included."""
    x = every_binade(dtype, per=8, seed=1)
    grad = gradjit.grad(lambda v: np.sum(getattr(np, name)(v)), backend="cpu")
    got = np.asarray(grad(x))
    with np.errstate(over="ignore"):
        want = DERIVATIVES[name](x.astype(np.longdouble)).astype(np.float64)
    err = ulp_error(got, want, dtype)
    fast, huge = fast_and_huge(err, x, dtype)
    assert fast <= 8 and huge <= fast + 1, (fast, huge, x[np.argmax(err)])


def _trig_function(dtype):
    from gradjit.ir import PRIMITIVES, Builder, TensorType
    from gradjit.ir import dtype as resolve
    with Builder(f"trig_{np.dtype(dtype).name}") as b:
        x = b.param(TensorType((64,), resolve(np.dtype(dtype).name)), "x")
        outs = [PRIMITIVES[name](x) for name in NAMES]
    return b.build(outs)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_gpu_kernels_agree_with_the_cpu_code(dtype):
    """The GPU path's kernel, run by the grid emulator: the same bits as the CPU code."""
    from gradjit.codegen import compile_function
    x = every_binade(dtype, per=1, seed=2)[-64:]
    assert (np.abs(x) > TRIG_BOUND[dtype]).sum() > 32
    program = compile_function(_trig_function(dtype), target="cuda-emulator")
    for name, got in zip(NAMES, program(x)):
        assert np.array_equal(got, np.asarray(compiled(name)(x)), equal_nan=True), name


PTX_SCRIPT = """
import sys
from pathlib import Path
from gradjit.codegen.ptx.compile import ptx_of
from tests.codegen.test_trig_reduction import DTYPES, _trig_function
for dtype in DTYPES:
    (ptx,) = ptx_of(_trig_function(dtype)).values()
    (Path(sys.argv[1]) / f"trig_{dtype.__name__}.ptx").write_text(ptx)
"""


def test_ptx_of_sin_cos_tan_assembles(tmp_path):
    """Built in a subprocess (an NVPTX failure aborts the process); the table of 2/pi is a
    global of the module, nothing is called."""
    from gradjit.codegen.ptx.ptxas import assemble, ptxas_for
    run = subprocess.run([sys.executable, "-c", PTX_SCRIPT, str(tmp_path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    files = sorted(tmp_path.glob("*.ptx"))
    for path in files:
        text = path.read_text()
        assert "two_over_pi" in text and "mul.wide.u32" in text, path.name
        assert "call" not in text, path.name
    arches = [a for a in ("sm_70", "sm_75", "sm_80", "sm_90") if ptxas_for(a)]
    if not arches:
        pytest.skip("no ptxas: install nvidia-cuda-nvcc-cu12 (the test extra) or put it on PATH")
    for arch in arches:
        assemble(files, arch, tmp_path / f"{arch}.cubin")
        assert (tmp_path / f"{arch}.cubin").stat().st_size > 0


def test_two_over_pi_table_against_mpmath():
    words = two_over_pi_words(40)
    assert words[0] == 0
    with mpmath.workprec(1400):
        want = int(mpmath.floor(2 / mpmath.pi * mpmath.mpf(2) ** (32 * 39)))
        pi = int(mpmath.floor(mpmath.pi * mpmath.mpf(2) ** 1200))
    assert int("".join(f"{w:08x}" for w in words[1:]), 16) == want
    assert 0 <= pi - pi_scaled(1200) <= 1


def _llvm_ir(fn, x):
    from gradjit.codegen import compile_function
    return compile_function(gradjit.jit(fn, backend="cpu").ir(x), cache_dir=False).llvm_ir


def test_one_copy_of_the_wide_reduction_and_one_use_for_sin_and_cos_of_a_value():
    """The CPU code calls the Payne-Hanek code out of line (one definition a type), and sin,
    cos and tan of one value share one reduction (LLVM would not merge their branches)."""
    x = np.ones(100, np.float32)
    calls = r'call .*@"gradjit\.trig_reduce_huge\.'
    all_three = _llvm_ir(lambda v: np.sin(v) * np.cos(v) + np.tan(v), x)
    assert len(re.findall(calls, all_three)) == len(re.findall(calls, _llvm_ir(np.sin, x))) > 0
    defined = re.findall(r'define internal [^@]*@"(gradjit\.trig_reduce_huge\.\w+)"',
                         all_three)
    assert len(defined) == len(set(defined)) > 0
