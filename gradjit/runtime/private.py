"""Files only this user controls, for the disk cache: directories made 0700 (missing parents
too), opened without following a link in their last component and checked for owner and mode
on the opened descriptor; files inside opened relative to that descriptor with O_NOFOLLOW and
checked the same way (so nothing swapped in between a check and a use is ever read); the
per-user key that authenticates cache entries, created once, atomically, mode 0600."""
from __future__ import annotations

import os
import secrets
import stat
import threading
import warnings
from pathlib import Path

TEMPORARY = ".tmp-"
KEY_BYTES = 32
MAX_READ = 2**31  # no entry is this large: a bigger file is not read into memory
# Where the system cannot refuse links (no O_NOFOLLOW), cache_dir() keeps no disk cache.
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_warned: set = set()
_keys: dict = {}
_key_lock = threading.Lock()


def warn_once(about, message: str) -> None:
    """Warn about the cache once per process for each directory (or setting)."""
    if about not in _warned:
        _warned.add(about)
        warnings.warn(message, stacklevel=5)


def _mine(info, others: int) -> bool:
    """Whether the file belongs to this user and none of the `others` mode bits are set."""
    return info.st_uid == os.geteuid() and not info.st_mode & others


def make_dirs(path: Path) -> None:
    """Create `path` and its missing parents, each 0700 whatever the umask."""
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    for path in reversed(missing):
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            continue
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | NOFOLLOW)
        try:
            os.fchmod(fd, 0o700)  # the umask may have taken bits this user needs
        finally:
            os.close(fd)


class Directory:
    """`with Directory(path, create) as folder`: folder.fd is a descriptor of `path` if it is a
    directory of this user's that no one else can write, else None (one warning if it exists
    but is not private; none if it is missing and not to be created)."""

    def __init__(self, path: Path, create: bool):
        self.path, self.create, self.fd = Path(path), create, None

    def __enter__(self):
        if self.create:
            make_dirs(self.path)
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | NOFOLLOW)
        except FileNotFoundError:
            if self.create:
                raise
            return self
        info = os.fstat(fd)
        if _mine(info, 0o022):
            self.fd = fd
            return self
        os.close(fd)
        warn_once(self.path, f"gradjit does not use its compile cache in {self.path}: the "
                  "directory must belong to you and be writable by you alone (chmod 700)")
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def open_file(self, name: str, others: int) -> tuple[int | None, bool]:
        """(a read descriptor of `name` in this directory or None, whether the file is there
        but refused): refused unless a regular file of this user's with none of the `others`
        mode bits; a missing file, a link or an unreadable file gives (None, False)."""
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | NOFOLLOW, dir_fd=self.fd)
        except OSError:  # missing, or a link (ELOOP), or unreadable
            return None, False
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode) and _mine(info, others) and info.st_size < MAX_READ:
            return fd, False
        os.close(fd)
        return None, True

    def write(self, name: str, data: bytes) -> None:
        """Replace `name` atomically by a file holding `data`, mode 0600 (readers see the old
        file or the new one, whole; a writer that dies leaves only a temporary file)."""
        temp = f"{TEMPORARY}{os.getpid()}-{secrets.token_hex(8)}"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600,
                     dir_fd=self.fd)
        try:
            try:
                write_all(fd, data)
            finally:
                os.close(fd)
            os.replace(temp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            self.remove(temp)
            raise

    def remove(self, name: str) -> None:
        try:
            os.unlink(name, dir_fd=self.fd)
        except FileNotFoundError:  # another process removed it first
            pass


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def read(directory: Path, name: str) -> bytes | None:
    """The content of file `name` in the private `directory`, marked as just used (the size
    limit evicts the least recently used), or None."""
    try:
        with Directory(directory, create=False) as folder:
            if folder.fd is None:
                return None
            fd, refused = folder.open_file(name, 0o022)
            if refused:
                warn_once(directory, f"gradjit ignores {directory / name}: it is not a file "
                          "that belongs to you and that you alone can write")
            if fd is None:
                return None
            try:
                data = read_all(fd)
                try:
                    os.utime(fd)
                except OSError:  # a read-only cache still serves its entries
                    pass
                return data
            finally:
                os.close(fd)
    except OSError:
        return None


def key_path() -> Path:
    """Where the key is kept: $XDG_CONFIG_HOME/gradjit/cache-key, else
    ~/.config/gradjit/cache-key (outside the cache directory, so whoever can write cache
    entries cannot read it from there)."""
    xdg = os.environ.get("XDG_CONFIG_HOME")
    return (Path(xdg) if xdg else Path.home() / ".config") / "gradjit" / "cache-key"


def secret() -> bytes | None:
    """This user's cache key (made on first use), or None, with a warning, if it cannot be
    made or read back as a 32-byte file of this user's that no one else can read."""
    path = key_path()
    with _key_lock:
        if path not in _keys:
            try:
                _keys[path] = _read_or_make_key(path)
            except OSError as error:
                _keys[path] = None
                warn_once(path, f"gradjit does not use its disk cache: its key {path} cannot be "
                          f"made or read ({error})")
            if _keys[path] is None:
                warn_once(path, f"gradjit does not use its disk cache: its key {path} must be "
                          f"a {KEY_BYTES}-byte file that belongs to you and that only you can "
                          "read and write (chmod 600), in a directory only you can write")
        return _keys[path]


def _read_or_make_key(path: Path) -> bytes | None:
    with Directory(path.parent, create=True) as folder:
        if folder.fd is None:
            return None
        found = _read_key(folder, path.name)
        if found is not None or _exists(folder, path.name):
            return found
        # Written whole under a temporary name, then linked to its name, which fails if the
        # name exists: racing processes all read back the one key that got there first.
        temp = f"{TEMPORARY}{os.getpid()}-{secrets.token_hex(8)}"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600,
                     dir_fd=folder.fd)
        try:
            try:
                write_all(fd, secrets.token_bytes(KEY_BYTES))
                os.fsync(fd)
            finally:
                os.close(fd)
            try:
                os.link(temp, path.name, src_dir_fd=folder.fd, dst_dir_fd=folder.fd,
                        follow_symlinks=False)
            except FileExistsError:
                pass
        finally:
            folder.remove(temp)
        return _read_key(folder, path.name)


def _exists(folder: Directory, name: str) -> bool:
    try:
        os.stat(name, dir_fd=folder.fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def _read_key(folder: Directory, name: str) -> bytes | None:
    fd, _ = folder.open_file(name, 0o077)
    if fd is None:
        return None
    try:
        data = read_all(fd)
    finally:
        os.close(fd)
    return data if len(data) == KEY_BYTES else None
