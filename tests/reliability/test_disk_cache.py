"""The on-disk compile cache is never trusted blindly: damaged, truncated, foreign or stale
entries recompile, a directory others can write is not used, the directory is private, and
processes writing one entry at once leave a valid file."""
import io
import os
import stat
import subprocess
import sys
import warnings

import numpy as np
import pytest

from gradjit.codegen import compile as compile_module
from gradjit.codegen import machine
from gradjit.ir import parse
from gradjit.runtime import cache, programs

FN = """func @f(%x: f64[7]) -> (f64[]) {
  %0 = exp(%x) : f64[7]
  %1 = reduce_sum(%0) {axes=[0], keepdims=false} : f64[]
  return %1
}"""
X = np.linspace(-1.0, 1.0, 7)


@pytest.fixture
def fresh(monkeypatch):
    """No compiled program kept in memory: every compile_function looks at the disk."""
    monkeypatch.setattr(programs, "memory", cache.LeastRecentlyUsed())

    def compile_here(directory):
        programs.memory.clear()
        return compile_module.compile_function(parse(FN), cache_dir=directory)
    return compile_here


def entry_file(directory):
    (found,) = directory.glob("*.bin")
    return found


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "garbage", "header_only"])
def test_damaged_entries_are_recompiled_and_rewritten(fresh, tmp_path, damage):
    first = fresh(tmp_path)
    path = entry_file(tmp_path)
    data = path.read_bytes()
    damaged = {"flip": data[:-40] + bytes([data[-40] ^ 1]) + data[-39:],
               "truncate": data[:len(data) // 2], "empty": b"",
               "garbage": os.urandom(len(data)), "header_only": cache.MAGIC}[damage]
    path.write_bytes(damaged)
    again = fresh(tmp_path)
    assert not again.from_disk
    assert again(X)[0] == first(X)[0] == np.sum(np.exp(X))
    assert fresh(tmp_path).from_disk  # the recompiled entry was written back


def test_another_programs_entry_under_this_programs_name_is_not_loaded(fresh, tmp_path):
    fresh(tmp_path)
    mine = entry_file(tmp_path)
    compile_module.compile_function(parse(FN.replace("exp", "sin")), cache_dir=tmp_path)
    (other,) = set(tmp_path.glob("*.bin")) - {mine}
    os.replace(other, mine)  # a valid entry, written for another key
    again = fresh(tmp_path)
    assert not again.from_disk and again(X)[0] == np.sum(np.exp(X))


def test_another_compiler_version_misses(fresh, tmp_path, monkeypatch):
    assert not fresh(tmp_path).from_disk
    assert fresh(tmp_path).from_disk
    monkeypatch.setattr(programs, "fingerprint", lambda: "another gradjit or llvmlite")
    assert not fresh(tmp_path).from_disk
    assert len(list(tmp_path.glob("*.bin"))) == 2


def test_another_cpu_misses(fresh, tmp_path, monkeypatch):
    assert not fresh(tmp_path).from_disk
    assert fresh(tmp_path).from_disk
    monkeypatch.setattr(programs, "identity", lambda: "another CPU")
    assert not fresh(tmp_path).from_disk


def test_the_cpu_is_the_kernels_description_where_there_is_one_else_llvms(monkeypatch):
    """The key's CPU comes from /proc/cpuinfo without loading LLVM; a description lacking
    CPUID's fields (another architecture's, no /proc) gives LLVM's host CPU and features."""
    programs.identity.cache_clear()
    found = programs.identity()
    try:
        with open("/proc/cpuinfo") as file:
            first = file.read().split("\n\n")[0]
    except OSError:
        first = ""
    if "\nflags" in first:
        flags = next(line for line in first.splitlines() if line.startswith("flags"))
        assert flags.split(":", 1)[1].strip() in found.splitlines()
    for description in (b"processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\n\n", None):
        def fake_open(path, mode="r", description=description):
            if description is None:
                raise FileNotFoundError(path)
            return io.BytesIO(description)
        monkeypatch.setattr(programs, "open", fake_open, raising=False)
        programs.identity.cache_clear()
        assert programs.identity() == f"{machine.host().cpu}\n{machine.host().features}"
    monkeypatch.undo()
    programs.identity.cache_clear()
    assert programs.identity() == found


def test_the_directory_is_created_private_whatever_the_umask(fresh, tmp_path):
    old = os.umask(0)
    try:
        fresh(tmp_path / "made" / "cache")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "made" / "cache").stat().st_mode) == 0o700
    assert stat.S_IMODE(entry_file(tmp_path / "made" / "cache").stat().st_mode) == 0o600


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_a_directory_others_can_write_is_neither_read_nor_written(fresh, tmp_path):
    directory = tmp_path / "shared"
    fresh(directory)
    directory.chmod(0o777)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = fresh(directory)
    assert not again.from_disk and again(X)[0] == np.sum(np.exp(X))
    assert any("writable by you alone" in str(w.message) for w in caught)
    directory.chmod(0o700)
    assert fresh(directory).from_disk


WRITER = r"""
import sys
from gradjit.runtime import cache
from pathlib import Path
from gradjit.codegen.machine import compile_ir
directory, key, tag = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
code = compile_ir("define void @k() {\n  ret void\n}")
for i in range(200):
    cache.store(directory, key, {"writer": tag, "pad": tag * 5000}, code)
    found = cache.load(directory, key)
    assert found is not None, "a reader saw no entry after one was written"
    meta, payload = found
    assert payload == code and meta["pad"] == meta["writer"] * 5000, "a torn entry was read"
"""


def test_processes_writing_one_entry_at_once_leave_it_whole(tmp_path):
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), "k", tag],
                                stderr=subprocess.PIPE, text=True) for tag in "abcd"]
    for w in writers:
        assert w.wait(timeout=120) == 0, w.stderr.read()
    meta, _ = cache.load(tmp_path, "k")
    assert meta["pad"] == meta["writer"] * 5000
    assert [p.name for p in tmp_path.iterdir()] == ["k.bin"]  # no temporary file left


COMPILER = r"""
import sys
import numpy as np
from gradjit.codegen.compile import compile_function
from gradjit.ir import parse
program = compile_function(parse(sys.argv[2]), cache_dir=sys.argv[1])
print(program(np.linspace(-1.0, 1.0, 7))[0])
"""


def test_processes_compiling_one_program_at_once_agree_and_leave_a_loadable_entry(fresh,
                                                                                 tmp_path):
    runs = [subprocess.Popen([sys.executable, "-c", COMPILER, str(tmp_path), FN],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(4)]
    values = []
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        values.append(float(out))
    assert values == [np.sum(np.exp(X))] * 4
    assert fresh(tmp_path).from_disk
