"""x86-64 object code (checked in full by objfile) linked in Python into one fresh mapping: its
sections laid out, a GOT built, relocations applied, then code made executable and constants
read-only (never both writable and executable), so cached programs load without LLVM."""
from __future__ import annotations

import ctypes
import mmap
import struct

from gradjit.runtime import objfile
from gradjit.runtime.objfile import ABSOLUTE, ALLOC, EXECUTE, NOBITS, UNDEFINED, WRITE

FIELD = struct.Struct("<Q")
MASK = (1 << 64) - 1
# The page protections of the three parts of the mapping, in order, and the section flags each
# holds: code, constants (the GOT among them), writable data
PARTS = ((mmap.PROT_READ | mmap.PROT_EXEC, EXECUTE), (mmap.PROT_READ, 0),
         (mmap.PROT_READ | mmap.PROT_WRITE, WRITE))
# Each relocation's value from the symbol's address s, the addend a, the place p, the GOT's
# address and the offset of the symbol's GOT entry in it (the x86-64 psABI's formulas)
RELOCATE = {objfile.ABSOLUTE64: lambda s, a, p, got, entry: s + a,
            objfile.PC64: lambda s, a, p, got, entry: s + a - p,
            objfile.GOTOFF64: lambda s, a, p, got, entry: s + a - got,
            objfile.GOT64: lambda s, a, p, got, entry: entry + a,
            objfile.GOTPC64: lambda s, a, p, got, entry: got + a - p}

_libc = ctypes.CDLL(None, use_errno=True)
_mprotect = _libc.mprotect
_mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


class Image:
    """The object code in memory, linked; it stays mapped as long as this object lives.
    Refused for object code objfile rejects; OSError where the system refuses the pages."""

    def __init__(self, data: bytes):
        obj = objfile.read(data)
        entries = {}  # symbol index -> offset of its GOT entry
        for _, patches in obj.relocations:
            for _, kind, symbol, _ in patches:
                if kind == objfile.GOT64:
                    entries.setdefault(symbol, len(entries) * objfile.WIDTH)
        offsets, got, parts, size = _layout(obj.sections, len(entries) * objfile.WIDTH)
        self._map = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE,
                              prot=mmap.PROT_READ | mmap.PROT_WRITE)
        base = ctypes.addressof(ctypes.c_char.from_buffer(self._map))
        got += base
        addresses = [_address(s, base, offsets, got) for s in obj.symbols]
        image = bytearray(size)
        for index, offset in offsets.items():
            section = obj.sections[index]
            if section[1] != NOBITS:
                image[offset:offset + section[5]] = data[section[4]:section[4] + section[5]]
        for symbol, entry in entries.items():
            FIELD.pack_into(image, got - base + entry, addresses[symbol] & MASK)
        for target, patches in obj.relocations:
            for place, kind, symbol, addend in patches:
                at = offsets[target] + place
                value = RELOCATE[kind](addresses[symbol], addend, base + at, got,
                                       entries.get(symbol, 0))
                FIELD.pack_into(image, at, value & MASK)
        self._map[:] = image
        for start, end, protection in parts:
            if end > start and _mprotect(base + start, end - start, protection):
                raise OSError(ctypes.get_errno(), "mprotect refused the loaded code's pages")
        self.addresses = {s.name: a for s, a in zip(obj.symbols, addresses)
                          if s.section != UNDEFINED and s.about >> 4 and s.about & 15 == 2}

    def address(self, name: str) -> int:
        """The address of the global function `name`, or 0 if the object defines none."""
        return self.addresses.get(name.encode(), 0)


def _layout(sections, got_size: int):
    """Offsets of the loaded sections in the mapping, the GOT's offset, the parts as (start,
    end, protection), each starting on a page, and the mapping's size."""
    offsets, parts, end, got = {}, [], 0, 0
    for protection, flags in PARTS:
        start = end
        for index, section in enumerate(sections):
            if section[2] & ALLOC and section[2] & (WRITE | EXECUTE) == flags:
                end = _align(end, section[8])
                offsets[index] = end
                end += section[5]
        if flags == 0:
            got = _align(end, objfile.WIDTH)
            end = got + got_size
        end = _align(end, mmap.PAGESIZE)
        parts.append((start, end, protection))
    return offsets, got, parts, max(end, mmap.PAGESIZE)


def _align(offset: int, alignment: int) -> int:
    return -(-offset // alignment) * alignment


def _address(symbol, base: int, offsets: dict, got: int) -> int:
    if symbol.section == UNDEFINED:
        if not symbol.name:
            return 0
        return got if symbol.name == objfile.GOT else objfile.resolve(symbol.name)
    if symbol.section == ABSOLUTE:
        return symbol.value
    # a symbol of a section that is not loaded (a note) has no address; no relocation uses it
    return base + offsets[symbol.section] + symbol.value if symbol.section in offsets else 0
