"""EmbeddingBag, local response norm, pdist, gumbel_softmax, affine_grid, grid_sample, the
in-place functional activations, alpha dropout layers, Softmax2d and nn.Buffer against torch."""
import itertools

import numpy as np
import pytest

import gradjit
from gradjit.nn import functional as F
from tests.nn.helpers import check, check_module, randn, same_error, torch

TF = torch.nn.functional
IDX = np.array([1, 2, 4, 5, 4, 3, 2, 9, 0, 0])
OFFSETS = np.array([0, 3, 3, 7])


def _bag(L, name):
    idx, offsets = L.tensor(IDX), L.tensor(OFFSETS)
    psw = L.tensor(np.linspace(0.5, 2.0, 10))
    return {
        "mean": lambda w: L.nn.functional.embedding_bag(idx, w, offsets),
        "sum-weights": lambda w: L.nn.functional.embedding_bag(idx, w, offsets, mode="sum",
                                                               per_sample_weights=psw),
        "max": lambda w: L.nn.functional.embedding_bag(idx, w, offsets, mode="max"),
        "padding": lambda w: L.nn.functional.embedding_bag(idx, w, offsets, padding_idx=4),
        "last-offset": lambda w: L.nn.functional.embedding_bag(
            idx, w, L.tensor([0, 2, 5, 10]), mode="sum", include_last_offset=True),
        "2d": lambda w: L.nn.functional.embedding_bag(idx.reshape(2, 5), w, mode="max"),
        "2d-padding-sum": lambda w: L.nn.functional.embedding_bag(idx.reshape(5, 2), w,
                                                                  mode="sum", padding_idx=0),
    }[name]


@pytest.mark.parametrize("name", ["mean", "sum-weights", "max", "padding", "last-offset", "2d",
                                  "2d-padding-sum"])
def test_embedding_bag_matches_torch(name):
    g_out, t_out = check(_bag(gradjit, name), _bag(torch, name), randn(10, 3).astype(np.float64),
                         rtol=1e-12, atol=1e-12)
    assert type(g_out.grad_fn).__name__ == type(t_out.grad_fn).__name__


def test_embedding_bag_module_and_max_norm_match_torch():
    for kwargs in ({}, {"mode": "max", "padding_idx": 2}, {"max_norm": 1.0, "mode": "sum"},
                   {"norm_type": 1.0, "scale_grad_by_freq": True}):
        torch.manual_seed(0)
        t = torch.nn.EmbeddingBag(10, 3, **kwargs)
        gradjit.manual_seed(0)
        g = gradjit.nn.EmbeddingBag(10, 3, **kwargs)
        assert repr(g) == repr(t)
        np.testing.assert_allclose(g.weight.detach().numpy(), t.weight.detach().numpy(),
                                   rtol=1e-5)
        got = g(gradjit.tensor(IDX), gradjit.tensor(OFFSETS))
        want = t(torch.tensor(IDX), torch.tensor(OFFSETS))
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_allclose(g.weight.detach().numpy(), t.weight.detach().numpy(),
                                   rtol=1e-5)
    weights = randn(4, 2)
    g = gradjit.nn.EmbeddingBag.from_pretrained(gradjit.tensor(weights), mode="sum")
    t = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(weights), mode="sum")
    assert repr(g) == repr(t) and g.weight.requires_grad == t.weight.requires_grad
    g = gradjit.nn.EmbeddingBag.from_pretrained(gradjit.tensor(weights), False, mode="sum")
    t = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(weights), False, mode="sum")
    check_module(g, t, np.array([[0, 3], [2, 2]]))


BAG_ERRORS = {
    "mode": lambda L: L.nn.functional.embedding_bag(L.tensor([0]), L.ones(2, 2),
                                                    L.tensor([0]), mode="min"),
    "weights-mode": lambda L: L.nn.functional.embedding_bag(
        L.tensor([0]), L.ones(2, 2), L.tensor([0]), per_sample_weights=L.ones(1)),
    "weights-shape": lambda L: L.nn.functional.embedding_bag(
        L.tensor([0]), L.ones(2, 2), L.tensor([0]), mode="sum", per_sample_weights=L.ones(2)),
    "no-offsets": lambda L: L.nn.functional.embedding_bag(L.tensor([0]), L.ones(2, 2)),
    "offsets-rank": lambda L: L.nn.functional.embedding_bag(L.tensor([0]), L.ones(2, 2),
                                                            L.tensor([[0]])),
    "input-rank": lambda L: L.nn.functional.embedding_bag(L.tensor([[[0]]]), L.ones(2, 2)),
    "weight-rank": lambda L: L.nn.functional.embedding_bag(L.tensor([[0]]), L.ones(2)),
    "max-freq": lambda L: L.nn.functional.embedding_bag(
        L.tensor([0]), L.ones(2, 2), L.tensor([0]), mode="max", scale_grad_by_freq=True),
    "padding": lambda L: L.nn.EmbeddingBag(3, 2, padding_idx=3),
    "pretrained": lambda L: L.nn.EmbeddingBag.from_pretrained(L.ones(3)),
    "softmax2d": lambda L: L.nn.Softmax2d()(L.ones(2, 2)),
    "lrn-rank": lambda L: L.nn.functional.local_response_norm(L.ones(2, 3), 2),
    "pdist-rank": lambda L: L.nn.functional.pdist(L.ones(3)),
    "grid-mode": lambda L: L.nn.functional.grid_sample(L.ones(1, 1, 2, 2), L.ones(1, 1, 1, 2),
                                                       "cubic", align_corners=False),
    "grid-padding": lambda L: L.nn.functional.grid_sample(
        L.ones(1, 1, 2, 2), L.ones(1, 1, 1, 2), padding_mode="wrap", align_corners=False),
    "affine-dtype": lambda L: L.nn.functional.affine_grid(L.ones(1, 2, 3, dtype=L.int64),
                                                          (1, 1, 2, 2), False),
    "affine-shape": lambda L: L.nn.functional.affine_grid(L.ones(1, 3, 3), (1, 1, 2, 2), False),
    "affine-size": lambda L: L.nn.functional.affine_grid(L.ones(1, 2, 3), (1, 2, 2), False),
    "affine-empty": lambda L: L.nn.functional.affine_grid(L.ones(1, 2, 3), (1, 1, 0, 2), False),
}


@pytest.mark.parametrize("name", BAG_ERRORS)
def test_errors_match_torch(name):
    same_error(lambda: BAG_ERRORS[name](gradjit), lambda: BAG_ERRORS[name](torch))


FUNCTIONS = {
    "lrn": lambda F, x: F.local_response_norm(x, 3),
    "lrn-3d": lambda F, x: F.local_response_norm(x[:, :, 0], 2, 1e-2, 0.5, 2.0),
    "lrn-5d": lambda F, x: F.local_response_norm(x[..., None], 4, 0.1),
    "pdist": lambda F, x: F.pdist(x[0, 0]),
    "pdist-p1": lambda F, x: F.pdist(x[0, 1], 1.0),
    "pdist-inf": lambda F, x: F.pdist(x[1, 0], float("inf")),
    "softmax2d": lambda F, x: (torch if F is TF else gradjit).nn.Softmax2d()(x),
}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_functions_match_torch(name):
    check(lambda x: FUNCTIONS[name](F, x), lambda x: FUNCTIONS[name](TF, x),
          randn(2, 5, 4, 3).astype(np.float64), rtol=1e-10, atol=1e-12)


def test_offsets_with_2d_input_are_refused():
    with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None, as "
                                         "input is treated is a mini-batch of fixed length "
                                         "sequences. However, found offsets of type <class "):
        F.embedding_bag(gradjit.tensor([[0]]), gradjit.ones(2, 2), gradjit.tensor([0]))


def test_torch_pdist_names_the_same_node():
    x = randn(4, 3)
    g_out = gradjit.pdist(gradjit.tensor(x, requires_grad=True))
    t_out = torch.pdist(torch.tensor(x, requires_grad=True))
    np.testing.assert_allclose(g_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-6)
    assert type(g_out.grad_fn).__name__ == type(t_out.grad_fn).__name__


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_draws_torchs_noise(hard):
    results = []
    for lib in (torch, gradjit):
        lib.manual_seed(5)
        logits = lib.tensor(randn(4, 6).astype(np.float64), requires_grad=True)
        out = lib.nn.functional.gumbel_softmax(logits, tau=0.7, hard=hard, dim=-1)
        (out * lib.tensor(np.arange(24.0).reshape(4, 6))).sum().backward()
        results.append((out.detach().numpy(), logits.grad.numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-10, atol=1e-12)


def test_gumbel_softmax_eps_warns_as_torch():
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(gradjit.zeros(2, 3), eps=0.1)


GRID = np.random.default_rng(0).uniform(-1.3, 1.3, (2, 4, 7, 2))
GRID[0, 0, :4] = [[1, 1], [-1, -1], [1, -0.5], [0.25, -1]]  # on the edges


@pytest.mark.parametrize("mode,padding_mode,align_corners", itertools.product(
    ["bilinear", "nearest"], ["zeros", "border", "reflection"], [True, False]))
def test_grid_sample_matches_torch(mode, padding_mode, align_corners):
    x = randn(2, 3, 5, 6).astype(np.float64)
    results = []
    for lib in (torch, gradjit):
        xs, grid = lib.tensor(x, requires_grad=True), lib.tensor(GRID, requires_grad=True)
        out = lib.nn.functional.grid_sample(xs, grid, mode, padding_mode, align_corners)
        (out * out).sum().backward()
        grid_grad = np.zeros(GRID.shape) if grid.grad is None else grid.grad.numpy()
        results.append((out.detach().numpy(), xs.grad.numpy(), grid_grad,
                        type(out.grad_fn).__name__))
    for got, want in zip(results[1][:3], results[0][:3]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    assert results[1][3] == results[0][3]


@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 1, 3), (2, 3, 4, 5, 3)])
@pytest.mark.parametrize("align_corners", [True, False])
def test_affine_grid_matches_torch(size, align_corners):
    n = len(size) - 2
    g_out, t_out = check(lambda t: F.affine_grid(t, size, align_corners),
                         lambda t: TF.affine_grid(t, size, align_corners),
                         randn(2, n, n + 1).astype(np.float64), rtol=1e-12, atol=1e-12)
    assert type(g_out.grad_fn).__name__ == type(t_out.grad_fn).__name__


def test_default_align_corners_warns_as_torch():
    messages = []
    for lib in (torch, gradjit):
        with pytest.warns(UserWarning) as record:
            lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), (1, 1, 2, 2))
        messages.append(str(record[0].message))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("name,args", [("relu_", ()), ("elu_", (0.5,)), ("leaky_relu_", (0.2,)),
                                       ("hardtanh_", (-0.5, 0.5)), ("threshold_", (0.1, -2.0)),
                                       ("selu_", ()), ("celu_", (1.5,)), ("rrelu_", (0.1, 0.3))])
def test_in_place_functional_activations_match_torch(name, args):
    x = randn(3, 4)
    g, t = gradjit.tensor(x), torch.tensor(x)
    assert getattr(F, name)(g, *args) is g
    getattr(TF, name)(t, *args)
    np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-6)


@pytest.mark.parametrize("layer", ["AlphaDropout", "FeatureAlphaDropout"])
def test_alpha_dropout_layers_draw_torchs_masks(layer):
    x = randn(3, 4, 5)
    outs = []
    for lib in (torch, gradjit):
        lib.manual_seed(2)
        module = getattr(lib.nn, layer)(0.3)
        outs.append((module(lib.tensor(x)).numpy(), repr(module),
                     module.eval()(lib.tensor(x)).numpy()))
    np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=1e-6)
    assert outs[1][1] == outs[0][1]
    np.testing.assert_array_equal(outs[1][2], x)


def test_buffer_assignment_registers_as_torch():
    results = []
    for lib in (torch, gradjit):
        module = lib.nn.Module()
        module.kept = lib.nn.Buffer(lib.ones(2))
        module.scratch = lib.nn.Buffer(lib.zeros(1), persistent=False)
        module.plain = lib.ones(1)
        results.append((list(module.state_dict()), [n for n, _ in module.named_buffers()],
                        isinstance(module.kept, lib.nn.Buffer),
                        isinstance(lib.ones(1), lib.nn.Buffer)))
    assert results[0] == results[1]


def test_module_reprs_match_torch():
    for make in (lambda L: L.nn.LocalResponseNorm(3), lambda L: L.nn.LocalResponseNorm(2, 1, 2, 3),
                 lambda L: L.nn.Softmax2d(), lambda L: L.nn.FeatureAlphaDropout()):
        assert repr(make(gradjit)) == repr(make(torch))
    check_module(gradjit.nn.LocalResponseNorm(3), torch.nn.LocalResponseNorm(3),
                 randn(2, 5, 4))
