"""torch.linalg: linear algebra on Tensors."""
from gradjit.tensor.linalg import (LinAlgError, cholesky, cond, det, diagonal,  # noqa: F401
                                   eigh, eigvalsh, inv, lstsq, matrix_rank, pinv, qr, slogdet,
                                   solve, solve_triangular, svd, svdvals, tensorinv,
                                   tensorsolve)
