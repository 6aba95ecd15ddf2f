"""nn.AdaptiveLogSoftmaxWithLoss against PyTorch: seeded initialization, structure and repr,
forward's output and loss with their gradients, log_prob, predict and errors."""
import numpy as np
import pytest

import gradjit
from tests.nn.helpers import close, randn, same_error

torch = pytest.importorskip("torch")

CASES = [dict(in_features=64, n_classes=20, cutoffs=[4, 9, 15]),
         dict(in_features=8, n_classes=10, cutoffs=(3,), div_value=2.0, head_bias=True)]


def _pair(kwargs, seed=0):
    torch.manual_seed(seed)
    t = torch.nn.AdaptiveLogSoftmaxWithLoss(**kwargs)
    gradjit.manual_seed(seed)
    g = gradjit.nn.AdaptiveLogSoftmaxWithLoss(**kwargs)
    return g, t


@pytest.mark.parametrize("kwargs", CASES)
def test_seeded_init_structure_and_repr(kwargs):
    g, t = _pair(kwargs)
    assert repr(g) == repr(t)
    for attr in ("cutoffs", "shortlist_size", "n_clusters", "head_size", "div_value",
                 "head_bias"):
        assert getattr(g, attr) == getattr(t, attr)
    t_params = dict(t.named_parameters())
    assert [n for n, _ in g.named_parameters()] == list(t_params)
    for name, p in g.named_parameters():
        close(p, t_params[name])


@pytest.mark.parametrize("kwargs", CASES)
def test_forward_output_loss_and_gradients(kwargs):
    g, t = _pair(kwargs)
    x = randn(12, kwargs["in_features"])
    target = np.random.default_rng(1).integers(0, kwargs["n_classes"], 12)
    target[:3] = [0, kwargs["n_classes"] - 1, kwargs["cutoffs"][0]]
    gx, tx = gradjit.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    g_out, t_out = g(gx, gradjit.tensor(target)), t(tx, torch.tensor(target))
    assert type(g_out).__name__ == "_ASMoutput" and g_out._fields == t_out._fields
    close(g_out.output, t_out.output)
    close(g_out.loss, t_out.loss)
    weights = np.linspace(0.5, 1.5, 12).astype(np.float32)
    (g_out.loss + (g_out.output * gradjit.tensor(weights)).sum()).backward()
    (t_out.loss + (t_out.output * torch.tensor(weights)).sum()).backward()
    close(gx.grad, tx.grad)
    t_params = dict(t.named_parameters())
    for name, p in g.named_parameters():
        # a tail no target falls in gets no gradient at all
        assert (p.grad is None) == (t_params[name].grad is None), name
        if p.grad is not None:
            close(p.grad, t_params[name].grad)


def test_unbatched_input():
    g, t = _pair(CASES[0])
    x = randn(64)
    g_out, t_out = g(gradjit.tensor(x), gradjit.tensor(17)), t(torch.tensor(x), torch.tensor(17))
    assert g_out.output.shape == t_out.output.shape == ()
    close(g_out.output, t_out.output)
    close(g_out.loss, t_out.loss)


@pytest.mark.parametrize("kwargs", CASES)
def test_log_prob_and_predict(kwargs):
    g, t = _pair(kwargs, seed=3)
    x = randn(40, kwargs["in_features"], seed=2) * 3
    close(g.log_prob(gradjit.tensor(x)), t.log_prob(torch.tensor(x)))
    predicted = t.predict(torch.tensor(x))
    assert (predicted >= kwargs["cutoffs"][0]).any()  # the tail branch is exercised
    np.testing.assert_array_equal(np.asarray(g.predict(gradjit.tensor(x))), predicted.numpy())


@pytest.mark.parametrize("kwargs", [dict(cutoffs=[]), dict(cutoffs=[5, 3]), dict(cutoffs=[0]),
                                    dict(cutoffs=[10]), dict(cutoffs=[2, 2]),
                                    dict(cutoffs=[2.5])])
def test_bad_cutoffs(kwargs):
    same_error(lambda: gradjit.nn.AdaptiveLogSoftmaxWithLoss(8, 10, **kwargs),
               lambda: torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, **kwargs))


@pytest.mark.parametrize("shapes", [((4, 64), [1, 2, 3]), ((3, 2, 64), [1, 2, 3]),
                                    ((16, 64), 3), ((3, 64), [[1], [2], [3]]),
                                    ((3, 64), [1, 25, 3]), ((3, 64), [1, -1, 3])])
def test_errors(shapes):
    shape, target = shapes
    g, t = _pair(CASES[0])
    x = randn(*shape)
    same_error(lambda: g(gradjit.tensor(x), gradjit.tensor(target)),
               lambda: t(torch.tensor(x), torch.tensor(target)))
