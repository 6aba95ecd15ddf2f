"""The dump tool: what the compiler made of a function at each stage (traced, gradient and
optimized IR, fused loops, LLVM IR, PTX, formulas, numpy source), as text or Graphviz."""
from gradjit.dump.lowered import Lowered, lower
from gradjit.dump.stages import FORMATS, STAGES, Options, dump

__all__ = ["FORMATS", "Lowered", "Options", "STAGES", "dump", "lower"]
