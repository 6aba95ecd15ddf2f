"""The PTX target: fused kernels as GPU kernels (grid-stride loops, shared-memory reductions,
tiled matrix products) for NVPTX, and their host build for the grid emulator."""
from gradjit.codegen.ptx.compile import TARGETS, compile_gpu, ptx_of
from gradjit.codegen.ptx.target import PTX_ISA, SM

__all__ = ["PTX_ISA", "SM", "TARGETS", "compile_gpu", "ptx_of"]
