"""Each optimizer against torch.optim: the same parameters and the same loss, compared after
every one of 100 steps (float32 rounding), plus state_dict, zero_grad and PyTorch's errors.
The tolerance is a few float32 ulps because PyTorch's vectorized CPU sqrt is not correctly
rounded (numpy's and gradjit's are); add(alpha=), addcmul and lerp match it bit for bit."""
import copy

import numpy as np
import pytest
import torch

import gradjit
from gradjit import optim
from tests.torch_reference import same_error

STEPS = 100
CASES = [
    ("SGD", dict(lr=0.05)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, betas=(0.5, 0.9), maximize=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, amsgrad=True, weight_decay=0.3)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.01)),
    ("RMSprop", dict(lr=0.001, alpha=0.9, centered=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01, weight_decay=0.1, maximize=True)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.01, betas=(0.9, 0.9), weight_decay=0.1)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-4, 0.2), maximize=True)),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, lambd=1e-2, alpha=0.5, t0=10, weight_decay=0.1)),
    ("Adafactor", dict()),
    ("Adafactor", dict(lr=0.05, beta2_decay=-0.5, eps=(1e-20, 1e-2), d=2.0, weight_decay=0.1,
                       maximize=True)),
]


def _loss(lib, w, b, x, y):
    """A small regression whose gradients change from step to step."""
    return (lib.tanh(x @ w + b) - y).pow(2).mean() + (w * w).sum() * 0.01


def _problem(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in ((5, 3), (3,), (16, 5), (16, 3))]


def _run(lib, name, options, data, steps=STEPS):
    w0, b0, x, y = data
    w = lib.tensor(w0, requires_grad=True)
    b = lib.tensor(b0, requires_grad=True)
    opt = getattr(lib.optim, name)([w, b], **options)
    x, y = lib.tensor(x), lib.tensor(y)
    history = []
    for _ in range(steps):
        opt.zero_grad()
        _loss(lib, w, b, x, y).backward()
        opt.step()
        history.append((w.detach().numpy().copy(), b.detach().numpy().copy()))
    return history, opt


def _lockstep(name, options, data, steps=STEPS):
    """Both optimizers step on the same gradients (torch's loss at torch's parameters), so
    any difference comes from the update rule alone."""
    theirs = [torch.tensor(a, requires_grad=True) for a in data[:2]]
    ours = [gradjit.tensor(a, requires_grad=True) for a in data[:2]]
    topt = getattr(torch.optim, name)(theirs, **options)
    opt = getattr(optim, name)(ours, **options)
    x, y = torch.tensor(data[2]), torch.tensor(data[3])
    for _ in range(steps):
        topt.zero_grad()
        opt.zero_grad()
        _loss(torch, *theirs, x, y).backward()
        for p, t in zip(ours, theirs):
            p.grad = gradjit.tensor(t.grad.numpy())
        topt.step()
        opt.step()
        yield [p.detach().numpy() for p in ours], [t.detach().numpy() for t in theirs]


@pytest.mark.parametrize("name,options", CASES, ids=[f"{n}-{o}" for n, o in CASES])
def test_updates_equal_pytorch_for_100_steps(name, options):
    for step, (ours, theirs) in enumerate(_lockstep(name, options, _problem())):
        for a, t in zip(ours, theirs):
            assert a.dtype == t.dtype == np.float32
            np.testing.assert_allclose(a, t, rtol=1e-5, atol=1e-6, err_msg=f"step {step}")


@pytest.mark.parametrize("name,options", [CASES[2], CASES[5], CASES[10]])
def test_training_on_our_own_gradients_follows_pytorch(name, options):
    data = _problem()
    ours, _ = _run(gradjit, name, options, data, steps=30)
    theirs, _ = _run(torch, name, options, data, steps=30)
    for (w, b), (tw, tb) in zip(ours, theirs):
        np.testing.assert_allclose(w, tw, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(b, tb, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name,options", [CASES[1], CASES[5], CASES[10], CASES[13], CASES[14],
                                          CASES[17], CASES[19], CASES[22], CASES[24],
                                          CASES[26]])
def test_state_dict_matches_pytorch_and_resumes(name, options):
    data = _problem(1)
    ours, opt = _run(gradjit, name, options, data, steps=3)
    _, topt = _run(torch, name, options, data, steps=3)
    saved, tsaved = opt.state_dict(), topt.state_dict()
    assert saved["param_groups"] == tsaved["param_groups"]
    assert saved["state"].keys() == tsaved["state"].keys()
    for i, state in saved["state"].items():
        assert state.keys() == tsaved["state"][i].keys()
        for key, value in state.items():
            np.testing.assert_allclose(value.numpy(), tsaved["state"][i][key].numpy(),
                                       rtol=1e-5, atol=1e-6)
    # A fresh optimizer loaded from the state continues exactly as the original one does.
    w = gradjit.tensor(ours[-1][0], requires_grad=True)
    b = gradjit.tensor(ours[-1][1], requires_grad=True)
    resumed = getattr(optim, name)([w, b], **options)
    # loading takes the state's tensors as they are (as torch does): a copy, as saving makes
    resumed.load_state_dict(copy.deepcopy(saved))
    x, y = gradjit.tensor(data[2]), gradjit.tensor(data[3])
    for _ in range(2):
        for o, params in ((opt, opt.param_groups[0]["params"]), (resumed, [w, b])):
            o.zero_grad()
            _loss(gradjit, *params, x, y).backward()
            o.step()
    np.testing.assert_array_equal(w.detach().numpy(),
                                  opt.param_groups[0]["params"][0].detach().numpy())


def test_param_groups_with_their_own_options():
    data = _problem(2)

    def run(lib):
        w = lib.tensor(data[0], requires_grad=True)
        b = lib.tensor(data[1], requires_grad=True)
        opt = lib.optim.SGD([{"params": [w]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.5)
        extra = lib.tensor(data[1] * 2, requires_grad=True)
        opt.add_param_group({"params": [extra], "momentum": 0.0})
        for _ in range(5):
            opt.zero_grad()
            (_loss(lib, w, b, lib.tensor(data[2]), lib.tensor(data[3])) + extra.sum()).backward()
            opt.step()
        return [t.detach().numpy() for t in (w, b, extra)], opt
    ours, opt = run(gradjit)
    theirs, topt = run(torch)
    for a, t in zip(ours, theirs):
        np.testing.assert_allclose(a, t, rtol=1e-6)
    assert opt.state_dict()["param_groups"] == topt.state_dict()["param_groups"]
    assert repr(opt) == repr(topt)


def test_zero_grad_sets_to_none_or_zeros_in_place():
    for lib in (gradjit, torch):
        w = lib.ones(3, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        (w * 2).sum().backward()
        grad = w.grad
        opt.zero_grad(set_to_none=False)
        assert w.grad is grad and w.grad.tolist() == [0.0, 0.0, 0.0]
        opt.zero_grad()
        assert w.grad is None
        opt.step()  # parameters without a gradient are skipped
        assert w.tolist() == [1.0, 1.0, 1.0]


def test_step_calls_the_closure_with_grad_enabled():
    w = gradjit.tensor([1.0, -2.0], requires_grad=True)
    opt = optim.Adam([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w ** 2).sum()
        loss.backward()
        return loss
    with gradjit.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 5.0 and loss.requires_grad


@pytest.mark.parametrize("make", [
    lambda lib, p: lib.optim.SGD(p[0], lr=0.1),
    lambda lib, p: lib.optim.SGD([], lr=0.1),
    lambda lib, p: lib.optim.SGD([{"params": {p[0]}}], lr=0.1),
    lambda lib, p: lib.optim.SGD([p[0], 1.0], lr=0.1),
    lambda lib, p: lib.optim.SGD([p[0] * 2], lr=0.1),
    lambda lib, p: lib.optim.SGD([{"params": p[0]}, {"params": [p[0]]}], lr=0.1),
    lambda lib, p: lib.optim.SGD(p, lr=-1.0),
    lambda lib, p: lib.optim.SGD(p, lr=0.1, momentum=-0.5),
    lambda lib, p: lib.optim.SGD(p, lr=0.1, nesterov=True),
    lambda lib, p: lib.optim.Adam(p, betas=(1.0, 0.9)),
    lambda lib, p: lib.optim.Adam(p, betas=(0.9, -0.1)),
    lambda lib, p: lib.optim.AdamW(p, eps=-1e-8),
    lambda lib, p: lib.optim.RMSprop(p, alpha=-0.1),
    lambda lib, p: lib.optim.RMSprop(p, weight_decay=-0.1),
    lambda lib, p: lib.optim.Adagrad(p, lr_decay=-0.1),
    lambda lib, p: lib.optim.Adagrad(p, initial_accumulator_value=-0.1),
])
def test_errors_match_pytorch(make):
    def outcome(lib):
        try:
            make(lib, [lib.ones(2, requires_grad=True)])
        except Exception as e:  # noqa: BLE001 - the comparison is the test
            return type(e), str(e).split(",")[0]
        return None
    expected = outcome(torch)
    assert expected is not None
    assert outcome(gradjit) == expected


def test_load_state_dict_checks_the_groups():
    w, b = gradjit.ones(2, requires_grad=True), gradjit.ones(1, requires_grad=True)
    saved = optim.SGD([w, b], lr=0.1).state_dict()
    with pytest.raises(ValueError, match="different number of parameter groups"):
        optim.SGD([{"params": [w]}, {"params": [b]}], lr=0.1).load_state_dict(saved)
    with pytest.raises(ValueError, match="doesn't match the size"):
        optim.SGD([w], lr=0.1).load_state_dict(saved)


@pytest.mark.parametrize("options", [dict(lr=0.5, history_size=3, max_iter=7),
                                     dict(max_iter=1)])
def test_lbfgs_follows_pytorch(options):
    data = _problem()
    runs = []
    for lib in (torch, gradjit):
        w, b = (lib.tensor(a, requires_grad=True) for a in data[:2])
        x, y = lib.tensor(data[2]), lib.tensor(data[3])
        opt = lib.optim.LBFGS([w, b], **options)

        def closure():
            opt.zero_grad()
            loss = _loss(lib, w, b, x, y)
            loss.backward()
            return loss
        losses = [float(opt.step(closure)) for _ in range(4)]
        runs.append((losses, w.detach().numpy().copy(), opt.state[w]["func_evals"]))
    (want, want_w, want_evals), (got, got_w, got_evals) = runs
    np.testing.assert_allclose(got, want, rtol=1e-5)
    np.testing.assert_allclose(got_w, want_w, atol=1e-4)
    assert got_evals == want_evals


def test_lbfgs_solves_a_quadratic():
    rng = np.random.default_rng(4)
    m = rng.standard_normal((6, 6))
    a, rhs = m @ m.T + 6 * np.eye(6), rng.standard_normal(6)
    x = gradjit.zeros(6, dtype=gradjit.float64, requires_grad=True)
    opt = optim.LBFGS([x], max_iter=50, tolerance_grad=1e-12, tolerance_change=1e-14)

    def closure():
        opt.zero_grad()
        loss = 0.5 * x @ gradjit.tensor(a) @ x - gradjit.tensor(rhs) @ x
        loss.backward()
        return loss
    opt.step(closure)
    np.testing.assert_allclose(x.detach().numpy(), np.linalg.solve(a, rhs), rtol=1e-6)
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        optim.LBFGS([{"params": [x]}, {"params": [gradjit.ones(1, requires_grad=True)]}])


def _rosenbrock_run(lib, options):
    x = lib.tensor([-1.5, 2.0, 0.5, -0.7], dtype=lib.float64, requires_grad=True)
    opt = lib.optim.LBFGS([x], line_search_fn="strong_wolfe", **options)

    def closure():
        opt.zero_grad()
        loss = (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
        loss.backward()
        return loss
    losses = [float(opt.step(closure).detach()) for _ in range(6)]
    return losses, x.detach().numpy().copy(), opt.state[x]["func_evals"]


@pytest.mark.parametrize("options", [{}, dict(history_size=3, max_iter=7),
                                     dict(lr=0.5, max_iter=40), dict(max_iter=3, max_eval=5)])
def test_lbfgs_strong_wolfe_follows_pytorch(options):
    (want, want_x, want_evals) = _rosenbrock_run(torch, options)
    (got, got_x, got_evals) = _rosenbrock_run(gradjit, options)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    np.testing.assert_allclose(got_x, want_x, rtol=1e-12, atol=1e-14)
    assert got_evals == want_evals


def test_lbfgs_rejects_an_unknown_line_search_when_stepping():
    def attempt(lib):
        x = lib.ones(2, requires_grad=True)
        opt = lib.optim.LBFGS([x], line_search_fn="backtracking")

        def closure():
            opt.zero_grad()
            loss = (x * x).sum()
            loss.backward()
            return loss
        opt.step(closure)
    same_error(lambda: attempt(gradjit), lambda: attempt(torch))
