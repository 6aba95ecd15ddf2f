"""Layers and their functionals against torch.nn with copied weights: values and gradients
for inputs and parameters, training and eval modes, errors."""
import numpy as np
import pytest

import gradjit
from gradjit import nn
from gradjit.nn import functional as F
from tests.nn.helpers import check, check_module, close, randn, same_error, torch

X = randn(4, 5)


@pytest.mark.parametrize("name, args, shape", [
    ("Linear", (5, 3), (4, 5)), ("Linear", (5, 3, False), (2, 4, 5)), ("Linear", (5, 2), (5,)),
    ("Identity", (), (4, 5)), ("Flatten", (), (2, 3, 4)), ("Flatten", (0, 1), (2, 3, 4)),
    ("ReLU", (), (4, 5)), ("LeakyReLU", (0.2,), (4, 5)), ("GELU", (), (4, 5)),
    ("GELU", ("tanh",), (4, 5)), ("Tanh", (), (4, 5)), ("Sigmoid", (), (4, 5)),
    ("Softmax", (1,), (4, 5)), ("Softmax", (0,), (4, 5)), ("LogSoftmax", (1,), (4, 5)),
    ("LogSoftmax", (-1,), (2, 3, 4)), ("LayerNorm", (5,), (4, 5)),
    ("LayerNorm", ((3, 4),), (2, 3, 4)), ("LayerNorm", (4, 1e-3, False), (3, 4)),
    ("BatchNorm1d", (5,), (4, 5)), ("BatchNorm1d", (3,), (4, 3, 6)),
    ("BatchNorm1d", (3, 1e-5, None), (4, 3)), ("BatchNorm1d", (3, 1e-5, 0.1, False), (4, 3)),
    ("BatchNorm1d", (3, 1e-5, 0.1, True, False), (4, 3)), ("Dropout", (0.0,), (4, 5)),
    ("BatchNorm2d", (3,), (2, 3, 4, 5)), ("BatchNorm2d", (3, 1e-3, None), (2, 3, 2, 2)),
    ("BatchNorm3d", (2,), (2, 2, 3, 2, 2)),
])
@pytest.mark.parametrize("training", [True, False])
def test_layer_matches_torch(name, args, shape, training):
    gm, tm = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    gm.train(training), tm.train(training)
    for step in range(2):  # twice: running statistics move between calls
        check_module(gm, tm, randn(*shape, seed=step), rtol=1e-4, atol=1e-5)
        gm.zero_grad(), tm.zero_grad()


def test_bilinear_and_embedding_match_torch():
    check_module(nn.Bilinear(3, 4, 2), torch.nn.Bilinear(3, 4, 2), randn(5, 3), randn(5, 4))
    check_module(nn.Bilinear(3, 4, 2, bias=False), torch.nn.Bilinear(3, 4, 2, bias=False),
                 randn(2, 5, 3), randn(2, 5, 4))
    index = np.array([[0, 2, 1], [2, 2, 4]])
    for padding_idx in (None, 2, -1):
        gm, tm = nn.Embedding(5, 3, padding_idx), torch.nn.Embedding(5, 3, padding_idx)
        check_module(gm, tm, index)
        if padding_idx is not None:
            assert not gm.weight.grad[padding_idx].any()
    assert not nn.Embedding(5, 3, padding_idx=1).weight[1].any()
    frozen = nn.Embedding.from_pretrained(gradjit.eye(3))
    assert not frozen.weight.requires_grad and frozen(gradjit.tensor([1])).tolist() == \
        [[0.0, 1.0, 0.0]]


def test_batchnorm_running_statistics_and_counts():
    gm, tm = nn.BatchNorm1d(3, momentum=None), torch.nn.BatchNorm1d(3, momentum=None)
    for seed in range(3):
        x = randn(6, 3, seed=seed) * 3 + 1
        close(gm(gradjit.tensor(x)), tm(torch.tensor(x)), rtol=1e-4)
    close(gm.running_mean, tm.running_mean), close(gm.running_var, tm.running_var)
    assert int(gm.num_batches_tracked) == 3
    gm.eval(), tm.eval()
    close(gm(gradjit.tensor(X[:, :3])), tm(torch.tensor(X[:, :3])), rtol=1e-4)
    gm.reset_parameters()
    assert gm.running_mean.tolist() == [0.0] * 3 and int(gm.num_batches_tracked) == 0
    same_error(lambda: nn.BatchNorm1d(3)(gradjit.ones(1, 3)),
               lambda: torch.nn.BatchNorm1d(3)(torch.ones(1, 3)))
    for name, shape in (("BatchNorm1d", (1, 3, 2, 2)), ("BatchNorm2d", (2, 3)),
                        ("BatchNorm3d", (2, 3, 4, 4))):
        same_error(lambda: getattr(nn, name)(3)(gradjit.ones(*shape)),
                   lambda: getattr(torch.nn, name)(3)(torch.ones(*shape)))
    assert repr(nn.BatchNorm2d(4)) == repr(torch.nn.BatchNorm2d(4))


def test_dropout_scales_kept_elements_and_is_identity_in_eval():
    gradjit.manual_seed(0)
    x = gradjit.ones(200, 50, requires_grad=True)
    layer = nn.Dropout(0.3)
    out = layer(x)
    kept = out != 0
    assert abs(float(kept.float().mean()) - 0.7) < 0.02
    assert np.allclose(out[kept].detach().numpy(), 1 / 0.7)
    out.sum().backward()
    assert np.allclose(x.grad.numpy(), kept.float().numpy() / 0.7)
    assert layer.eval()(x) is x and F.dropout(x, 0.5, training=False) is x
    assert not F.dropout(x, 1.0).any()
    with torch.no_grad():
        y = gradjit.ones(10)
        F.dropout(y, 0.5, inplace=True)
    assert set(y.tolist()) <= {0.0, 2.0}
    same_error(lambda: nn.Dropout(1.5), lambda: torch.nn.Dropout(1.5))
    same_error(lambda: F.dropout(x, -1), lambda: torch.nn.functional.dropout(torch.ones(1), -1))


@pytest.mark.parametrize("fn, kwargs", [
    ("relu", {}), ("leaky_relu", {"negative_slope": 0.3}), ("gelu", {}),
    ("gelu", {"approximate": "tanh"}), ("tanh", {}), ("sigmoid", {}), ("softmax", {"dim": 0}),
    ("log_softmax", {"dim": 1}), ("softmax", {"dim": 1, "dtype": gradjit.float64}),
])
def test_activation_functionals(fn, kwargs):
    t_kwargs = {k: torch.float64 if v is gradjit.float64 else v for k, v in kwargs.items()}
    check(lambda x: getattr(F, fn)(x, **kwargs),
          lambda x: getattr(torch.nn.functional, fn)(x, **t_kwargs), X)


def test_functionals_of_layers():
    w, b = randn(3, 5), randn(3)
    check(F.linear, torch.nn.functional.linear, X, w, b)
    check(F.linear, torch.nn.functional.linear, X, w)
    check(F.bilinear, torch.nn.functional.bilinear, randn(4, 2), randn(4, 3), randn(5, 2, 3))
    check(lambda x, w, b: F.layer_norm(x, (5,), w, b, 1e-3),
          lambda x, w, b: torch.nn.functional.layer_norm(x, (5,), w, b, 1e-3),
          X, randn(5), randn(5))
    check(lambda x, w: F.embedding(gradjit.tensor([[1, 0]]), w, padding_idx=0),
          lambda x, w: torch.nn.functional.embedding(torch.tensor([[1, 0]]), w, padding_idx=0),
          X, randn(3, 4))
    for training in (True, False):
        g_stats = [gradjit.zeros(5), gradjit.ones(5)]
        t_stats = [torch.zeros(5), torch.ones(5)]
        check(lambda x, w, b: F.batch_norm(x, *g_stats, w, b, training, 0.3),
              lambda x, w, b: torch.nn.functional.batch_norm(x, *t_stats, w, b, training, 0.3),
              X, randn(5), randn(5), rtol=1e-4, atol=1e-5)
        close(g_stats[1], t_stats[1])
    with pytest.warns(UserWarning, match="Implicit dimension"):
        close(F.softmax(gradjit.tensor(X)), torch.nn.functional.softmax(torch.tensor(X), 1))


def test_one_hot_matches_torch():
    labels = np.array([[0, 3], [1, 1]])
    for classes in (-1, 5):
        g = F.one_hot(gradjit.tensor(labels), classes)
        t = torch.nn.functional.one_hot(torch.tensor(labels), classes)
        assert g.tolist() == t.tolist() and g.dtype is gradjit.int64
    same_error(lambda: F.one_hot(gradjit.tensor([1.0])),
               lambda: torch.nn.functional.one_hot(torch.tensor([1.0])))
    same_error(lambda: F.one_hot(gradjit.tensor([1, 4]), 3),
               lambda: torch.nn.functional.one_hot(torch.tensor([1, 4]), 3))
    same_error(lambda: F.one_hot(gradjit.tensor([-1, 1]), 3),
               lambda: torch.nn.functional.one_hot(torch.tensor([-1, 1]), 3))


def test_layer_errors_match_torch():
    same_error(lambda: F.gelu(gradjit.ones(1), approximate="fast"),
               lambda: torch.nn.functional.gelu(torch.ones(1), approximate="fast"))
    same_error(lambda: F.layer_norm(gradjit.ones(2, 3), (4,)),
               lambda: torch.nn.functional.layer_norm(torch.ones(2, 3), (4,)))
    same_error(lambda: nn.Embedding(3, 2, padding_idx=3),
               lambda: torch.nn.Embedding(3, 2, padding_idx=3))


def test_linear_records_addmm_as_torch():
    """The 60-minute blitz prints loss.grad_fn.next_functions[0][0]: AddmmBackward0."""
    for shape in ((3,), (4, 3), (2, 4, 3)):
        nodes = []
        for lib in (torch, gradjit):
            layer = lib.nn.Linear(3, 2)
            out = layer(lib.ones(*shape))
            nodes.append([type(out.grad_fn).__name__] + [
                type(f).__name__ for f, _ in out.grad_fn.next_functions if f is not None])
        assert nodes[0] == nodes[1]
    no_bias = gradjit.nn.Linear(3, 2, bias=False)(gradjit.ones(4, 3))
    assert type(no_bias.grad_fn).__name__ == "MmBackward0"
