"""torch.utils.data's stacked, chained and distributed datasets and its module paths, against
torch: the same samples, shares and errors."""
import importlib

import pytest
import torch

import gradjit
from tests.torch_reference import same_error


def _plain(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [_plain(v) for v in value]
    return value


def _stream(lib, n):
    class Stream(lib.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(n))

        def __len__(self):
            return n
    return Stream()


SAMPLES = {
    "stack-tuple": lambda L: [L.utils.data.StackDataset([1, 2], L.arange(2))[i] for i in (0, 1)],
    "stack-dict": lambda L: L.utils.data.StackDataset(a=[1, 2], b=[3, 4]).__getitems__([1, 0]),
    "stack-loader": lambda L: list(L.utils.data.DataLoader(
        L.utils.data.StackDataset(x=L.arange(5.0), y=list(range(5))), batch_size=2)),
    "chain": lambda L: list(L.utils.data.ChainDataset([_stream(L, 3), _stream(L, 2)])),
    "chain-len": lambda L: len(L.utils.data.ChainDataset([_stream(L, 3), _stream(L, 2)])),
    "chain-loader": lambda L: list(L.utils.data.DataLoader(
        L.utils.data.ChainDataset([_stream(L, 3), _stream(L, 3)]), batch_size=4)),
    "worker-info": lambda L: L.utils.data.get_worker_info(),
}


@pytest.mark.parametrize("name", SAMPLES)
def test_samples_match_pytorch(name):
    assert _plain(SAMPLES[name](gradjit)) == _plain(SAMPLES[name](torch))


@pytest.mark.parametrize("n, replicas", [(10, 3), (9, 3), (2, 4), (7, 1)])
@pytest.mark.parametrize("shuffle", [True, False])
@pytest.mark.parametrize("drop_last", [True, False])
def test_distributed_shares_match_pytorch(n, replicas, shuffle, drop_last):
    for epoch in (0, 3):
        shares = []
        for lib in (gradjit, torch):
            share = []
            for rank in range(replicas):
                sampler = lib.utils.data.DistributedSampler(
                    range(n), num_replicas=replicas, rank=rank, shuffle=shuffle, seed=7,
                    drop_last=drop_last)
                sampler.set_epoch(epoch)
                share.append((list(sampler), len(sampler), sampler.total_size))
            shares.append(share)
        assert shares[0] == shares[1]


ERRORS = {
    "stack-none": lambda L: L.utils.data.StackDataset(),
    "stack-sizes": lambda L: L.utils.data.StackDataset([1, 2], [1]),
    "stack-both": lambda L: L.utils.data.StackDataset([1], b=[2]),
    "chain-map-style": lambda L: len(L.utils.data.ChainDataset([range(3)])),
    "chain-map-style-iter": lambda L: list(L.utils.data.ChainDataset([range(3)])),
    "distributed-no-group": lambda L: L.utils.data.DistributedSampler(range(5)),
    "distributed-rank": lambda L: L.utils.data.DistributedSampler(range(5), num_replicas=2,
                                                                  rank=2),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_pytorch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


@pytest.mark.parametrize("module, names", [
    ("dataloader", ["DataLoader", "default_collate", "default_convert", "get_worker_info"]),
    ("dataset", ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset",
                 "StackDataset", "Subset", "random_split"]),
    ("sampler", ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
                 "WeightedRandomSampler", "BatchSampler"]),
    ("distributed", ["DistributedSampler"]),
])
def test_torch_module_paths_hold_the_same_names(module, names):
    ours = importlib.import_module(f"gradjit.utils.data.{module}")
    theirs = importlib.import_module(f"torch.utils.data.{module}")
    for name in names:
        assert hasattr(theirs, name)
        assert getattr(ours, name) is getattr(gradjit.utils.data, name)
