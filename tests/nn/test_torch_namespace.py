"""The nn.functional operations at the top of the torch namespace (torch.conv2d,
torch.dropout(input, p, train), torch.batch_norm, ...) and the functional ops they needed
(group/instance/RMS norm, pixel and channel shuffles, 1-d pooling, KL divergence, the margin
losses, alpha dropout), against PyTorch 2.13: values, gradients, draws and errors."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error
from tests.nn.helpers import check

torch = pytest.importorskip("torch")
rng = np.random.default_rng(0)


def data(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def signs(n):
    return np.where(rng.random(n) < 0.5, -1.0, 1.0).astype(np.float32)


CASES = {
    "conv1d": (lambda L, x, w, b: L.conv1d(x, w, b, 2, 1), data(2, 3, 9), data(4, 3, 3),
               data(4)),
    "conv2d": (lambda L, x, w: L.conv2d(x, w, None, 1, 1, 1, 1), data(1, 2, 5, 5),
               data(3, 2, 3, 3)),
    "max_pool1d": (lambda L, x: L.max_pool1d(x, 3), data(2, 3, 10)),
    "max_pool1d_stride": (lambda L, x: L.max_pool1d(x, 3, 2, 1, 1, True), data(2, 3, 10)),
    "F_max_pool1d_unbatched": (lambda L, x: L.nn.functional.max_pool1d(x, 2, padding=1),
                               data(3, 7)),
    "max_pool2d": (lambda L, x: L.max_pool2d(x, 2), data(1, 2, 6, 6)),
    "avg_pool1d": (lambda L, x: L.avg_pool1d(x, 3, 2, 1, False, False), data(2, 3, 10)),
    "F_avg_pool1d": (lambda L, x: L.nn.functional.avg_pool1d(x, 4, ceil_mode=True),
                     data(2, 3, 10)),
    "dropout_eval": (lambda L, x: L.dropout(x, 0.5, False), data(4, 5)),
    "layer_norm": (lambda L, x, w, b: L.layer_norm(x, (5,), w, b, 1e-3), data(3, 5),
                   data(5), data(5)),
    "batch_norm": (lambda L, x, w, b: L.batch_norm(x, w, b, None, None, True, 0.1, 1e-5,
                                                  False), data(6, 3, 2), data(3), data(3)),
    "group_norm": (lambda L, x, w, b: L.group_norm(x, 2, w, b), data(3, 4, 5), data(4),
                   data(4)),
    "F_group_norm_plain": (lambda L, x: L.nn.functional.group_norm(x, 1, eps=1e-3),
                           data(2, 6, 3, 3)),
    "instance_norm": (lambda L, x, w, b: L.instance_norm(x, w, b, None, None, True, 0.1, 1e-5,
                                                        False), data(2, 3, 7), data(3),
                      data(3)),
    "F_instance_norm": (lambda L, x: L.nn.functional.instance_norm(x), data(2, 3, 4, 4)),
    "rms_norm": (lambda L, x, w: L.rms_norm(x, (4,), w), data(3, 4), data(4)),
    "F_rms_norm_eps": (lambda L, x: L.nn.functional.rms_norm(x, [2, 3], eps=1e-2),
                       data(4, 2, 3)),
    "embedding": (lambda L, w: L.embedding(w, L.tensor([[0, 2], [3, 2]])), data(4, 3)),
    "embedding_padding": (lambda L, w: L.embedding(w, L.tensor([0, 1, 1]), 1), data(4, 3)),
    "bilinear": (lambda L, a, b, w, c: L.bilinear(a, b, w, c), data(3, 2), data(3, 4),
                 data(5, 2, 4), data(5)),
    "pixel_shuffle": (lambda L, x: L.pixel_shuffle(x, 2), data(2, 8, 3, 3)),
    "pixel_unshuffle": (lambda L, x: L.pixel_unshuffle(x, 2), data(3, 2, 4, 6)),
    "pixel_shuffle_unbatched": (lambda L, x: L.pixel_shuffle(x, 3), data(9, 2, 2)),
    "channel_shuffle": (lambda L, x: L.nn.functional.channel_shuffle(x, 3), data(2, 6, 2)),
    "kl_div": (lambda L, x, t: L.kl_div(x.log_softmax(1), t.softmax(1)), data(4, 5),
               data(4, 5)),
    "kl_div_log_target": (lambda L, x, t: L.kl_div(x, t, 2, log_target=True), data(4, 5),
                          data(4, 5)),
    "F_kl_div_batchmean": (lambda L, x, t: L.nn.functional.kl_div(x, t.softmax(1),
                                                                  reduction="batchmean"),
                           data(4, 5), data(4, 5)),
    "bce_logits": (lambda L, x, t: L.binary_cross_entropy_with_logits(
        x, t.sigmoid(), None, L.tensor([0.5, 1.0, 2.0, 3.0]), 1), data(3, 4), data(3, 4)),
    "bce_logits_default": (lambda L, x, t: L.binary_cross_entropy_with_logits(x, t.sigmoid()),
                           data(3, 4), data(3, 4)),
    "kl_div_mean": (lambda L, x, t: L.kl_div(x, t.softmax(1), 1), data(4, 5), data(4, 5)),
    "cosine_embedding": (lambda L, a, b, y: L.cosine_embedding_loss(a, b, y, 0.2),
                         data(5, 3), data(5, 3), signs(5)),
    "F_cosine_embedding_1d": (lambda L, a, b: L.nn.functional.cosine_embedding_loss(
        a, b, L.tensor(-1.0), reduction="sum"), data(3), data(3)),
    "margin_ranking": (lambda L, a, b, y: L.margin_ranking_loss(a, b, y, 0.5, 2),
                       data(6), data(6), signs(6)),
    "hinge_embedding": (lambda L, x, y: L.hinge_embedding_loss(x, y, 0.7, 0), data(6),
                        signs(6)),
    "triplet_margin": (lambda L, a, p, n: L.triplet_margin_loss(a, p, n), data(4, 3),
                       data(4, 3), data(4, 3)),
    "triplet_margin_swap_p1": (lambda L, a, p, n: L.triplet_margin_loss(a, p, n, 0.5, 1, 1e-6,
                                                                        True, 0),
                               data(4, 3), data(4, 3), data(4, 3)),
}


@pytest.mark.parametrize("name", CASES)
def test_values_and_gradients_match_pytorch(name):
    fn, *arrays = CASES[name]
    check(lambda *a: fn(gradjit, *a), lambda *a: fn(torch, *a), *arrays, rtol=1e-4,
          atol=1e-5)


def test_running_statistics_of_instance_norm_move_as_pytorchs():
    x = data(2, 3, 5)
    stats = []
    for L in (gradjit, torch):
        mean, var = L.zeros(3), L.ones(3)
        L.instance_norm(L.tensor(x), None, None, mean, var, True, 0.3, 1e-5, False)
        stats.append((mean.numpy(), var.numpy()))
    np.testing.assert_allclose(stats[0][0], stats[1][0], rtol=1e-5)
    np.testing.assert_allclose(stats[0][1], stats[1][1], rtol=1e-5)
    eval_out = [L.nn.functional.instance_norm(L.tensor(x), L.tensor(s[0]), L.tensor(s[1]),
                                              use_input_stats=False).numpy()
                for L, s in zip((gradjit, torch), stats)]
    np.testing.assert_allclose(*eval_out, rtol=1e-5)


DRAWS = {
    "dropout": lambda L: L.dropout(L.ones(4, 5), 0.3, True),
    "alpha_dropout": lambda L: L.alpha_dropout(L.ones(4, 5), 0.3, True),
    "feature_alpha_dropout": lambda L: L.feature_alpha_dropout(L.ones(4, 5, 3), 0.4, True),
    "F_alpha_dropout_eval": lambda L: L.nn.functional.alpha_dropout(L.ones(3)),
    "F_alpha_dropout_all": lambda L: L.nn.functional.alpha_dropout(L.ones(3), 1.0, True),
}


@pytest.mark.parametrize("name", DRAWS)
def test_random_forms_draw_pytorchs_masks(name):
    torch.manual_seed(4)
    gradjit.manual_seed(4)
    np.testing.assert_allclose(DRAWS[name](gradjit).numpy(), DRAWS[name](torch).numpy(),
                               rtol=1e-6)


def test_alpha_dropout_keeps_mean_and_variance():
    gradjit.manual_seed(0)
    x = gradjit.randn(200000)
    y = gradjit.alpha_dropout(x, 0.2, True)
    assert abs(float(y.mean())) < 0.01 and abs(float(y.var()) - 1) < 0.02


ERRORS = [
    lambda L: L.group_norm(L.ones(2, 6, 4), 4),
    lambda L: L.pixel_shuffle(L.ones(1, 5, 2, 2), 2),
    lambda L: L.pixel_unshuffle(L.ones(1, 1, 3, 4), 2),
    lambda L: L.pixel_unshuffle(L.ones(1, 1, 4, 3), 2),
    lambda L: L.nn.functional.channel_shuffle(L.ones(1, 5, 2), 2),
    lambda L: L.rms_norm(L.ones(2, 3), (4,)),
    lambda L: L.rms_norm(L.ones(2, 3), (4, 5)),
    lambda L: L.alpha_dropout(L.ones(2), 1.5, True),
    lambda L: L.dropout(L.ones(2), -0.5, True),
    lambda L: L.nn.functional.feature_alpha_dropout(L.ones(2, 2), 2.0, True),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_pytorch(call):
    same_error(lambda: call(gradjit), lambda: call(torch))
