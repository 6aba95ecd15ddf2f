"""torch.multiprocessing: tensors moved to shared memory are written by other processes (forked
or spawned) and the writes are seen here, as with PyTorch's shared storages; spawn runs
nprocs copies and reports a failing one as PyTorch does."""
import pytest

import gradjit
import gradjit.multiprocessing as mp


def _add_rank(rank, t):
    t[rank] += rank + 1


def _train(rank, model, steps):
    """Hogwild: each process steps the shared parameters with its own optimizer."""
    gradjit.manual_seed(rank)
    opt = gradjit.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        opt.zero_grad()
        model(gradjit.ones(1, 2)).sum().backward()
        opt.step()


def _fail(rank):
    if rank == 1:
        raise ValueError("rank one fails")


def _exit(rank, how):
    import os
    import signal
    if how == "code":
        os._exit(3)
    os.kill(os.getpid(), signal.SIGKILL)


def test_writes_in_other_processes_reach_a_shared_tensor():
    t = gradjit.zeros(3).share_memory_()
    assert t.is_shared() and not gradjit.zeros(3).is_shared()
    mp.start_processes(_add_rank, args=(t,), nprocs=3, start_method="fork")
    assert t.tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_hogwild_training_steps_the_shared_parameters(start_method):
    model = gradjit.nn.Linear(2, 1)
    with gradjit.no_grad():
        model.weight.fill_(0.0)
        model.bias.fill_(0.0)
    model.share_memory()
    mp.start_processes(_train, args=(model, 5), nprocs=2, start_method=start_method)
    # the loss's gradient is 1 for the bias and each weight: 2 processes x 5 steps x 0.1, but
    # Hogwild's unlocked read-modify-writes may lose some of the other process's steps (as in
    # PyTorch): at least one process's 5 steps reach the parent's parameters, at most both's
    for p in (model.bias, model.weight):
        values = p.detach().numpy()
        assert ((values >= -1.0 - 1e-6) & (values <= -0.5 + 1e-6)).all(), values
    assert isinstance(model.weight, gradjit.nn.Parameter) and model.weight.requires_grad


def test_a_failing_process_raises_with_its_traceback():
    with pytest.raises(mp.ProcessRaisedException, match="rank one fails") as info:
        mp.spawn(_fail, nprocs=2, start_method="spawn")
    assert info.value.error_index == 1


def test_shared_tensors_pickle_as_copies_outside_multiprocessing():
    import pickle
    t = gradjit.arange(4.0).share_memory_()
    copy = pickle.loads(pickle.dumps(t))
    copy[0] = 10.0
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0] and not copy.is_shared()


def test_a_process_that_exits_with_a_code_is_named_as_pytorch_names_it():
    with pytest.raises(mp.ProcessExitedException, match="^process 0 terminated with exit code "
                                                        "3$") as info:
        mp.spawn(_exit, args=("code",), start_method="spawn")
    assert info.value.exit_code == 3 and info.value.signal_name is None


def test_a_process_killed_by_a_signal_is_named_as_pytorch_names_it():
    with pytest.raises(mp.ProcessExitedException, match="^process 0 terminated with signal "
                                                        "SIGKILL$") as info:
        mp.spawn(_exit, args=("signal",), start_method="spawn")
    assert info.value.signal_name == "SIGKILL"


def test_sharing_strategies():
    import torch.multiprocessing as tmp
    assert mp.get_all_sharing_strategies() == tmp.get_all_sharing_strategies()
    assert mp.get_sharing_strategy() == tmp.get_sharing_strategy()
    mp.set_sharing_strategy("file_system")
    assert mp.get_sharing_strategy() == "file_system"
    mp.set_sharing_strategy("file_descriptor")
    with pytest.raises(AssertionError):
        mp.set_sharing_strategy("pipes")
