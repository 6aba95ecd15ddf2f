"""DataLoader(num_workers=n) warns as PyTorch's does when n exceeds the usable CPUs (d2l
loads with num_workers=4), at construction and at each pass."""
import os
import warnings

import torch

import gradjit


def _messages(lib, workers):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.arange(6)),
                                           batch_size=4, num_workers=workers)
        batches = [b[0].tolist() for b in loader]
    # A library loaded by other tests (JAX) warns whenever torch's workers fork: not the loader's
    return batches, [(w.category, str(w.message)) for w in caught
                     if not str(w.message).startswith("os.fork() was called")]


def test_worker_warning_matches_torch():
    too_many = len(os.sched_getaffinity(0)) + 2
    for workers in (0, 1, too_many):
        expected, got = _messages(torch, workers), _messages(gradjit, workers)
        assert got == expected
