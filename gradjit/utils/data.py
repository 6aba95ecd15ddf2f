"""torch.utils.data: datasets, samplers and the DataLoader, with PyTorch's draws, so that
after torch.manual_seed a shuffled loader and random_split give PyTorch's order. Workers run
in this process (num_workers is accepted: the batches are the same)."""
from __future__ import annotations

import abc
import bisect
import collections.abc
import math
import os
import warnings

import numpy as np

import gradjit


class Dataset:
    """A map-style dataset: __getitem__ and (usually) __len__."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset, abc.ABC):
    """A dataset read by iterating it (abstract: a subclass defines __iter__)."""

    @abc.abstractmethod
    def __iter__(self):
        """The samples."""


class TensorDataset(Dataset):
    """Samples are the tensors' rows: dataset[i] == (t[i] for t in tensors)."""

    def __init__(self, *tensors):
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class ConcatDataset(Dataset):
    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]).tolist())

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, index):
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]


class Subset(Dataset):
    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Disjoint Subsets of the given lengths (or fractions of len(dataset), the remainder
    spread one by one from the first), from one permutation drawn as PyTorch draws it."""
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = [int(math.floor(n * f)) for f in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = gradjit.randperm(sum(lengths), generator=generator).tolist()
    offsets = np.cumsum([0] + list(lengths)).tolist()
    return [Subset(dataset, order[offsets[i]:offsets[i + 1]]) for i in range(len(lengths))]


class Sampler:
    """Yields dataset indices (or lists of them, for a batch sampler)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _seeded(generator):
    """The generator to draw from: a fresh one seeded from the default generator when none is
    given, as PyTorch's samplers do (so each pass over the data draws one seed)."""
    if generator is not None:
        return generator
    seed = int(gradjit.empty((), dtype=gradjit.int64).random_().item())
    fresh = gradjit.Generator()
    fresh.manual_seed(seed)
    return fresh


class RandomSampler(Sampler):
    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n, generator = len(self.data_source), _seeded(self.generator)
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from gradjit.randint(high=n, size=(32,), generator=generator).tolist()
            yield from gradjit.randint(high=n, size=(self.num_samples % 32,),
                                       generator=generator).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from gradjit.randperm(n, generator=generator).tolist()
        yield from gradjit.randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        for i in gradjit.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or \
                num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        self.weights = gradjit.as_tensor(weights, dtype=gradjit.float64)
        if self.weights.dim() != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(self.weights.shape)}")
        self.num_samples, self.replacement, self.generator = num_samples, replacement, generator

    def __iter__(self):
        yield from gradjit.multinomial(self.weights, self.num_samples, self.replacement,
                                       generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        whole, rest = divmod(len(self.sampler), self.batch_size)
        return whole + (rest > 0 and not self.drop_last)


def default_convert(data):
    """Arrays and numpy scalars become tensors, containers keep their structure."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "USO":
        return gradjit.as_tensor(data)
    if isinstance(data, np.generic) and not isinstance(data, (np.str_, np.bytes_)):
        return gradjit.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return type(data)({k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (tuple, list)):  # a tuple becomes a list, as in PyTorch
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return type(data)(default_convert(d) for d in data)
    return data


def default_collate(batch):
    """A list of samples as one batch: tensors and arrays stacked along a new first axis,
    numbers as a tensor (float64 for floats, int64 for ints), strings as a list, mappings
    and sequences collated field by field, as PyTorch's default_collate."""
    elem = batch[0]
    if gradjit.is_tensor(elem):
        return gradjit.stack(list(batch), 0)
    if isinstance(elem, np.ndarray) and elem.dtype.kind not in "USO":
        return gradjit.stack([gradjit.as_tensor(b) for b in batch], 0)
    if isinstance(elem, np.generic) and not isinstance(elem, (np.str_, np.bytes_)):
        return gradjit.as_tensor(np.array(batch))
    if isinstance(elem, bool):
        return gradjit.tensor(batch)
    if isinstance(elem, float):
        return gradjit.tensor(batch, dtype=gradjit.float64)
    if isinstance(elem, int):
        return gradjit.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return type(elem)({key: default_collate([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(samples) for samples in zip(*batch)]
        return columns if isinstance(elem, (tuple, list)) else type(elem)(columns)
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, "
                    f"dicts or lists; found {type(elem)}")


class DataLoader:
    """Batches of a dataset: `batch_size` samples (None: one sample at a time, converted),
    drawn in order, shuffled, or by `sampler` / `batch_sampler`, collated by `collate_fn`."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False,
                 timeout=0, worker_init_fn=None, multiprocessing_context=None, generator=None,
                 *, prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 "
                             "to disable multiprocessing.")
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            for option, value in (("shuffle", shuffle), ("sampler", sampler),
                                  ("batch_sampler", batch_sampler)):
                if value not in (None, False):
                    raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                     f"{option} option, but got {option}={value}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None and not iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else \
                SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.num_workers, self.pin_memory, self.timeout = num_workers, pin_memory, timeout
        self.worker_init_fn = worker_init_fn
        self.collate_fn = collate_fn or (default_collate if self._auto_batching else
                                         default_convert)
        self.check_worker_number_rationality()

    def check_worker_number_rationality(self):
        """PyTorch's warning when num_workers exceeds the CPUs this process may use (gradjit
        loads in-process, but scripts written for PyTorch print it)."""
        if not self.num_workers:
            return
        cpuset = hasattr(os, "sched_getaffinity")
        cpus = len(os.sched_getaffinity(0)) if cpuset else os.cpu_count()
        if cpus is not None and self.num_workers <= cpus:
            return
        suggestion = ("DataLoader is not able to compute a suggested max number of worker in "
                      "current system." if cpus is None else
                      f"Our suggested max number of worker in current system is {cpus}"
                      f"{'' if cpuset else ' (`cpuset` is not taken into account)'}, which is "
                      "smaller than what this DataLoader is going to create.")
        warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in "
                      f"total. {suggestion} Please be aware that excessive worker creation "
                      "might get DataLoader running slow or even freeze, lower the worker "
                      "number to avoid potential slowness/freeze if necessary.", stacklevel=2)

    @property
    def _auto_batching(self):
        return self.batch_sampler is not None or (
            isinstance(self.dataset, IterableDataset) and self.batch_size is not None)

    def __iter__(self):
        # PyTorch draws a base seed for its workers at the start of every pass, workers or
        # not; drawing it too keeps the default generator's stream in step with PyTorch's.
        gradjit.empty((), dtype=gradjit.int64).random_(generator=self.generator)
        if self.num_workers:
            self.check_worker_number_rationality()
        if isinstance(self.dataset, IterableDataset):
            return self._iterate_stream()
        if self.batch_sampler is not None:
            return (self.collate_fn([self.dataset[i] for i in batch])
                    for batch in self.batch_sampler)
        return (self.collate_fn(self.dataset[i]) for i in self.sampler)

    def _iterate_stream(self):
        if self.batch_size is None:
            yield from (self.collate_fn(sample) for sample in self.dataset)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self):
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            whole, rest = divmod(n, self.batch_size)
            return whole + (rest > 0 and not self.drop_last)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)


__all__ = ["BatchSampler", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "Subset", "SubsetRandomSampler",
           "TensorDataset", "WeightedRandomSampler", "default_collate", "default_convert",
           "random_split"]
