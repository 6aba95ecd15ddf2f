"""The disk cache as an attack surface: entries not written with this user's key, swapped,
linked, foreign-owned, loosely permitted or truncated are never loaded; disk faults only cost a
recompile and one warning."""
import errno
import hashlib
import hmac
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

from gradjit.codegen import compile as compile_module
from gradjit.ir import parse
from gradjit.runtime import cache, objfile, private, programs

TIMES = """func @f(%x: f64[3]) -> (f64[3]) {
  %c = constant() {value=[2.0,2.0,2.0], shape=[3], dtype=f64} : f64[3]
  %0 = mul(%x, %c) : f64[3]
  return %0
}"""
X = np.arange(3.0)


def times(value: str) -> str:
    return TIMES.replace("2.0", value)


@pytest.fixture
def compile_here(monkeypatch):
    """compile_function with nothing kept in memory, so each call looks at the disk."""
    monkeypatch.setattr(programs, "memory", cache.LeastRecentlyUsed())
    monkeypatch.setattr(private, "_warned", set())

    def run(directory, text=TIMES):
        programs.memory.clear()
        return compile_module.compile_function(parse(text), cache_dir=directory)
    return run


def only_entry(directory):
    (found,) = directory.glob("*.bin")
    return found


def forge(secret, key, meta, payload) -> bytes:
    """An entry as the cache writes it, tagged with `secret`."""
    text = json.dumps(dict(meta, key=key)).encode()
    body = cache.LENGTH.pack(len(text)) + text + cache.LENGTH.pack(len(payload)) + payload
    tag = hmac.new(secret, cache.MAGIC + key.encode() + b"\0" + body, hashlib.sha256).digest()
    return cache.MAGIC + tag + body


def split(data):
    """(meta, object code) of an entry file."""
    body = data[len(cache.MAGIC) + cache.TAG:]
    (size,) = cache.LENGTH.unpack_from(body)
    meta = json.loads(body[8:8 + size])
    return meta, body[8 + size + 8:]


def test_another_entrys_object_code_swapped_in_is_not_loaded(compile_here, tmp_path):
    compile_here(tmp_path)
    mine = only_entry(tmp_path)
    compile_here(tmp_path, times("3.0"))
    (other,) = set(tmp_path.glob("*.bin")) - {mine}
    meta, _ = split(mine.read_bytes())
    _, their_code = split(other.read_bytes())
    key = mine.stem
    # With any key but the user's (here a fresh one, as an attacker would have), and with the
    # other entry's own tag: neither loads.
    mine.write_bytes(forge(os.urandom(32), key, meta, their_code))
    again = compile_here(tmp_path)
    assert not again.from_disk and list(again(X)[0]) == [0.0, 2.0, 4.0]
    mine.write_bytes(other.read_bytes())
    again = compile_here(tmp_path)
    assert not again.from_disk and list(again(X)[0]) == [0.0, 2.0, 4.0]
    assert compile_here(tmp_path).from_disk  # the rewritten entry is the user's again


def test_a_symlink_is_never_followed(compile_here, tmp_path):
    directory = tmp_path / "cache"
    compile_here(directory)
    entry = only_entry(directory)
    elsewhere = tmp_path / "elsewhere.bin"
    os.replace(entry, elsewhere)
    entry.symlink_to(elsewhere)  # a valid entry of the user's, reached through a link
    assert not compile_here(directory).from_disk
    assert not entry.is_symlink() and compile_here(directory).from_disk
    # The cache directory itself swapped for a link to a directory holding the entry.
    os.replace(entry, elsewhere)
    moved = tmp_path / "moved"
    os.rename(directory, moved)
    os.replace(elsewhere, moved / entry.name)
    directory.symlink_to(moved)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = compile_here(directory)
    assert not again.from_disk and list(again(X)[0]) == [0.0, 2.0, 4.0]
    assert len(caught) == 1


def test_entries_others_can_write_or_own_are_not_loaded(compile_here, tmp_path):
    compile_here(tmp_path)
    entry = only_entry(tmp_path)
    entry.chmod(0o666)
    with pytest.warns(UserWarning, match="alone can write"):
        assert not compile_here(tmp_path).from_disk
    assert compile_here(tmp_path).from_disk  # rewritten 0600
    if os.geteuid() == 0:  # only root can give a file away
        os.chown(entry, 12345, -1)
        assert not compile_here(tmp_path).from_disk


def test_a_directory_of_another_user_is_not_used(compile_here, tmp_path, monkeypatch):
    compile_here(tmp_path)
    monkeypatch.setattr(os, "geteuid", lambda: os.getuid() + 1)
    with pytest.warns(UserWarning, match="belong to you"):
        again = compile_here(tmp_path)
    assert not again.from_disk and list(again(X)[0]) == [0.0, 2.0, 4.0]


def test_a_truncated_object_with_a_valid_tag_never_reaches_the_loader(tmp_path):
    object_code = compile_module.compile_ir("define void @k() {\n  ret void\n}")
    assert objfile.problem(object_code) is None
    rejected = [n for n in range(len(object_code)) if objfile.problem(object_code[:n])]
    assert rejected == list(range(len(object_code)))
    secret = private.secret()
    for n in (0, 1, 64, len(object_code) // 2, len(object_code) - 1):
        (tmp_path / "k.bin").write_bytes(forge(secret, "k", {}, object_code[:n]))
        assert cache.load(tmp_path, "k") is None
    (tmp_path / "k.bin").write_bytes(forge(secret, "k", {}, object_code))
    assert cache.load(tmp_path, "k") == ({"key": "k"}, object_code)


def test_the_key_is_private_and_shared_by_processes_racing_to_make_it(tmp_path, monkeypatch):
    home = tmp_path / "config"
    script = ("import sys; from gradjit.runtime import private; "
              "sys.stdout.write(private.secret().hex())")
    env = dict(os.environ, XDG_CONFIG_HOME=str(home))
    old = os.umask(0)
    try:
        runs = [subprocess.Popen([sys.executable, "-c", script], env=env, text=True,
                                 stdout=subprocess.PIPE) for _ in range(4)]
        keys = {run.communicate(timeout=60)[0] for run in runs}
    finally:
        os.umask(old)
    assert len(keys) == 1 and len(bytes.fromhex(keys.pop())) == 32
    key = home / "gradjit" / "cache-key"
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    assert oct(home.stat().st_mode & 0o777) == oct(key.parent.stat().st_mode & 0o777) == "0o700"
    assert [p.name for p in key.parent.iterdir()] == ["cache-key"]
    key.chmod(0o644)  # readable by others: it no longer proves anything
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.setattr(private, "_keys", {})
    monkeypatch.setattr(private, "_warned", set())
    with pytest.warns(UserWarning, match="does not use its disk cache"):
        assert private.secret() is None and private.secret() is None


def test_no_space_left_compiles_and_warns_once(compile_here, tmp_path, monkeypatch):
    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(os, "write", full)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for text in (TIMES, times("5.0")):
            assert not compile_here(tmp_path, text).from_disk
    assert len(caught) == 1 and "No space left" in str(caught[0].message)
    assert list(compile_here(tmp_path)(X)[0]) == [0.0, 2.0, 4.0]
    assert not list(tmp_path.iterdir())  # no temporary file left behind


def test_a_read_only_directory_still_serves_its_entries(compile_here, tmp_path, monkeypatch):
    compile_here(tmp_path)
    tmp_path.chmod(0o500)
    real_open = os.open
    if os.geteuid() == 0:  # root writes whatever the mode says: refuse as a read-only fs would
        def read_only(path, flags, *args, **kwargs):
            if flags & os.O_CREAT:
                raise OSError(errno.EROFS, os.strerror(errno.EROFS))
            return real_open(path, flags, *args, **kwargs)
        monkeypatch.setattr(os, "open", read_only)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert compile_here(tmp_path).from_disk
            for value in ("5.0", "7.0"):
                program = compile_here(tmp_path, times(value))
                assert list(program(X)[0]) == [0.0, float(value), 2 * float(value)]
        assert len(caught) == 1 and "could not write" in str(caught[0].message)
    finally:
        tmp_path.chmod(0o700)


KILLED = r"""
import os, sys
from gradjit.runtime import private
real = private.write_all
def die_halfway(fd, data):
    real(fd, data[:len(data) // 2])
    os._exit(9)
private.write_all = die_halfway
from gradjit.codegen.compile import compile_function
from gradjit.ir import parse
compile_function(parse(sys.argv[2]), cache_dir=sys.argv[1])
"""


def test_a_process_killed_mid_write_leaves_nothing_that_loads(compile_here, tmp_path):
    done = subprocess.run([sys.executable, "-c", KILLED, str(tmp_path), TIMES], timeout=120)
    assert done.returncode == 9
    (temporary,) = tmp_path.iterdir()
    assert temporary.name.startswith(private.TEMPORARY)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = compile_here(tmp_path)
    assert not again.from_disk and list(again(X)[0]) == [0.0, 2.0, 4.0]
    assert compile_here(tmp_path).from_disk


MUTATE = r"""
import random, struct, sys
import numpy as np
import gradjit.codegen.compile as compile_module
from gradjit.ir import parse
from gradjit.runtime import objfile
from gradjit.runtime.native import NativeCode
made = []
real = compile_module.compile_ir
compile_module.compile_ir = lambda text, **how: made.append(real(text, **how)) or made[-1]
compile_module.compile_function(parse(sys.argv[1]), cache_dir=False)
code = made[0]
shoff, shnum = struct.unpack_from("<Q", code, 0x28)[0], struct.unpack_from("<H", code, 0x3C)[0]
tables = [(s[4], s[4] + s[5]) for s in (objfile.SECTION.unpack_from(code, shoff + 64 * i)
                                        for i in range(shnum)) if s[1] in (2, 3, 4)]
regions = [(0, 64), (shoff, len(code))] + tables
rng, accepted = random.Random(0), 0
for _ in range(int(sys.argv[2])):
    data = bytearray(code)
    low, high = rng.choice(regions)
    for _ in range(rng.randint(1, 3)):
        place = rng.randrange(low, high)
        data[place] = rng.choice([0, 255, rng.randrange(256), data[place] ^ 1, data[place] ^ 128])
    if objfile.problem(bytes(data)) is None:
        accepted += 1
        try:
            NativeCode(bytes(data), [])
        except RuntimeError:
            pass
print(accepted)
"""


def test_object_code_that_passes_validation_never_crashes_the_loader():
    """Damage to the headers, symbols and relocations of real object code (what a valid tag
    over a broken entry would carry) is either refused or loads: the process survives."""
    sine = TIMES.replace("mul(%x, %c)", "add(%x, %c)").replace(
        "return %0", "%1 = sin(%0) : f64[3]\n  return %1")
    done = subprocess.run([sys.executable, "-c", MUTATE, sine, "1500"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert 0 < int(done.stdout) < 1500
