"""torch.linalg: PyTorch's linear-algebra namespace, re-exported from the tensor layer."""
from gradjit.tensor.contract import linalg_cross as cross  # noqa: F401
from gradjit.tensor.contract import (matrix_norm, matrix_power, multi_dot, norm,  # noqa: F401
                                     vecdot, vector_norm)
from gradjit.tensor.composite_functions import matrix_exp  # noqa: F401
from gradjit.tensor.functions import matmul  # noqa: F401
from gradjit.tensor.linalg import (LinAlgError, cholesky, cond, det, diagonal,  # noqa: F401
                                   eig, eigh, eigvals, eigvalsh, inv, lstsq, matrix_rank, pinv,
                                   qr, slogdet, solve, solve_triangular, svd, svdvals,
                                   tensorinv, tensorsolve)
from gradjit.tensor.linalg_ex import cholesky_ex, inv_ex, solve_ex, vander  # noqa: F401
from gradjit.tensor.linalg_householder import householder_product  # noqa: F401
from gradjit.tensor.linalg_ldl import ldl_factor, ldl_factor_ex, ldl_solve  # noqa: F401
from gradjit.tensor.linalg_lu import lu, lu_factor, lu_factor_ex, lu_solve  # noqa: F401
