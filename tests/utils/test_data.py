"""gradjit.utils.data against torch.utils.data: the same batches, in the same order after the
same seed (and the default generator left in the same state), the same collation and the
same errors."""
import collections

import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error


def _plain(value):
    """Batches as nested Python values, with each tensor's dtype."""
    if hasattr(value, "tolist") and hasattr(value, "dtype"):
        return (str(value.dtype).replace("gradjit", "torch"), value.tolist())
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [_plain(v) for v in value]
    return value


class Squares:
    def __init__(self, lib, n):
        self.lib, self.n = lib, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": self.lib.tensor([float(i), i * i]), "label": i % 3, "name": f"s{i}",
                "weight": 0.5 * i, "array": np.full(2, i, np.int32)}


LOADERS = {
    "shuffle": lambda L, D: D.DataLoader(D.TensorDataset(L.arange(20.).reshape(10, 2),
                                                         L.arange(10)), batch_size=4,
                                         shuffle=True),
    "drop_last": lambda L, D: D.DataLoader(D.TensorDataset(L.arange(10)), batch_size=3,
                                           shuffle=True, drop_last=True),
    "dicts": lambda L, D: D.DataLoader(Squares(L, 7), batch_size=3),
    "no-batching": lambda L, D: D.DataLoader(D.TensorDataset(L.arange(4)), batch_size=None),
    "generator": lambda L, D: D.DataLoader(range(9), batch_size=2, shuffle=True,
                                           generator=L.Generator().manual_seed(5)),
    "replacement": lambda L, D: D.DataLoader(range(50), batch_size=8, sampler=D.RandomSampler(
        range(50), replacement=True, num_samples=40)),
    "weighted": lambda L, D: D.DataLoader(range(4), batch_size=5, sampler=D.WeightedRandomSampler(
        [0.1, 0.2, 0.3, 0.4], 10)),
    "subset-sampler": lambda L, D: D.DataLoader(range(10), batch_size=3,
                                                sampler=D.SubsetRandomSampler([1, 4, 6, 9])),
    "batch_sampler": lambda L, D: D.DataLoader(range(10), batch_sampler=D.BatchSampler(
        D.SequentialSampler(range(10)), 4, False)),
    "concat": lambda L, D: D.DataLoader(D.ConcatDataset([range(3), range(10, 14)]),
                                        batch_size=3, shuffle=True),
    "tuples-numbers": lambda L, D: D.DataLoader([(1, 2.5, True), (3, 4.5, False)],
                                                batch_size=2),
    "namedtuple": lambda L, D: D.DataLoader(
        [collections.namedtuple("P", "a b")(i, float(i)) for i in range(3)], batch_size=2),
}


@pytest.mark.parametrize("name", LOADERS)
def test_batches_match_pytorch(name):
    seen = []
    for lib in (torch, gradjit):
        lib.manual_seed(0)
        loader = LOADERS[name](lib, lib.utils.data)
        passes = [[_plain(batch) for batch in loader] for _ in range(2)]
        seen.append((len(loader), passes, lib.rand(3).tolist()))
    assert seen[0] == seen[1]


def test_iterable_datasets_and_random_split_match_pytorch():
    results = []
    for lib in (torch, gradjit):
        D = lib.utils.data

        class Counting(D.IterableDataset):
            def __iter__(self):
                return iter(range(7))
        lib.manual_seed(1)
        split = D.random_split(range(10), [0.5, 0.3, 0.2])
        halves = D.random_split(D.TensorDataset(lib.arange(6)), [4, 2],
                                generator=lib.Generator().manual_seed(3))
        results.append(([_plain(b) for b in D.DataLoader(Counting(), batch_size=3)],
                        [list(s) for s in split], [s.indices for s in halves],
                        _plain(halves[0][1]), len(D.ConcatDataset([range(2), range(3)]))))
    assert results[0] == results[1]


def _stream(lib):
    class Stream(lib.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(3))
    return Stream()


ERRORS = {
    "tensor-sizes": lambda L: L.utils.data.TensorDataset(L.ones(2), L.ones(3)),
    "split-sum": lambda L: L.utils.data.random_split(range(5), [2, 2]),
    "sampler-and-shuffle": lambda L: L.utils.data.DataLoader(
        range(3), sampler=L.utils.data.SequentialSampler(range(3)), shuffle=True),
    "batch-sampler-and-size": lambda L: L.utils.data.DataLoader(
        range(3), batch_size=2, batch_sampler=[[0, 1]]),
    "batch-size": lambda L: L.utils.data.BatchSampler(range(3), 0, False),
    "num-samples": lambda L: L.utils.data.RandomSampler(range(3), num_samples=0),
    "uneven-lists": lambda L: list(L.utils.data.DataLoader([[1, 2], [3]], batch_size=2)),
    "drop-last-no-batching": lambda L: L.utils.data.DataLoader(range(3), batch_size=None,
                                                               drop_last=True),
    "concat-index": lambda L: L.utils.data.ConcatDataset([range(2)])[-3],
    "concat-empty": lambda L: L.utils.data.ConcatDataset([]),
    "concat-iterable": lambda L: L.utils.data.ConcatDataset([_stream(L)]),
    "iterable-shuffle": lambda L: L.utils.data.DataLoader(_stream(L), shuffle=True),
    "iterable-abstract": lambda L: L.utils.data.IterableDataset(),
    "dataset-getitem": lambda L: L.utils.data.Dataset()[0],
    "sampler-iter": lambda L: iter(L.utils.data.Sampler()),
    "collate-type": lambda L: list(L.utils.data.DataLoader([object(), object()], batch_size=2)),
    "weighted-num-samples": lambda L: L.utils.data.WeightedRandomSampler([1.0], 0),
    "weighted-2d": lambda L: L.utils.data.WeightedRandomSampler([[1.0]], 1),
    "num-workers": lambda L: L.utils.data.DataLoader(range(3), num_workers=-1),
    "replacement": lambda L: L.utils.data.RandomSampler(range(3), replacement=1),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_pytorch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


def test_a_tutorial_training_loop_over_a_loader_matches_pytorch():
    losses = []
    for lib in (torch, gradjit):
        lib.manual_seed(0)
        X, y = lib.randn(64, 3), lib.randn(64, 1)
        loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(X, y), batch_size=16,
                                           shuffle=True)
        model = lib.nn.Linear(3, 1)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        history = []
        for _ in range(3):
            for xb, yb in loader:
                loss = lib.nn.functional.mse_loss(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                history.append(loss.item())
        losses.append(history)
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-5)
