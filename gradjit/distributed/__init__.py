"""Data-parallel gradients on a Dask cluster (`pip install 'gradjit[distributed]'`): a loss
that sums or averages over the rows of dask arrays is differentiated chunk by chunk on the
workers and reduced into numpy arrays on the client. Importing gradjit does not import this.

torch.distributed's process groups are not here: `is_available()` is False, so code written
for them takes its single-process path, and the calls that need a group say so."""
from __future__ import annotations

from gradjit.distributed.gradient import DataParallel


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


_NO_GROUP = "Default process group has not been initialized, please make sure to call " \
    "init_process_group."


def is_available():
    """False: gradjit has no process-group backend (gloo, nccl, mpi)."""
    return False


def is_initialized():
    return False


def init_process_group(*args, **kwargs):
    raise RuntimeError("gradjit has no process-group backend (torch.distributed.is_available() "
                       "is False): run one process, or spread a loss's gradient over a Dask "
                       "cluster with gradjit.distributed.grad")


def get_rank(group=None):
    raise ValueError(_NO_GROUP)


def get_world_size(group=None):
    raise ValueError(_NO_GROUP)
