"""torch.linalg: PyTorch's linear-algebra namespace, re-exported from the tensor layer, with
out= on the functions that take it (the result written into the given tensors)."""
from gradjit.tensor import contract, linalg, linalg_ex, linalg_householder, linalg_ldl, linalg_lu
from gradjit.tensor.composite_functions import matrix_exp  # noqa: F401
from gradjit.tensor.functions import matmul, with_out  # noqa: F401
from gradjit.tensor.linalg import LinAlgError, diagonal, lstsq  # noqa: F401
from gradjit.tensor.linalg_ex import vander  # noqa: F401


# The ATen operation whose name torch's out= errors give, where it is not linalg_<name>
_ATEN = {"det": "_linalg_det", "inv": "linalg_inv_ex", "solve": "_linalg_solve_ex",
         "cholesky": "linalg_cholesky_ex", "svdvals": "_linalg_svd", "eigvalsh": "_linalg_eigh",
         "slogdet": "_linalg_slogdet"}


def _writing_out(fn):
    name = fn.__name__.removeprefix("linalg_")
    return with_out(_ATEN.get(name, f"linalg_{name}"), fn)


cross = _writing_out(contract.linalg_cross)
(matrix_norm, matrix_power, multi_dot, norm, vecdot, vector_norm) = map(_writing_out, (
    contract.matrix_norm, contract.matrix_power, contract.multi_dot, contract.norm,
    contract.vecdot, contract.vector_norm))
(cholesky, cond, det, eig, eigh, eigvals, eigvalsh, inv, matrix_rank, pinv, qr, slogdet, solve,
 solve_triangular, svd, svdvals, tensorinv, tensorsolve) = map(_writing_out, (
    linalg.cholesky, linalg.cond, linalg.det, linalg.eig, linalg.eigh, linalg.eigvals,
    linalg.eigvalsh, linalg.inv, linalg.matrix_rank, linalg.pinv, linalg.qr, linalg.slogdet,
    linalg.solve, linalg.solve_triangular, linalg.svd, linalg.svdvals, linalg.tensorinv,
    linalg.tensorsolve))
cholesky_ex, inv_ex, solve_ex = map(_writing_out, (linalg_ex.cholesky_ex, linalg_ex.inv_ex,
                                                   linalg_ex.solve_ex))
householder_product = _writing_out(linalg_householder.householder_product)
ldl_factor, ldl_factor_ex, ldl_solve = map(_writing_out, (
    linalg_ldl.ldl_factor, linalg_ldl.ldl_factor_ex, linalg_ldl.ldl_solve))
lu, lu_factor, lu_factor_ex, lu_solve = map(_writing_out, (
    linalg_lu.lu, linalg_lu.lu_factor, linalg_lu.lu_factor_ex, linalg_lu.lu_solve))
