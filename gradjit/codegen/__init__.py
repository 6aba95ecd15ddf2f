"""IR -> kernels: fusion into loop nests, LLVM IR emission, the math library, CPU/PTX targets."""
from gradjit.codegen.compile import compile_function  # noqa: E402
from gradjit.runtime.threads import get_num_threads, set_num_threads  # noqa: E402

__all__ = ["compile_function", "get_num_threads", "set_num_threads"]
