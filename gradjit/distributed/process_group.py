"""torch.distributed's process groups over TCP on the CPU ("gloo"): rank 0 listens at the
rendezvous address and every other rank connects to it; each collective gathers the ranks'
values at rank 0, which combines them in rank order (so every rank gets bit-identical results)
and sends each rank its part. Tensors are written in place, as PyTorch's collectives write."""
from __future__ import annotations

import datetime
import enum
import os
import pickle
import socket
import struct
import time

import numpy as np

_group: dict = {}  # the default group: rank, world_size, backend, links (rank 0: per rank)


class ReduceOp:
    """The reductions a collective applies across ranks."""

    class RedOpType(enum.Enum):
        SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR = range(8)

        def __repr__(self):
            return f"<RedOpType.{self.name}: {self.value}>"

        def __str__(self):
            return f"RedOpType.{self.name}"

    SUM, AVG, PRODUCT, MIN = RedOpType.SUM, RedOpType.AVG, RedOpType.PRODUCT, RedOpType.MIN
    MAX, BAND, BOR, BXOR = RedOpType.MAX, RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR


_COMBINE = {ReduceOp.SUM: np.add, ReduceOp.AVG: np.add, ReduceOp.PRODUCT: np.multiply,
            ReduceOp.MIN: np.minimum, ReduceOp.MAX: np.maximum, ReduceOp.BAND: np.bitwise_and,
            ReduceOp.BOR: np.bitwise_or, ReduceOp.BXOR: np.bitwise_xor}


class Backend(str):
    GLOO, NCCL, MPI = "gloo", "nccl", "mpi"


class Work:
    """What an async_op=True collective returns; collectives here finish before returning."""

    def wait(self, timeout=None):
        return True

    def is_completed(self):
        return True

    def is_success(self):
        return True


# ---- rendezvous and messages ----

def _rendezvous_env(init_method, rank, world_size):
    """(address, port, rank, world_size) from init_method (env:// or tcp://host:port) and the
    arguments, environment variables filling what is missing, as PyTorch reads them."""
    env = init_method in (None, "env://")
    if not env and not init_method.startswith("tcp://"):
        raise ValueError(f"gradjit's process groups rendezvous through env:// or "
                         f"tcp://host:port, not {init_method!r}")
    names = [("RANK", rank), ("WORLD_SIZE", world_size)] + ([("MASTER_ADDR", None),
                                                             ("MASTER_PORT", None)] if env else [])
    values = {}
    for name, given in names:
        if given is not None and given != -1:
            values[name] = given
        elif name in os.environ:
            values[name] = os.environ[name]
        else:
            raise ValueError(f"Error initializing torch.distributed using "
                             f"{'env' if env else 'tcp'}:// rendezvous: environment variable "
                             f"{name} expected, but not set")
    if not env:
        host, _, port = init_method[len("tcp://"):].rpartition(":")
        values["MASTER_ADDR"], values["MASTER_PORT"] = host, port
    return values["MASTER_ADDR"], int(values["MASTER_PORT"]), int(values["RANK"]), \
        int(values["WORLD_SIZE"])


def _send(link, obj):
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    link.sendall(struct.pack("!Q", len(data)) + data)


def _receive_exactly(link, n):
    chunks = []
    while n:
        chunk = link.recv(min(n, 1 << 20))
        if not chunk:
            raise RuntimeError("a rank of the process group closed its connection")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _receive(link):
    (n,) = struct.unpack("!Q", _receive_exactly(link, 8))
    return pickle.loads(_receive_exactly(link, n))


def _connect(address, port, rank, world_size, timeout):
    """Rank 0: a listening socket and a link from every other rank (by rank); others: one link
    to rank 0, retried until rank 0 listens or the timeout passes."""
    if rank == 0:
        server = socket.create_server((address, port), reuse_port=False)
        server.settimeout(timeout)
        links = {}
        with server:
            while len(links) < world_size - 1:
                try:
                    link, _ = server.accept()
                except TimeoutError:
                    missing = sorted(set(range(1, world_size)) - set(links))
                    raise RuntimeError(f"rank 0 waited {timeout:g} s at {address}:{port} for "
                                       f"ranks {missing}, which did not connect") from None
                link.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                links[_receive(link)] = link
        return links
    deadline = time.monotonic() + timeout
    while True:
        try:
            link = socket.create_connection((address, port), timeout=timeout)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"rank {rank} could not reach rank 0 at {address}:{port} "
                                   f"within {timeout:g} s") from None
            time.sleep(0.05)
    link.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    _send(link, rank)
    return {0: link}


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    if _group:
        raise ValueError("trying to initialize the default process group twice!")
    if backend is not None and str(backend).lower() not in ("gloo", "cpu:gloo"):
        if str(backend).lower() == "nccl":
            raise RuntimeError("Distributed package doesn't have NCCL built in")
        raise RuntimeError(f"gradjit's process groups run the gloo backend, not {backend!r}")
    address, port, rank, world_size = _rendezvous_env(init_method, rank, world_size)
    if not 0 <= rank < world_size:
        raise ValueError(f"Invalid rank {rank} for world size {world_size}")
    seconds = timeout.total_seconds() if isinstance(timeout, datetime.timedelta) else 1800.0
    _group.update(rank=rank, world_size=world_size, backend="gloo",
                  links=_connect(address, port, rank, world_size, seconds))


def destroy_process_group(group=None):
    for link in _group.get("links", {}).values():
        link.close()
    _group.clear()


def is_available():
    return True


def is_initialized():
    return bool(_group)


def is_gloo_available():
    return True


def is_nccl_available():
    return False


def is_mpi_available():
    return False


def _checked():
    if not _group:
        raise ValueError("Default process group has not been initialized, please make sure "
                         "to call init_process_group.")
    return _group


def get_rank(group=None):
    return _checked()["rank"]


def get_world_size(group=None):
    return _checked()["world_size"]


def get_backend(group=None):
    return _checked()["backend"]


def _exchange(value, answer):
    """Every rank's `value` meets at rank 0, which computes answer(values in rank order) ->
    one reply per rank; this rank's reply is returned."""
    group = _checked()
    if group["rank"]:
        _send(group["links"][0], value)
        return _receive(group["links"][0])
    values = [value] + [_receive(group["links"][r]) for r in range(1, group["world_size"])]
    replies = answer(values)
    for r in range(1, group["world_size"]):
        _send(group["links"][r], replies[r])
    return replies[0]


def _done(async_op):
    return Work() if async_op else None


def _array(tensor):
    return np.array(tensor.detach().numpy(), copy=True)


def _write(tensor, array):
    import gradjit
    with gradjit.no_grad():
        tensor.copy_(gradjit.from_numpy(np.ascontiguousarray(array)))


def _check_op(op):
    """Checked on every rank before any message, so that a bad op stops them all."""
    if op not in _COMBINE:
        raise ValueError(f"unknown reduction {op!r}: use a torch.distributed.ReduceOp")


def _reduced(values, op):
    total = values[0]
    for v in values[1:]:
        total = _COMBINE[op](total, v)
    return total / len(values) if op is ReduceOp.AVG else total


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    _check_op(op)
    value = _array(tensor)
    result = _exchange(value, lambda vs: [_reduced(vs, op)] * len(vs))
    _write(tensor, result.astype(value.dtype, copy=False))
    return _done(async_op)


def reduce(tensor, dst=0, op=ReduceOp.SUM, group=None, async_op=False):
    _check_op(op)
    value = _array(tensor)
    result = _exchange(value, lambda vs: [_reduced(vs, op) if r == dst else None
                                          for r in range(len(vs))])
    if result is not None:
        _write(tensor, result.astype(value.dtype, copy=False))
    return _done(async_op)


def broadcast(tensor, src=0, group=None, async_op=False):
    mine = _array(tensor) if get_rank() == src else None
    _write(tensor, _exchange(mine, lambda vs: [vs[src]] * len(vs)))
    return _done(async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    for out, value in zip(tensor_list, _exchange(_array(tensor), lambda vs: [vs] * len(vs))):
        _write(out, value)
    return _done(async_op)


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    values = _exchange(_array(tensor), lambda vs: [vs if r == dst else None
                                                   for r in range(len(vs))])
    if values is not None:
        for out, value in zip(gather_list, values):
            _write(out, value)
    return _done(async_op)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    mine = [_array(t) for t in scatter_list] if get_rank() == src else None
    _write(tensor, _exchange(mine, lambda vs: list(vs[src])))
    return _done(async_op)


def barrier(group=None, async_op=False, device_ids=None):
    _exchange(None, lambda vs: [None] * len(vs))
    return _done(async_op)


def all_gather_object(object_list, obj, group=None):
    object_list[:] = _exchange(obj, lambda vs: [vs] * len(vs))


def broadcast_object_list(object_list, src=0, group=None, device=None):
    mine = list(object_list) if get_rank() == src else None
    object_list[:] = _exchange(mine, lambda vs: [vs[src]] * len(vs))


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    values = _exchange(obj, lambda vs: [vs if r == dst else None for r in range(len(vs))])
    if values is not None:
        object_gather_list[:] = values


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=0,
                        group=None):
    mine = list(scatter_object_input_list) if get_rank() == src else None
    scatter_object_output_list[0] = _exchange(mine, lambda vs: list(vs[src]))
