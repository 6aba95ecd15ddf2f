"""gradjit.distributed without a cluster (Dask's local scheduler), argument checks, and that
importing gradjit leaves Dask alone."""
import subprocess
import sys

import numpy as np
import pytest

import gradjit

da = pytest.importorskip("dask.array")
import gradjit.distributed as gd  # noqa: E402
from tests.distributed.losses import mean_squares, mlp  # noqa: E402

rng = np.random.default_rng(0)
X, Y, W = rng.normal(size=(300, 4)), rng.normal(size=300), rng.normal(size=4)


def test_importing_gradjit_does_not_import_dask():
    script = ("import sys, pickle, numpy as np, gradjit\n"
              "g = gradjit.grad(lambda x: np.sum(x * x))\n"
              "g(np.ones(3)); pickle.loads(pickle.dumps(gradjit.jit(np.tanh)))\n"
              "print(sorted(m for m in sys.modules if m.split('.')[0] in "
              "('dask', 'distributed', 'cloudpickle')))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("chunks", [300, (100, 37, 163), (1, 299)])
def test_local_scheduler_matches_one_process(chunks):
    expected = gradjit.value_and_grad(mean_squares)(W, X, Y)
    g = gd.value_and_grad(mean_squares, reduce="mean", sharded=(1, 2))
    value, grad = g(W, da.from_array(X, chunks=(chunks, 4)), da.from_array(Y, chunks=chunks))
    np.testing.assert_allclose(value, expected[0], rtol=1e-12)
    np.testing.assert_allclose(grad, expected[1], rtol=1e-12)


def test_misaligned_chunks_and_numpy_shards_are_aligned_on_the_first():
    params = {"w1": rng.normal(size=(4, 3)), "b1": np.zeros(3), "w2": rng.normal(size=3),
              "b2": np.float64(0.1)}
    labels = np.sign(Y)
    expected = gradjit.grad(mlp)(params, X, labels)
    got = gd.grad(mlp, reduce="mean", sharded=(1, 2))(
        params, da.from_array(X, chunks=(70, 2)), labels)
    assert set(got) == set(params)
    for k in params:
        np.testing.assert_allclose(got[k], expected[k], rtol=1e-12)


def test_argument_errors():
    with pytest.raises(ValueError, match="reduce must be 'sum' or 'mean'"):
        gd.grad(mean_squares, reduce="max")
    with pytest.raises(ValueError, match="overlap"):
        gd.grad(mean_squares, argnums=1, sharded=(1, 2))
    with pytest.raises(ValueError, match="same number of rows"):
        gd.grad(mean_squares, sharded=(1, 2))(W, X, Y[:10])
    with pytest.raises(ValueError, match="no rows"):
        gd.grad(mean_squares, sharded=(1, 2))(W, X[:0], Y[:0])
