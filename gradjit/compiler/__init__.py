"""gradjit.compile (torch.compile) and torch.compiler's is_compiling."""
from __future__ import annotations

from gradjit.compiler.compiled import Compiled, GraphBreak, compile, is_compiling

__all__ = ["Compiled", "GraphBreak", "compile", "is_compiling"]
