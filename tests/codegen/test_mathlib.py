"""The math library against numpy: ulp errors on sweeps, special values, vectorization, NVPTX
(trig beyond Cody-Waite's range: test_trig_reduction)."""
from __future__ import annotations

import ctypes
import functools
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import llvmlite.binding as llvm
import mpmath
import numpy as np
import pytest
from llvmlite import ir

from gradjit.codegen import mathlib_reduce
from gradjit.codegen.mathlib import MATH_FUNCTIONS, emit_math

LLVM_TYPES = {np.float32: ir.FloatType(), np.float64: ir.DoubleType()}


@functools.cache
def host_machine():
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(cpu=llvm.get_host_cpu_name(),
                                        features=llvm.get_host_cpu_features().flatten(), opt=3)


def loop_module(name: str, dtype, lanes: int = 1) -> ir.Module:
    """`void f(out, a, b, n)`: out[i] = name(a[i], b[i]) for i < n, `lanes` elements a step."""
    elem = LLVM_TYPES[dtype]
    ty = elem if lanes == 1 else ir.VectorType(elem, lanes)
    ptr, i64 = ir.PointerType(), ir.IntType(64)
    module = ir.Module(name=f"{name}_loop")
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ptr, ptr, ptr, i64]), name="f")
    for arg in fn.args[:3]:
        arg.add_attribute("noalias")
    out, a, b, n = fn.args
    entry, body, done = (fn.append_basic_block(s) for s in ("entry", "body", "done"))
    builder = ir.IRBuilder(entry)
    builder.cbranch(builder.icmp_signed(">", n, i64(0)), body, done)
    builder.position_at_end(body)
    i = builder.phi(i64)
    i.add_incoming(i64(0), entry)
    align = np.dtype(dtype).itemsize
    args = [builder.load(builder.gep(p, [i], source_etype=elem), typ=ty, align=align)
            for p in (a, b)[:MATH_FUNCTIONS[name]]]
    builder.store(emit_math(builder, name, *args), builder.gep(out, [i], source_etype=elem),
                  align=align)
    step = builder.add(i, i64(lanes))
    i.add_incoming(step, builder.block)  # trig's rare branch leaves the body in a later block
    builder.cbranch(builder.icmp_signed("<", step, n), body, done)
    builder.position_at_end(done)
    builder.ret_void()
    return module


def optimize(module: ir.Module) -> llvm.ModuleRef:
    """Parse, verify and run the O3 pipeline of the new pass manager."""
    mod = llvm.parse_assembly(str(module))
    mod.verify()
    tm = host_machine()
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    return mod


@functools.cache
def compiled(name: str, dtype, lanes: int = 1):
    """A numpy-callable JIT compilation of loop_module(name, dtype, lanes)."""
    mod = optimize(loop_module(name, dtype, lanes))
    engine = llvm.create_mcjit_compiler(mod, host_machine())
    engine.finalize_object()
    cfunc = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 3, ctypes.c_int64)(
        engine.get_function_address("f"))

    def run(*arrays):
        arrays = [np.ascontiguousarray(a, dtype=dtype) for a in arrays]
        n = arrays[0].size
        padded = -(-n // lanes) * lanes
        ins = [np.zeros(padded, dtype) for _ in arrays]
        for dst, src in zip(ins, arrays):
            dst[:n] = src.ravel()
        out = np.empty(padded, dtype)
        cfunc(out.ctypes.data, ins[0].ctypes.data, ins[-1].ctypes.data, padded)
        return out[:n].reshape(arrays[0].shape)

    run.engine = engine  # keeps the machine code alive
    return run


# --- accuracy ---------------------------------------------------------------------------------

INT_OF = {np.float32: np.uint32, np.float64: np.uint64}
# Cody-Waite's range; Payne-Hanek's reduction takes over beyond it
TRIG_BOUND = {dtype: mathlib_reduce.TRIG_BOUND[np.finfo(dtype).bits] for dtype in LLVM_TYPES}


def ulp_error(got, ref64, dtype):
    """|got - ref| in ulps of ref64 rounded to dtype; 0 / inf for (dis)agreeing non-finites."""
    with np.errstate(invalid="ignore", over="ignore"):
        ref = ref64.astype(dtype)
        err = np.abs(got.astype(np.float64) - ref.astype(np.float64))
        err = err / np.spacing(np.abs(ref)).astype(np.float64)
    special = ~np.isfinite(ref) | ~np.isfinite(got)
    same = (got == ref) | (np.isnan(got) & np.isnan(ref))
    return np.where(special, np.where(same, 0.0, np.inf), err)


def random_bits(rng, dtype, n):
    """Uniform over bit patterns: both signs, every exponent, subnormals, inf and NaN."""
    itype = INT_OF[dtype]
    return rng.integers(0, np.iinfo(itype).max, n, dtype=itype, endpoint=True).view(dtype)


def log_uniform(rng, dtype, n, lo_exp, hi_exp, signed=True):
    mags = np.exp2(rng.uniform(lo_exp, hi_exp, n)) * rng.uniform(1, 2, n)
    signs = rng.choice([-1.0, 1.0], n) if signed else 1.0
    return (mags * signs).astype(dtype)


def neighbours(points, dtype, ulps=4):
    """points rounded to dtype and the floats up to `ulps` steps either side."""
    base = np.asarray(points, np.float64).astype(dtype).view(INT_OF[dtype])
    steps = np.arange(-ulps, ulps + 1).astype(np.int64)
    near = base.astype(np.int64)[:, None] + steps[None, :]
    return np.clip(near.ravel(), 0, None).astype(INT_OF[dtype]).view(dtype)


def _mix(rng, dtype, n, *parts):
    """n points drawn from parts: arrays (taken whole, at most n/4 each) or (weight, sampler)."""
    fixed = [np.asarray(p, dtype)[: n // 4] for p in parts if not isinstance(p, tuple)]
    samplers = [p for p in parts if isinstance(p, tuple)]
    left = n - sum(len(f) for f in fixed)
    total = sum(w for w, _ in samplers)
    drawn = [np.asarray(f(max(1, int(left * w / total))), dtype) for w, f in samplers]
    return np.concatenate(fixed + drawn)[:n]


def trig_inputs(rng, dtype, n):
    bound = TRIG_BOUND[dtype]
    k = rng.integers(1, int(bound / np.pi * 2), n // 8).astype(np.float64)
    return _mix(rng, dtype, n, neighbours(k * (np.pi / 2), dtype, 2),
                neighbours(np.arange(1, 2000) * (np.pi / 2), dtype, 2),
                (2, lambda m: rng.uniform(-10, 10, m)),
                (2, lambda m: rng.uniform(-bound, bound, m)),
                (3, lambda m: log_uniform(rng, dtype, m, -30, np.log2(bound))),
                (2, lambda m: log_uniform(rng, dtype, m, np.log2(bound),
                                          np.log2(float(np.finfo(dtype).max)) - 1)),
                (1, lambda m: random_bits(rng, dtype, m)))


def _exp_limits(dtype):
    info = np.finfo(dtype)
    return np.log(float(info.tiny) * float(info.eps)), np.log(float(info.max))


def exp_inputs(rng, dtype, n):
    lo, hi = _exp_limits(dtype)
    edges = [lo, hi, np.log(float(np.finfo(dtype).tiny)), 0.5 * np.log(2), -0.5 * np.log(2)]
    return _mix(rng, dtype, n, neighbours(edges, dtype, 64),
                (4, lambda m: rng.uniform(lo - 2, hi + 2, m)),
                (2, lambda m: log_uniform(rng, dtype, m, -40, 2)),
                (1, lambda m: random_bits(rng, dtype, m)))


def expm1_inputs(rng, dtype, n):
    lo, hi = _exp_limits(dtype)
    return _mix(rng, dtype, n, neighbours([hi, 0.5 * np.log(2), -0.5 * np.log(2)], dtype, 64),
                (3, lambda m: rng.uniform(-50, hi + 2, m)),
                (2, lambda m: rng.uniform(-2, 2, m)),
                (3, lambda m: log_uniform(rng, dtype, m, -70, 3)),
                (1, lambda m: random_bits(rng, dtype, m)))


def log_inputs(rng, dtype, n):
    info = np.finfo(dtype)
    return _mix(rng, dtype, n, neighbours([1.0, 2.0, 0.5, np.sqrt(2), np.sqrt(0.5)], dtype, 200),
                (2, lambda m: rng.uniform(0.5, 2, m)),
                (1, lambda m: 1 + log_uniform(rng, np.float64, m, -50, -1)),
                (4, lambda m: log_uniform(rng, dtype, m, np.log2(info.smallest_subnormal),
                                          np.log2(info.max) - 1, signed=False)),
                (1, lambda m: random_bits(rng, dtype, m)))


def log1p_inputs(rng, dtype, n):
    edges = [-1.0, np.sqrt(2) - 1, np.sqrt(0.5) - 1, 1.0, 2.0 ** 53, 2.0 ** 24]
    return _mix(rng, dtype, n, neighbours(edges, dtype, 100),
                (3, lambda m: rng.uniform(-1, 1, m)),
                (3, lambda m: log_uniform(rng, dtype, m, -80, 10)),
                (1, lambda m: rng.uniform(-1, -0.99, m)),
                (1, lambda m: random_bits(rng, dtype, m)))


def tanh_inputs(rng, dtype, n):
    return _mix(rng, dtype, n, (3, lambda m: rng.uniform(-25, 25, m)),
                (2, lambda m: rng.uniform(-1, 1, m)),
                (3, lambda m: log_uniform(rng, dtype, m, -80, 5)),
                (1, lambda m: random_bits(rng, dtype, m)))


def sigmoid_inputs(rng, dtype, n):
    lo, hi = _exp_limits(dtype)
    return _mix(rng, dtype, n, neighbours([lo, -hi], dtype, 64),
                (3, lambda m: rng.uniform(lo - 5, -lo + 5, m)),
                (2, lambda m: rng.uniform(-40, 40, m)),
                (2, lambda m: log_uniform(rng, dtype, m, -80, 10)),
                (1, lambda m: random_bits(rng, dtype, m)))


def root_inputs(rng, dtype, n):
    return _mix(rng, dtype, n, (3, lambda m: np.abs(random_bits(rng, dtype, m))),
                (1, lambda m: rng.uniform(0, 10, m)),
                (1, lambda m: random_bits(rng, dtype, m)))


def pow_inputs(rng, dtype, n):
    """x log-uniform and x near 1 with y = t / log x for t across the whole range of finite
    results, integer powers of negative x, and random pairs."""
    lo, hi = _exp_limits(dtype)
    info = np.finfo(dtype)
    m = n // 4
    x = log_uniform(rng, dtype, m, np.log2(info.smallest_subnormal), np.log2(info.max) - 1,
                    signed=False)
    t = rng.uniform(lo - 1, hi + 1, m)
    with np.errstate(divide="ignore"):
        y = (t / np.log(x.astype(np.float64))).astype(dtype)
    near1 = (1 + log_uniform(rng, np.float64, m, -np.finfo(dtype).nmant, -1)).astype(dtype)
    with np.errstate(divide="ignore"):
        y1 = (rng.uniform(lo - 1, hi + 1, m) / np.log(near1.astype(np.float64))).astype(dtype)
    xneg = -log_uniform(rng, dtype, m, -3, 3, signed=False)
    yint = rng.integers(-60, 60, m).astype(dtype)
    bx, by = random_bits(rng, dtype, m), random_bits(rng, dtype, m)
    return np.concatenate([x, near1, xneg, bx]), np.concatenate([y, y1, yint, by])


def _sigmoid_ref(x):
    x = x.astype(np.longdouble)
    with np.errstate(over="ignore"):
        e = np.exp(-np.abs(x))
    return (np.where(x < 0, e, 1) / (1 + e)).astype(np.float64)


def _rsqrt_ref(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return (1 / np.sqrt(x.astype(np.longdouble))).astype(np.float64)


def erf_inputs(rng, dtype, n):
    return _mix(rng, dtype, n, neighbours([1.0, 1.75, 2.0, 3.0, 4.0, 6.0], dtype, 64),
                (4, lambda m: rng.uniform(-7, 7, m)),
                (3, lambda m: log_uniform(rng, dtype, m, -80, 3)),
                (1, lambda m: random_bits(rng, dtype, m)))


_erf = np.frompyfunc(math.erf, 1, 1)


def _erf_ref(x):
    return _erf(x).astype(np.float64)


def erfc_inputs(rng, dtype, n):
    top = 27.5 if dtype is np.float64 else 10.1
    return _mix(rng, dtype, n, neighbours([1.0, 1.75, 2.0, 3.0, 4.0, 6.0, top], dtype, 64),
                (4, lambda m: rng.uniform(-3, top + 1, m)),
                (3, lambda m: log_uniform(rng, dtype, m, -80, 5)),
                (1, lambda m: random_bits(rng, dtype, m)))


_erfc = np.frompyfunc(math.erfc, 1, 1)


def _erfc_ref(x):
    return _erfc(x).astype(np.float64)


def atan2_inputs(rng, dtype, n):
    """Pairs around the reduction edges (|y/x| near tan(pi/8), 1), across all magnitudes, and
    random bits."""
    m = n // 4
    ratio = rng.choice([np.sqrt(2) - 1, 1.0, 1 / (np.sqrt(2) - 1)], m) * (
        1 + rng.uniform(-1e-3, 1e-3, m)) * rng.choice([-1, 1], m)
    x = log_uniform(rng, np.float64, m, -20, 20)
    near = (x.astype(dtype), (x * ratio).astype(dtype))
    y2 = log_uniform(rng, dtype, 2 * m, -60, 60)
    x2 = log_uniform(rng, dtype, 2 * m, -60, 60)
    bits = (random_bits(rng, dtype, m), random_bits(rng, dtype, m))
    return (np.concatenate([near[1], y2, bits[0]]), np.concatenate([near[0], x2, bits[1]]))


def logaddexp_inputs(rng, dtype, n):
    """Pairs near ties (where the log1p term is largest), with gaps up to where it underflows,
    across all magnitudes, and random bits; not where the larger lies in (-2, 0): there
    max + log1p(...) cancels, and any formula is a few ulp of max, not of the result."""
    m = n // 3
    a = log_uniform(rng, np.float64, m, -30, 30)
    gap = log_uniform(rng, np.float64, m, -30, 10)
    wide_a, wide_b = log_uniform(rng, dtype, m, -60, 60), log_uniform(rng, dtype, m, -60, 60)
    bits = (random_bits(rng, dtype, m), random_bits(rng, dtype, m))
    x = np.concatenate([a.astype(dtype), wide_a, bits[0]])
    y = np.concatenate([(a + gap).astype(dtype), wide_b, bits[1]])
    larger = np.fmax(x, y)
    kept = ~((larger > -2) & (larger < 0))
    return x[kept], y[kept]


def _logaddexp_ref(a, b):
    """In extended precision: numpy's float64 logaddexp rounds a - b, which is 10 ulp of the
    result where the log1p term dominates."""
    return np.logaddexp(a.astype(np.longdouble), b.astype(np.longdouble)).astype(np.float64)


# name -> (input generator, float64 reference)
CASES = {
    "exp": (exp_inputs, np.exp), "expm1": (expm1_inputs, np.expm1),
    "log": (log_inputs, np.log), "log1p": (log1p_inputs, np.log1p),
    "sin": (trig_inputs, np.sin), "cos": (trig_inputs, np.cos), "tan": (trig_inputs, np.tan),
    "tanh": (tanh_inputs, np.tanh), "sigmoid": (sigmoid_inputs, _sigmoid_ref),
    "pow": (pow_inputs, np.power), "sqrt": (root_inputs, np.sqrt),
    "rsqrt": (root_inputs, _rsqrt_ref), "erf": (erf_inputs, _erf_ref),
    "erfc": (erfc_inputs, _erfc_ref),
    "atan2": (atan2_inputs, np.arctan2), "logaddexp": (logaddexp_inputs, _logaddexp_ref),
}


def sweep(name, dtype, n, seed=0):
    """(inputs, ulp errors) of name over n generated points."""
    gen, ref = CASES[name]
    rng = np.random.default_rng(seed)
    args = gen(rng, dtype, n)
    args = args if isinstance(args, tuple) else (args,)
    got = compiled(name, dtype)(*args)
    with np.errstate(all="ignore"):
        want = ref(*(a.astype(np.float64) for a in args))
    return args, ulp_error(got, want, dtype)


def trig_hard_cases(dtype, lo=1.0, hi=None):
    """Floats h 2^e nearest to multiples of pi/2 (convergents h/k of pi / 2^(e+1)) in
    [lo, hi] (default: up to the bound): the inputs whose reduction cancels the most bits."""
    hi = TRIG_BOUND[dtype] if hi is None else hi
    bits = np.finfo(dtype).nmant + 1
    top = math.frexp(hi)[1] - 1
    found = []
    with mpmath.workdps(60):
        for e in range(max(-bits, math.frexp(lo)[1] - 1 - bits), top - bits + 1):
            a = mpmath.pi / mpmath.mpf(2) ** (e + 1)
            h0, h1 = 0, 1
            for _ in range(60):
                digit = int(mpmath.floor(a))
                h0, h1 = h1, digit * h1 + h0
                if h1 >= 2 ** bits:
                    break
                found.append(math.ldexp(h1, e))
                if a == digit:
                    break
                a = 1 / (a - digit)
    found = np.array([x for x in found if lo <= x <= hi])
    return np.concatenate([found, -found]).astype(dtype)


def _check_sweep(name, dtype, n):
    args, err = sweep(name, dtype, n)
    worst = int(np.argmax(err))
    assert err[worst] <= 4, (f"{name}{tuple(a[worst] for a in args)}: {err[worst]} ulp", n)


NAMES = sorted(CASES)
DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", NAMES)
def test_within_4_ulp_of_numpy(name, dtype):
    _check_sweep(name, dtype, 100_000)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", NAMES)
def test_within_4_ulp_of_numpy_1m_points(name, dtype):
    _check_sweep(name, dtype, 1_000_000)


def test_every_function_has_a_sweep():
    assert set(CASES) == set(MATH_FUNCTIONS)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_trig_hard_cases_near_multiples_of_pi_over_2(name, dtype):
    """Against mpmath: libm itself is several ulp off on some of these (sin(1126833495400.4492)
    in glibc: 7 ulp)."""
    x = trig_hard_cases(dtype)
    assert len(x) > 50
    with mpmath.workdps(50):
        exact = np.array([float(getattr(mpmath, name)(float(v))) for v in x])
    err = ulp_error(compiled(name, dtype)(x), exact, dtype)
    assert err.max() <= 4, (x[np.argmax(err)], err.max())


def _same(got, want):
    """Equal values, NaN where NaN, and the same sign of zero."""
    same_sign = np.signbit(got) == np.signbit(want)
    return (np.isnan(got) & np.isnan(want)) | ((got == want) & same_sign)


INF, NAN = float("inf"), float("nan")
# (name, x, expected) for both dtypes, checked bit for bit (NaN as any NaN).
EXACT = [
    ("exp", [-INF, INF, NAN, 0.0, -0.0, 1000.0, -1000.0], [0.0, INF, NAN, 1.0, 1.0, INF, 0.0]),
    ("expm1", [-INF, INF, NAN, 0.0, -0.0, 1000.0, -1000.0], [-1.0, INF, NAN, 0.0, -0.0, INF, -1.0]),
    ("log", [0.0, -0.0, -1.0, INF, -INF, NAN, 1.0], [-INF, -INF, NAN, INF, NAN, NAN, 0.0]),
    ("log1p", [-1.0, -2.0, INF, -INF, NAN, 0.0, -0.0], [-INF, NAN, INF, NAN, NAN, 0.0, -0.0]),
    ("sin", [0.0, -0.0, INF, -INF, NAN], [0.0, -0.0, NAN, NAN, NAN]),
    ("cos", [0.0, -0.0, INF, -INF, NAN], [1.0, 1.0, NAN, NAN, NAN]),
    ("tan", [0.0, -0.0, INF, -INF, NAN], [0.0, -0.0, NAN, NAN, NAN]),
    ("tanh", [0.0, -0.0, INF, -INF, NAN, 1000.0, -1000.0], [0.0, -0.0, 1.0, -1.0, NAN, 1.0, -1.0]),
    ("sigmoid", [0.0, -0.0, INF, -INF, NAN, 1000.0, -1000.0], [0.5, 0.5, 1.0, 0.0, NAN, 1.0, 0.0]),
    ("sqrt", [0.0, -0.0, INF, -INF, NAN, -1.0, 4.0], [0.0, -0.0, INF, NAN, NAN, NAN, 2.0]),
    ("rsqrt", [0.0, -0.0, INF, -INF, NAN, -1.0, 4.0], [INF, -INF, 0.0, NAN, NAN, NAN, 0.5]),
    ("erf", [0.0, -0.0, INF, -INF, NAN, 10.0, -10.0], [0.0, -0.0, 1.0, -1.0, NAN, 1.0, -1.0]),
    ("erfc", [0.0, -0.0, INF, -INF, NAN, 30.0, -30.0], [1.0, 1.0, 0.0, 2.0, NAN, 0.0, 2.0]),
]
# (y, x, atan2(y, x)): C99 Annex F, as numpy gives them.
PI, PI2, PI4 = np.pi, np.pi / 2, np.pi / 4
ATAN2_EXACT = [
    (0.0, 0.0, 0.0), (-0.0, 0.0, -0.0), (0.0, -0.0, PI), (-0.0, -0.0, -PI), (0.0, -1.0, PI),
    (-0.0, -1.0, -PI), (1.0, 0.0, PI2), (-1.0, -0.0, -PI2), (INF, INF, PI4), (-INF, INF, -PI4),
    (INF, -INF, 3 * PI4), (-INF, -INF, -3 * PI4), (1.0, INF, 0.0), (-1.0, INF, -0.0),
    (1.0, -INF, PI), (-1.0, -INF, -PI), (INF, 1.0, PI2), (-INF, -1.0, -PI2), (NAN, 1.0, NAN),
    (1.0, NAN, NAN), (INF, NAN, NAN),
]
# (x, y, pow(x, y)): C99 Annex F, as numpy gives them.
POW_EXACT = [
    (NAN, 0.0, 1.0), (NAN, -0.0, 1.0), (1.0, NAN, 1.0), (1.0, INF, 1.0), (-1.0, INF, 1.0),
    (-1.0, -INF, 1.0), (0.0, -1.0, INF), (-0.0, -1.0, -INF), (-0.0, -2.0, INF), (0.0, 3.0, 0.0),
    (-0.0, 3.0, -0.0), (-0.0, 2.0, 0.0), (-0.0, -INF, INF), (-2.0, 0.5, NAN), (-INF, 3.0, -INF),
    (-INF, -3.0, -0.0), (-INF, 2.0, INF), (-INF, -2.0, 0.0), (-INF, 0.5, INF), (INF, -1.0, 0.0),
    (INF, 0.5, INF), (0.5, INF, 0.0), (0.5, -INF, INF), (2.0, -INF, 0.0), (2.0, INF, INF),
    (-0.5, INF, 0.0), (-2.0, -INF, 0.0), (NAN, 1.0, NAN), (2.0, NAN, NAN), (-8.0, 1 / 3, NAN),
    (2.0, 4096.0, INF), (2.0, -4096.0, 0.0), (-2.0, 4097.0, -INF), (-2.0, -4097.0, -0.0),
    (-1.0, 3.0, -1.0), (-1.0, 4.0, 1.0), (-1.0, 1e30, 1.0), (0.0, 0.5, 0.0), (0.0, -0.5, INF),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name, x, want", EXACT, ids=[case[0] for case in EXACT])
def test_special_values_exactly(name, x, want, dtype):
    got = compiled(name, dtype)(np.array(x, dtype))
    ok = _same(got, np.array(want, dtype))
    assert ok.all(), [(a, g) for a, g, good in zip(x, got, ok) if not good]


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_pow_special_cases_exactly(dtype):
    x, y, want = (np.array(col, dtype) for col in zip(*POW_EXACT))
    with np.errstate(all="ignore"):
        assert _same(np.power(x, y), want).all()  # the table is numpy's own behaviour
    got = compiled("pow", dtype)(x, y)
    ok = _same(got, want)
    assert ok.all(), [(a, b, g) for a, b, g, good in zip(x, y, got, ok) if not good]


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_atan2_special_cases_exactly(dtype):
    y, x, want = (np.array(col, dtype) for col in zip(*ATAN2_EXACT))
    assert _same(np.arctan2(y, x), want).all()  # the table is numpy's own behaviour
    got = compiled("atan2", dtype)(y, x)
    ok = _same(got, want)
    assert ok.all(), [(a, b, g) for a, b, g, good in zip(y, x, got, ok) if not good]


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", NAMES)
def test_special_grid_against_numpy(name, dtype):
    """Every function on every pair of special inputs: exactly numpy's non-finite and zero
    results (with their sign), within 4 ulp elsewhere."""
    info = np.finfo(dtype)
    special = [NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 2.5, -2.5,
               float(info.tiny), -float(info.tiny), float(info.smallest_subnormal),
               -float(info.smallest_subnormal), float(info.max), -float(info.max), 1e-30, -1e-30]
    special = np.array(special, dtype)
    args = np.meshgrid(special, special) if MATH_FUNCTIONS[name] == 2 else [special]
    args = [a.ravel() for a in args]
    got = compiled(name, dtype)(*args)
    with np.errstate(all="ignore"):
        want = CASES[name][1](*(a.astype(np.float64) for a in args))
        rounded = want.astype(dtype)
    exact = ~np.isfinite(rounded) | (rounded == 0)
    assert _same(got[exact], rounded[exact]).all()
    assert ulp_error(got, want, dtype).max() <= 4


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", NAMES)
def test_explicit_vectors_match_scalars(name, dtype):
    lanes = 8 if dtype is np.float32 else 4
    args, _ = sweep(name, dtype, 4096, seed=2)
    scalar = compiled(name, dtype)(*args)
    assert _same(compiled(name, dtype, lanes)(*args), scalar).all()


# Intrinsics that the x86 and NVPTX backends both select (is.fpclass: LLVM forms it from fcmps,
# umin/umax from the integer clamps of trig's wide reduction, and masked.gather from its table
# loads where the loop vectorizer if-converts the branch around it).
ALLOWED_CALLS = ("llvm.fma.", "llvm.fabs.", "llvm.floor.", "llvm.ceil.", "llvm.trunc.",
                 "llvm.rint.", "llvm.sqrt.", "llvm.copysign.", "llvm.minnum.", "llvm.maxnum.",
                 "llvm.is.fpclass.", "llvm.umin.", "llvm.umax.", "llvm.masked.gather.")


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", NAMES)
def test_loops_vectorize_without_calls(name, dtype):
    emitted = str(loop_module(name, dtype))
    optimized = str(optimize(loop_module(name, dtype)))
    for text in (emitted, optimized):
        calls = set(re.findall(r"call [^@]*@([\w.]+)", text))
        assert all(c.startswith(ALLOWED_CALLS) for c in calls), calls
    bits = np.finfo(dtype).bits
    width = 256 if "+avx2" in llvm.get_host_cpu_features().flatten() else 128
    lanes = {int(n) for n in re.findall(rf"@llvm\.[\w.]+\.v(\d+)f{bits}\(", optimized)}
    assert lanes and max(lanes) * bits >= width, lanes


def test_bad_arguments_raise_clear_errors():
    module = ir.Module()
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ir.DoubleType(), ir.FloatType(),
                                                             ir.IntType(32)]), name="f")
    builder = ir.IRBuilder(fn.append_basic_block())
    d, f, i = fn.args
    with pytest.raises(ValueError, match="no math function 'cbrt'"):
        emit_math(builder, "cbrt", d)
    with pytest.raises(TypeError, match="pow takes 2"):
        emit_math(builder, "pow", d)
    with pytest.raises(TypeError, match="one type"):
        emit_math(builder, "pow", d, f)
    with pytest.raises(TypeError, match="float or double"):
        emit_math(builder, "exp", i)


NVPTX_SCRIPT = """
import sys
import llvmlite.binding as llvm
from llvmlite import ir
from gradjit.codegen import mathlib_reduce
from gradjit.codegen.mathlib import MATH_FUNCTIONS, emit_math

llvm.initialize_all_targets()
llvm.initialize_all_asmprinters()
module = ir.Module("math_kernels")
module.triple = "nvptx64-nvidia-cuda"
tid = ir.Function(module, ir.FunctionType(ir.IntType(32), []), "llvm.nvvm.read.ptx.sreg.tid.x")
ptr, i64 = ir.PointerType(addrspace=1), ir.IntType(64)
kinds = {"f32": ir.FloatType(), "f64": ir.DoubleType(), "v4f32": ir.VectorType(ir.FloatType(), 4),
         "v2f64": ir.VectorType(ir.DoubleType(), 2)}
for kind, elem in kinds.items():
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ptr, ptr, ptr, i64]), f"math_{kind}")
    fn.calling_convention = "ptx_kernel"
    b = ir.IRBuilder(fn.append_basic_block())
    out, xs, ys, n = fn.args
    i = b.zext(b.call(tid, []), i64)
    x, y = (b.load(b.gep(p, [i], source_etype=elem), typ=elem) for p in (xs, ys))
    for j, name in enumerate(MATH_FUNCTIONS):
        value = emit_math(b, name, *(x, y)[:MATH_FUNCTIONS[name]])
        b.store(value, b.gep(out, [b.add(i, b.mul(n, i64(j)))], source_etype=elem))
    b.ret_void()
mod = llvm.parse_assembly(str(module))
mod.verify()
target = llvm.Target.from_triple(module.triple)
tm = target.create_target_machine(cpu="sm_70", features="+ptx64", opt=3)
pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=3))
pb.getModulePassManager().run(mod, pb)
sys.stdout.write(tm.emit_assembly(mod))
"""


def test_nvptx_compiles_every_function(tmp_path):
    """In a subprocess: an instruction NVPTX cannot select aborts the whole process."""
    run = subprocess.run([sys.executable, "-c", NVPTX_SCRIPT], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2], timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    ptx = run.stdout
    for kind in ("f32", "f64", "v4f32", "v2f64"):
        assert f".entry math_{kind}(" in ptx
    assert "call" not in ptx
    if shutil.which("ptxas") is None:
        pytest.skip("ptxas is not on PATH")
    (tmp_path / "math.ptx").write_text(ptx)
    assembled = subprocess.run(["ptxas", "-arch=sm_75", str(tmp_path / "math.ptx"),
                                "-o", str(tmp_path / "math.cubin")], capture_output=True, text=True)
    assert assembled.returncode == 0, assembled.stderr[-3000:]
