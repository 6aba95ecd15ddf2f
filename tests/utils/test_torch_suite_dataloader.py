"""PyTorch's dataloader suite (test_dataloader.py) run in this process (num_workers=0) side by
side with torch: batches of map-style, iterable, chained, stacked and split datasets,
default_collate and default_convert of each kind of sample, the samplers and their lengths,
and the refusals of contradictory or worker-only options."""
import collections

import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()


def stream(lib, n):
    """An IterableDataset of lib yielding 0..n-1, with a length."""
    class Stream(lib.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(n))

        def __len__(self):
            return n
    return Stream()


@scenario
def tensor_dataset_batches(lib):
    D = lib.utils.data
    ds = D.TensorDataset(lib.arange(10.).reshape(5, 2), lib.arange(5))
    return (list(D.DataLoader(ds, batch_size=2)), len(D.DataLoader(ds, batch_size=2)),
            len(D.DataLoader(ds, batch_size=2, drop_last=True)),
            list(D.DataLoader(ds, batch_size=2, drop_last=True)),
            list(D.DataLoader(ds, batch_size=None)))


@scenario
def list_dataset_batches(lib):
    D = lib.utils.data
    return (list(D.DataLoader([1, 2, 3, 4, 5], batch_size=2)),
            list(D.DataLoader([1.5, 2.5], batch_size=None)),
            list(D.DataLoader(range(5), batch_size=2, collate_fn=sum)))


@scenario
def dict_samples(lib):
    ds = [{"a": i, "b": lib.tensor([i, i + 1.0]), "c": f"s{i}", "d": (i, float(i))}
          for i in range(5)]
    return list(lib.utils.data.DataLoader(ds, batch_size=3))


@scenario
def numpy_samples(lib):
    D = lib.utils.data
    return (list(D.DataLoader([np.arange(3) * i for i in range(4)], batch_size=2)),
            list(D.DataLoader([np.float64(1.5), np.float64(2)], batch_size=2)),
            list(D.DataLoader([np.arange(2.0)], batch_size=None)))


@scenario
def namedtuple_samples(lib):
    point = collections.namedtuple("point", "x y")
    batches = list(lib.utils.data.DataLoader([point(1, 2.0), point(3, 4.0)], batch_size=2))
    return type(batches[0]).__name__, batches


@scenario
def default_collate_kinds(lib):
    c = lib.utils.data.default_collate
    return (c([1, 2]), c([1.0, 2.0]), c([True, False]), c(["a", "b"]), c([b"a", b"b"]),
            c([[1, 2], [3, 4]]), c([(1, "a"), (2, "b")]),
            c([lib.tensor(1, dtype=lib.int8), lib.tensor(2, dtype=lib.int8)]),
            c([np.int32(1), np.int32(2)]), c([np.array(1.5, dtype=np.float32)] * 2))


@scenario
def default_collate_uneven_lists(lib):
    return lib.utils.data.default_collate([[1, 2], [3]])


@scenario
def default_collate_unequal_tensors(lib):
    return lib.utils.data.default_collate([lib.ones(2), lib.ones(3)])


@scenario
def default_collate_string_arrays(lib):
    return lib.utils.data.default_collate([np.array(["a"]), np.array(["b"])])


@scenario
def default_collate_objects(lib):
    return lib.utils.data.default_collate([object(), object()])


@scenario
def default_convert_kinds(lib):
    c = lib.utils.data.default_convert
    return c(np.arange(3)), c([np.arange(2), 1]), c({"a": np.ones(2)}), c("x"), c(np.int16(3))


@scenario
def random_split_lengths(lib):
    D = lib.utils.data
    a, b = D.random_split(range(10), [7, 3], generator=lib.Generator().manual_seed(0))
    parts = D.random_split(range(10), [0.5, 0.3, 0.2], generator=lib.Generator().manual_seed(1))
    return (len(a), len(b), sorted(list(a) + list(b)), type(a).__name__, list(a),
            [list(p) for p in parts])


@scenario
def random_split_wrong_sum(lib):
    return lib.utils.data.random_split(range(10), [7, 4])


@scenario
def subset_and_concat(lib):
    D = lib.utils.data
    s = D.Subset(list(range(10)), [1, 3, 5])
    c = D.ConcatDataset([s, [7, 8]])
    return list(s), len(c), [c[i] for i in range(len(c))], c[-1], c.cumulative_sizes


@scenario
def concat_index_past_start(lib):
    return lib.utils.data.ConcatDataset([[1], [2]])[-3]


@scenario
def dataset_sums(lib):
    D = lib.utils.data
    c = D.TensorDataset(lib.ones(2)) + D.TensorDataset(lib.zeros(1))
    chained = stream(lib, 2) + stream(lib, 1)
    return (type(c).__name__, len(c), c[2], type(chained).__name__, list(chained),
            len(chained), list(D.ChainDataset([stream(lib, 2), stream(lib, 3)])))


@scenario
def stack_dataset(lib):
    D = lib.utils.data
    s, named = D.StackDataset([1, 2], lib.tensor([3.0, 4.0])), D.StackDataset(a=[1, 2], b=[5, 6])
    return len(s), s[1], named[0], len(named), list(D.DataLoader(named, batch_size=2))


@scenario
def stack_dataset_sizes(lib):
    return lib.utils.data.StackDataset([1, 2], [3])


@scenario
def tensor_dataset_sizes(lib):
    return lib.utils.data.TensorDataset(lib.ones(3), lib.ones(4))


@scenario
def iterable_batches(lib):
    D = lib.utils.data
    return (list(D.DataLoader(stream(lib, 7), batch_size=3)),
            list(D.DataLoader(stream(lib, 7), batch_size=3, drop_last=True)),
            list(D.DataLoader(stream(lib, 3), batch_size=None)),
            len(D.DataLoader(stream(lib, 7), batch_size=3)),
            len(D.DataLoader(stream(lib, 7), batch_size=3, drop_last=True)))


@scenario
def iterable_shuffle(lib):
    return lib.utils.data.DataLoader(stream(lib, 3), shuffle=True)


@scenario
def iterable_sampler(lib):
    return lib.utils.data.DataLoader(stream(lib, 3), sampler=[0, 1])


@scenario
def samplers(lib):
    D = lib.utils.data
    return (list(D.SequentialSampler(range(4))),
            list(D.BatchSampler(D.SequentialSampler(range(7)), 3, False)),
            list(D.BatchSampler(range(7), 3, True)), len(D.BatchSampler(range(7), 3, False)),
            len(D.BatchSampler(range(7), 3, True)))


@scenario
def random_samplers(lib):
    D = lib.utils.data
    with_replacement = D.RandomSampler(range(10), replacement=True, num_samples=20,
                                       generator=lib.Generator().manual_seed(3))
    drawn = list(with_replacement)
    permutation = D.RandomSampler(range(5), generator=lib.Generator().manual_seed(3))
    longer = D.RandomSampler(range(5), num_samples=7)
    subset = D.SubsetRandomSampler([4, 5, 6], generator=lib.Generator().manual_seed(0))
    return (len(with_replacement), len(drawn), all(0 <= v < 10 for v in drawn),
            sorted(permutation), len(longer), len(list(longer)), len(subset), sorted(subset))


@scenario
def weighted_sampler(lib):
    s = lib.utils.data.WeightedRandomSampler([0.0, 1.0, 0.0, 2.0], 50,
                                             generator=lib.Generator().manual_seed(0))
    drawn = list(s)
    return len(s), set(drawn) <= {1, 3}, type(drawn[0]).__name__


@scenario
def shuffled_loader_covers_the_data(lib):
    loader = lib.utils.data.DataLoader(range(8), batch_size=3, shuffle=True,
                                       generator=lib.Generator().manual_seed(2))
    batches = [b.tolist() for b in loader]
    return sorted(sum(batches, [])), [len(b) for b in batches]


@scenario
def loader_attributes(lib):
    loader = lib.utils.data.DataLoader(range(5), batch_size=2)
    return (loader.batch_size, loader.drop_last, loader.num_workers,
            type(loader.sampler).__name__, type(loader.batch_sampler).__name__,
            loader.pin_memory, loader.timeout, lib.utils.data.get_worker_info())


@scenario
def loader_attributes_fixed_after_init(lib):
    loader = lib.utils.data.DataLoader(range(5), batch_size=2)
    refused = []
    for attr in ("batch_size", "sampler", "drop_last", "dataset", "batch_sampler",
                 "persistent_workers"):
        try:
            setattr(loader, attr, None)
        except ValueError as error:
            refused.append(str(error))
    loader.collate_fn = list
    return refused, list(loader)


@scenario
def loader_subclass_sets_its_own_attributes(lib):
    class Loader(lib.utils.data.DataLoader):
        def __init__(self, data):
            super().__init__(data, batch_size=2)
            self.extra = 1
    loader = Loader(range(3))
    return loader.extra, list(loader)


@scenario
def batched_reads_through_getitems(lib):
    D = lib.utils.data

    class Batched(D.Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return ("single", i)

        def __getitems__(self, indices):
            return [("batched", i) for i in indices]
    return (list(D.DataLoader(Batched(), batch_size=2)),
            list(D.DataLoader(D.Subset(Batched(), [4, 3, 2]), batch_size=2)),
            list(D.DataLoader(Batched(), batch_size=None))[:2])


@scenario
def mappings_keep_their_kind(lib):
    c = lib.utils.data.default_collate
    counts = collections.defaultdict(int, a=1)
    collated = c([counts, counts])
    converted = lib.utils.data.default_convert(collections.defaultdict(list, a=np.ones(2)))
    return (type(c([collections.OrderedDict(a=1)] * 2)).__name__, type(collated).__name__,
            collated.default_factory is int, collated, type(converted).__name__, converted)


@scenario
def other_sample_kinds(lib):
    D = lib.utils.data
    return (list(D.DataLoader(["ab", "cd", "ef"], batch_size=2)),
            list(D.DataLoader([(1, 2.0, "x"), (3, 4.0, "y")], batch_size=2)),
            D.default_collate([{1, 2}, {3, 4}]))


def refusal(name, call):
    def run(lib):
        return call(lib, lib.utils.data)
    run.__name__ = name
    scenario(run)


for _name, _call in {
        "batch_sampler_size_zero": lambda L, D: D.BatchSampler(range(3), 0, False),
        "batch_sampler_drop_last_int": lambda L, D: D.BatchSampler(range(3), 2, 1),
        "random_sampler_no_samples": lambda L, D: D.RandomSampler(range(5), num_samples=0),
        "random_sampler_replacement_int": lambda L, D: D.RandomSampler(range(5), replacement=1),
        "weighted_sampler_2d": lambda L, D: D.WeightedRandomSampler([[0.1, 0.2]], 3),
        "weighted_sampler_replacement_int":
            lambda L, D: D.WeightedRandomSampler([0.1, 0.2], 3, replacement=0),
        "sampler_and_shuffle":
            lambda L, D: D.DataLoader(range(3), sampler=D.SequentialSampler(range(3)),
                                      shuffle=True),
        "batch_sampler_and_size":
            lambda L, D: D.DataLoader(range(3), batch_sampler=D.BatchSampler(range(3), 2, False),
                                      batch_size=2),
        "batch_sampler_and_drop_last":
            lambda L, D: D.DataLoader(range(3), batch_sampler=D.BatchSampler(range(3), 2, False),
                                      drop_last=True),
        "no_batching_and_drop_last":
            lambda L, D: D.DataLoader(range(3), batch_size=None, drop_last=True),
        "negative_workers": lambda L, D: D.DataLoader(range(3), num_workers=-1),
        "negative_timeout": lambda L, D: D.DataLoader(range(3), timeout=-1),
        "prefetch_without_workers": lambda L, D: D.DataLoader(range(3), prefetch_factor=2),
        "negative_prefetch":
            lambda L, D: D.DataLoader(range(3), num_workers=1, prefetch_factor=-1),
        "persistent_without_workers":
            lambda L, D: D.DataLoader(range(3), persistent_workers=True),
        "context_without_workers":
            lambda L, D: D.DataLoader(range(3), multiprocessing_context="spawn")}.items():
    refusal(_name, _call)


@pytest.mark.parametrize("name", cases(SCENARIOS, {}))
def test_dataloader_scenario_matches_torch(name):
    check(SCENARIOS[name])


def test_pin_memory_without_an_accelerator_warns_as_torch():
    import gradjit
    if gradjit.accelerator.is_available():
        pytest.skip("an accelerator pins the memory")
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no "
                                         "accelerator is found"):
        list(gradjit.utils.data.DataLoader(range(3), pin_memory=True))
