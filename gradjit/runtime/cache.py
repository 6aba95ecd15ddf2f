"""The compile caches: in memory, a bounded map of compiled programs; on disk, object code
stored under a key, written atomically, verified by checksum when read back (a corrupt,
truncated or foreign file reads as a miss)."""
from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
import warnings
from collections import OrderedDict
from pathlib import Path

MAGIC = b"gradjit-object-cache-1\n"
MAX_PROGRAMS = 256  # compiled programs kept in memory per target (about 0.3 MB each on CPU)


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
    $GRADJIT_CACHE_DIR ('off' disables), else $XDG_CACHE_HOME/gradjit, else ~/.cache/gradjit."""
    if setting is None:
        setting = os.environ.get("GRADJIT_CACHE_DIR")
    if setting is False or setting == "off":
        return None
    if setting:
        return Path(setting)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "gradjit"


def _path(directory: Path, key: str) -> Path:
    return directory / f"{key}.bin"


def private(directory: Path) -> bool:
    """Whether only this user can write `directory`: anyone else who can would choose the
    machine code this process runs (a checksum detects damage, not intent)."""
    if not hasattr(os, "getuid"):
        return True
    try:
        info = directory.stat()
    except OSError:
        return False
    if info.st_uid == os.getuid() and not info.st_mode & 0o022:
        return True
    if directory not in _warned:
        _warned.add(directory)
        warnings.warn(f"gradjit does not use its compile cache in {directory}: the directory "
                      "must belong to you and be writable by you alone (chmod 700)",
                      stacklevel=4)
    return False


_warned: set = set()


def load(directory: Path, key: str) -> tuple[dict, bytes] | None:
    """The metadata and object code stored under `key`, or None."""
    if not private(directory):
        return None
    try:
        data = _path(directory, key).read_bytes()
    except OSError:
        return None
    head = len(MAGIC) + 32
    if len(data) < head + 8 or not data.startswith(MAGIC):
        return None
    body = data[head:]
    if hashlib.sha256(body).digest() != data[len(MAGIC):head]:
        return None
    (meta_size,) = struct.unpack("<Q", body[:8])
    try:
        meta = json.loads(body[8:8 + meta_size].decode())
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("key") != key:
        return None
    return meta, body[8 + meta_size:]


def store(directory: Path, key: str, meta: dict, payload: bytes) -> None:
    """Write atomically (a temporary file renamed over the entry); failures only warn."""
    body_meta = json.dumps(dict(meta, key=key)).encode()
    body = struct.pack("<Q", len(body_meta)) + body_meta + payload
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not private(directory):
            return
        fd, temp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(MAGIC + hashlib.sha256(body).digest() + body)
            os.replace(temp, _path(directory, key))
        except BaseException:
            os.unlink(temp)
            raise
    except OSError as error:
        warnings.warn(f"gradjit could not write its compile cache in {directory}: {error}",
                      stacklevel=3)
