"""torch.linalg: linear algebra on Tensors."""
from gradjit.tensor.linalg import (LinAlgError, cholesky, det, eigh, eigvalsh,  # noqa: F401
                                   inv, lstsq, matrix_rank, pinv, qr, slogdet, solve,
                                   solve_triangular, svd, svdvals)
