"""Data-parallel gradients on Dask: the compiled per-shard value and gradient of a loss is mapped
over aligned row chunks of dask arrays, and the results are tree-reduced into numpy arrays.
Dask places, moves and retries the tasks; gradjit compiles and runs them (once per worker)."""
from __future__ import annotations

import uuid

import numpy as np

import gradjit
from gradjit.tracer.portable import give_source, source_of

FAN_IN = 8  # partial results combined per reduction task


class DataParallel:
    """`f(params, *data)` whose value is a sum or mean over the rows of its `sharded`
    arguments, differentiated with respect to `argnums` on every aligned row chunk."""

    def __init__(self, fn, mode, argnums=0, reduce="sum", sharded=(1,), **options):
        if reduce not in ("sum", "mean"):
            raise ValueError(f"reduce must be 'sum' or 'mean', not {reduce!r}")
        self.mode, self.reduce = mode, reduce
        self.sharded = (sharded,) if isinstance(sharded, int) else tuple(sharded)
        wrt = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        if set(wrt) & set(self.sharded):
            raise ValueError(f"argnums {argnums} and sharded {self.sharded} overlap: gradients "
                             "are taken with respect to broadcast arguments, not sharded data")
        self.local = gradjit.value_and_grad(fn, argnums=argnums, **options)
        self._shipped = None  # (client, future of self.local on every worker)

    def __repr__(self) -> str:
        return f"<gradjit.distributed.{self.mode} of {self.local.__qualname__}>"

    def __call__(self, *args):
        import dask
        positions = [p % len(args) for p in self.sharded]
        shards, rows = _aligned_blocks([args[p] for p in positions])
        template = tuple(None if i in positions else a for i, a in enumerate(args))
        fn, template = self._broadcast(template)
        mean = self.reduce == "mean"
        source = source_of(self.local.fn)
        parts = [dask.delayed(_shard, pure=True)(fn, template, positions, blocks, mean, source)
                 for blocks, n in zip(shards, rows) if n]  # a chunk of no rows adds nothing
        if not parts:
            raise ValueError("the sharded arguments have no rows")
        while len(parts) > 1:
            parts = [dask.delayed(_combine, pure=True)(*parts[i:i + FAN_IN])
                     for i in range(0, len(parts), FAN_IN)]
        _, value, grads = dask.compute(parts[0])[0]
        if mean:
            total = sum(rows)
            value, grads = value / total, _tree_map(lambda g: g / total, grads)
        return grads if self.mode == "grad" else (value, grads)

    def cache_info(self):
        """The per-chunk function's cache counts (traces, hits, misses): {worker address:
        counts} once it has been sent to a cluster, else this process's counts."""
        if self._shipped is None or self._shipped[0].status != "running":
            return self.local.cache_info()
        client, future = self._shipped
        return client.run(_worker_cache_info, future.key)

    def _broadcast(self, template):
        """The transformed function and the broadcast arguments, as the tasks will reference
        them: with a distributed Client, scattered to every worker (the function once per
        client, so each worker keeps its compiled traces between calls); otherwise one
        graph key each."""
        import dask
        client = _client()
        if client is None:
            token = uuid.uuid4().hex
            return (dask.delayed(self.local, name=f"gradjit-fn-{token}", traverse=False),
                    dask.delayed(template, name=f"gradjit-args-{token}", traverse=False))
        if (self._shipped is None or self._shipped[0] is not client
                or self._shipped[1].status != "finished"):  # a new client, or data lost
            self._shipped = (client, client.scatter([self.local], broadcast=True, hash=False)[0])
        # hash=False: a fresh key per call (a key reused just as its last future is released
        # can be lost in between)
        return self._shipped[1], client.scatter([template], broadcast=True, hash=False)[0]


def _client():
    """The active dask.distributed Client, or None (dask's local scheduler then runs tasks)."""
    try:
        from distributed import default_client
        return default_client()
    except (ImportError, ValueError):
        return None


def _worker_cache_info(key, dask_worker):
    # None on a worker started after it was sent, or whose copy dask's active memory manager
    # dropped (it fetches one again when a shard needs it)
    found = dask_worker.data.get(key)
    return None if found is None else found.cache_info()


def _aligned_blocks(arrays):
    """Per row chunk, the blocks of every sharded array (as dask.delayed), and the rows per
    chunk. Arrays are split along axis 0 only, all like the first."""
    import dask.array as da
    arrays = [da.asarray(a) for a in arrays]
    first = arrays[0]
    for a in arrays:
        if a.ndim == 0 or a.shape[0] != first.shape[0]:
            raise ValueError(f"sharded arguments must have the same number of rows; shapes "
                             f"{[tuple(x.shape) for x in arrays]}")
    chunks = [a.rechunk({0: first.chunks[0], **{i: -1 for i in range(1, a.ndim)}})
              for a in arrays]
    blocks = [a.to_delayed().ravel() for a in chunks]
    return list(zip(*blocks)), first.chunks[0]


def _shard(fn, template, positions, blocks, mean, source):
    """(rows, value, gradients) of one chunk; with `mean`, value and gradients are weighted
    by the chunk's rows, so that the reduction's sum divided by all rows is the mean.
    `source` points the function back at the user's lines, for errors, however the worker
    received it (from the client, or copied from another worker)."""
    give_source(fn.fn, source)
    args = list(template)
    for p, block in zip(positions, blocks):
        # A block received from another process can sit at an odd offset of a network frame;
        # compiled code (BLAS most) runs several times slower on it than on an aligned copy.
        args[p] = block if block.flags.aligned else block.copy()
    value, grads = fn(*args)
    rows = blocks[0].shape[0]
    weight = rows if mean else 1
    return rows, np.asarray(value) * weight, _tree_map(lambda g: np.asarray(g) * weight, grads)


def _combine(*parts):
    rows, value, grads = parts[0]
    for r, v, g in parts[1:]:
        rows, value, grads = rows + r, value + v, _tree_map(np.add, grads, g)
    return rows, value, grads


def _tree_map(fn, tree, *others):
    """`fn` over the leaves of nested tuples/lists/dicts (the gradients' structure)."""
    if isinstance(tree, dict):
        return {k: _tree_map(fn, v, *[o[k] for o in others]) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)):
        children = [_tree_map(fn, *xs) for xs in zip(tree, *others)]
        return type(tree)(*children) if hasattr(tree, "_fields") else type(tree)(children)
    return fn(tree, *others)
