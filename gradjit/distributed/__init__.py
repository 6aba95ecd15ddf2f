"""Data-parallel gradients on a Dask cluster (`pip install 'gradjit[distributed]'`): a loss
that sums or averages over the rows of dask arrays is differentiated chunk by chunk on the
workers and reduced into numpy arrays on the client. Importing gradjit does not import this.

torch.distributed's process groups (init_process_group, the collectives) are here too, over
TCP between processes on the CPU (gradjit.distributed.process_group)."""
from __future__ import annotations

from gradjit.distributed.gradient import DataParallel
from gradjit.distributed.process_group import (
    Backend, ReduceOp, Work, all_gather, all_gather_object, all_reduce, barrier, broadcast,
    broadcast_object_list, destroy_process_group, gather, gather_object, get_backend, get_rank,
    get_world_size, init_process_group, is_available, is_gloo_available, is_initialized,
    is_mpi_available, is_nccl_available, reduce, scatter, scatter_object_list)


def grad(fn=None, argnums=0, *, reduce="sum", sharded=(1,), **options):
    """The gradient of `fn(params, *data)` with respect to `argnums`, where the positional
    arguments `sharded` are dask arrays (or numpy arrays) split into row chunks along axis 0
    and `fn` is a sum (`reduce="sum"`) or a mean (`"mean"`) over their rows. The other
    arguments are sent to every worker once per call. Chunks are aligned on the first sharded
    array's; each is a task running `gradjit.value_and_grad(fn, argnums, **options)`, and the
    per-chunk results are tree-reduced (means weighted by rows). Runs on the active
    `dask.distributed.Client`, else on Dask's local scheduler; returns numpy arrays in the
    structure of the differentiated arguments."""
    if fn is None:
        return lambda f: DataParallel(f, "grad", argnums, reduce, sharded, **options)
    return DataParallel(fn, "grad", argnums, reduce, sharded, **options)


def value_and_grad(fn=None, argnums=0, *, reduce="sum", sharded=(1,), **options):
    """Like `grad`, returning (value, gradients): the loss over all rows as well."""
    if fn is None:
        return lambda f: DataParallel(f, "value_and_grad", argnums, reduce, sharded, **options)
    return DataParallel(fn, "value_and_grad", argnums, reduce, sharded, **options)


__all__ = ["Backend", "DataParallel", "ReduceOp", "Work", "all_gather", "all_gather_object",
           "all_reduce", "barrier", "broadcast", "broadcast_object_list",
           "destroy_process_group", "gather", "gather_object", "get_backend", "get_rank",
           "get_world_size", "grad", "init_process_group", "is_available", "is_gloo_available",
           "is_initialized", "is_mpi_available", "is_nccl_available", "reduce", "scatter",
           "scatter_object_list", "value_and_grad"]
