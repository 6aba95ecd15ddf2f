"""The fuzzer's other inputs: long programs (thousands of ops, which must compile and run as
short ones do), IR text mutated at random (which must fail with ParseError or VerifyError, or
parse into a program that runs), and the disk cache (entries must round-trip, and a damaged
entry must be recompiled, never loaded). Each check returns a list of Failures."""
from __future__ import annotations

import contextlib
import tempfile
import warnings
from pathlib import Path

import numpy as np

from gradjit.fuzz.check import EXPECTED_ERRORS, Failure, check_program
from gradjit.fuzz.programs import FLOAT_BINARY, FLOAT_UNARY
from gradjit.ir import (PRIMITIVES, Builder, Function, ParseError, TensorType, VerifyError,
                        interpret, parse, verify)
from gradjit.ir import structural as S
from gradjit.ir.types import dtype as resolve

# Noise inserted into IR text: syntax, names, numbers past every limit, deep nesting.
NOISE = (*"[](){},:=%@-.0123456789 \n\"\\xe", "[" * 5000, "f32[", "i64", "1e999",
         "99999999999999999999", "exp", "gather", "reshape", "{axis=", "-1", "true", "none",
         "f32[3,6148914691236517206]", "%0", "loc(\"", "\u00e9", "\x00")
DAMAGE = ("flip", "truncate", "empty", "garbage", "swap")
# Long programs test length, not the math library: LLVM's time on inlined exp/sin/erf grows
# with kernel size, so they are drawn from cheap ops, with a library function 1 step in 20.
CHEAP_UNARY = ("neg", "abs", "sign", "floor", "ceil", "round", "sqrt", "stop_gradient")
CHEAP_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum")


def long_program(rng: np.random.Generator, n_ops: int, dtype: str = "f64") -> Function:
    """A chain of `n_ops` elementwise ops (each uses the previous value and one drawn from the
    whole history), with a reduction broadcast back now and then: deep and wide at once."""
    shape = (int(rng.integers(1, 5)), int(rng.integers(1, 5)))
    with Builder("long") as b:
        values = [b.param(TensorType(shape, resolve(dtype)), f"x{i}") for i in range(2)]
        for i in range(n_ops):
            last, other = values[-1], values[int(rng.integers(len(values)))]
            if i % 97 == 96:
                total = S.reduce_sum(last, axes=(1,), keepdims=True)
                out = S.broadcast_to(PRIMITIVES["tanh"](total), shape=shape)
            elif rng.random() < 0.5:
                name = str(rng.choice(FLOAT_UNARY if rng.random() < 0.05 else CHEAP_UNARY))
                out = PRIMITIVES[name](last)
            else:
                names = FLOAT_BINARY if rng.random() < 0.05 else CHEAP_BINARY
                out = PRIMITIVES[str(rng.choice(names))](last, other)
            values.append(out)
    return b.build([values[-1], values[len(values) // 2]])


def check_long_program(seed: int, n_ops: int) -> tuple[Function, list, list[Failure]]:
    """A long program of `n_ops` ops: text round trip, passes, compiled CPU code (no
    gradients: their check re-runs the program per direction, too slow at this length)."""
    rng = np.random.default_rng(seed)
    fn = long_program(rng, n_ops, str(rng.choice(["f32", "f64"])))
    args = [rng.normal(size=p.type.shape).astype(p.type.dtype.numpy) for p in fn.params]
    return fn, args, check_program(fn, args, gradients=False, passes=())


def mutate(text: str, edits) -> str:
    """`text` with each (position, characters cut, noise) edit applied in turn."""
    for at, cut, noise in edits:
        at %= len(text) + 1
        text = text[:at] + noise + text[at + cut:]
    return text


def check_text(text: str) -> list[Failure]:
    """Untrusted IR text: parse and verify raise ParseError/VerifyError, or what they accept
    runs in the interpreter and compiles and runs on the CPU without any other error."""
    try:
        fn = verify(parse(text))
    except (ParseError, VerifyError):
        return []
    except Exception as error:  # noqa: BLE001 (any other exception is the failure to report)
        return [Failure("parse", f"{type(error).__name__}: {error}")]
    if any(p.type.size > 10 ** 4 for p in fn.params):
        return []  # accepted types of any size are fine; running them is not what is tested
    from gradjit.codegen import compile_function
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(p.type.shape).astype(p.type.dtype.numpy) for p in fn.params]
    failures = []
    for name, run in (("interpret parsed text", lambda: interpret(fn, *args)),
                      ("compile parsed text", lambda: compile_function(fn, cache_dir=False)(
                          *args))):
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                run()
        except EXPECTED_ERRORS:
            pass
        except Exception as error:  # noqa: BLE001
            failures.append(Failure(name, f"{type(error).__name__}: {error}"))
    return failures


@contextlib.contextmanager
def _no_memory_cache():
    """Compiled programs are not kept in memory meanwhile: every compile looks at the disk."""
    from gradjit.codegen import compile as compile_module
    from gradjit.runtime import programs
    from gradjit.runtime.cache import LeastRecentlyUsed
    kept = programs.memory
    programs.memory = LeastRecentlyUsed()
    try:
        yield compile_module
    finally:
        programs.memory = kept


def check_disk_cache(fn: Function, other: Function, args, damage: str) -> list[Failure]:
    """`fn` compiled into a fresh cache directory, loaded back, its entry damaged (`swap`:
    replaced by `other`'s entry): the load must be a round trip, and after the damage the
    program must be recompiled (not loaded) with the same results."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="gradjit-fuzz-") as tmp, _no_memory_cache() as cm, \
            np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        directory = Path(tmp)

        def compiled(f):
            cm.programs.memory.clear()
            return cm.compile_function(f, cache_dir=directory)

        first = compiled(fn)
        entries = list(directory.glob("*.bin"))
        if not entries:  # no object code to keep (a program without kernels)
            return []
        (entry,) = entries
        want = _run(first, args)
        loaded = compiled(fn)
        if not loaded.from_disk:
            failures.append(Failure("cache round trip", "a fresh entry was not loaded"))
        if not _same(_run(loaded, args), want):
            failures.append(Failure("cache round trip", "the loaded program computes other "
                                                        "results"))
        data = entry.read_bytes()
        if damage == "swap":
            compiled(other)
            foreign = set(directory.glob("*.bin")) - {entry}
            if not foreign:  # the other program keeps no object code either
                return failures
            damaged = foreign.pop().read_bytes()
        else:
            rng = np.random.default_rng(len(data))
            at = int(rng.integers(len(data)))
            damaged = {"flip": data[:at] + bytes([data[at] ^ 1]) + data[at + 1:],
                       "truncate": data[:at], "empty": b"",
                       "garbage": rng.bytes(len(data))}[damage]
        entry.write_bytes(damaged)
        again = compiled(fn)
        if again.from_disk:
            failures.append(Failure(f"cache damage {damage}", "a damaged entry was loaded"))
        if not _same(_run(again, args), want):
            failures.append(Failure(f"cache damage {damage}", "results changed"))
    return failures


def _run(program, args):
    try:
        return [np.asarray(a) for a in program(*args)]
    except EXPECTED_ERRORS as error:
        return type(error).__name__


def _same(a, b) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return len(a) == len(b) and all(
        x.shape == y.shape and x.dtype == y.dtype and np.array_equal(x, y, equal_nan=x.dtype.kind
                                                                     in "fc")
        for x, y in zip(a, b))
