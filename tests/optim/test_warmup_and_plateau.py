"""LinearLR, ConstantLR, MultiplicativeLR, PolynomialLR, OneCycleLR, ReduceLROnPlateau,
SequentialLR, ChainedScheduler and CyclicLR against PyTorch 2.13: the lr (and OneCycle's momentum or
beta1) after every step, and the errors."""
import pytest
import torch

import gradjit
from tests.torch_reference import same_error


def _schedule(lib, make, steps=30, metric=None, adam=False):
    params = [lib.nn.Parameter(lib.ones(2))]
    opt = lib.optim.Adam(params, lr=0.1) if adam else lib.optim.SGD(params, lr=0.1,
                                                                     momentum=0.9)
    scheduler = make(lib.optim.lr_scheduler, opt)
    seen = []
    for i in range(steps):
        opt.step()
        scheduler.step(metric[i]) if metric else scheduler.step()
        group = opt.param_groups[0]
        seen.append((scheduler.get_last_lr(), group.get("momentum", group.get("betas"))))
    return seen


SCHEDULES = {
    "linear": lambda S, o: S.LinearLR(o, 0.2, 1.0, 7),
    "linear-down": lambda S, o: S.LinearLR(o, 1.0, 0.1, total_iters=12),
    "constant": lambda S, o: S.ConstantLR(o, 0.5, 4),
    "multiplicative": lambda S, o: S.MultiplicativeLR(o, lambda e: 0.95),
    "polynomial": lambda S, o: S.PolynomialLR(o, 10, 2.0),
    "one-cycle": lambda S, o: S.OneCycleLR(o, 1.0, total_steps=30),
    "one-cycle-three-phase": lambda S, o: S.OneCycleLR(
        o, 0.5, epochs=3, steps_per_epoch=10, three_phase=True, anneal_strategy="linear"),
    "warmup-then-cosine": lambda S, o: S.SequentialLR(
        o, [S.LinearLR(o, 0.1, 1.0, 5), S.CosineAnnealingLR(o, 20)], [5]),
    "sequential-three": lambda S, o: S.SequentialLR(
        o, [S.ConstantLR(o, 0.5, 3), S.ExponentialLR(o, 0.9), S.StepLR(o, 4)], [4, 12]),
    "chained": lambda S, o: S.ChainedScheduler([S.LinearLR(o, 0.2, 1.0, 6),
                                                S.ExponentialLR(o, 0.95)]),
    "cyclic": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=4),
    "cyclic-triangular2": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=3,
                                                  step_size_down=5, mode="triangular2"),
    "cyclic-exp-range": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=4,
                                                mode="exp_range", gamma=0.9),
    "cyclic-scale-fn": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=4,
                                               scale_fn=lambda x: 0.5 ** x,
                                               scale_mode="iterations", cycle_momentum=False),
}
LOSSES = [5, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3] * 2
PLATEAUS = {
    "min": lambda S, o: S.ReduceLROnPlateau(o, patience=2),
    "max-abs-cooldown": lambda S, o: S.ReduceLROnPlateau(o, "max", patience=1, cooldown=2,
                                                         threshold_mode="abs", min_lr=0.02),
}


@pytest.mark.parametrize("name", SCHEDULES)
@pytest.mark.parametrize("adam", [False, True])
def test_schedules_match_pytorch(name, adam):
    assert _schedule(gradjit, SCHEDULES[name], adam=adam) == \
        _schedule(torch, SCHEDULES[name], adam=adam)


@pytest.mark.parametrize("name", PLATEAUS)
def test_plateau_matches_pytorch(name):
    assert _schedule(gradjit, PLATEAUS[name], 40, LOSSES) == \
        _schedule(torch, PLATEAUS[name], 40, LOSSES)


def _sgd(lib, **options):
    return lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1, **options)


def _past_the_end(lib):
    scheduler = lib.optim.lr_scheduler.OneCycleLR(_sgd(lib, momentum=0.9), 1.0, 2)
    for _ in range(3):
        scheduler.step()


ERRORS = {
    "linear-start": lambda L: L.optim.lr_scheduler.LinearLR(_sgd(L), start_factor=0),
    "linear-end": lambda L: L.optim.lr_scheduler.LinearLR(_sgd(L), end_factor=2),
    "constant-factor": lambda L: L.optim.lr_scheduler.ConstantLR(_sgd(L), factor=2),
    "one-cycle-steps": lambda L: L.optim.lr_scheduler.OneCycleLR(_sgd(L), 1.0),
    "one-cycle-total": lambda L: L.optim.lr_scheduler.OneCycleLR(_sgd(L), 1.0, total_steps=0),
    "one-cycle-pct": lambda L: L.optim.lr_scheduler.OneCycleLR(_sgd(L), 1.0, 10,
                                                               pct_start=1.5),
    "one-cycle-anneal": lambda L: L.optim.lr_scheduler.OneCycleLR(_sgd(L), 1.0, 10,
                                                                  anneal_strategy="exp"),
    "one-cycle-momentum": lambda L: L.optim.lr_scheduler.OneCycleLR(
        L.optim.Adagrad([L.nn.Parameter(L.ones(1))]), 1.0, 10),
    "one-cycle-max-lr": lambda L: L.optim.lr_scheduler.OneCycleLR(_sgd(L, momentum=0.9),
                                                                  [1.0, 2.0], 10),
    "one-cycle-past-end": lambda L: _past_the_end(L),
    "plateau-min-lrs": lambda L: L.optim.lr_scheduler.ReduceLROnPlateau(_sgd(L), min_lr=[1, 2]),
    "plateau-factor": lambda L: L.optim.lr_scheduler.ReduceLROnPlateau(_sgd(L), factor=1.0),
    "plateau-mode": lambda L: L.optim.lr_scheduler.ReduceLROnPlateau(_sgd(L), mode="low"),
    "plateau-threshold": lambda L: L.optim.lr_scheduler.ReduceLROnPlateau(
        _sgd(L), threshold_mode="log"),
    "plateau-optimizer": lambda L: L.optim.lr_scheduler.ReduceLROnPlateau(object()),
    "sequential-empty": lambda L: L.optim.lr_scheduler.SequentialLR(_sgd(L), [], []),
    "sequential-milestones": lambda L: _sequential(L, milestones=[]),
    "sequential-optimizer": lambda L: _sequential(L, other=True),
    "sequential-plateau": lambda L: _sequential(L, plateau=True),
    "sequential-no-optimizer": lambda L: L.optim.lr_scheduler.SequentialLR(_sgd(L), [1], []),
    "chained-empty": lambda L: L.optim.lr_scheduler.ChainedScheduler([], _sgd(L)),
    "cyclic-mode": lambda L: L.optim.lr_scheduler.CyclicLR(_sgd(L, momentum=0.9), 0.1, 1.0,
                                                           mode="sawtooth"),
}


def _sequential(lib, milestones=(2,), other=False, plateau=False):
    S, opt = lib.optim.lr_scheduler, _sgd(lib)
    second = S.ReduceLROnPlateau(opt) if plateau else S.StepLR(_sgd(lib) if other else opt, 2)
    return S.SequentialLR(opt, [S.ConstantLR(opt), second], list(milestones))


@pytest.mark.parametrize("name", ERRORS)
@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step()`")
def test_errors_match_pytorch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))
