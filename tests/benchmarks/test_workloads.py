"""The benchmarked workloads at tiny sizes: gradjit's gradients (plain and into a buffer)
equal the numpy gradients written by hand, and a repeated call does not re-trace."""
import numpy as np
import pytest

from benchmarks import peers
from benchmarks.workloads import WORKLOADS, as_list


@pytest.mark.parametrize("w", WORKLOADS, ids=lambda w: w.id)
def test_gradjit_equals_the_numpy_reference(w):
    args = w.inputs(1e-4)
    expected = as_list(w.numpy(*args))
    for builder in (peers.gradjit_plain, peers.gradjit_into):
        run, fetch = builder(w, args)
        got = fetch(run())
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert g.shape == e.shape and g.dtype == e.dtype
            np.testing.assert_allclose(g, e, rtol=2e-5, atol=1e-7)


def test_the_seed_function_reuses_its_trace_when_the_path_repeats():
    w = next(w for w in WORKLOADS if w.id == "W5")
    (a,) = w.inputs(1.0)
    before = w.gradjit.cache_info().traces
    for _ in range(3):
        w.gradjit(a)
    assert w.gradjit.cache_info().traces <= before + 1
    np.testing.assert_array_equal(w.gradjit(-a), w.numpy(-a))  # the other branch


@pytest.mark.parametrize("w", [w for w in WORKLOADS if "torch.func" in w.peers],
                         ids=lambda w: w.id)
def test_the_torch_func_peer_computes_the_same_transformation(w):
    pytest.importorskip("torch")
    args = w.inputs(1e-4)
    run, fetch = peers.torch_func(w, args)
    for g, e in zip(fetch(run()), as_list(w.numpy(*args))):
        np.testing.assert_allclose(g, e, rtol=2e-5, atol=1e-6)
