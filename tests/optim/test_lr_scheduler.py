"""Learning-rate schedules against torch.optim.lr_scheduler: the lr of every group after each
epoch, schedules chained on one optimizer, state_dict round trips and the closed form."""
import math
import warnings

import pytest
import torch

import gradjit

SCHEDULES = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5, 5, 9], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=0.001)),
    ("CosineAnnealingLR", dict(T_max=4)),
    ("LambdaLR", dict(lr_lambda=lambda epoch: 0.95 ** epoch + 0.1 * (epoch % 3))),
]


def _optimizer(lib):
    a, b = lib.ones(2, requires_grad=True), lib.ones(3, requires_grad=True)
    return lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)


def _lrs(lib, schedules, epochs=20):
    opt = _optimizer(lib)
    made = [getattr(lib.optim.lr_scheduler, name)(opt, **kw) for name, kw in schedules]
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's warning about the order of the steps
        for _ in range(epochs):
            opt.step()
            for s in made:
                s.step()
            seen.append(([g["lr"] for g in opt.param_groups],
                         [lr for s in made for lr in s.get_last_lr()]))
    return seen, made, opt


@pytest.mark.parametrize("name,kw", SCHEDULES, ids=[s[0] for s in SCHEDULES])
def test_learning_rates_equal_pytorch(name, kw):
    ours, made, opt = _lrs(gradjit, [(name, kw)])
    theirs, tmade, topt = _lrs(torch, [(name, kw)])
    for (lr, last), (tlr, tlast) in zip(ours, theirs):
        assert lr == pytest.approx(tlr, rel=1e-12, abs=1e-15)
        assert last == pytest.approx(tlast, rel=1e-12, abs=1e-15)
    state, tstate = made[0].state_dict(), tmade[0].state_dict()
    for key in ("base_lrs", "last_epoch", "_step_count", "_last_lr", "step_size", "gamma",
                "T_max", "eta_min", "milestones"):
        assert state.get(key) == tstate.get(key) or \
            state.get(key) == pytest.approx(tstate.get(key), rel=1e-12), key
    assert opt.param_groups[1]["initial_lr"] == topt.param_groups[1]["initial_lr"] == 0.5


def test_chained_schedules_equal_pytorch():
    chain = [SCHEDULES[0], SCHEDULES[3]]
    ours, _, _ = _lrs(gradjit, chain)
    theirs, _, _ = _lrs(torch, chain)
    for (lr, _), (tlr, _) in zip(ours, theirs):
        assert lr == pytest.approx(tlr, rel=1e-12)


def test_state_dict_resumes_the_schedule():
    opt = _optimizer(gradjit)
    sched = gradjit.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    for _ in range(3):
        sched.step()
    saved = sched.state_dict()
    fresh = gradjit.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.1, last_epoch=2)
    fresh.load_state_dict(saved)
    fresh.step()
    assert fresh.last_epoch == 4 and fresh.get_last_lr() == [0.1 / 4, 0.5 / 4]


def test_step_with_an_epoch_uses_the_closed_form():
    def lrs(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sched.step(4)
        return sched.get_last_lr()
    assert lrs(gradjit) == pytest.approx(lrs(torch))
    assert lrs(gradjit)[0] == pytest.approx(0.05 * (1 + math.cos(math.pi * 0.4)))


def test_errors_match_pytorch():
    for lib in (gradjit, torch):
        with pytest.raises(TypeError, match="list is not an Optimizer"):
            lib.optim.lr_scheduler.StepLR([], step_size=1)
        with pytest.raises(KeyError, match=r"'initial_lr' is not specified in param_groups\[0\]"):
            lib.optim.lr_scheduler.StepLR(_optimizer(lib), step_size=1, last_epoch=3)
        with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
            lib.optim.lr_scheduler.LambdaLR(_optimizer(lib), [lambda e: 1.0])
        with pytest.raises(NotImplementedError):
            lib.optim.lr_scheduler.LRScheduler(_optimizer(lib))
