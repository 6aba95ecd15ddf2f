"""torch.distributed's process groups between processes on this machine: the collectives give
every rank what PyTorch's give (checked against numpy on each rank), DistributedDataParallel
trains as one process on the whole batch would, and the calls without a group raise torch's
errors."""
import os
import socket

import numpy as np
import pytest
import torch

import gradjit
import gradjit.distributed as dist
import gradjit.multiprocessing as mp
from tests.torch_reference import same_error

WORLD = 3


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(rank, port, world=WORLD):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world)


def _collectives(rank, port):
    _start(rank, port)
    assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (rank, WORLD, "gloo")
    values = [np.arange(4.0) * (r + 1) - r for r in range(WORLD)]
    for op, combine in [(dist.ReduceOp.SUM, np.sum), (dist.ReduceOp.MAX, np.max),
                        (dist.ReduceOp.PRODUCT, np.prod), (dist.ReduceOp.AVG, np.mean)]:
        t = gradjit.tensor(values[rank])
        work = dist.all_reduce(t, op=op, async_op=True)
        assert work.wait() and work.is_completed()
        np.testing.assert_allclose(t.numpy(), combine(values, axis=0))
    t = gradjit.tensor(values[rank])
    dist.reduce(t, dst=1)
    np.testing.assert_allclose(t.numpy(), np.sum(values, 0) if rank == 1 else values[rank])
    t = gradjit.tensor(values[rank])
    dist.broadcast(t, src=2)
    np.testing.assert_array_equal(t.numpy(), values[2])
    gathered = [gradjit.zeros(4, dtype=gradjit.float64) for _ in range(WORLD)]
    dist.all_gather(gathered, gradjit.tensor(values[rank]))
    np.testing.assert_array_equal(np.stack([g.numpy() for g in gathered]), np.stack(values))
    out = gradjit.zeros(4, dtype=gradjit.float64)
    dist.scatter(out, [gradjit.tensor(v) for v in values] if rank == 0 else None, src=0)
    np.testing.assert_array_equal(out.numpy(), values[rank])
    objects = [None] * WORLD
    dist.all_gather_object(objects, {"rank": rank})
    assert objects == [{"rank": r} for r in range(WORLD)]
    message = ["from one", rank] if rank == 1 else [None, None]
    dist.broadcast_object_list(message, src=1)
    assert message == ["from one", 1]
    dist.barrier()
    dist.destroy_process_group()
    assert not dist.is_initialized()


def _model():
    gradjit.manual_seed(0)
    return gradjit.nn.Sequential(gradjit.nn.Linear(3, 4), gradjit.nn.Tanh(),
                                 gradjit.nn.Linear(4, 1))


def _data():
    gradjit.manual_seed(1)
    return gradjit.randn(12, 3), gradjit.randn(12, 1)


def _train(model, x, y, steps):
    opt = gradjit.optim.SGD(model.parameters(), lr=0.2, momentum=0.5)
    for _ in range(steps):
        opt.zero_grad()
        gradjit.nn.functional.mse_loss(model(x), y).backward()
        opt.step()


def _data_parallel(rank, port):
    _start(rank, port)
    x, y = _data()
    model = _model()
    if rank:  # rank 0's parameters reach every rank
        with gradjit.no_grad():
            for p in model.parameters():
                p.add_(rank)
    ddp = gradjit.nn.parallel.DistributedDataParallel(model)
    sampler = gradjit.utils.data.DistributedSampler(range(12), shuffle=False)
    share = list(sampler)
    _train(ddp, x[share], y[share], steps=4)
    reference = _model()
    _train(reference, x, y, steps=4)
    for ours, whole in zip(model.parameters(), reference.parameters()):
        np.testing.assert_allclose(ours.detach().numpy(), whole.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
    with ddp.no_sync():  # gradients stay local
        ddp.zero_grad()
        gradjit.nn.functional.mse_loss(ddp(x[share]), y[share]).backward()
    local = [p.grad.clone() for p in model.parameters()]
    summed = [g.clone() for g in local]
    for g in summed:
        dist.all_reduce(g)
    assert any(not np.allclose(a.numpy(), b.numpy() / WORLD) for a, b in zip(local, summed))
    dist.destroy_process_group()


@pytest.mark.parametrize("run", [_collectives, _data_parallel])
def test_ranks_in_processes(run):
    mp.spawn(run, args=(_free_port(),), nprocs=WORLD, start_method="spawn")


def test_env_rendezvous_in_one_process(monkeypatch):
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", str(_free_port()))
    dist.init_process_group("gloo", rank=0, world_size=1)
    try:
        with pytest.raises(ValueError, match="twice"):
            dist.init_process_group("gloo", rank=0, world_size=1)
        t = gradjit.ones(2)
        dist.all_reduce(t)
        assert t.tolist() == [1.0, 1.0] and dist.is_initialized()
    finally:
        dist.destroy_process_group()


def test_no_group():
    assert dist.is_available() and not dist.is_initialized()
    for name in ("get_rank", "get_world_size"):
        same_error(getattr(dist, name), getattr(torch.distributed, name))
    same_error(lambda: gradjit.utils.data.DistributedSampler(range(4)),
               lambda: torch.utils.data.DistributedSampler(range(4)))
    same_error(lambda: gradjit.nn.parallel.DistributedDataParallel(gradjit.nn.Linear(1, 1)),
               lambda: torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(1, 1)))


def test_rendezvous_errors_match_pytorch(monkeypatch):
    for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(name, raising=False)
    same_error(lambda: dist.init_process_group("gloo"),
               lambda: torch.distributed.init_process_group("gloo"))
    same_error(lambda: dist.init_process_group("gloo", rank=0, world_size=1),
               lambda: torch.distributed.init_process_group("gloo", rank=0, world_size=1))
    same_error(lambda: dist.init_process_group("nccl", init_method="tcp://127.0.0.1:1", rank=0,
                                               world_size=1),
               lambda: torch.distributed.init_process_group(
                   "nccl", init_method="tcp://127.0.0.1:1", rank=0, world_size=1))
    assert os.environ.get("MASTER_ADDR") is None


def _connect_as_rank_one_and_leave(_, port):
    _start(1, port, world=2)
    os._exit(0)


def test_a_rank_that_leaves_or_never_comes_is_named_not_waited_for():
    import datetime
    port = _free_port()
    context = mp.start_processes(_connect_as_rank_one_and_leave, args=(port,), join=False,
                                 start_method="spawn")
    try:
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0,
                                world_size=2, timeout=datetime.timedelta(seconds=60))
        with pytest.raises(RuntimeError, match="closed its connection"):
            dist.all_reduce(gradjit.ones(2))
    finally:
        dist.destroy_process_group()
        context.processes[0].join()
    with pytest.raises(RuntimeError, match=r"rank 0 waited 0.3 s at 127\.0\.0\.1:\d+ for "
                                           r"ranks \[1, 2\]"):
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{_free_port()}", rank=0,
                                world_size=3, timeout=datetime.timedelta(seconds=0.3))
    assert not dist.is_initialized()


def test_argument_errors_name_the_problem():
    import datetime
    with pytest.raises(RuntimeError, match=r"could not reach rank 0 at 127\.0\.0\.1"):
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{_free_port()}", rank=1,
                                world_size=2, timeout=datetime.timedelta(seconds=0.3))
    with pytest.raises(ValueError, match="Invalid rank 2 for world size 2"):
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1:1", rank=2, world_size=2)
    with pytest.raises(ValueError, match="rendezvous through env:// or tcp://"):
        dist.init_process_group("gloo", init_method="file:///tmp/rendezvous", rank=0,
                                world_size=1)
    with pytest.raises(RuntimeError, match="run the gloo backend, not 'mpi'"):
        dist.init_process_group("mpi", init_method="tcp://127.0.0.1:1", rank=0, world_size=1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{_free_port()}", rank=0,
                            world_size=1)
    try:
        with pytest.raises(ValueError, match="unknown reduction 'sum'"):
            dist.all_reduce(gradjit.ones(2), op="sum")
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()
