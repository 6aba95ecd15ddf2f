"""NVIDIA's PTX assembler, to check generated PTX without a GPU: the one in the
nvidia-cuda-nvcc-cu12 wheel (CUDA 12: sm_70 and newer), else the one on PATH (CUDA 13's
no longer takes sm_70)."""
from __future__ import annotations

import functools
import re
import shutil
import subprocess
from importlib import util
from pathlib import Path


@functools.cache
def candidates() -> tuple[Path, ...]:
    """The ptxas executables found, the wheel's first."""
    found = []
    spec = util.find_spec("nvidia.cuda_nvcc") if util.find_spec("nvidia") else None
    for root in (spec.submodule_search_locations or []) if spec else []:
        path = Path(root) / "bin" / "ptxas"
        if path.is_file():
            found.append(path)
    on_path = shutil.which("ptxas")
    if on_path and Path(on_path) not in found:
        found.append(Path(on_path))
    return tuple(found)


@functools.cache
def release(ptxas: Path) -> tuple[int, int]:
    """The CUDA release a ptxas belongs to, e.g. (12, 9)."""
    text = subprocess.run([str(ptxas), "--version"], capture_output=True, text=True).stdout
    found = re.search(r"release (\d+)\.(\d+)", text)
    return (int(found[1]), int(found[2])) if found else (0, 0)


def ptxas_for(arch: str) -> Path | None:
    """A ptxas that assembles for `arch` ('sm_90'), or None."""
    number = int(arch.removeprefix("sm_").rstrip("a"))
    for path in candidates():
        if number >= 75 or release(path) < (13, 0):
            return path
    return None


def assemble(ptx_files, arch: str, output: Path) -> None:
    """Assemble PTX files for `arch` into one cubin (their kernels' names must differ);
    ptxas's complaint, naming the file and line, becomes the error."""
    ptxas = ptxas_for(arch)
    if ptxas is None:
        raise FileNotFoundError(f"no ptxas for {arch}: install nvidia-cuda-nvcc-cu12 (the "
                                "test extra) or put CUDA's ptxas on PATH")
    run = subprocess.run([str(ptxas), f"-arch={arch}", *map(str, ptx_files), "-o", str(output)],
                         capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError(f"ptxas -arch={arch} failed:\n{run.stderr}")
