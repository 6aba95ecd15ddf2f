"""torch.native_* kernels, the dropout forms, constant_pad_nd, convolution, embedding_renorm_,
the recurrent kernels and cells and the deprecated norms against torch: values, gradients,
grad_fn names, seeded masks and errors."""
import warnings

import numpy as np
import pytest

import gradjit
from tests.nn.helpers import torch
from tests.torch_reference import same_error

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 3, 5))
W3, B3 = RNG.standard_normal(3), RNG.standard_normal(3)
K = RNG.standard_normal((6, 3, 2))
KT = RNG.standard_normal((3, 2, 2))
GRID = RNG.uniform(-1.1, 1.1, (1, 2, 3, 2))
K2 = RNG.standard_normal((2, 4, 2, 2))


def _batch_norm(L, x, w, b, training):
    stats = L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64)
    out = L.native_batch_norm(x, w, b, *stats, training, 0.1, 1e-5)
    return (*out, *stats)


CASES = {
    "batch_norm_train": lambda L, x, w, b: _batch_norm(L, x, w, b, True),
    "batch_norm_eval": lambda L, x, w, b: _batch_norm(L, x, w, b, False),
    "batch_norm_bare": lambda L, x, w, b: L.native_batch_norm(x, None, None, None, None, True,
                                                              0.1, 1e-5),
    "layer_norm": lambda L, x, w, b: L.native_layer_norm(x, [5], None, None, 1e-5),
    "layer_norm_affine": lambda L, x, w, b: L.native_layer_norm(x.transpose(1, 2), [3], w, b,
                                                                1e-3),
    "group_norm": lambda L, x, w, b: L.native_group_norm(x, w, b, 4, 3, 5, 3, 1e-5),
    "group_norm_one": lambda L, x, w, b: L.native_group_norm(x, None, None, 4, 3, 5, 1, 1e-5),
    "dropout_eval": lambda L, x, w, b: L.native_dropout(x, 0.5, False),
    "pad": lambda L, x, w, b: L.constant_pad_nd(x, [1, 2], 3.0),
    "pad_crop": lambda L, x, w, b: L.constant_pad_nd(x, [-2, -2, 1, 0]),
    "conv": lambda L, x, w, b: L.convolution(x, L.tensor(K), b.repeat(2), [1], [1], [2],
                                             False, [0], 1),
    "conv_groups": lambda L, x, w, b: L.convolution(x[:, :2], L.tensor(K[:4, :1]), None, [2],
                                                    [0], [1], False, [0], 2),
    "conv_transposed": lambda L, x, w, b: L.convolution(x, L.tensor(KT), None, [2], [1], [1],
                                                        True, [1], 1),
    "conv2d": lambda L, x, w, b: L.convolution(x[None], L.tensor(K2), None, [1, 1], [0, 1],
                                               [1, 1], False, [0, 0], 1),
    "grid_sampler": lambda L, x, w, b: L.grid_sampler(x[None, :, :3], L.tensor(GRID), 0, 0,
                                                      False),
    "grid_sampler_2d": lambda L, x, w, b: L.grid_sampler_2d(x[None], L.tensor(GRID), 1, 1,
                                                            True),
    "affine_grid": lambda L, x, w, b: L.affine_grid_generator(x[:2, :2, :3], [2, 1, 3, 2],
                                                              False),
    "poisson_nll": lambda L, x, w, b: L.poisson_nll_loss(x, x.detach().abs(), True, False,
                                                         1e-8, 1),
    "poisson_nll_full": lambda L, x, w, b: L.poisson_nll_loss(x.abs(), x.detach().abs() * 3,
                                                              False, True, 1e-6, 0),
    "orgqr": lambda L, x, w, b: x[0].T.orgqr(b[:2]),
    "frobenius": lambda L, x, w, b: L.frobenius_norm(x, [1, 2]),
    "frobenius_keep": lambda L, x, w, b: L.frobenius_norm(x, [0], True),
    "nuclear": lambda L, x, w, b: L.nuclear_norm(x[0]),
    "nuclear_keep": lambda L, x, w, b: L.nuclear_norm(x[0], True),
    "nuclear_dims": lambda L, x, w, b: L.nuclear_norm(x, [0, 2], keepdim=True),
    "except_first": lambda L, x, w, b: L.norm_except_dim(x, 2, 0),
    "except_middle": lambda L, x, w, b: L.norm_except_dim(x, 3, 1),
    "except_last": lambda L, x, w, b: L.norm_except_dim(x, 2, 2),
    "except_none": lambda L, x, w, b: L.norm_except_dim(x, 2, -1),
}


def _run(lib, fn, arrays):
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(lib, *xs)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    live = [o for o in outs if o.requires_grad]
    sum((o * o).sum() for o in live).backward()
    return ([o.detach().numpy() for o in outs], [x.grad for x in xs],
            [type(o.grad_fn).__name__ for o in outs])


@pytest.mark.parametrize("name", CASES)
def test_matches_torch(name):
    (want, want_grads, want_nodes) = _run(torch, CASES[name], (X, W3, B3))
    (got, got_grads, got_nodes) = _run(gradjit, CASES[name], (X, W3, B3))
    assert got_nodes == want_nodes
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)
    for g, w in zip(got_grads, want_grads, strict=True):
        assert (g is None) == (w is None)
        if w is not None:
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-9, atol=1e-12)


DRAWS = {
    "native_dropout": lambda L, x: L.native_dropout(x, 0.3, True),
    "native_dropout_all": lambda L, x: L.native_dropout(x, 1.0, True),
    "feature_dropout": lambda L, x: L.feature_dropout(x, 0.5, True),
    "dropout_": lambda L, x: L.dropout_(x.detach().clone(), 0.4, True),
    "feature_dropout_": lambda L, x: L.feature_dropout_(x.detach().clone(), 0.5, True),
    "alpha_dropout_": lambda L, x: L.alpha_dropout_(x.detach().clone(), 0.4, True),
    "feature_alpha_dropout_": lambda L, x: L.feature_alpha_dropout_(x.detach().clone(), 0.4,
                                                                    True),
}


@pytest.mark.parametrize("name", DRAWS)
def test_seeded_draws_match_torch(name):
    results = []
    for lib in (torch, gradjit):
        lib.manual_seed(3)
        x = lib.tensor(X, requires_grad=True)
        out = DRAWS[name](lib, x)
        outs = out if isinstance(out, tuple) else (out,)
        if outs[0].requires_grad:
            outs[0].sum().backward()
        results.append(([o.detach().numpy() for o in outs], x.grad,
                        type(outs[0].grad_fn).__name__))
    (want, want_grad, want_node), (got, got_grad, got_node) = results
    assert got_node == want_node
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    if want_grad is not None:
        np.testing.assert_allclose(got_grad.numpy(), want_grad.numpy(), rtol=1e-12)


def test_in_place_dropout_returns_its_input():
    x = gradjit.tensor(X)
    assert gradjit.dropout_(x, 0.5, True) is x and gradjit.feature_dropout_(x, 0.5, True) is x


def test_embedding_renorm_in_place():
    indices, table = np.array([1, 2, 1, 5]), RNG.standard_normal((7, 3)) * 2
    results = []
    for lib in (torch, gradjit):
        weight = lib.tensor(table)
        assert lib.embedding_renorm_(weight, lib.tensor(indices), 1.5, 2.0) is weight
        results.append(weight.numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-12)


ERRORS = {
    "pad_odd": lambda L: L.constant_pad_nd(L.ones(2, 3), [1, 2, 3]),
    "pad_long": lambda L: L.constant_pad_nd(L.ones(2, 3), [1] * 6),
    "frobenius_dims": lambda L: L.frobenius_norm(L.ones(2, 2, 2), [0, 1, 2]),
    "nuclear_vector": lambda L: L.nuclear_norm(L.ones(3)),
    "except_dim_range": lambda L: L.norm_except_dim(L.ones(2, 3), 2, 5),
    "dropout_p": lambda L: L.dropout_(L.ones(3), 1.5, True),
    "feature_dropout_p": lambda L: L.feature_dropout(L.ones(3, 2), -0.1, True),
    "matrix_rank": lambda L: L.matrix_rank(L.eye(3)),
    "lstsq": lambda L: L.lstsq(L.eye(3), L.eye(3)),
    "solve": lambda L: L.solve(L.eye(3), L.eye(3)),
    "symeig": lambda L: L.symeig(L.eye(3)),
    "eig": lambda L: L.eig(L.eye(3)),
    "eig_method": lambda L: L.eye(3).eig(),
    "symeig_method": lambda L: L.eye(3).symeig(),
    "solve_method": lambda L: L.eye(3).solve(L.eye(3)),
    "lstsq_method": lambda L: L.eye(3).lstsq(L.eye(3)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


def test_native_channel_shuffle():
    got, want = (lib.native_channel_shuffle(lib.tensor(X).reshape(2, 6, 5), 3)
                 for lib in (gradjit, torch))
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_removed_variable_api():
    same_error(lambda: gradjit.ones(2).reinforce(1), lambda: torch.ones(2).reinforce(1))
    with pytest.warns(UserWarning, match="volatile was removed"):
        assert gradjit.ones(2).volatile is False


def test_deprecated_norms_warn():
    with pytest.warns(UserWarning, match="frobenius_norm is deprecated"):
        gradjit.frobenius_norm(gradjit.ones(2, 2), [0])
    with pytest.warns(UserWarning, match="nuclear_norm is deprecated"):
        gradjit.nuclear_norm(gradjit.ones(2, 2))
