"""The on-disk compile cache: a second process loads object code instead of running LLVM;
corrupt, truncated or foreign files are recompiled, never loaded."""
import json
import os
import stat
import subprocess
import sys

from gradjit.runtime import cache

SCRIPT = r"""
import json, sys, time
import numpy as np
import gradjit.codegen.compile as compile_module
from gradjit.ir import parse
if sys.argv[2] == "forbid-llvm":
    def refuse(text):
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
    cache.store(tmp_path, "k1", {"program": "p"}, b"object code")
    meta, payload = cache.load(tmp_path, "k1")
    assert meta["program"] == "p" and payload == b"object code"
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


def test_cache_directory_settings(monkeypatch, tmp_path):
    monkeypatch.setenv("GRADJIT_CACHE_DIR", "off")
    assert cache.cache_dir() is None
    monkeypatch.setenv("GRADJIT_CACHE_DIR", str(tmp_path))
    assert cache.cache_dir() == tmp_path
    assert cache.cache_dir(False) is None
    monkeypatch.delenv("GRADJIT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "gradjit"
