"""torch.linalg: PyTorch's linear-algebra namespace, re-exported from the tensor layer."""
from gradjit.tensor.contract import linalg_cross as cross  # noqa: F401
from gradjit.tensor.contract import (matrix_norm, matrix_power, multi_dot, norm,  # noqa: F401
                                     vecdot, vector_norm)
from gradjit.tensor.functions import matmul  # noqa: F401
