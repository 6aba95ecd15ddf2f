"""Whole numpy programs of the kind autograd's examples are (a Gaussian process's marginal
likelihood, an RNN, a convolution with np.pad and np.einsum, a fluid advection step with
np.roll and index arithmetic), differentiated and compared with central differences."""
import numpy as np
import pytest

import gradjit
from gradjit.tracer.array_methods import TracerArrayConversionError
from tests.numpy_api.check import check_grad

rng = np.random.default_rng(14)
XS = rng.standard_normal((8, 1))
YS = np.sin(XS[:, 0])
IMAGE = rng.standard_normal((2, 1, 6, 6))
SMOKE = np.sin(np.linspace(0, 3, 64)).reshape(8, 8)


def _logsumexp(x, axis):
    top = np.max(x, axis=axis, keepdims=True)
    return np.squeeze(top + np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)), axis)


def gaussian_process(log_params):
    scale, variance, noise = np.exp(log_params)
    d = np.expand_dims(XS / scale, 1) - np.expand_dims(XS / scale, 0)
    k = variance * np.exp(-0.5 * np.sum(d ** 2, axis=2)) + noise * np.eye(len(XS))
    chol = np.linalg.cholesky(k)
    alpha = np.linalg.solve(k, YS)
    return -0.5 * YS @ alpha - np.sum(np.log(np.diag(chol)))


def rnn(weights):
    h, total = np.zeros((1, 4)), 0.0
    for t in range(5):
        h = np.tanh(np.dot(np.concatenate((XS[t:t + 1] * np.ones((1, 3)), h), axis=1), weights))
        total = total + np.sum(_logsumexp(h, 1))
    return total


def convolution(kernel):
    padded = np.pad(IMAGE, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="reflect")
    patches = np.stack([padded[:, :, i:i + 6, j:j + 6] for i in range(3) for j in range(3)], -1)
    out = np.einsum("bchwk,ck->bhw", patches, kernel.reshape(1, 9))
    return np.sum(np.maximum(out, 0) ** 2)


def advection(vx):
    """Semi-Lagrangian advection of the constant SMOKE by a traced velocity: the corners are
    read through flat indices (a numpy array's own indexing cannot take traced indices)."""
    f, vy = SMOKE, np.zeros_like(vx)
    rows, cols = np.meshgrid(np.arange(8), np.arange(8))
    for _ in range(2):
        xs, ys = (cols - vx).ravel(), (rows - vy).ravel()
        left, top = np.floor(xs).astype(int), np.floor(ys).astype(int)
        rw, bw = xs - left, ys - top
        left, top = np.mod(left, 8), np.mod(top, 8)
        right, bottom = np.mod(left + 1, 8), np.mod(top + 1, 8)

        def at(i, j, f=f):
            return np.take_along_axis(np.ravel(f), np.ravel_multi_index((i, j), (8, 8)), 0)
        f = np.reshape((1 - rw) * ((1 - bw) * at(left, top) + bw * at(left, bottom))
                       + rw * ((1 - bw) * at(right, top) + bw * at(right, bottom)), (8, 8))
        vx = vx - 0.1 * (np.roll(f, -1, axis=0) - np.roll(f, 1, axis=0))
    return np.sum(f ** 2)


PROGRAMS = {
    "gaussian_process": (gaussian_process, rng.standard_normal(3) * 0.1),
    "rnn": (rnn, rng.standard_normal((7, 4))),
    "convolution": (convolution, rng.standard_normal((3, 3))),
    "advection": (advection, rng.uniform(0.05, 0.3, (8, 8))),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_gradients(name):
    fn, params = PROGRAMS[name]
    check_grad(fn, params, backends=("cpu",), rtol=1e-5, atol=1e-7)


def test_indexing_a_numpy_array_by_traced_indices_says_what_to_write():
    with pytest.raises(TracerArrayConversionError, match="np.take_along_axis"):
        gradjit.grad(lambda v: np.sum(SMOKE[np.floor(v).astype(int) % 8, 0] * v))(np.ones(3))
