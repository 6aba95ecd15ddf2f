"""Runs a tutorial program twice, as written for PyTorch and with `import gradjit as torch`
(its `from torch... import` lines read from gradjit), and compares what the two print: the
same text, and the same numbers to float32 rounding."""
from __future__ import annotations

import contextlib
import io
import re
import textwrap
import warnings

import torch

import gradjit

_NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+e[-+]?\d+")
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def ported(source: str) -> str:
    """The program as a PyTorch user ports it: `import torch` becomes `import gradjit as
    torch`, and `torch.` module paths in import lines become `gradjit.`."""
    source = re.sub(r"^(\s*)import torch$", r"\1import gradjit as torch", source, flags=re.M)
    source = re.sub(r"^(\s*)import torch\.(\S+) as", r"\1import gradjit.\2 as", source,
                    flags=re.M)
    return re.sub(r"^(\s*)from torch(\.| )", r"\1from gradjit\2", source, flags=re.M)


@contextlib.contextmanager
def _global_modes_kept():
    """Each library's process-wide modes as they were before the program set any of them
    (torch.use_deterministic_algorithms(True) in one tutorial refuses later tests' kernels);
    hook ids (which programs print) counted from 0, as in a fresh process."""
    for lib in (torch, gradjit):
        lib.utils.hooks.RemovableHandle.next_id = 0
    saved = [(lib, lib.are_deterministic_algorithms_enabled(),
              lib.is_deterministic_algorithms_warn_only_enabled(), lib.get_default_dtype(),
              lib.is_grad_enabled()) for lib in (torch, gradjit)]
    try:
        yield
    finally:
        for lib, deterministic, warn_only, dtype, grad in saved:
            lib.use_deterministic_algorithms(deterministic, warn_only=warn_only)
            lib.set_default_dtype(dtype)
            lib.set_grad_enabled(grad)


def printed(source: str) -> str:
    """What the program prints, object addresses and the library's module name left out."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings(), _global_modes_kept():
        warnings.simplefilter("ignore")
        exec(compile(source, "<tutorial>", "exec"), {"__name__": "__main__"})
    return _ADDRESS.sub("", out.getvalue()).replace("gradjit.", "torch.")


def assert_same_output(source: str, rtol: float = 1e-4) -> str:
    """Both runs print the same lines, numbers equal to rtol (relative above 1, absolute
    below); returns torch's output."""
    source = textwrap.dedent(source)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # torch's thread pool on a shared, busy machine: 100x slower
    try:
        want = printed(source)
    finally:
        torch.set_num_threads(threads)
    got = printed(ported(source))
    want_lines, got_lines = want.splitlines(), got.splitlines()
    assert len(want_lines) == len(got_lines), f"torch printed:\n{want}\ngradjit printed:\n{got}"
    for expected, line in zip(want_lines, got_lines):
        assert _NUMBER.sub("#", expected) == _NUMBER.sub("#", line), (expected, line)
        for a, b in zip(_NUMBER.findall(expected), _NUMBER.findall(line)):
            a, b = float(a), float(b)
            assert a == b or abs(a - b) <= rtol * max(1.0, abs(a)), (expected, line)
    return want
