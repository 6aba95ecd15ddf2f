"""gradjit.distributed on a two-process LocalCluster: gradients equal one process's, workers
trace once and then run from their caches, shard errors reach the client with the user's
line, and a worker killed mid-gradient changes nothing."""
import os
import signal
import threading
import time

import numpy as np
import pytest

import gradjit

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
import gradjit.distributed as gd  # noqa: E402
from tests.distributed.losses import mean_squares, mlp, sum_squares  # noqa: E402

rng = np.random.default_rng(1)
X, Y, W = rng.normal(size=(500, 6)), rng.normal(size=500), rng.normal(size=6)


@pytest.fixture(scope="module")
def client():
    # Dask's active memory manager drops a broadcast key's extra replicas once no task waits
    # on them; the cache counts below are read from each worker's replica, so keep them all.
    import dask
    with dask.config.set({"distributed.scheduler.active-memory-manager.start": False}), \
            distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                     dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            yield client


@pytest.mark.parametrize("loss, reduce", [(sum_squares, "sum"), (mean_squares, "mean")])
def test_equals_one_process_with_uneven_chunks(client, loss, reduce):
    expected = gradjit.value_and_grad(loss)(W, X, Y)
    g = gd.value_and_grad(loss, reduce=reduce, sharded=(1, 2))
    value, grad = g(W, da.from_array(X, chunks=(90, 6)), da.from_array(Y, chunks=90))
    np.testing.assert_allclose(value, expected[0], rtol=1e-12)
    np.testing.assert_allclose(grad, expected[1], rtol=1e-12)


def test_pytree_parameters_and_f32_data(client):
    params = {"w1": rng.normal(size=(6, 5)), "b1": np.zeros(5), "w2": rng.normal(size=5),
              "b2": np.float64(0.0)}
    x32, labels = X.astype(np.float32), np.sign(Y).astype(np.float32)
    expected = gradjit.grad(mlp)(params, x32, labels)
    got = gd.grad(mlp, reduce="mean", sharded=(1, 2))(
        params, da.from_array(x32, chunks=(128, 6)), da.from_array(labels, chunks=128))
    for k in params:
        assert got[k].dtype == expected[k].dtype
        np.testing.assert_allclose(got[k], expected[k], rtol=1e-12, atol=1e-14)


def test_workers_trace_once_then_run_from_their_caches(client):
    g = gd.grad(lambda w, x, y: np.sum((x @ w - y) ** 2), sharded=(1, 2))
    x, y = da.from_array(X, chunks=(125, 6)), da.from_array(Y, chunks=125)
    for shift in range(2):  # other parameters each call: dask would reuse a task it still holds
        g(W + shift, x, y)
    info = g.cache_info()
    assert len(info) == 2 and g.local.cache_info() == (0, 0, 0)  # nothing traced here
    assert all(i.traces <= 1 for i in info.values())  # one signature: one trace per worker
    assert sum(i.traces + i.hits for i in info.values()) == 8  # 2 calls of 4 chunks
    assert sum(i.hits for i in info.values()) >= 6


def test_a_shard_error_reaches_the_client_with_the_users_line(client):
    scale = np.ones(100)

    def loss(w, x):
        return np.sum((x @ w) * scale)  # the last chunk has 60 rows, not 100

    g = gd.grad(loss, sharded=1)
    with pytest.raises(TypeError, match=r"(?s)shapes.*\(60,\).*\(100,\).*"
                       r"test_cluster.py:\d+: return np.sum\(\(x @ w\) \* scale\)"):
        g(W, da.from_array(X[:260], chunks=(100, 6)))


def _slow_rows(block):
    time.sleep(0.4)
    return block


def test_a_worker_killed_mid_gradient_gives_the_same_result(client):
    expected = gradjit.grad(sum_squares)(W, X, Y)
    x = da.from_array(X, chunks=(50, 6)).map_blocks(_slow_rows)  # 10 tasks of 0.4 s
    g = gd.grad(sum_squares, sharded=(1, 2))
    pids = client.run(os.getpid)
    result = {}
    run = threading.Thread(target=lambda: result.setdefault("grad", g(W, x, Y)))
    run.start()
    time.sleep(1.0)
    busy = [w for w, keys in client.processing().items() if keys]
    assert run.is_alive() and busy  # the kill lands on a worker running part of the gradient
    os.kill(pids[busy[0]], signal.SIGKILL)
    run.join(timeout=60)
    assert not run.is_alive()
    np.testing.assert_allclose(result["grad"], expected, rtol=1e-12)
    client.wait_for_workers(2, timeout=30)  # the nanny restarted it
    assert set(client.run(os.getpid).values()) != set(pids.values())
