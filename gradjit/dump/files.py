"""Stages written to files: `write_stages` for `gradjit dump --output DIR`, and
`write_compilation`, which GRADJIT_DUMP=DIR calls for every compilation of every function."""
from __future__ import annotations

import hashlib
import os
import traceback
from pathlib import Path

from gradjit.dump.lowered import Lowered
from gradjit.dump.stages import STAGES, Options, render, stage_names


def write_stages(lowered: Lowered, directory, prefix: str, stages="all", fmt: str = "text",
                 options: Options | None = None, keep_going: bool = False) -> list[Path]:
    """Write each stage to `directory/prefix.<stage>.<extension>` (`.dot`/`.svg` for graphs)
    and return the paths. With `keep_going`, a stage that fails writes its error instead."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    prefix = file_prefix(prefix)
    paths = []
    for name in stage_names(stages, lowered, fmt):
        extension = STAGES[name].extension if fmt == "text" else fmt
        path = directory / f"{prefix}.{name}.{extension}"
        try:
            text = render(lowered, name, fmt, options or Options())
        except Exception:
            if not keep_going:
                raise
            path = path.with_name(path.name + ".error.txt")
            text = traceback.format_exc()
        path.write_text(text if text.endswith("\n") else text + "\n")
        paths.append(path)
    return paths


def file_prefix(name: str) -> str:
    """A function's name as the start of a file name: letters, digits, '_' and '-' only, so
    whatever the name holds ('/', '..', a NUL) every file lands in the directory it was given
    (a function's __name__ can be set to anything)."""
    return "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_"
                   for c in name[:100]) or "_"


def write_compilation(directory, f, entry) -> list[Path]:
    """Every text stage of one compiled trace of `f`, named after the function and a digest
    of its optimized IR (a failing stage writes its error: debugging output never stops the
    program)."""
    lowered = Lowered.from_entry(f, entry)
    digest = hashlib.sha256(str(lowered.optimized).encode()).hexdigest()[:8]
    return write_stages(lowered, directory, f"{lowered.name}-{digest}", "all",
                        options=Options(with_source=True), keep_going=True)


def write_when_asked(f, entry) -> None:
    """GRADJIT_DUMP=DIR: every compilation's stages go to DIR."""
    directory = os.environ.get("GRADJIT_DUMP")
    if directory:
        write_compilation(directory, f, entry)
