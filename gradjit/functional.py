"""torch.functional: the tensor functions PyTorch also keeps in this module, the same objects
as gradjit's own."""
from gradjit import (atleast_1d, atleast_2d, atleast_3d, block_diag,  # noqa: F401
                     broadcast_shapes, broadcast_tensors, cartesian_prod, cdist, chain_matmul,
                     einsum, istft, lu, meshgrid, norm, pca_lowrank, split, stft, svd_lowrank,
                     tensordot, unique, unique_consecutive, unravel_index)

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
           "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu",
           "norm", "meshgrid", "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot",
           "unique", "unique_consecutive", "unravel_index"]
