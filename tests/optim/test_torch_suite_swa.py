"""The public-API scenarios of PyTorch's swa_utils tests run side by side on gradjit and torch:
AveragedModel (SWA, EMA, multi-tensor averages, buffers), its state_dict and pickling, SWALR's
annealing and update_bn's recomputed BatchNorm statistics."""
import pickle
import warnings

import numpy as np
import pytest
import torch

import gradjit


def _net(lib):
    """A small seeded network with a BatchNorm (parameters and buffers)."""
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.BatchNorm1d(5), lib.nn.ReLU(),
                             lib.nn.Linear(5, 2)).double()


def _same_weights(lib, source):
    """`source`'s (torch) weights in a network of `lib`."""
    net = _net(lib)
    with lib.no_grad():
        for mine, theirs in zip(net.state_dict().values(), source.state_dict().values()):
            mine.copy_(lib.tensor(theirs.numpy()))
    return net


def _numpy(module):
    return {k: v.detach().numpy().copy() for k, v in module.state_dict().items()}


def _assert_close(g, t):
    assert g.keys() == t.keys()
    for key in g:
        np.testing.assert_allclose(g[key], t[key], rtol=1e-12, atol=1e-14, err_msg=key)


def _perturb(lib, net, k):
    rng = np.random.default_rng(k)
    with lib.no_grad():
        for p in net.parameters():
            p.add_(lib.tensor(rng.standard_normal(tuple(p.shape))))
        net[1].running_mean.add_(float(k))


def _averaged(lib, steps=4, **kwargs):
    net = _net(lib)
    averaged = lib.optim.swa_utils.AveragedModel(net, **kwargs)
    for k in range(steps):
        _perturb(lib, net, k)
        averaged.update_parameters(net)
    return averaged


AVERAGES = {
    "swa": lambda lib: {},
    "swa-buffers": lambda lib: dict(use_buffers=True),
    "ema": lambda lib: dict(avg_fn=lib.optim.swa_utils.get_ema_avg_fn(0.7)),
    "ema-multi": lambda lib: dict(multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn(0.7)),
    "swa-multi": lambda lib: dict(multi_avg_fn=lib.optim.swa_utils.get_swa_multi_avg_fn()),
    "ema-multi-buffers": lambda lib: dict(
        multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn(0.5), use_buffers=True),
    "custom": lambda lib: dict(avg_fn=lambda avg, new, n: 0.25 * avg + 0.75 * new),
}


@pytest.mark.parametrize("key", sorted(AVERAGES))
def test_averaged_model_matches_torch(key):
    g = _averaged(gradjit, **AVERAGES[key](gradjit))
    t = _averaged(torch, **AVERAGES[key](torch))
    _assert_close(_numpy(g), _numpy(t))
    assert int(g.n_averaged) == int(t.n_averaged) == 4


def test_averaged_model_state_dict_loads_into_a_fresh_one():
    results = []
    for lib in (gradjit, torch):
        averaged = _averaged(lib)
        fresh = lib.optim.swa_utils.AveragedModel(_net(lib))
        fresh.load_state_dict(averaged.state_dict())
        _perturb(lib, averaged.module, 9)
        results.append((_numpy(fresh), sorted(averaged.state_dict())))
    _assert_close(results[0][0], results[1][0])
    assert results[0][1] == results[1][1]


def test_averaged_model_pickles_with_the_default_average():
    results = []
    for lib in (gradjit, torch):
        averaged = pickle.loads(pickle.dumps(_averaged(lib, steps=2)))
        x = lib.tensor(np.linspace(-1, 1, 12).reshape(3, 4))
        results.append(averaged.eval()(x).detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


def test_averaged_model_forward_is_the_copy():
    results = []
    for lib in (gradjit, torch):
        averaged = _averaged(lib).train()
        x = lib.tensor(np.linspace(-1, 1, 12).reshape(3, 4))
        results.append(averaged(x).detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


@pytest.mark.parametrize("decay", [-0.1, 1.5])
def test_bad_decay_raises_as_torch(decay):
    for name in ("get_ema_avg_fn", "get_ema_multi_avg_fn"):
        with pytest.raises(ValueError) as t_info:
            getattr(torch.optim.swa_utils, name)(decay)
        with pytest.raises(ValueError) as g_info:
            getattr(gradjit.optim.swa_utils, name)(decay)
        assert str(g_info.value) == str(t_info.value)


def _swalr(lib, strategy, anneal_epochs, epochs=12):
    net = _net(lib)
    opt = lib.optim.SGD([{"params": net[0].parameters()},
                         {"params": net[3].parameters(), "lr": 0.5}], lr=1.0)
    scheduler = lib.optim.swa_utils.SWALR(opt, swa_lr=[0.05, 0.2], anneal_epochs=anneal_epochs,
                                          anneal_strategy=strategy)
    seen = [scheduler.get_last_lr()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(epochs):
            opt.step()
            scheduler.step()
            seen.append(scheduler.get_last_lr())
    return seen, sorted(scheduler.state_dict())


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("anneal_epochs", [0, 1, 5])
def test_swalr_anneals_as_torch(strategy, anneal_epochs):
    g, t = _swalr(gradjit, strategy, anneal_epochs), _swalr(torch, strategy, anneal_epochs)
    assert np.allclose(g[0], t[0], rtol=1e-12)
    assert g[1] == t[1]


@pytest.mark.parametrize("kwargs", [dict(anneal_strategy="exp"), dict(anneal_epochs=-1),
                                    dict(anneal_epochs=2.5), dict(swa_lr=[0.1, 0.2, 0.3])])
def test_swalr_errors_match_torch(kwargs):
    messages = []
    for lib in (gradjit, torch):
        opt = lib.optim.SGD([lib.ones(2, requires_grad=True)], lr=1.0)
        with pytest.raises(ValueError) as info:
            lib.optim.swa_utils.SWALR(opt, **{"swa_lr": 0.1, **kwargs})
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("batched", ["tensors", "pairs"])
def test_update_bn_recomputes_the_statistics(batched):
    results = []
    rng = np.random.default_rng(5)
    data = [rng.standard_normal((6, 4)) * 2 + 1 for _ in range(3)]
    source = _net(torch)
    for lib in (gradjit, torch):
        net = _same_weights(lib, source)
        net[1].momentum = 0.3
        loader = [lib.tensor(x) for x in data]
        if batched == "pairs":
            loader = [(x, lib.zeros(6)) for x in loader]
        net.eval()
        lib.optim.swa_utils.update_bn(loader, net)
        results.append((_numpy(net), net.training, net[1].momentum))
    _assert_close(results[0][0], results[1][0])
    assert results[0][1:] == results[1][1:] == (False, 0.3)


def test_update_bn_without_batchnorm_changes_nothing():
    results = []
    for lib in (gradjit, torch):
        lib.manual_seed(0)
        net = lib.nn.Linear(3, 2).double()
        before = _numpy(net)
        lib.optim.swa_utils.update_bn([lib.ones(2, 3, dtype=lib.float64)], net)
        results.append((before, _numpy(net)))
    _assert_close(*results[0])
    _assert_close(results[0][1], results[1][1])
