"""Compilation with Python's cyclic garbage collector paused: the compiler's objects stay
alive until it returns, so collections during it find nothing to free."""
from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def collector_paused():
    """Run the block without cyclic collections. A compile of a long program allocates
    millions of nodes, IR values and llvmlite instructions, every one still referenced, and
    each full collection walks all of them again: it had cost as much as building the LLVM IR.
    The collector resumes (if it was running) on the way out, so nothing is leaked."""
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()
