"""torch.sparse: the sparse COO layout (gradjit.sparse.tensor) and the functions of its
namespace."""
from gradjit.sparse.functions import addmm, log_softmax, mm, softmax, sum  # noqa: F401
from gradjit.sparse.tensor import SparseTensor, sparse_coo_tensor  # noqa: F401
from gradjit.sparse.csr import SparseCsrTensor, sparse_csr_tensor  # noqa: F401

__all__ = ["addmm", "log_softmax", "mm", "softmax", "sum"]
