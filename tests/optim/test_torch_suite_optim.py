"""The public-API scenarios of PyTorch's optimizer test suite run side by side on gradjit and
torch: step hooks, state_dict hooks, state_dict round trips into a fresh optimizer, parameter
groups, zero_grad, closures, maximize and the flags CPU torch accepts."""
import copy
import importlib
import pickle

import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

OPTIMIZERS = [
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.1, momentum=0.5, dampening=0.1, weight_decay=0.1)),
    ("Adam", dict(lr=0.05, amsgrad=True, weight_decay=0.1)),
    ("AdamW", dict(lr=0.05)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)),
    ("Adadelta", dict(lr=0.5, rho=0.8)),
    ("Adamax", dict(lr=0.05)),
    ("NAdam", dict(lr=0.05, decoupled_weight_decay=True, weight_decay=0.1)),
    ("RAdam", dict(lr=0.05)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True)),
    ("Rprop", dict(lr=0.01)),
    ("ASGD", dict(lr=0.05, t0=2)),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(OPTIMIZERS)]


def _model(lib):
    """Two parameters with seeded values and a loss of both."""
    rng = np.random.default_rng(3)
    w = lib.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    b = lib.tensor(rng.standard_normal(3), requires_grad=True)
    x = lib.tensor(rng.standard_normal((4, 2)))

    def loss():
        return ((x @ w.T + b) ** 2).sum() + (w ** 4).sum()
    return [w, b], loss


def _steps(opt, loss, n):
    for _ in range(n):
        opt.zero_grad()
        loss().backward()
        opt.step()


def _numpy(value):
    if isinstance(value, (torch.Tensor, gradjit.Tensor)):
        return np.asarray(value.detach().numpy())
    if isinstance(value, dict):
        return {k: _numpy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_numpy(v) for v in value]
    return value


def _close(a, b):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _close(a[k], b[k])
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y)
    elif isinstance(a, np.ndarray):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    else:
        assert a == b, (a, b)


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS, ids=IDS)
def test_state_dict_loaded_into_a_fresh_optimizer_continues_the_same(name, kwargs):
    """Three steps, the state saved (and pickled), a new optimizer on copies of the
    parameters loads it; both then take three more steps alike, as in torch."""
    results = []
    for lib in (gradjit, torch):
        params, loss = _model(lib)
        opt = getattr(lib.optim, name)(params, **kwargs)
        _steps(opt, loss, 3)
        saved = pickle.loads(pickle.dumps(opt.state_dict()))
        twins = [p.detach().clone().requires_grad_() for p in params]
        fresh = getattr(lib.optim, name)(twins, **kwargs)
        fresh.load_state_dict(saved)
        _steps(opt, loss, 3)
        for _ in range(3):
            fresh.zero_grad()
            params_before = [p.detach().clone() for p in params]
            with lib.no_grad():
                for p, t in zip(params, twins):
                    p.copy_(t)
            loss().backward()
            for p, t in zip(params, twins):
                t.grad = p.grad.clone()
            fresh.step()
            with lib.no_grad():
                for p, before in zip(params, params_before):
                    p.copy_(before)
        results.append((_numpy(twins), _numpy(params), _numpy(fresh.state_dict()),
                        _numpy(opt.state_dict())))
    (g_twins, g_params, g_fresh, g_state), (t_twins, t_params, t_fresh, t_state) = results
    _close(g_twins, t_twins)
    _close(g_params, t_params)
    _close(g_fresh, t_fresh)
    _close(g_state, t_state)


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS, ids=IDS)
def test_maximize_ascends_as_torch_does(name, kwargs):
    results = []
    for lib in (gradjit, torch):
        params, loss = _model(lib)
        opt = getattr(lib.optim, name)(params, maximize=True, **kwargs)
        _steps(opt, loss, 3)
        results.append(_numpy(params))
    _close(*results)


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS, ids=IDS)
def test_no_gradient_means_no_step_and_no_state(name, kwargs):
    results = []
    for lib in (gradjit, torch):
        params, _ = _model(lib)
        before = _numpy(params)
        opt = getattr(lib.optim, name)(params, **kwargs)
        opt.step()
        results.append((before, _numpy(params), len(opt.state)))
    _close(results[0][0], results[0][1])
    _close(results[0][1], results[1][1])
    assert results[0][2] == results[1][2]  # Adagrad makes its state at construction


def test_param_groups_take_their_own_options():
    results = []
    for lib in (gradjit, torch):
        (w, b), loss = _model(lib)
        opt = lib.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.01, "weight_decay": 1}],
                            lr=0.1, momentum=0.9)
        _steps(opt, loss, 4)
        groups = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
        results.append([_numpy([w, b]), groups])
    _close(*results)


def test_add_param_group_fills_defaults_and_refuses_overlaps():
    g_params, _ = _model(gradjit)
    t_params, _ = _model(torch)
    g_opt = gradjit.optim.Adam([g_params[0]], lr=0.1)
    t_opt = torch.optim.Adam([t_params[0]], lr=0.1)
    g_opt.add_param_group({"params": g_params[1], "betas": (0.5, 0.6)})
    t_opt.add_param_group({"params": t_params[1], "betas": (0.5, 0.6)})
    assert [sorted(g) for g in g_opt.param_groups] == [sorted(g) for g in t_opt.param_groups]
    assert g_opt.param_groups[1]["betas"] == t_opt.param_groups[1]["betas"]
    assert g_opt.param_groups[1]["lr"] == t_opt.param_groups[1]["lr"]
    same_error(lambda: g_opt.add_param_group({"params": [g_params[0]]}),
               lambda: t_opt.add_param_group({"params": [t_params[0]]}))
    same_error(lambda: g_opt.add_param_group({"params": {g_params[0]}}),
               lambda: t_opt.add_param_group({"params": {t_params[0]}}))
    same_error(lambda: g_opt.add_param_group({"params": [1.0]}),
               lambda: t_opt.add_param_group({"params": [1.0]}))
    same_error(lambda: g_opt.add_param_group({"params": [g_params[0] * 2]}),
               lambda: t_opt.add_param_group({"params": [t_params[0] * 2]}))


@pytest.mark.parametrize("case", ["empty", "tensor", "lr", "momentum", "nesterov", "eps",
                                  "betas", "groups", "group-size"])
def test_bad_arguments_raise_as_in_torch(case):
    def make(lib):
        params, _ = _model(lib)
        calls = {
            "empty": lambda: lib.optim.SGD([], lr=0.1),
            "tensor": lambda: lib.optim.SGD(params[0], lr=0.1),
            "lr": lambda: lib.optim.Adam(params, lr=-0.1),
            "momentum": lambda: lib.optim.SGD(params, lr=0.1, momentum=-1),
            "nesterov": lambda: lib.optim.SGD(params, lr=0.1, nesterov=True),
            "eps": lambda: lib.optim.Adagrad(params, eps=-1),
            "betas": lambda: lib.optim.Adam(params, betas=(1.0, 0.9)),
            "groups": lambda: lib.optim.SGD(params).load_state_dict(
                {"state": {}, "param_groups": []}),
            "group-size": lambda: lib.optim.SGD(params).load_state_dict(
                {"state": {}, "param_groups": [{"params": [0], "lr": 0.1}]}),
        }
        return calls[case]
    same_error(make(gradjit), make(torch))


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    results = []
    for lib in (gradjit, torch):
        params, loss = _model(lib)
        opt = lib.optim.SGD(params, lr=0.1)
        loss().backward()
        opt.zero_grad(set_to_none=set_to_none)
        results.append([None if p.grad is None else [_numpy(p.grad), p.grad.requires_grad]
                        for p in params])
    _close(*[[r for r in res if r is not None] for res in results])
    assert [r is None for r in results[0]] == [r is None for r in results[1]]


def test_closure_value_is_returned_and_lbfgs_calls_it():
    results = []
    for lib in (gradjit, torch):
        params, loss = _model(lib)
        calls = []

        def closure(opt):
            opt.zero_grad()
            value = loss()
            value.backward()
            calls.append(1)
            return value
        sgd = lib.optim.SGD(params, lr=0.01)
        first = sgd.step(lambda: closure(sgd))
        lbfgs = lib.optim.LBFGS(params, lr=0.5, max_iter=5)
        second = lbfgs.step(lambda: closure(lbfgs))
        results.append((float(first), float(second), len(calls), _numpy(params)))
    _close(results[0][3], results[1][3])
    assert results[0][:3] == pytest.approx(results[1][:3], rel=1e-10)


def _hook_log(lib):
    """The order in which every hook of an optimizer runs over a step, state_dict and
    load_state_dict, with a pre hook that replaces the step's arguments."""
    params, loss = _model(lib)
    opt = lib.optim.SGD(params, lr=0.1)
    log = []

    def closure():
        opt.zero_grad()
        value = loss()
        value.backward()
        return value

    def pre(o, args, kwargs):
        log.append(("pre", len(args), sorted(kwargs)))
        return (args[0],), {"closure": closure}

    opt.register_step_pre_hook(pre)
    handle = opt.register_step_post_hook(lambda o, a, k: log.append(("post", sorted(k))))
    opt.register_step_post_hook(lambda o, a, k: log.append(("post2", o is opt)))
    loss_value = opt.step()
    handle.remove()
    opt.step()
    opt.register_state_dict_pre_hook(lambda o: log.append("sd-pre"))
    opt.register_state_dict_pre_hook(lambda o: log.append("sd-pre-first"), prepend=True)

    def add_key(o, sd):
        log.append("sd-post")
        sd["extra"] = 1
    opt.register_state_dict_post_hook(add_key)
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "replaced": True})
    saved = opt.state_dict()

    def drop_key(o, sd):
        log.append(("load-pre", sorted(sd)))
        return {k: v for k, v in sd.items() if k in ("state", "param_groups")}
    opt.register_load_state_dict_pre_hook(drop_key)
    opt.register_load_state_dict_post_hook(lambda o: log.append("load-post"))
    opt.register_load_state_dict_post_hook(lambda o: log.append("load-post-first"),
                                           prepend=True)
    opt.load_state_dict(saved)
    return log, sorted(saved), float(loss_value), _numpy(params)


def test_hooks_run_in_torchs_order():
    g, t = _hook_log(gradjit), _hook_log(torch)
    assert g[:3] == t[:3]
    _close(g[3], t[3])


def test_global_step_hooks_wrap_every_optimizer():
    logs = []
    for lib in (gradjit, torch):
        params, loss = _model(lib)
        opt = lib.optim.Adam(params)
        log = []
        opt.register_step_pre_hook(lambda o, a, k: log.append("pre"))
        opt.register_step_post_hook(lambda o, a, k: log.append("post"))
        module = importlib.import_module(f"{lib.__name__}.optim.optimizer")
        handles = [module.register_optimizer_step_pre_hook(
                       lambda o, a, k: log.append("global-pre")),
                   module.register_optimizer_step_post_hook(
                       lambda o, a, k: log.append("global-post"))]
        try:
            _steps(opt, loss, 1)
        finally:
            for handle in handles:
                handle.remove()
        _steps(opt, loss, 1)
        logs.append(log)
    assert logs[0] == logs[1] == ["global-pre", "pre", "post", "global-post", "pre", "post"]


def test_pre_hook_returning_a_wrong_value_raises():
    for lib in (gradjit, torch):
        params, loss = _model(lib)
        opt = lib.optim.SGD(params)
        opt.register_step_pre_hook(lambda o, a, k: 1)
        with pytest.raises(RuntimeError, match=r"must return None or a tuple of \(new_args, "
                                               r"new_kwargs\), but got 1\."):
            opt.step()


def test_subclass_step_runs_hooks_as_torch_does():
    """Only the class's own step is wrapped at construction; its super().step() runs the
    hooks again where the parent was wrapped before (by the other tests' SGDs)."""
    counts = []
    for lib in (gradjit, torch):
        class Clipped(lib.optim.SGD):
            def step(self, closure=None):
                return super().step(closure)
        params, loss = _model(lib)
        opt = Clipped(params, lr=0.1)
        seen = []
        opt.register_step_pre_hook(lambda o, a, k: seen.append(1))
        _steps(opt, loss, 2)
        counts.append(len(seen))
    assert counts[0] == counts[1]


def test_deepcopy_keeps_state_and_groups():
    results = []
    for lib in (gradjit, torch):
        params, loss = _model(lib)
        opt = lib.optim.Adam(params, lr=0.1)
        _steps(opt, loss, 2)
        opt.register_step_pre_hook(lambda *args: None)
        twin = copy.deepcopy(opt)
        public = sorted(k for k in vars(twin) if not k.startswith("_"))
        results.append([_numpy(twin.state_dict()), public,
                        len(twin._optimizer_step_pre_hooks)])
    _close(results[0], results[1])  # the copy leaves the hooks behind, as torch's does


# torch's differentiable Adam family computes its bias corrections from the float32 step
# counter (gradjit from its Python value): about 1e-7 relative per step
DIFFERENTIABLE = [("SGD", dict(momentum=0.9), 1e-12), ("RMSprop", {}, 1e-12),
                  ("Adagrad", {}, 1e-12), ("Adadelta", {}, 1e-12), ("RAdam", {}, 1e-12),
                  ("ASGD", {}, 1e-12), ("Rprop", {}, 1e-12), ("Adam", {}, 1e-5),
                  ("AdamW", {}, 1e-5), ("NAdam", {}, 1e-5)]


@pytest.mark.parametrize("name,kwargs,rtol", DIFFERENTIABLE)
def test_differentiable_step_passes_gradients_through_the_update(name, kwargs, rtol):
    """A differentiable optimizer steps a non-leaf copy of the weights under autograd, so a
    loss of the stepped weights has a gradient with respect to the originals."""
    results = []
    for lib in (gradjit, torch):
        lib.manual_seed(0)
        w = lib.randn(3, dtype=lib.float64, requires_grad=True)
        copy_ = w.clone()
        copy_.retain_grad()
        opt = getattr(lib.optim, name)([copy_], lr=0.1, differentiable=True, **kwargs)
        for _ in range(2):
            opt.zero_grad()
            (copy_ ** 3).sum().backward(retain_graph=True)
            opt.step()
        (copy_ ** 2).sum().backward()
        results.append((copy_.detach().numpy(), w.grad.numpy(), copy_.grad_fn is not None))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=rtol)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=rtol)
    assert results[0][2] and results[1][2]


def test_differentiable_step_on_a_leaf_raises_as_in_torch():
    def step(lib):
        w = lib.ones(2, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1, differentiable=True)
        (w * w).sum().backward()
        return opt.step
    same_error(step(gradjit), step(torch))


@pytest.mark.parametrize("name", ["Adam", "AdamW", "NAdam", "RAdam", "Adamax", "ASGD",
                                  "Adadelta", "RMSprop", "Rprop"])
def test_capturable_on_the_cpu_refuses_to_step(name):
    def step(lib):
        w = lib.ones(2, requires_grad=True)
        opt = getattr(lib.optim, name)([w], capturable=True)
        (w * w).sum().backward()
        return opt.step
    same_error(step(gradjit), step(torch))


def test_repr_lists_the_groups():
    g, t = (_model(lib)[0] for lib in (gradjit, torch))
    g_opt = gradjit.optim.SGD([{"params": g[:1]}, {"params": g[1:], "lr": 0.5}], lr=0.1)
    t_opt = torch.optim.SGD([{"params": t[:1]}, {"params": t[1:], "lr": 0.5}], lr=0.1)
    assert repr(g_opt) == repr(t_opt)


@pytest.mark.parametrize("name,kwargs", [o for o in OPTIMIZERS if o[0] != "SGD"],
                         ids=[i for i in IDS if not i.startswith("SGD")])
def test_older_state_dict_with_number_steps_and_fewer_options_loads(name, kwargs):
    """A state saved before step counters were tensors, and before the newer options: loading
    makes float32 tensor counters and fills the options, and the steps go on as torch's."""
    results = []
    for lib in (gradjit, torch):
        params, loss = _model(lib)
        opt = getattr(lib.optim, name)(params, **kwargs)
        _steps(opt, loss, 2)
        saved = copy.deepcopy(opt.state_dict())
        for values in saved["state"].values():
            values["step"] = float(values["step"])
        for group in saved["param_groups"]:
            for option in ("foreach", "maximize", "differentiable", "capturable"):
                group.pop(option, None)
        opt.load_state_dict(saved)
        step = opt.state[params[0]]["step"]
        _steps(opt, loss, 2)
        results.append([str(step.dtype), sorted(opt.param_groups[0]), _numpy(params)])
    _close(results[0], results[1])


@pytest.mark.parametrize("weights_only", [True, False])
def test_state_dict_saved_and_loaded_with_weights_only(weights_only, tmp_path):
    results = []
    for lib in (gradjit, torch):
        params, loss = _model(lib)
        opt = lib.optim.Adam([{"params": params[:1]}, {"params": params[1:], "lr": 0.01}],
                             amsgrad=True)
        _steps(opt, loss, 2)
        lib.save(opt.state_dict(), tmp_path / "opt.pt")
        loaded = lib.load(tmp_path / "opt.pt", weights_only=weights_only)
        opt.load_state_dict(loaded)
        _steps(opt, loss, 1)
        results.append([_numpy(loaded), _numpy(params)])
    _close(results[0], results[1])


def test_pickled_optimizer_keeps_state_but_not_hooks():
    results = []
    for lib in (gradjit, torch):
        params, loss = _model(lib)
        opt = lib.optim.RMSprop(params, lr=0.01)
        _steps(opt, loss, 2)
        opt.register_step_post_hook(print)
        twin = pickle.loads(pickle.dumps(opt))
        results.append([_numpy(twin.state_dict()), len(twin._optimizer_step_post_hooks)])
    _close(results[0], results[1])


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS, ids=IDS)
def test_complex_parameters_step_as_pairs_of_reals(name, kwargs):
    """torch updates a complex parameter (and its state) as its real and imaginary parts."""
    results = []
    for lib in (gradjit, torch):
        z = lib.tensor(np.array([1 + 2j, 3 - 1j, -0.5 + 0.25j]), requires_grad=True)
        opt = getattr(lib.optim, name)([z], **kwargs)
        for _ in range(3):
            opt.zero_grad()
            (z.abs() ** 3).sum().backward()
            opt.step()
        results.append([_numpy(z), _numpy(opt.state[z])])
    _close(results[0], results[1])
