"""Memory stays bounded: repeated calls allocate nothing that survives them, and the trace
and program caches have bounds past which the least recently used entries are released."""
import gc
import os
import warnings
import weakref

import numpy as np
import pytest

import gradjit
from gradjit.runtime import cache as runtime_cache
from gradjit.runtime import programs
from gradjit.tracer import RetraceWarning
from gradjit.tracer import cache as trace_cache

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * PAGE
    except OSError:
        pytest.skip("needs /proc/self/statm")


def growth(call, times: int) -> int:
    for _ in range(2000):  # warm up: caches, free lists and the allocator settle
        call()
    gc.collect()
    before = resident_bytes()
    for _ in range(times):
        call()
    gc.collect()
    return resident_bytes() - before


def test_100000_calls_of_a_compiled_gradient_do_not_grow_memory():
    f = gradjit.grad(lambda x: np.sum(x * x))
    x = np.ones(4)
    assert growth(lambda: f(x), 100_000) < 1 << 20
    assert f.cache_info().traces == 1


def test_calls_with_numbers_and_tensors_do_not_grow_memory():
    f = gradjit.value_and_grad(lambda x, s: np.sum(x * x) * s)
    x = np.ones(4)
    assert growth(lambda: f(x, 2.0), 20_000) < 1 << 20
    g = gradjit.grad(lambda t: (t * t).sum())
    t = gradjit.ones(4, dtype=gradjit.float64)
    assert growth(lambda: g(t), 20_000) < 1 << 20


@pytest.fixture
def small_caches(monkeypatch):
    monkeypatch.setattr(trace_cache, "MAX_SIGNATURES", 4)
    monkeypatch.setattr(programs, "memory", runtime_cache.LeastRecentlyUsed(4))


def test_signatures_past_the_bound_evict_and_release_their_programs(small_caches):
    f = gradjit.grad(lambda x: np.sum(np.tanh(x) * x))
    released = []
    for n in range(1, 13):
        f(np.ones(n))
        released.append(weakref.ref(f.cache.last.program))
    assert len(f.cache.by_key) == 4 and len(f.cache.fast) == 4
    assert len(programs.memory) == 4
    f.cache.last = None
    gc.collect()
    assert sum(r() is None for r in released) == 8
    x = np.linspace(-1, 1, 3)  # an evicted signature traces again and is right
    t = np.tanh(x)
    np.testing.assert_allclose(f(x), t + x * (1 - t * t), rtol=1e-14)
    assert f.cache_info().traces == 13


def test_a_signature_called_often_is_not_evicted(small_caches):
    f = gradjit.grad(lambda x: np.sum(x * x))
    hot = np.ones(100)
    for n in range(1, 20):
        f(hot)
        f(np.ones(n))
    assert f.cache_info() == (20, 18, 20)  # hot traced once, then always hit
    assert len(f.cache.by_key) == 4


def test_retraces_of_one_signature_are_bounded_and_warned_once():
    def f(x, k):
        return np.sum(x) * float(k)  # every new k fails the guard on float(k)
    g = gradjit.grad(f, max_traces=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k in range(10):
            np.testing.assert_array_equal(g(np.ones(2), np.float64(k)), [k, k])
    assert len(next(iter(g.cache.by_key.values()))) == 3
    assert sum(issubclass(w.category, RetraceWarning) for w in caught) == 1
