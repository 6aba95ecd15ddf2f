"""The compile caches: in memory, a bounded map of compiled programs; on disk, object code that
this process will execute, in a directory other software can reach. So an entry is loaded only
if it carries an HMAC-SHA256, under a per-user random key kept outside the cache directory, of
its whole content and its name (an entry written by anyone without the key, or moved from
another name, is a miss); files are opened relative to a descriptor of the directory, never
following a link, and owner and mode are checked on the opened descriptor; the object code's
whole structure is validated before a loader sees it. Disk faults cost a recompile and at
most one warning per directory; the directory is kept under a size limit, least recently used
entries first out."""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
import struct
import threading
import time
from collections import OrderedDict
from pathlib import Path

from gradjit.runtime import objfile, private

MAGIC = b"gradjit-object-cache-2\n"
TAG = 32  # bytes of HMAC-SHA256
LENGTH = struct.Struct("<Q")
MAX_PROGRAMS = 256  # compiled programs kept in memory per target (about 0.3 MB each on CPU)
DEFAULT_LIMIT = 512 * 2**20
STALE_SECONDS = 3600  # a temporary file this old was left by a writer that died
SUFFIXES = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30}


class LeastRecentlyUsed(OrderedDict):
    """A dict that keeps at most `limit` items: reading one with get() makes it the most
    recent, adding one past the limit drops the least recent. Callers hold their own lock."""

    def __init__(self, limit: int = MAX_PROGRAMS):
        super().__init__()
        self.limit = limit

    def get(self, key, default=None):
        if key not in self:
            return default
        self.move_to_end(key)
        return self[key]

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        self.move_to_end(key)
        while len(self) > self.limit:
            self.popitem(last=False)


def cache_dir(setting=None) -> Path | None:
    """Where compiled code is kept: `setting` (a path, or False/'off' for nowhere), else
    $GRADJIT_CACHE_DIR ('off' disables), else $XDG_CACHE_HOME/gradjit, else ~/.cache/gradjit.
    None where files cannot be opened without following links."""
    if not hasattr(os, "O_NOFOLLOW"):
        return None
    if setting is None:
        setting = os.environ.get("GRADJIT_CACHE_DIR")
    if setting is False or setting == "off":
        return None
    if setting:
        return Path(setting)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "gradjit"


_limit: int | None = None


def set_cache_limit(nbytes: int | None) -> None:
    """Keep at most `nbytes` of object code on disk (least recently used entries are removed
    first; 0 keeps none); None goes back to $GRADJIT_CACHE_SIZE, else 512 MB."""
    global _limit
    if nbytes is not None and (not isinstance(nbytes, int) or nbytes < 0):
        raise ValueError(f"the cache limit is a number of bytes >= 0 (or None), not {nbytes!r}")
    _limit = nbytes


def cache_limit() -> int:
    """The size limit in force: set_cache_limit's, else $GRADJIT_CACHE_SIZE (bytes, or with a
    K, M or G suffix), else 512 MB."""
    if _limit is not None:
        return _limit
    text = os.environ.get("GRADJIT_CACHE_SIZE", "").strip().lower().removesuffix("b")
    if not text:
        return DEFAULT_LIMIT
    number, unit = (text[:-1], text[-1]) if text[-1] in SUFFIXES else (text, "")
    try:
        return max(0, int(float(number) * SUFFIXES[unit]))
    except ValueError:
        private.warn_once("GRADJIT_CACHE_SIZE", f"gradjit ignores GRADJIT_CACHE_SIZE={text!r} "
                          "(bytes, or a number with K, M or G); the cache keeps 512 MB")
        return DEFAULT_LIMIT


def _name(key: str) -> str:
    return f"{key}.bin"


def _tag(secret: bytes, key: str, body: bytes) -> bytes:
    """The entry's HMAC: it covers the format, the entry's name and everything after the tag."""
    return hmac.new(secret, MAGIC + key.encode() + b"\0" + body, hashlib.sha256).digest()


def load(directory: Path, key: str, code: bool = True) -> tuple[dict, bytes] | None:
    """The metadata and object code stored under `key` (with `code` False: the metadata of an
    entry holding nothing else), or None: missing, unreadable, not this user's, not authentic,
    or not whole."""
    secret = private.secret()
    if secret is None:
        return None
    data = private.read(directory, _name(key))
    if data is None:
        return None
    found = _parse(data, secret, key, code)
    if found is None:
        private.warn_once(("damaged", directory), f"gradjit ignored a damaged entry of its "
                          f"compile cache ({directory / _name(key)}: not whole, or not written "
                          "under this user's key for this name); it compiles again and "
                          "rewrites it")
    return found


def _parse(data: bytes, secret: bytes, key: str, code: bool) -> tuple[dict, bytes] | None:
    head = len(MAGIC) + TAG
    if len(data) < head + 2 * LENGTH.size or not data.startswith(MAGIC):
        return None
    body = data[head:]
    if not hmac.compare_digest(_tag(secret, key, body), data[len(MAGIC):head]):
        return None
    (meta_size,) = LENGTH.unpack_from(body)
    end = LENGTH.size + meta_size
    if end + LENGTH.size > len(body):
        return None
    (payload_size,) = LENGTH.unpack_from(body, end)
    payload = body[end + LENGTH.size:]
    if len(payload) != payload_size or (objfile.problem(payload) if code else payload):
        return None
    try:
        meta = json.loads(body[LENGTH.size:end].decode())
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("key") != key:
        return None
    return meta, payload


def store(directory: Path, key: str, meta: dict, payload: bytes) -> bool:
    """Write the entry atomically (a temporary file renamed over it), then keep the directory
    under the size limit; whether it was written. `payload` is object code, or empty for an
    entry of metadata alone. Object code the loader would refuse is not written; failures
    only warn (once per directory)."""
    if payload and objfile.problem(payload):
        return False
    secret = private.secret()
    if secret is None:
        return False
    meta_text = json.dumps(dict(meta, key=key)).encode()
    body = LENGTH.pack(len(meta_text)) + meta_text + LENGTH.pack(len(payload)) + payload
    data = MAGIC + _tag(secret, key, body) + body
    limit = cache_limit()
    if len(data) > limit:
        return False
    try:
        with private.Directory(directory, create=True) as folder:
            if folder.fd is None:
                return False
            folder.write(_name(key), data)
            _evict(folder, limit)
            return True
    except OSError as error:
        private.warn_once(directory, f"gradjit could not write its compile cache in "
                          f"{directory}: {error}; it compiles again next time")
        return False


_evict_lock = threading.Lock()


def _entries(folder) -> tuple[list, list]:
    """(entries as (last use, size, name), temporary files as (time, name)) of the folder."""
    entries, temporary = [], []
    with os.scandir(folder.fd) as found:
        for item in found:
            try:
                info = item.stat(follow_symlinks=False)
            except FileNotFoundError:  # another process removed it meanwhile
                continue
            if not stat.S_ISREG(info.st_mode):
                continue
            if item.name.endswith(".bin"):
                entries.append((info.st_mtime_ns, info.st_size, item.name))
            elif item.name.startswith(private.TEMPORARY):
                temporary.append((info.st_mtime, item.name))
    return entries, temporary


def _evict(folder, limit: int) -> None:
    """Remove the least recently used entries (a load marks an entry used) until the entries
    fit the limit, and temporary files left by writers that died."""
    with _evict_lock:
        entries, temporary = _entries(folder)
        for written, name in temporary:
            if written < time.time() - STALE_SECONDS:
                folder.remove(name)
        total = sum(size for _, size, _ in entries)
        for _, size, name in sorted(entries):
            if total <= limit:
                break
            folder.remove(name)
            total -= size


def info(directory=None) -> dict:
    """The cache directory, its entries, their total size and the limit."""
    directory = cache_dir(directory)
    found = {"directory": directory, "entries": 0, "bytes": 0, "limit": cache_limit(),
             "key": private.key_path()}
    if directory is not None:
        with private.Directory(directory, create=False) as folder:
            if folder.fd is not None:
                entries, _ = _entries(folder)
                found.update(entries=len(entries), bytes=sum(e[1] for e in entries))
    return found


def clear(directory=None) -> int:
    """Remove every entry (and temporary file) from the cache directory; the number removed."""
    directory = cache_dir(directory)
    if directory is None:
        return 0
    with private.Directory(directory, create=False) as folder:
        if folder.fd is None:
            return 0
        entries, temporary = _entries(folder)
        names = [e[2] for e in entries] + [t[1] for t in temporary]
        for name in names:
            folder.remove(name)
        return len(names)
