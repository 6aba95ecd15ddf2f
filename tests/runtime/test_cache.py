"""The on-disk compile cache: a second process loads object code instead of running LLVM;
corrupt, truncated or foreign files are recompiled, never loaded."""
import json
import os
import stat
import subprocess
import sys

import pytest

import gradjit
from gradjit.cli import main
from gradjit.codegen.machine import compile_ir
from gradjit.runtime import cache, private

OBJECT = compile_ir("define void @k() {\n  ret void\n}")


def entry_size(directory) -> int:
    """The size of an entry of OBJECT under a one-letter key."""
    cache.store(directory, "z", {}, OBJECT)
    return (directory / "z.bin").stat().st_size

SCRIPT = r"""
import json, sys, time
import numpy as np
import gradjit.codegen.compile as compile_module
from gradjit.ir import parse
if sys.argv[2] == "forbid-llvm":
    def refuse(text, **how):
        raise AssertionError("LLVM ran although the disk cache holds this program")
    compile_module.compile_ir = refuse
fn = parse('''func @f(%x: f64[7]) -> (f64[]) {
  %0 = exp(%x) : f64[7]
  %1 = reduce_sum(%0) {axes=[0], keepdims=false} : f64[]
  return %1
}''')
program = compile_module.compile_function(fn, cache_dir=sys.argv[1])
value = program(np.arange(7.0))[0]
print(json.dumps({"from_disk": program.from_disk, "seconds": program.compile_seconds,
                  "value": float(value), "ir": len(program.llvm_ir)}))
"""


def run(directory, mode="allow"):
    env = dict(os.environ)
    env.pop("GRADJIT_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(directory), mode], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_second_process_loads_from_disk_and_skips_llvm(tmp_path):
    directory = tmp_path / "cache"
    first = run(directory)
    assert not first["from_disk"]
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    second = run(directory, "forbid-llvm")
    assert second["from_disk"] and second["value"] == first["value"]
    assert second["ir"] == first["ir"]


def test_a_corrupt_cache_file_is_recompiled(tmp_path):
    first = run(tmp_path)
    (entry,) = tmp_path.glob("*.bin")
    data = bytearray(entry.read_bytes())
    data[len(data) // 2] ^= 0xFF
    entry.write_bytes(bytes(data))
    again = run(tmp_path)
    assert not again["from_disk"] and again["value"] == first["value"]
    assert run(tmp_path, "forbid-llvm")["from_disk"]


def test_load_rejects_truncated_and_foreign_entries(tmp_path):
    cache.store(tmp_path, "k1", {"program": "p"}, OBJECT)
    meta, payload = cache.load(tmp_path, "k1")
    assert meta["program"] == "p" and payload == OBJECT
    entry = tmp_path / "k1.bin"
    os.replace(entry, tmp_path / "k2.bin")
    assert cache.load(tmp_path, "k2") is None  # valid file, stored under another key
    data = (tmp_path / "k2.bin").read_bytes()
    entry.write_bytes(data[:-3])
    assert cache.load(tmp_path, "k1") is None
    entry.write_bytes(b"not a cache file")
    assert cache.load(tmp_path, "k1") is None
    assert cache.load(tmp_path, "missing") is None
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp")]


def test_object_code_the_loader_would_refuse_is_not_stored(tmp_path):
    cache.store(tmp_path, "k", {}, b"object code")
    assert not list(tmp_path.iterdir())


def test_the_size_limit_evicts_the_least_recently_used(tmp_path, monkeypatch):
    size = entry_size(tmp_path)
    cache.clear(tmp_path)
    cache.set_cache_limit(3 * size)
    try:
        for i, key in enumerate("abc"):
            cache.store(tmp_path, key, {}, OBJECT)
            os.utime(tmp_path / f"{key}.bin", ns=(i * 10**9, i * 10**9))
        assert cache.load(tmp_path, "a") is not None  # a is now the most recently used
        cache.store(tmp_path, "d", {}, OBJECT)
        assert sorted(p.name for p in tmp_path.glob("*.bin")) == ["a.bin", "c.bin", "d.bin"]
        assert cache.info(tmp_path)["bytes"] == 3 * size
        cache.set_cache_limit(0)
        cache.store(tmp_path, "e", {}, OBJECT)
        assert not (tmp_path / "e.bin").exists()
    finally:
        cache.set_cache_limit(None)
    for text, limit in [("200M", 200 * 2**20), ("1g", 2**30), ("4096", 4096),
                        ("", cache.DEFAULT_LIMIT)]:
        monkeypatch.setenv("GRADJIT_CACHE_SIZE", text)
        assert cache.cache_limit() == limit
    monkeypatch.setenv("GRADJIT_CACHE_SIZE", "lots")
    with pytest.warns(UserWarning, match="GRADJIT_CACHE_SIZE"):
        assert cache.cache_limit() == cache.DEFAULT_LIMIT
    with pytest.raises(ValueError, match="number of bytes"):
        gradjit.set_cache_limit(-1)


def test_stale_temporary_files_are_removed_and_clear_empties_the_cache(tmp_path):
    cache.store(tmp_path, "a", {}, OBJECT)
    (tmp_path / ".tmp-1-dead").write_bytes(b"half an entry")
    (tmp_path / ".tmp-2-live").write_bytes(b"being written")
    os.utime(tmp_path / ".tmp-1-dead", (0, 0))
    cache.store(tmp_path, "b", {}, OBJECT)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".tmp-2-live", "a.bin", "b.bin"]
    assert cache.clear(tmp_path) == 3 and not list(tmp_path.iterdir())


def test_the_cache_command(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GRADJIT_CACHE_DIR", str(tmp_path))
    cache.store(tmp_path, "a", {}, OBJECT)
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert f"directory: {tmp_path}" in out and "entries:   1" in out
    assert main(["cache", "clear"]) == 0
    assert "removed 1 entries" in capsys.readouterr().out
    assert not list(tmp_path.iterdir())
    monkeypatch.setenv("GRADJIT_CACHE_DIR", "off")
    assert main(["cache", "info"]) == 0 and "none" in capsys.readouterr().out


@pytest.fixture(scope="module")
def seen_by_module_fixtures():
    """What a module-scoped fixture (set up before any function-scoped one) would use."""
    return cache.cache_dir(), private.key_path()


def test_the_suite_never_uses_the_users_cache_or_key(seen_by_module_fixtures):
    directory, key = seen_by_module_fixtures
    assert directory is None
    home = os.path.expanduser("~")
    assert not str(key).startswith(os.path.join(home, ".config"))
    assert not str(cache.cache_dir(None) or "").startswith(os.path.join(home, ".cache"))


def test_cache_directory_settings(monkeypatch, tmp_path):
    monkeypatch.setenv("GRADJIT_CACHE_DIR", "off")
    assert cache.cache_dir() is None
    monkeypatch.setenv("GRADJIT_CACHE_DIR", str(tmp_path))
    assert cache.cache_dir() == tmp_path
    assert cache.cache_dir(False) is None
    monkeypatch.delenv("GRADJIT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "gradjit"
