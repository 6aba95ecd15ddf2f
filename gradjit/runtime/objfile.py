"""The structure of the object code that the disk cache hands to a loader, checked in full
first: a loader trusts every offset, size, index and kind in an object file, so a truncated or
inconsistent file read from disk would crash it (or worse). Only the shape of what gradjit's
own compiler emits is accepted: a little-endian ELF64 relocatable object for x86-64 with the
section, symbol and relocation kinds LLVM uses there, every undefined symbol one this process
can resolve, every section one gradjit's loader (gradjit.runtime.loader) can lay out."""
from __future__ import annotations

import ctypes
import mmap
import struct
from dataclasses import dataclass

HEADER = struct.Struct("<16sHHIQQQIHHHHHH")
SECTION = struct.Struct("<IIQQQQIIQQ")
SYMBOL = struct.Struct("<IBBHQQ")
RELA = struct.Struct("<QQq")
PROGBITS, SYMTAB, STRTAB, RELA_TYPE, NOTE, NOBITS = 1, 2, 3, 4, 7, 8
KINDS = {PROGBITS, SYMTAB, STRTAB, RELA_TYPE, NOTE, NOBITS, 0x70000001}  # last: x86-64 unwind
WRITE, ALLOC, EXECUTE = 0x1, 0x2, 0x4
# write, alloc, execute, merge, strings, info link, link order, x86-64 large: not TLS,
# compressed, group or excluded, which the loaders do not handle
FLAGS = 0x1 | 0x2 | 0x4 | 0x10 | 0x20 | 0x40 | 0x80 | 0x10000000
UNDEFINED, ABSOLUTE, COMMON = 0, 0xFFF1, 0xFFF2
SYMBOL_TYPES = {0, 1, 2, 3, 4}  # no type, object, function, section, file
BINDINGS = {0, 1, 2}  # local, global, weak
X86_64 = 62
# The x86-64 relocations of the large code model that LLVM's JIT target uses, all 8 bytes wide
# (absolute, PC-relative, GOT-relative, GOT entry, GOT address): 32-bit ones may not reach
# between JIT allocations, and LLVM's loader asserts on them
ABSOLUTE64, PC64, GOTOFF64, GOT64, GOTPC64 = 1, 24, 25, 27, 29
RELOCATIONS = {ABSOLUTE64, PC64, GOTOFF64, GOT64, GOTPC64}
WIDTH = 8
GOT = b"_GLOBAL_OFFSET_TABLE_"  # the loader makes it; no library defines it
MAX_LOADED = 1 << 28  # bytes of loaded sections: far above any program, far below a failure


class Refused(ValueError):
    """Object code that no loader may be given."""


@dataclass(frozen=True)
class Symbol:
    name: bytes
    about: int  # type (low 4 bits) and binding
    section: int  # its section's index, or UNDEFINED or ABSOLUTE
    value: int


@dataclass(frozen=True)
class ObjectFile:
    data: bytes
    sections: list  # SECTION tuples: name, kind, flags, address, offset, size, link, info,
    # alignment, entry size
    symbols: list  # Symbol
    relocations: list  # (index of the section they patch, [(place, kind, symbol, addend)])


def problem(data: bytes) -> str | None:
    """What is wrong with `data` as an object file for the loaders, or None if nothing is."""
    try:
        read(data)
    except Refused as refused:
        return str(refused)
    return None


def read(data: bytes) -> ObjectFile:
    """`data`'s sections, symbols and relocations, every one checked; Refused otherwise."""
    found = _checked(data)
    if isinstance(found, str):
        raise Refused(found)
    return found


def _checked(data: bytes) -> ObjectFile | str:
    sections = _sections(data)
    if isinstance(sections, str):
        return sections
    symbols = _symbols(data, sections)
    if isinstance(symbols, str):
        return symbols
    relocations = []
    for section in sections:
        if section[1] == RELA_TYPE:
            patches = _relocations(data, sections, section, symbols)
            if isinstance(patches, str):
                return patches
            relocations.append((section[7], patches))
    return ObjectFile(data, sections, symbols, relocations)


def _sections(data: bytes) -> list | str:
    if len(data) < HEADER.size:
        return "shorter than an ELF header"
    (ident, kind, machine, _, _, _, shoff, _, ehsize, _, phnum, shentsize, shnum,
     shstrndx) = HEADER.unpack_from(data)
    if ident[:7] != b"\x7fELF\x02\x01\x01" or kind != 1 or machine != X86_64:
        return "not an ELF64 little-endian x86-64 relocatable object"
    if ehsize != HEADER.size or shentsize != SECTION.size or phnum or not 1 < shnum < 0xFF00:
        return "unexpected header sizes or counts"
    if shoff < HEADER.size or shoff + shnum * SECTION.size > len(data):
        return "section headers outside the file"
    sections = [SECTION.unpack_from(data, shoff + i * SECTION.size) for i in range(shnum)]
    if any(sections[0]) or shstrndx >= shnum or sections[shstrndx][1] != STRTAB:
        return "no null section or section-name table"
    if [s[1] for s in sections].count(SYMTAB) != 1:
        return "not exactly one symbol table"
    loaded = 0
    for name, kind, flags, _, offset, size, link, _, align, _ in sections[1:]:
        if kind not in KINDS or flags & ~FLAGS or (kind != NOBITS and offset + size > len(data)):
            return "a section of an unknown kind or flags, or past the end of the file"
        if not align or align & (align - 1) or link >= shnum or name >= sections[shstrndx][5]:
            return "a section's alignment, link or name is invalid"
        if kind == STRTAB and not (size and data[offset] == data[offset + size - 1] == 0):
            return "a string table that does not begin and end with NUL"
        if flags & ALLOC:
            loaded += size + align
            if align > mmap.PAGESIZE or flags & WRITE and flags & EXECUTE:
                return "a loaded section aligned past a page, or both writable and executable"
    if loaded > MAX_LOADED:
        return "loaded sections larger than any program's"
    return sections


def _string(data, table, offset) -> bytes | None:
    """The NUL-terminated string at `offset` of the string table section `table`."""
    start, end = table[4] + offset, table[4] + table[5]
    stop = data.find(b"\0", start, end)
    return None if offset >= table[5] or stop < 0 else data[start:stop]


def _symbols(data, sections) -> list | str:
    (symtab,) = (s for s in sections if s[1] == SYMTAB)
    _, _, _, _, offset, size, link, info, _, entsize = symtab
    strings = sections[link]
    if entsize != SYMBOL.size or size % SYMBOL.size or strings[1] != STRTAB or not size:
        return "a malformed symbol table"
    if not 0 < info <= size // SYMBOL.size:
        return "the symbol table's count of local symbols is out of range"
    symbols = []
    for name, about, _, shndx, value, extent in SYMBOL.iter_unpack(data[offset:offset + size]):
        text = _string(data, strings, name)
        if text is None or about & 15 not in SYMBOL_TYPES or about >> 4 not in BINDINGS:
            return "a symbol's name, type or binding is invalid"
        if shndx == UNDEFINED and text and text != GOT and not resolve(text):
            return f"an undefined symbol this process cannot resolve: {text!r}"
        if shndx == COMMON:
            return "a common symbol, which no section holds"
        symbols.append(Symbol(text, about, shndx, value))
        if shndx in (UNDEFINED, ABSOLUTE) and about & 15 != 3:
            continue
        if not 0 < shndx < len(sections) or sections[shndx][1] not in (PROGBITS, NOBITS, NOTE):
            return "a symbol in a section that holds no code or data"
        if about & 15 in (1, 2) and value + extent > sections[shndx][5]:
            return "a symbol that extends past its section"
    return symbols


_process = None


def resolve(name: bytes) -> int:
    """The address of C symbol `name` in this process (its libraries: libm, libc), or 0."""
    global _process
    if _process is None:
        _process = ctypes.CDLL(None)
    try:
        return ctypes.cast(getattr(_process, name.decode()), ctypes.c_void_p).value or 0
    except (AttributeError, UnicodeDecodeError, ValueError):
        return 0


def _relocations(data, sections, section, symbols) -> list | str:
    _, _, _, _, offset, size, link, info, _, entsize = section
    symtab = sections[link]
    if entsize != RELA.size or size % RELA.size or symtab[1] != SYMTAB:
        return "a malformed relocation section"
    if not 0 < info < len(sections) or sections[info][1] != PROGBITS \
            or not sections[info][2] & ALLOC:
        return "relocations of a section that is not loaded code or data"
    target, patches = sections[info][5], []
    for place, about, addend in RELA.iter_unpack(data[offset:offset + size]):
        kind, index = about & 0xFFFFFFFF, about >> 32
        if kind not in RELOCATIONS or not 0 < index < len(symbols) or place + WIDTH > target:
            return "a relocation of an unknown kind, symbol or place"
        symbol = symbols[index]
        if symbol.section == UNDEFINED and not symbol.name or symbol.section not in (
                UNDEFINED, ABSOLUTE) and not sections[symbol.section][2] & ALLOC:
            return "a relocation against a symbol that is neither loaded nor named"
        patches.append((place, kind, index, addend))
    return patches
