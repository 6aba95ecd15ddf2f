"""torch.utils.data.dataloader: batches of a dataset, collated as PyTorch collates them. Workers
run in this process (num_workers is accepted: the batches are the same), so get_worker_info()
is None everywhere, as in PyTorch's main process."""
from __future__ import annotations

import collections.abc
import copy
import os
import warnings

import numpy as np

import gradjit
from gradjit.utils.data.dataset import IterableDataset
from gradjit.utils.data.sampler import BatchSampler, RandomSampler, SequentialSampler


def get_worker_info():
    """None: the loading runs in this process, which is no worker."""
    return None


def default_convert(data):
    """Arrays and numpy scalars become tensors, containers keep their structure."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "USO":
        return gradjit.as_tensor(data)
    if isinstance(data, np.generic) and not isinstance(data, (np.str_, np.bytes_)):
        return gradjit.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _mapping_like(data, {k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (tuple, list)):  # a tuple becomes a list, as in PyTorch
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return type(data)(default_convert(d) for d in data)
    return data


def _mapping_like(mapping, values: dict):
    """values in a mapping of mapping's kind: a mutable one copied and updated (so a
    defaultdict keeps its factory), else built from values; a plain dict where neither works."""
    try:
        if isinstance(mapping, collections.abc.MutableMapping):
            clone = copy.copy(mapping)
            clone.update(values)
            return clone
        return type(mapping)(values)
    except TypeError:
        return values


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
        return _mapping_like(elem, {key: default_collate([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(samples) for samples in zip(*batch)]
        return columns if isinstance(elem, (tuple, list)) else type(elem)(columns)
    found = elem.dtype if isinstance(elem, np.ndarray) else type(elem)
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, "
                    f"dicts or lists; found {found}")


# what the sampling and batching were built from when the loader was made
FIXED_AT_INIT = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                 "persistent_workers")


def check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers,
                         multiprocessing_context):
    """PyTorch's refusals of the worker options that only mean something with workers."""
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if multiprocessing_context is not None and num_workers == 0:
        raise ValueError(f"multiprocessing_context can only be used with multi-process loading "
                         f"(num_workers > 0), but got num_workers={num_workers}")


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
        check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers,
                             multiprocessing_context)
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
        self._initialized = True

    def __setattr__(self, attr, value):
        if getattr(self, "_initialized", False) and attr in FIXED_AT_INIT:
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(attr, value)

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
        if self.pin_memory and not gradjit.accelerator.is_available():
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then "
                          "device pinned memory won't be used.", stacklevel=2)
        if isinstance(self.dataset, IterableDataset):
            return self._iterate_stream()
        if self.batch_sampler is not None:
            return (self.collate_fn(self._fetch(batch)) for batch in self.batch_sampler)
        return (self.collate_fn(self.dataset[i]) for i in self.sampler)

    def _fetch(self, indices):
        """A batch's samples: by the dataset's own batched read, __getitems__, where it has one."""
        batched = getattr(self.dataset, "__getitems__", None)
        return batched(indices) if batched else [self.dataset[i] for i in indices]

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
