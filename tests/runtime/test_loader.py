"""gradjit's own object-code loader: programs it links compute what LLVM's loader's do, bit for
bit (benchmark workloads, the compiled corpus); its pages are never writable and executable; a
cached program loads without importing llvmlite; object code it cannot link is recompiled."""
import ctypes
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import gradjit
from benchmarks import startup, workloads
from gradjit.codegen import compile as compile_module
from gradjit.codegen.machine import compile_ir
from gradjit.ir import parse
from gradjit.runtime import cache, loader, native, objfile, private, programs
from tests.e2e.corpus import CASES
from tests.runtime.test_cache_attacks import forge, split

# A function of a libm symbol (through the GOT), a constant (read-only data) and a counter
# (writable data): the parts of the mapping and the relocations that reach each.
LINKED = """@count = internal global i64 0
declare double @fmod(double, double) nounwind
define double @f(double %x) nounwind {
  %n = load i64, ptr @count
  %m = add i64 %n, 1
  store i64 %m, ptr @count
  %r = call double @fmod(double %x, double 0.75)
  %c = sitofp i64 %m to double
  %s = fadd double %r, %c
  ret double %s
}"""
FMOD = """func @f(%x: f64[64], %y: f64[64]) -> (f64[64]) {
  %0 = fmod(%x, %y) : f64[64]
  return %0
}"""  # vector code: C's fmod, from libm
X, Y = np.linspace(-3.0, 3.0, 64), np.full(64, 0.7)


def llvm_only(monkeypatch):
    def refuse(data):
        raise objfile.Refused("LLVM's loader for this test")
    monkeypatch.setattr(loader, "Image", refuse)


def run_fresh(transform, fn, args, monkeypatch):
    """(result, the loaders of the programs compiled): a fresh trace and compile."""
    monkeypatch.setattr(programs, "memory", cache.LeastRecentlyUsed())
    with np.errstate(all="ignore"):
        result = transform(fn)(*args)
    engines = {type(p.native.engine) for p in programs.memory.values()}
    return result, engines


def assert_same_bits(a, b):
    leaves_a, leaves_b = [], []
    gradjit.tracer.pytree.flatten(a, leaves_a)
    gradjit.tracer.pytree.flatten(b, leaves_b)
    assert len(leaves_a) == len(leaves_b)
    for x, y in zip(leaves_a, leaves_b):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes()


def check_both_loaders(transform, fn, args, monkeypatch):
    ours, engines = run_fresh(transform, fn, args, monkeypatch)
    assert engines == {loader.Image}
    with monkeypatch.context() as patch:
        llvm_only(patch)
        theirs, engines = run_fresh(transform, fn, args, monkeypatch)
    assert engines == {native.MCJIT}
    assert_same_bits(ours, theirs)


@pytest.mark.parametrize("workload", [workloads.BY_ID[w] for w in startup.FIRST_CALL],
                         ids=lambda w: w.id)
def test_workloads_linked_by_gradjit_equal_llvms_loads(workload, monkeypatch):
    check_both_loaders(lambda f: f.without_traces(), workload.gradjit, workload.inputs(0.001),
                       monkeypatch)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_corpus_linked_by_gradjit_equals_llvms_loads(case, monkeypatch):
    transform = lambda f: gradjit.value_and_grad(f, argnums=case.argnums)  # noqa: E731
    check_both_loaders(transform, case.fn, case.inputs[0], monkeypatch)


def mappings_of(address: int) -> list[str]:
    """The permissions of the mappings of /proc/self/maps that hold `address`."""
    found = []
    with open("/proc/self/maps") as maps:
        for line in maps:
            span, permissions = line.split()[:2]
            low, high = (int(h, 16) for h in span.split("-"))
            if low <= address < high:
                found.append(permissions)
    return found


def test_libm_calls_constants_and_globals_link_and_no_page_is_writable_and_executable():
    image = loader.Image(compile_ir(LINKED))
    f = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(image.address("f"))
    assert [f(2.0), f(-1.0), f(0.5)] == [math.fmod(2.0, 0.75) + 1, math.fmod(-1.0, 0.75) + 2,
                                         0.5 + 3]
    assert image.address("count") == 0  # not a global function
    code = image.address("f")
    assert mappings_of(code) == ["r-xp"]
    base = ctypes.addressof(ctypes.c_char.from_buffer(image._map))
    size = len(image._map)
    permissions = {mappings_of(a)[0] for a in range(base, base + size, 4096)}
    assert permissions == {"r-xp", "r--p", "rw-p"}


def test_pages_the_system_will_not_protect_fall_back_to_llvms_loader(monkeypatch):
    monkeypatch.setattr(loader, "_mprotect", lambda address, size, protection: -1)
    with pytest.raises(OSError, match="mprotect refused"):
        loader.Image(compile_ir(LINKED))
    program = compile_module.compile_function(parse(FMOD), cache_dir=False)
    assert isinstance(program.native.engine, native.MCJIT)
    np.testing.assert_array_equal(program(X, Y)[0], np.fmod(X, Y))


HIT = r"""
import json, sys
import numpy as np
import gradjit
from gradjit.tracer import api
passes, optimize = [], api.optimize
api.optimize = lambda fn: passes.append(fn) or optimize(fn)
grad = gradjit.grad(lambda x: np.sum(np.sin(x) * np.exp(-x * x) + np.fmod(x, 0.3)))
value = grad(np.linspace(-2.0, 2.0, 1001))
from gradjit.runtime import programs
(program,) = set(programs.memory.values())  # under its own key and its trace's
print(json.dumps({"from_disk": program.from_disk, "llvmlite": "llvmlite" in sys.modules,
                  "codegen": "gradjit.codegen" in sys.modules, "passes": len(passes),
                  "value": value.tolist()}))
"""


def test_a_program_from_the_disk_cache_runs_without_importing_llvmlite_or_codegen(tmp_path):
    """...nor differentiating and optimizing its trace again."""
    env = dict(os.environ, GRADJIT_CACHE_DIR=str(tmp_path))
    runs = [json.loads(subprocess.run([sys.executable, "-c", HIT], env=env, check=True,
                                      capture_output=True, text=True, timeout=120).stdout)
            for _ in range(2)]
    assert [(r["from_disk"], r["llvmlite"], r["codegen"], r["passes"]) for r in runs] == \
        [(False, True, True, 1), (True, False, False, 0)]
    assert runs[0]["value"] == runs[1]["value"]


def edit_relocation_kind(code: bytes, kind: int) -> bytes:
    """`code` with its first relocation made one of kind `kind`."""
    relocations = next(s for s in objfile.read(code).sections if s[1] == objfile.RELA_TYPE)
    place, info, addend = objfile.RELA.unpack_from(code, relocations[4])
    data = bytearray(code)
    objfile.RELA.pack_into(data, relocations[4], place, info >> 32 << 32 | kind, addend)
    return bytes(data)


def edit_section_flags(code: bytes, name: bytes, flags: int = 0, align: int = 0) -> bytes:
    """`code` with the section called `name` given more flags and another alignment."""
    obj = objfile.read(code)
    names = obj.sections[objfile.HEADER.unpack_from(code)[13]]
    shoff, data = objfile.HEADER.unpack_from(code)[6], bytearray(code)
    for i, section in enumerate(obj.sections):
        if code[names[4] + section[0]:].startswith(name + b"\0"):
            fields = list(section)
            fields[2] |= flags
            fields[8] = align or fields[8]
            objfile.SECTION.pack_into(data, shoff + i * objfile.SECTION.size, *fields)
    return bytes(data)


# Object code a valid tag may carry that no loader is given: each is refused, with its reason.
DAMAGE = {
    "a 32-bit relocation": (lambda c: edit_relocation_kind(c, 2), "unknown kind"),
    "an unresolvable symbol": (lambda c: c.replace(b"fmod\0", b"fmoq\0"), "cannot resolve"),
    "code that is writable": (lambda c: edit_section_flags(c, b".ltext", objfile.WRITE),
                              "writable and executable"),
    "an alignment past a page": (lambda c: edit_section_flags(c, b".ltext", align=1 << 16),
                                 "aligned past a page"),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_object_code_the_loader_cannot_link_is_recompiled(damage, tmp_path, monkeypatch):
    monkeypatch.setattr(programs, "memory", cache.LeastRecentlyUsed())
    compile_module.compile_function(parse(FMOD), cache_dir=tmp_path)
    (entry,) = tmp_path.glob("*.bin")
    meta, code = split(entry.read_bytes())
    edit, reason = DAMAGE[damage]
    damaged = edit(code)
    assert b"fmod\0" in code
    with pytest.raises(objfile.Refused, match=reason):
        loader.Image(damaged)
    entry.write_bytes(forge(private.secret(), entry.stem, meta, damaged))
    programs.memory.clear()
    again = compile_module.compile_function(parse(FMOD), cache_dir=tmp_path)
    assert not again.from_disk and isinstance(again.native.engine, loader.Image)
    np.testing.assert_array_equal(again(X, Y)[0], np.fmod(X, Y))
