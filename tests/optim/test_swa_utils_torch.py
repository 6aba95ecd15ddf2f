"""torch.optim.swa_utils (AveragedModel with each averaging function, SWALR, update_bn) and
Adafactor's state_dict, repr and errors against PyTorch 2.13, over training steps from the same
weights."""
import copy
import warnings

import numpy as np
import pytest
import torch

import gradjit
from tests.optim.test_optimizers import _problem, _run
from tests.torch_reference import same_error


def _model(lib, seed=0):
    """Linear, BatchNorm and Linear with the weights of one numpy draw, in float32."""
    rng = np.random.default_rng(seed)
    model = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.BatchNorm1d(3), lib.nn.Linear(3, 2))
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    return model


def _averaging(lib, name):
    swa = lib.optim.swa_utils
    return {"swa": {}, "ema": dict(multi_avg_fn=swa.get_ema_multi_avg_fn(0.9)),
            "swa-multi": dict(multi_avg_fn=swa.get_swa_multi_avg_fn()),
            "ema-single": dict(avg_fn=swa.get_ema_avg_fn(0.8)),
            "swa-single": dict(avg_fn=swa.get_swa_avg_fn()),
            "ema-buffers": dict(multi_avg_fn=swa.get_ema_multi_avg_fn(0.5), use_buffers=True),
            "swa-buffers": dict(use_buffers=True)}[name]


def _train_and_average(lib, name, steps=6):
    """SGD on a fixed batch, the averaged model updated after every step."""
    model = _model(lib)
    averaged = lib.optim.swa_utils.AveragedModel(model, **_averaging(lib, name))
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    rng = np.random.default_rng(1)
    x = lib.tensor(rng.standard_normal((8, 4)).astype(np.float32))
    history = []
    for _ in range(steps):
        opt.zero_grad()
        (model(x) ** 2).mean().backward()
        opt.step()
        averaged.update_parameters(model)
        history.append({k: v.detach().numpy().copy() for k, v in averaged.state_dict().items()})
    return averaged, history, x


@pytest.mark.parametrize("name", ["swa", "ema", "swa-multi", "ema-single", "swa-single",
                                  "ema-buffers", "swa-buffers"])
def test_averaged_model_follows_torch(name):
    ours, our_history, x = _train_and_average(gradjit, name)
    theirs, their_history, tx = _train_and_average(torch, name)
    for mine, want in zip(our_history, their_history):
        assert mine.keys() == want.keys()
        for key in want:
            assert mine[key].dtype == want[key].dtype, key
            np.testing.assert_allclose(mine[key], want[key], rtol=1e-5, atol=1e-6, err_msg=key)
    assert ours.n_averaged.item() == theirs.n_averaged.item() == 6
    ours.eval()
    theirs.eval()
    np.testing.assert_allclose(ours(x).detach().numpy(), theirs(tx).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_update_bn_recomputes_the_statistics_as_torch():
    rng = np.random.default_rng(2)
    batches = [rng.standard_normal((5, 4)).astype(np.float32) for _ in range(3)]
    results = []
    for lib in (gradjit, torch):
        model = lib.optim.swa_utils.AveragedModel(_model(lib))
        model.eval()
        loader = [(lib.tensor(b), lib.zeros(5)) for b in batches]
        lib.optim.swa_utils.update_bn(loader, model)
        bn = model.module[1]
        results.append((bn.running_mean.numpy(), bn.running_var.numpy(),
                        bn.num_batches_tracked.item(), bn.momentum, model.training))
    (mean, var, count, momentum, training), (t_mean, t_var, t_count, t_momentum, t_training) = \
        results
    np.testing.assert_allclose(mean, t_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var, t_var, rtol=1e-5, atol=1e-6)
    assert (count, momentum, training) == (t_count, t_momentum, t_training)


@pytest.mark.parametrize("options", [dict(swa_lr=0.05), dict(swa_lr=[0.05, 0.5],
                                     anneal_epochs=3, anneal_strategy="linear"),
                                     dict(swa_lr=0.2, anneal_epochs=0)])
def test_swalr_follows_torch(options):
    lrs = []
    for lib in (gradjit, torch):
        w, b = lib.zeros(2, requires_grad=True), lib.zeros(1, requires_grad=True)
        opt = lib.optim.SGD([{"params": [w]}, {"params": [b], "lr": 1.0}], lr=0.3)
        schedule = lib.optim.swa_utils.SWALR(opt, **options)
        seen = [schedule.get_last_lr()]
        for _ in range(14):
            opt.step()
            schedule.step()
            seen.append(schedule.get_last_lr())
        lrs.append(seen)
        state = schedule.state_dict()
        assert "optimizer" not in state and state["anneal_epochs"] == schedule.anneal_epochs
    np.testing.assert_allclose(lrs[0], lrs[1], rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda lib: lib.optim.swa_utils.get_ema_multi_avg_fn(1.5),
    lambda lib: lib.optim.swa_utils.get_ema_avg_fn(-0.1),
    lambda lib: lib.optim.swa_utils.AveragedModel(lib.nn.Linear(2, 2), avg_fn=lambda *a: a[0],
                                                  multi_avg_fn=lambda *a: None),
    lambda lib: lib.optim.swa_utils.SWALR(lib.optim.SGD([lib.zeros(1, requires_grad=True)],
                                                        lr=0.1), swa_lr=0.1,
                                          anneal_strategy="step"),
    lambda lib: lib.optim.swa_utils.SWALR(lib.optim.SGD([lib.zeros(1, requires_grad=True)],
                                                        lr=0.1), swa_lr=0.1, anneal_epochs=-1),
    lambda lib: lib.optim.swa_utils.SWALR(lib.optim.SGD([lib.zeros(1, requires_grad=True)],
                                                        lr=0.1), swa_lr=[0.1, 0.2]),
    lambda lib: lib.optim.Adafactor([lib.zeros(1, requires_grad=True)], lr=-1.0),
    lambda lib: lib.optim.Adafactor([lib.zeros(1, requires_grad=True)], beta2_decay=0.5),
    lambda lib: lib.optim.Adafactor([lib.zeros(1, requires_grad=True)], eps=(-1.0, 1e-3)),
    lambda lib: lib.optim.Adafactor([lib.zeros(1, requires_grad=True)], eps=(None, -1.0)),
    lambda lib: lib.optim.Adafactor([lib.zeros(1, requires_grad=True)], d=0.5),
    lambda lib: lib.optim.Adafactor([lib.zeros(1, requires_grad=True)], weight_decay=-1.0),
    lambda lib: lib.optim.Adafactor([lib.zeros(1, requires_grad=True)], lr=lib.ones(2)),
], ids=["ema-multi-decay", "ema-decay", "both-fns", "strategy", "epochs", "lrs", "lr",
        "beta2", "eps1", "eps2", "d", "decay", "tensor-lr"])
def test_errors_as_torch(call):
    same_error(lambda: call(gradjit), lambda: call(torch))


def test_swalr_get_lr_outside_step_warns():
    for lib in (gradjit, torch):
        schedule = lib.optim.swa_utils.SWALR(
            lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1), swa_lr=0.01)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            schedule.get_lr()
        assert [str(w.message) for w in caught] == [
            "To get the last learning rate computed by the scheduler, please use "
            "`get_last_lr()`."]


@pytest.mark.parametrize("kind", ["swa", "ema"])
@pytest.mark.parametrize("values", [[10, 20], [10.0, 20.0]], ids=["long", "float"])
@pytest.mark.parametrize("count", [2, "tensor"])
def test_multi_avg_fns_on_each_dtype_as_torch(kind, values, count):
    """The float branch lerps; the integer one (num_batches_tracked) computes as PyTorch's, or
    fails where PyTorch's does (SWA's integer add with a fractional alpha; the messages are
    those of gradjit's add_ and addcdiv_, not yet PyTorch's)."""
    def call(lib):
        swa = lib.optim.swa_utils
        fn = swa.get_swa_multi_avg_fn() if kind == "swa" else swa.get_ema_multi_avg_fn(0.5)
        averaged = [lib.tensor(values)]
        fn(averaged, [lib.tensor(values) + lib.tensor([3, 6])],
           lib.tensor(2) if count == "tensor" else count)
        return averaged[0]
    try:
        want = call(torch)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            call(gradjit)
        return
    got = call(gradjit)
    assert got.tolist() == want.tolist() and str(got.dtype) == str(want.dtype)


def test_adafactor_state_dict_and_repr_as_torch():
    data = _problem(1)
    for options in (dict(), dict(lr=0.05, weight_decay=0.1)):
        _, opt = _run(gradjit, "Adafactor", options, data, steps=3)
        _, topt = _run(torch, "Adafactor", options, data, steps=3)
        saved, tsaved = opt.state_dict(), topt.state_dict()
        assert saved["param_groups"] == tsaved["param_groups"]
        for i, state in tsaved["state"].items():
            assert list(saved["state"][i]) == list(state)
            for key, value in state.items():
                assert tuple(saved["state"][i][key].shape) == tuple(value.shape)
                np.testing.assert_allclose(saved["state"][i][key].numpy(), value.numpy(),
                                           rtol=1e-5, atol=1e-7)
        assert repr(opt) == repr(topt)
        resumed = gradjit.optim.Adafactor(copy.copy(opt.param_groups[0]["params"]))
        resumed.load_state_dict(saved)
        assert resumed.state_dict()["param_groups"] == saved["param_groups"]
