"""What PyTorch's module database found: empty batches in batch norm, unbatched fractional
pooling with extra sample rows, and the errors of losses, embeddings, circular padding and
factories as PyTorch raises them."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error, weighted_gradients


@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_of_an_empty_batch_is_its_affine_map(affine):
    def run(lib, x):
        m = lib.nn.BatchNorm2d(3, affine=affine).double()
        out = m(x)
        return out + 0 if affine else out
    x = np.zeros((0, 3, 2, 2))
    got, got_grads = weighted_gradients(gradjit, run, [x], "float64")
    want, want_grads = weighted_gradients(torch, run, [x], "float64")
    assert tuple(got.shape) == tuple(want.shape)
    assert (got.grad_fn is None) == (want.grad_fn is None)


@pytest.mark.parametrize("eps, training", [(0.0, True), (-1.0, False)])
def test_batch_norm_checks_eps(eps, training):
    def call(lib):
        x = lib.ones(2, 3)
        return lib.nn.functional.batch_norm(x, lib.zeros(3), lib.ones(3), training=training,
                                            eps=eps)
    same_error(lambda: call(gradjit), lambda: call(torch))


def test_unbatched_fractional_pool_reads_the_first_row_of_samples():
    samples = np.random.default_rng(0).random((2, 4, 3))
    x = np.random.default_rng(1).standard_normal((4, 5, 5, 5))

    def pool(lib, x):
        m = lib.nn.FractionalMaxPool3d(2, output_ratio=0.5,
                                       _random_samples=lib.tensor(samples))
        return m(x)
    got, (got_grad,) = weighted_gradients(gradjit, pool, [x], "float64")
    want, (want_grad,) = weighted_gradients(torch, pool, [x], "float64")
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy())
    np.testing.assert_allclose(got_grad.numpy(), want_grad.numpy())


def long(lib, *values):
    return lib.tensor(list(values), dtype=lib.int64)


ERRORS = {
    "multi-margin-target": lambda t: t.nn.functional.multi_margin_loss(t.ones(5, 10),
                                                                       long(t, 0, 1, 2)),
    "multi-margin-rank": lambda t: t.nn.functional.multi_margin_loss(t.ones(2, 3, 4),
                                                                     long(t, 0, 1)),
    "probabilities-long": lambda t: t.nn.functional.cross_entropy(
        t.ones(2, 3), t.ones(2, 3, dtype=t.int64)),
    "probabilities-ignore-index": lambda t: t.nn.functional.cross_entropy(
        t.ones(2, 3), t.ones(2, 3), ignore_index=1),
    "weight-classes": lambda t: t.nn.functional.cross_entropy(t.ones(2, 3), long(t, 0, 1),
                                                              weight=t.ones(2)),
    "weight-dtype": lambda t: t.nn.functional.nll_loss(t.ones(2, 3), long(t, 0, 1),
                                                       weight=t.ones(3, dtype=t.float64)),
    "k-dim-target": lambda t: t.nn.functional.cross_entropy(t.ones(2, 3, 5),
                                                            t.zeros(2, 4, dtype=t.int64)),
    "batch-before-rank": lambda t: t.nn.functional.cross_entropy(
        t.ones(4, 2), t.zeros(5, 2, dtype=t.int64)),
    "zero-dim-target": lambda t: t.nn.functional.nll_loss(t.ones(4, 3), long(t, 1)[0]),
    "huber-delta": lambda t: t.nn.HuberLoss(delta=1j),
    "embedding-float": lambda t: t.nn.functional.embedding(t.ones(2), t.ones(10, 3)),
    "embedding-range": lambda t: t.nn.functional.embedding(long(t, 1, 15), t.ones(10, 3)),
    "embedding-negative": lambda t: t.nn.functional.embedding(long(t, -1), t.ones(10, 3)),
    "negative-size": lambda t: t.nn.Embedding(-1, 3),
    "empty-negative": lambda t: t.empty(2, -1),
    "circular-1d": lambda t: t.nn.CircularPad1d(3)(t.ones(2, 3, 4, 5)),
    "circular-2d": lambda t: t.nn.CircularPad2d(3)(t.ones(2, 3)),
    "circular-3d": lambda t: t.nn.CircularPad3d(3)(t.ones(2, 3)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_as_pytorch_raises_them(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


def test_embedding_takes_int32_indices():
    w = np.arange(6.0).reshape(3, 2)
    got = gradjit.nn.functional.embedding(long(gradjit, 2, 0).int(), gradjit.tensor(w))
    want = torch.nn.functional.embedding(long(torch, 2, 0).int(), torch.tensor(w))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
