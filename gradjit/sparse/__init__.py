"""torch.sparse: the sparse COO layout (gradjit.sparse.tensor) and the functions of its
namespace."""
from gradjit.sparse.functions import (addmm, check_sparse_tensor_invariants,  # noqa: F401
                                      log_softmax, mm, sampled_addmm, softmax, spdiags,
                                      sum)
from gradjit.sparse.tensor import SparseTensor, sparse_coo_tensor  # noqa: F401
from gradjit.sparse.csr import SparseCsrTensor, sparse_csr_tensor  # noqa: F401

__all__ = ["addmm", "check_sparse_tensor_invariants", "log_softmax", "mm", "sampled_addmm",
           "softmax", "spdiags", "sum"]
