"""The public-API scenarios of PyTorch's lr_scheduler test suite run side by side on gradjit
and torch: every schedule's learning rates (and cycled momenta) over its steps, the closed
form under step(epoch), state_dict round trips into fresh schedulers, warnings and errors."""
import math
import pickle
import warnings

import pytest
import torch

import gradjit
from tests.torch_reference import same_error


class Halving:
    """A callable object: LambdaLR saves its attributes in the state_dict."""

    def __init__(self):
        self.rate = 0.5

    def __call__(self, epoch):
        return self.rate ** (epoch // 3)


def _sched(lib):
    return lib.optim.lr_scheduler


# name -> (optimizer, per-group lrs) and a maker of the schedule from (lib, optimizer)
SCHEDULES = {
    "step": lambda lib, o: _sched(lib).StepLR(o, step_size=3, gamma=0.3),
    "multistep": lambda lib, o: _sched(lib).MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.5),
    "constant": lambda lib, o: _sched(lib).ConstantLR(o, factor=0.25, total_iters=4),
    "linear": lambda lib, o: _sched(lib).LinearLR(o, start_factor=0.2, end_factor=0.9,
                                                  total_iters=5),
    "exponential": lambda lib, o: _sched(lib).ExponentialLR(o, gamma=0.8),
    "polynomial": lambda lib, o: _sched(lib).PolynomialLR(o, total_iters=6, power=2.0),
    "cosine": lambda lib, o: _sched(lib).CosineAnnealingLR(o, T_max=5, eta_min=0.01),
    "lambda": lambda lib, o: _sched(lib).LambdaLR(o, [lambda e: 0.9 ** e, Halving()]),
    "multiplicative": lambda lib, o: _sched(lib).MultiplicativeLR(o, lambda e: 0.95),
    "warm-restarts": lambda lib, o: _sched(lib).CosineAnnealingWarmRestarts(
        o, T_0=3, T_mult=2, eta_min=0.001),
    "cyclic-triangular2": lambda lib, o: _sched(lib).CyclicLR(
        o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=2, step_size_down=3,
        mode="triangular2"),
    "cyclic-exp-range": lambda lib, o: _sched(lib).CyclicLR(
        o, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=3, mode="exp_range", gamma=0.9),
    "one-cycle": lambda lib, o: _sched(lib).OneCycleLR(o, max_lr=[0.5, 1.0], total_steps=17),
    "one-cycle-three-phase": lambda lib, o: _sched(lib).OneCycleLR(
        o, max_lr=0.5, epochs=3, steps_per_epoch=5, three_phase=True, anneal_strategy="linear",
        pct_start=0.4),
    "sequential": lambda lib, o: _sched(lib).SequentialLR(
        o, [_sched(lib).LinearLR(o, start_factor=0.1, total_iters=3),
            _sched(lib).ExponentialLR(o, gamma=0.9),
            _sched(lib).StepLR(o, step_size=2, gamma=0.5)], milestones=[3, 8]),
    "chained": lambda lib, o: _sched(lib).ChainedScheduler(
        [_sched(lib).ConstantLR(o, factor=0.5, total_iters=3),
         _sched(lib).ExponentialLR(o, gamma=0.9),
         _sched(lib).MultiStepLR(o, milestones=[4, 7])]),
}
CLOSED_FORM = ["step", "multistep", "constant", "linear", "exponential", "polynomial",
               "cosine"]
EPOCHS = 16


def _optimizer(lib, name="SGD", tensor_lr=False):
    """Two groups; torch's suite gives the second a tensor lr."""
    a = lib.ones(2, requires_grad=True)
    b = lib.ones(3, requires_grad=True)
    options = dict(momentum=0.9) if name == "SGD" else {}
    second = lib.tensor(0.2, dtype=lib.float64) if tensor_lr else 0.2
    return getattr(lib.optim, name)([{"params": [a]}, {"params": [b], "lr": second}], lr=0.1,
                                    **options)


def _value(x):
    return float(x) if isinstance(x, (torch.Tensor, gradjit.Tensor)) else x


def _record(opt, scheduler):
    return ([_value(g["lr"]) for g in opt.param_groups],
            [_value(lr) for lr in scheduler.get_last_lr()],
            [g.get("momentum", g.get("betas")) for g in opt.param_groups])


def _trajectory(lib, key, optim="SGD", epochs=EPOCHS, with_epoch=False, tensor_lr=False):
    opt = _optimizer(lib, optim, tensor_lr)
    scheduler = SCHEDULES[key](lib, opt)
    seen = [_record(opt, scheduler)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for epoch in range(1, epochs):
            opt.step()
            scheduler.step(epoch) if with_epoch else scheduler.step()
            seen.append(_record(opt, scheduler))
    return seen


def _assert_lrs_equal(g, t):
    assert len(g) == len(t)
    for g_row, t_row in zip(g, t):
        for g_vals, t_vals in zip(g_row, t_row):
            flat_g = [x for v in g_vals for x in (v if isinstance(v, tuple) else (v,))]
            flat_t = [x for v in t_vals for x in (v if isinstance(v, tuple) else (v,))]
            assert flat_g == pytest.approx(flat_t, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("tensor_lr", [False, True])
@pytest.mark.parametrize("key", sorted(SCHEDULES))
def test_schedule_matches_torch(key, tensor_lr):
    _assert_lrs_equal(_trajectory(gradjit, key, tensor_lr=tensor_lr),
                      _trajectory(torch, key, tensor_lr=tensor_lr))


@pytest.mark.parametrize("key", ["cyclic-triangular2", "one-cycle"])
def test_cycled_beta1_of_adam_matches_torch(key):
    _assert_lrs_equal(_trajectory(gradjit, key, "Adam"), _trajectory(torch, key, "Adam"))


@pytest.mark.parametrize("tensor_lr", [False, True])
@pytest.mark.parametrize("key", CLOSED_FORM + ["warm-restarts"])
def test_step_with_an_epoch_uses_the_closed_form_as_torch(key, tensor_lr):
    _assert_lrs_equal(_trajectory(gradjit, key, with_epoch=True, tensor_lr=tensor_lr),
                      _trajectory(torch, key, with_epoch=True, tensor_lr=tensor_lr))


def _resumed(lib, key, steps=5, more=6):
    """`steps` steps, the state saved (pickled), a fresh optimizer and scheduler load it and
    both continue; the lrs of the resumed one and the state_dict keys."""
    opt = _optimizer(lib)
    scheduler = SCHEDULES[key](lib, opt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(steps):
            opt.step()
            scheduler.step()
        state = scheduler.state_dict()
        saved = pickle.loads(pickle.dumps(
            {k: v for k, v in state.items() if not callable(v) or k == "lr_lambdas"}))
        opt2 = _optimizer(lib)
        opt2.load_state_dict(opt.state_dict())
        resumed = SCHEDULES[key](lib, opt2)
        resumed.load_state_dict(saved)
        seen = []
        for _ in range(more):
            opt2.step()
            resumed.step()
            seen.append(_record(opt2, resumed))
    return seen, sorted(state)


@pytest.mark.parametrize("key", sorted(SCHEDULES))
def test_state_dict_round_trip_resumes_as_torch(key):
    g, t = _resumed(gradjit, key), _resumed(torch, key)
    _assert_lrs_equal(g[0], t[0])
    assert g[1] == t[1]


def test_lambda_state_dict_saves_callable_objects_only():
    states = []
    for lib in (gradjit, torch):
        opt = _optimizer(lib)
        fn = Halving()
        fn.rate = 0.25
        saved = _sched(lib).LambdaLR(opt, [lambda e: 1.0, fn]).state_dict()["lr_lambdas"]
        fresh = Halving()
        _sched(lib).LambdaLR(_optimizer(lib), [lambda e: 1.0, fresh]).load_state_dict(
            {**_sched(lib).LambdaLR(_optimizer(lib), [lambda e: 1.0, Halving()]).state_dict(),
             "lr_lambdas": saved})
        states.append((saved, fresh.rate))
    assert states[0] == states[1] == ([None, {"rate": 0.25}], 0.25)


def _warnings_of(lib, scenario):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scenario(lib)
    return [(w.category, str(w.message)) for w in caught]


def _scheduler_first(lib):
    opt = _optimizer(lib)
    scheduler = _sched(lib).StepLR(opt, 2)
    scheduler.step()
    opt.step()


def _optimizer_first(lib):
    opt = _optimizer(lib)
    scheduler = _sched(lib).StepLR(opt, 2)
    opt.step()
    scheduler.step()


def _epoch_argument(lib):
    opt = _optimizer(lib)
    scheduler = _sched(lib).ExponentialLR(opt, 0.9)
    opt.step()
    scheduler.step(3)


def _get_lr_outside_step(lib):
    opt = _optimizer(lib)
    _sched(lib).CosineAnnealingLR(opt, 4).get_lr()


def _step_overridden(lib):
    opt = _optimizer(lib)
    scheduler = _sched(lib).StepLR(opt, 2)
    opt.step = lambda: None
    opt.step()
    scheduler.step()


def _resuming(lib):
    opt = _optimizer(lib)
    for group in opt.param_groups:
        group["initial_lr"] = 0.01
    scheduler = _sched(lib).StepLR(opt, 2, last_epoch=4)
    scheduler.step()


def _plateau_epoch(lib):
    opt = _optimizer(lib)
    _sched(lib).ReduceLROnPlateau(opt).step(1.0, epoch=3)


@pytest.mark.parametrize("scenario", [_scheduler_first, _optimizer_first, _epoch_argument,
                                      _get_lr_outside_step, _step_overridden, _resuming,
                                      _plateau_epoch])
def test_warnings_match_torch(scenario):
    assert _warnings_of(gradjit, scenario) == _warnings_of(torch, scenario)


def _plateau(lib, mode, threshold_mode, metrics, **kwargs):
    opt = _optimizer(lib)
    scheduler = _sched(lib).ReduceLROnPlateau(opt, mode=mode, threshold_mode=threshold_mode,
                                              **kwargs)
    seen = []
    for value in metrics:
        scheduler.step(value)
        seen.append(([g["lr"] for g in opt.param_groups], scheduler.get_last_lr(),
                     scheduler.num_bad_epochs, scheduler.cooldown_counter, scheduler.best))
    return seen, sorted(scheduler.state_dict())


@pytest.mark.parametrize("mode,threshold_mode,kwargs", [
    ("min", "rel", dict(patience=1, factor=0.5)),
    ("max", "abs", dict(patience=2, factor=0.1, threshold=0.5, cooldown=2)),
    ("min", "abs", dict(patience=0, factor=0.5, min_lr=[0.02, 0.05])),
    ("max", "rel", dict(patience=1, factor=0.9, eps=0.05)),
])
def test_reduce_on_plateau_matches_torch(mode, threshold_mode, kwargs):
    metrics = [10, 9, 9.5, 9.9, 10, 8, 8.01, 8, 12, 12, 7, 7, 7, 7, 7, 7]
    g = _plateau(gradjit, mode, threshold_mode, metrics, **kwargs)
    t = _plateau(torch, mode, threshold_mode, metrics, **kwargs)
    assert g == t


def test_tensor_lr_is_updated_in_place_and_not_aliased():
    results = []
    for lib in (gradjit, torch):
        lr = lib.tensor(0.1)
        opt = lib.optim.SGD([lib.ones(2, requires_grad=True)], lr=lr)
        scheduler = _sched(lib).ExponentialLR(opt, 0.5)
        opt.step()
        scheduler.step()
        last = scheduler.get_last_lr()[0]
        results.append((opt.param_groups[0]["lr"] is lr, float(lr), float(last),
                        last is not lr))
    assert results[0] == pytest.approx(results[1])


ERRORS = {
    "not-an-optimizer": lambda lib: _sched(lib).StepLR(object(), 2),
    "resume-without-initial-lr": lambda lib: _sched(lib).StepLR(_optimizer(lib), 2,
                                                                last_epoch=3),
    "lambda-count": lambda lib: _sched(lib).LambdaLR(_optimizer(lib), [lambda e: 1.0]),
    "multiplicative-number": lambda lib: _sched(lib).MultiplicativeLR(_optimizer(lib), 0.95),
    "multiplicative-numbers": lambda lib: _sched(lib).MultiplicativeLR(_optimizer(lib),
                                                                       [0.95, 0.9]),
    "linear-start": lambda lib: _sched(lib).LinearLR(_optimizer(lib), start_factor=0),
    "linear-end": lambda lib: _sched(lib).LinearLR(_optimizer(lib), end_factor=1.5),
    "constant-factor": lambda lib: _sched(lib).ConstantLR(_optimizer(lib), factor=1.5),
    "restarts-T0": lambda lib: _sched(lib).CosineAnnealingWarmRestarts(_optimizer(lib), 0),
    "restarts-Tmult": lambda lib: _sched(lib).CosineAnnealingWarmRestarts(_optimizer(lib), 2,
                                                                          T_mult=0),
    "restarts-eta": lambda lib: _sched(lib).CosineAnnealingWarmRestarts(_optimizer(lib), 2,
                                                                        eta_min="0"),
    "restarts-epoch": lambda lib: _sched(lib).CosineAnnealingWarmRestarts(
        _optimizer(lib), 2).step(-1),
    "plateau-factor": lambda lib: _sched(lib).ReduceLROnPlateau(_optimizer(lib), factor=1.0),
    "plateau-mode": lambda lib: _sched(lib).ReduceLROnPlateau(_optimizer(lib), mode="up"),
    "plateau-threshold": lambda lib: _sched(lib).ReduceLROnPlateau(_optimizer(lib),
                                                                   threshold_mode="x"),
    "plateau-min-lr": lambda lib: _sched(lib).ReduceLROnPlateau(_optimizer(lib),
                                                                min_lr=[0.1]),
    "cyclic-mode": lambda lib: _sched(lib).CyclicLR(_optimizer(lib), 0.1, 1.0, mode="x"),
    "cyclic-momentum": lambda lib: _sched(lib).CyclicLR(
        lib.optim.Adagrad([lib.ones(1, requires_grad=True)]), 0.1, 1.0),
    "cyclic-lengths": lambda lib: _sched(lib).CyclicLR(_optimizer(lib), [0.1], 1.0),
    "one-cycle-steps": lambda lib: _sched(lib).OneCycleLR(_optimizer(lib), 1.0),
    "one-cycle-zero": lambda lib: _sched(lib).OneCycleLR(_optimizer(lib), 1.0, total_steps=0),
    "one-cycle-pct": lambda lib: _sched(lib).OneCycleLR(_optimizer(lib), 1.0, total_steps=5,
                                                        pct_start=1.5),
    "one-cycle-anneal": lambda lib: _sched(lib).OneCycleLR(_optimizer(lib), 1.0,
                                                           total_steps=5,
                                                           anneal_strategy="exp"),
    "one-cycle-past-end": lambda lib: _stepped(
        _sched(lib).OneCycleLR(_optimizer(lib), 1.0, total_steps=2), 3),
    "plateau-new-group": lambda lib: _plateau_with_a_new_group(lib),
    "sequential-empty": lambda lib: _sched(lib).SequentialLR(_optimizer(lib), [], []),
    "sequential-milestones": lambda lib: _sched(lib).SequentialLR(
        _optimizer(lib), [_sched(lib).StepLR(_optimizer(lib), 2)], [2]),
    "sequential-other-optimizer": lambda lib: _sched(lib).SequentialLR(
        _optimizer(lib), [_sched(lib).StepLR(_optimizer(lib), 2)] * 2, [2]),
    "sequential-plateau": lambda lib: (lambda o: _sched(lib).SequentialLR(
        o, [_sched(lib).ReduceLROnPlateau(o), _sched(lib).StepLR(o, 2)], [2]))(
        _optimizer(lib)),
    "chained-empty": lambda lib: _sched(lib).ChainedScheduler([]),
    "chained-other-optimizer": lambda lib: _sched(lib).ChainedScheduler(
        [_sched(lib).StepLR(_optimizer(lib), 2), _sched(lib).StepLR(_optimizer(lib), 2)]),
}


def _stepped(scheduler, n):
    for _ in range(n):
        scheduler.step()


def _plateau_with_a_new_group(lib):
    opt = _optimizer(lib)
    scheduler = _sched(lib).ReduceLROnPlateau(opt, patience=0, min_lr=[0.0, 0.0])
    opt.add_param_group({"params": [lib.ones(1, requires_grad=True)]})
    _stepped(scheduler, 0)
    scheduler.step(1.0)
    scheduler.step(2.0)


def test_plateau_single_min_lr_serves_a_new_group():
    results = []
    for lib in (gradjit, torch):
        opt = _optimizer(lib)
        scheduler = _sched(lib).ReduceLROnPlateau(opt, patience=0, min_lr=0.05)
        opt.add_param_group({"params": [lib.ones(1, requires_grad=True)], "lr": 0.3})
        for value in (1.0, 2.0, 3.0, 4.0):
            scheduler.step(value)
        results.append(([g["lr"] for g in opt.param_groups], scheduler.min_lrs))
    assert results[0] == results[1]


class Scale:
    def __init__(self):
        self.power = 0.5

    def __call__(self, x):
        return self.power ** x


def test_cyclic_saves_a_callable_scale_object():
    results = []
    for lib in (gradjit, torch):
        scale = Scale()
        scale.power = 0.25
        scheduler = _sched(lib).CyclicLR(_optimizer(lib), 0.01, 0.1, step_size_up=2,
                                         scale_fn=scale)
        state = scheduler.state_dict()
        saved = (state["_scale_fn_custom"], "_scale_fn_ref" in state)
        fresh = Scale()
        _sched(lib).CyclicLR(_optimizer(lib), 0.01, 0.1, step_size_up=2,
                             scale_fn=fresh).load_state_dict(state)
        results.append((*saved, fresh.power))
    assert results[0] == results[1] == ({"power": 0.25}, False, 0.25)


@pytest.mark.parametrize("key", sorted(ERRORS))
def test_errors_match_torch(key):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g_message = _error_of(lambda: ERRORS[key](gradjit))
        t_message = _error_of(lambda: ERRORS[key](torch))
    assert g_message == t_message


def _error_of(call):
    """The error's type and message with the library's name taken out (the messages name
    the optimizer's class)."""
    with pytest.raises(Exception) as info:
        call()
    text = str(info.value).replace("gradjit", "torch")
    return type(info.value), " ".join(text.split()) if "object at 0x" not in text else \
        text.split(" object at")[0]


def test_cosine_annealing_follows_its_closed_form():
    """torch's own recurrence: the chained lrs equal eta_min + (base - eta_min)(1 + cos)/2."""
    lrs = [row[0][0] for row in _trajectory(gradjit, "cosine", epochs=12)]
    expect = [0.01 + 0.09 * (1 + math.cos(math.pi * t / 5)) / 2 for t in range(12)]
    assert lrs == pytest.approx(expect, rel=1e-9)
    same_error(lambda: ERRORS["plateau-mode"](gradjit), lambda: ERRORS["plateau-mode"](torch))


@pytest.mark.parametrize("lib", [gradjit, torch], ids=["gradjit", "torch"])
def test_scheduler_leaves_no_reference_cycle_through_the_optimizer(lib):
    """torch's wrapper of optimizer.step holds the optimizer weakly: once the scheduler is
    gone only the test's own frame refers to the optimizer."""
    import gc
    import weakref

    def run():
        param = lib.ones(3, requires_grad=True)
        opt = lib.optim.SGD([param], lr=0.5)
        scheduler = _sched(lib).LambdaLR(opt, lambda epoch: 1.0)
        param.sum().backward()
        opt.step()
        scheduler.step()
        return weakref.ref(opt), weakref.ref(scheduler)

    gc.collect()
    gc.disable()
    try:
        refs = run()
        assert [ref() is None for ref in refs] == [True, True]
    finally:
        gc.enable()


def test_cyclic_loaded_state_brings_its_mode_and_frees_with_its_scope():
    results = []
    for lib in (gradjit, torch):
        saved = _sched(lib).CyclicLR(_optimizer(lib), 1.0, 5.0, step_size_up=2,
                                     mode="triangular2").state_dict()
        restored = _sched(lib).CyclicLR(_optimizer(lib), 1.0, 5.0, step_size_up=2)
        restored.load_state_dict(saved)
        lrs = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(9):
                restored.step()
                lrs.append(restored.get_last_lr())
        results.append((lrs, restored.mode, restored.scale_mode))
    assert results[0] == results[1]
    assert results[0][0][-1] != results[0][0][3]  # the second cycle is halved


@pytest.mark.parametrize("strategy,swa_lr", [("cos", 0.01), ("linear", [0.01, 0.02])])
def test_swalr_takes_over_from_another_schedule(strategy, swa_lr):
    """torch's SWA recipe: a MultiplicativeLR for five epochs, then SWALR anneals from
    wherever it left the lrs (the second group's a tensor, as in torch's suite)."""
    results = []
    for lib in (gradjit, torch):
        opt = _optimizer(lib, tensor_lr=True)
        before = _sched(lib).MultiplicativeLR(opt, lambda epoch: 0.9)
        swa = lib.optim.swa_utils.SWALR(opt, swa_lr=swa_lr, anneal_epochs=4,
                                        anneal_strategy=strategy)
        lrs = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in range(15):
                lrs.append([_value(g["lr"]) for g in opt.param_groups])
                opt.step()
                (swa if epoch >= 5 else before).step()
        results.append(lrs)
    assert all(g == pytest.approx(t, rel=1e-12) for g, t in zip(*results))


def _fresh(lib, name):
    """torch's state_dict-loading cases: each scheduler with its defaults on one optimizer."""
    s = _sched(lib)
    makers = {
        "LambdaLR": lambda o: s.LambdaLR(o, lambda e: e // 10),
        "MultiplicativeLR": lambda o: s.MultiplicativeLR(o, lambda e: 0.95),
        "StepLR": lambda o: s.StepLR(o, 30),
        "MultiStepLR": lambda o: s.MultiStepLR(o, [30, 80]),
        "ConstantLR": s.ConstantLR, "LinearLR": s.LinearLR, "PolynomialLR": s.PolynomialLR,
        "ExponentialLR": lambda o: s.ExponentialLR(o, 0.9),
        "CosineAnnealingLR": lambda o: s.CosineAnnealingLR(o, 10),
        "ChainedScheduler": lambda o: s.ChainedScheduler([s.ConstantLR(o), s.ConstantLR(o)]),
        "SequentialLR": lambda o: s.SequentialLR(o, [s.ConstantLR(o), s.ConstantLR(o)], [2]),
        "ReduceLROnPlateau": s.ReduceLROnPlateau,
        "CyclicLR": lambda o: s.CyclicLR(o, 0.01, 0.1),
        "OneCycleLR": lambda o: s.OneCycleLR(o, 0.01, total_steps=10, anneal_strategy="linear"),
        "CosineAnnealingWarmRestarts": lambda o: s.CosineAnnealingWarmRestarts(o, 20),
        "SWALR": lambda o: lib.optim.swa_utils.SWALR(o, swa_lr=0.01),
    }
    return makers[name]


SAVED = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
         "PolynomialLR", "ExponentialLR", "CosineAnnealingLR", "ChainedScheduler",
         "SequentialLR", "ReduceLROnPlateau", "CyclicLR", "OneCycleLR",
         "CosineAnnealingWarmRestarts", "SWALR"]


COUNTER_REFUSED = pytest.mark.xfail(
    strict=True, reason="gradjit.load(weights_only=True) accepts the collections.Counter of "
    "MultiStepLR's milestones; torch's allowlist refuses it")


@pytest.mark.parametrize("name,weights_only", [
    pytest.param(name, only, marks=[COUNTER_REFUSED] if name == "MultiStepLR" and only else [])
    for name in SAVED for only in (True, False)])
def test_state_dict_survives_save_and_load(name, weights_only, tmp_path):
    """Saved with the library's save and loaded back (weights_only too), a state_dict loads
    into a new scheduler, which then saves the same state, as in torch."""
    outcomes = []
    for lib in (gradjit, torch):
        opt = _optimizer(lib, tensor_lr=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            state = _fresh(lib, name)(opt).state_dict()
            path = tmp_path / f"{lib.__name__}.pt"
            lib.save(state, path)
            try:
                loaded = lib.load(path, weights_only=weights_only)
            except Exception as error:  # torch's weights_only refuses a Counter
                outcomes.append(type(error).__name__)
                continue
            same_keys = sorted(loaded) == sorted(state)
            again = _fresh(lib, name)(opt)
            again.load_state_dict(loaded)
        outcomes.append((same_keys, sorted(again.state_dict()) == sorted(state)))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0] == (True, True) or weights_only


@pytest.mark.parametrize("name", ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR",
                                  "ConstantLR", "LinearLR", "ExponentialLR", "PolynomialLR",
                                  "CosineAnnealingLR", "CosineAnnealingWarmRestarts"])
def test_initial_lr_does_not_alias_a_tensor_lr(name):
    results = []
    for lib in (gradjit, torch):
        lr = lib.tensor(0.1)
        opt = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=lr)
        scheduler = _fresh(lib, name)(opt)
        seen = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for i in range(2):
                opt.step()
                scheduler.step(i)
                lr.mul_(0.1)
                seen.append((float(opt.param_groups[0]["initial_lr"]),
                             [float(b) for b in scheduler.base_lrs],
                             scheduler.base_lrs[0] is not lr, float(lr)))
        results.append(seen)
    assert results[0] == results[1]


def test_cosine_then_cyclic_stays_within_bounds():
    results = []
    for lib in (gradjit, torch):
        opt = lib.optim.SGD([lib.ones(2, requires_grad=True)], lr=0.5)
        first = _sched(lib).CosineAnnealingLR(opt, T_max=20, eta_min=0.1)
        second = _sched(lib).CyclicLR(opt, base_lr=0.1, max_lr=0.3, step_size_up=1,
                                      step_size_down=3)
        lrs = []
        for i in range(40):
            opt.step()
            (first if i <= first.T_max else second).step()
            lrs.append(opt.param_groups[0]["lr"])
        results.append(lrs)
    assert results[0] == pytest.approx(results[1], rel=1e-12)
    assert max(results[0][21:]) <= 0.3
