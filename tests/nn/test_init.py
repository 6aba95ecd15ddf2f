"""nn.init and the default initializations: PyTorch's gains, fans, bounds and distributions
(the numbers themselves follow the generator, so statistics are compared, not values;
orthogonal_ and sparse_ draw as PyTorch does and are compared by value)."""
import math

import numpy as np
import pytest
from scipy import stats

import gradjit
from gradjit import nn
from gradjit.nn import init
from tests.nn.helpers import same_error, torch


@pytest.mark.parametrize("name, param", [("linear", None), ("conv2d", None), ("sigmoid", None),
                                         ("tanh", None), ("relu", None), ("leaky_relu", None),
                                         ("leaky_relu", 0.2), ("selu", None)])
def test_calculate_gain_matches_torch(name, param):
    assert init.calculate_gain(name, param) == torch.nn.init.calculate_gain(name, param)


def test_init_errors_match_torch():
    same_error(lambda: init.calculate_gain("swish"),
               lambda: torch.nn.init.calculate_gain("swish"))
    same_error(lambda: init.calculate_gain("leaky_relu", "x"),
               lambda: torch.nn.init.calculate_gain("leaky_relu", "x"))
    same_error(lambda: init.xavier_uniform_(gradjit.empty(3)),
               lambda: torch.nn.init.xavier_uniform_(torch.empty(3)))
    same_error(lambda: init.kaiming_normal_(gradjit.empty(3, 3), mode="fan_avg"),
               lambda: torch.nn.init.kaiming_normal_(torch.empty(3, 3), mode="fan_avg"))


@pytest.mark.parametrize("fill", [
    lambda lib, t: lib.nn.init.uniform_(t, -0.3, 0.7),
    lambda lib, t: lib.nn.init.xavier_uniform_(t, gain=2.0),
    lambda lib, t: lib.nn.init.kaiming_uniform_(t, a=math.sqrt(5)),
    lambda lib, t: lib.nn.init.kaiming_uniform_(t, mode="fan_out", nonlinearity="relu"),
])
def test_uniform_fills_have_torchs_bounds(fill):
    shape = (300, 200, 2)
    g = gradjit.empty(shape)
    assert fill(gradjit, g) is g
    t = torch.empty(shape)
    fill(torch, t)
    values = g.numpy().ravel()
    low, high = float(t.min()), float(t.max())
    assert low - 0.01 * abs(low) <= values.min() and values.max() <= high + 0.01 * abs(high)
    assert stats.ks_2samp(values[:5000], t.numpy().ravel()[:5000]).pvalue > 1e-4


@pytest.mark.parametrize("fill", [
    lambda lib, t: lib.nn.init.normal_(t, 0.5, 2.0),
    lambda lib, t: lib.nn.init.xavier_normal_(t),
    lambda lib, t: lib.nn.init.kaiming_normal_(t, nonlinearity="relu"),
    lambda lib, t: lib.nn.init.kaiming_normal_(t, a=0.1, mode="fan_out"),
    lambda lib, t: lib.nn.init.trunc_normal_(t, 0.2, 1.5, -1.0, 2.5),
])
def test_normal_fills_follow_torchs_distribution(fill):
    shape = (100, 40, 3)
    g, t = gradjit.empty(shape), torch.empty(shape)
    fill(gradjit, g), fill(torch, t)
    ours, theirs = g.numpy().ravel(), t.numpy().ravel()
    assert stats.ks_2samp(ours, theirs).pvalue > 1e-4


def test_constant_fills_and_parameters_stay_leaves():
    w = nn.Parameter(gradjit.empty(2, 3))
    for fill, value in ((init.zeros_, 0.0), (init.ones_, 1.0),
                        (lambda t: init.constant_(t, 0.25), 0.25)):
        assert fill(w) is w and np.all(w.detach().numpy() == value)
        assert w.is_leaf and w.requires_grad and w.grad_fn is None
    init.trunc_normal_(w, a=-0.1, b=0.1)
    assert np.abs(w.detach().numpy()).max() <= 0.1 and w.is_leaf


@pytest.mark.parametrize("name, args", [("Linear", (30, 50)), ("Bilinear", (20, 10, 30)),
                                        ("Conv1d", (6, 40, 5)), ("Conv2d", (4, 30, (3, 2))),
                                        ("Conv2d", (4, 30, 3, 1, 0, 1, 2)),
                                        ("Embedding", (100, 20))])
def test_default_initializations_draw_like_torch(name, args):
    gm, tm = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    for (g_name, g), (t_name, t) in zip(gm.named_parameters(), tm.named_parameters()):
        assert g_name == t_name and tuple(g.shape) == tuple(t.shape)
        assert g.dtype is gradjit.float32 and g.requires_grad
        ours, theirs = g.detach().numpy().ravel(), t.detach().numpy().ravel()
        if name == "Embedding":
            assert stats.kstest(ours, "norm").pvalue > 1e-4
            continue
        fan_in = tm.weight.shape[1] if name == "Bilinear" else math.prod(tm.weight.shape[1:])
        bound = 1 / math.sqrt(fan_in)
        assert np.abs(ours).max() <= bound and np.abs(theirs).max() <= bound
        if ours.size >= 500:  # then a draw within 10% of the bound is all but certain
            assert np.abs(ours).max() > 0.9 * bound
        assert stats.kstest(ours / bound, "uniform", (-1, 2)).pvalue > 1e-4


@pytest.mark.parametrize("shape", [(3, 5), (6, 2), (4, 2, 3)])
@pytest.mark.parametrize("fill", ["orthogonal", "orthogonal-gain", "sparse"])
def test_orthogonal_and_sparse_draw_pytorchs_values(shape, fill):
    fills = {"orthogonal": lambda L, t: L.nn.init.orthogonal_(t),
             "orthogonal-gain": lambda L, t: L.nn.init.orthogonal_(t, gain=2.0),
             "sparse": lambda L, t: L.nn.init.sparse_(t, 0.5)}
    if fill == "sparse" and len(shape) != 2:
        same_error(lambda: fills[fill](gradjit, gradjit.empty(shape)),
                   lambda: fills[fill](torch, torch.empty(shape)))
        return
    results = []
    for lib in (torch, gradjit):
        lib.manual_seed(0)
        t = lib.empty(shape)
        fills[fill](lib, t)
        results.append(t.numpy().copy())
    np.testing.assert_allclose(results[1], results[0], atol=1e-6)
    if fill.startswith("orthogonal"):
        flat = results[1].reshape(shape[0], -1)
        small = flat @ flat.T if shape[0] <= flat.shape[1] else flat.T @ flat
        scale = 4.0 if fill == "orthogonal-gain" else 1.0
        np.testing.assert_allclose(small, scale * np.eye(len(small)), atol=1e-5)


def test_eye_and_dirac_match_pytorch():
    for lib in (torch, gradjit):
        lib.manual_seed(0)
    for make in (lambda L: L.nn.init.eye_(L.empty(2, 3)),
                 lambda L: L.nn.init.dirac_(L.empty(4, 2, 3, 3), 2),
                 lambda L: L.nn.init.dirac_(L.empty(3, 5, 3))):
        assert make(gradjit).tolist() == make(torch).tolist()
    for bad in (lambda L: L.nn.init.eye_(L.empty(2)), lambda L: L.nn.init.dirac_(L.empty(2, 2)),
                lambda L: L.nn.init.dirac_(L.empty(3, 2, 3), 2),
                lambda L: L.nn.init.orthogonal_(L.empty(3))):
        same_error(lambda: bad(gradjit), lambda: bad(torch))
