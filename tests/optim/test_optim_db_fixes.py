"""What PyTorch's optimizer database found: tensor learning rates and betas checked as
PyTorch checks them, named parameters, state and option order, Rprop's float64 etas."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

NAMES = ["Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS", "NAdam", "RAdam",
         "RMSprop", "Rprop", "SGD"]


def params(lib, dtype="float64"):
    rng = np.random.default_rng(0)
    return [lib.nn.Parameter(lib.tensor(rng.standard_normal(s).astype(dtype)))
            for s in ((3, 2), (3,))]


@pytest.mark.parametrize("name", NAMES)
def test_a_tensor_lr_has_one_element(name):
    same_error(lambda: getattr(gradjit.optim, name)(params(gradjit), lr=gradjit.ones(2)),
               lambda: getattr(torch.optim, name)(params(torch), lr=torch.ones(2)))


@pytest.mark.parametrize("options", [
    lambda t: dict(lr=t.tensor(0.01), foreach=True),
    lambda t: dict(betas=(t.tensor(0.9), t.tensor(0.99)), foreach=True),
    lambda t: dict(betas=(t.tensor(0.9), 1)),
    lambda t: dict(betas=(t.tensor([0.9, 0.9]), t.tensor(0.99))),
], ids=["lr-foreach", "betas-foreach", "mixed-betas", "two-element-beta"])
@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_adam_checks_tensor_hyperparameters(name, options):
    same_error(lambda: getattr(gradjit.optim, name)(params(gradjit), **options(gradjit)),
               lambda: getattr(torch.optim, name)(params(torch), **options(torch)))


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_adam_takes_capturable_tensor_betas(name):
    got = getattr(gradjit.optim, name)(params(gradjit), capturable=True, foreach=True,
                                       betas=(gradjit.tensor(0.9), gradjit.tensor(0.99)))
    assert gradjit.is_tensor(got.param_groups[0]["betas"][0])


def named(lib):
    return [(f"p{i}", p) for i, p in enumerate(params(lib))]


def test_named_parameters_keep_their_names():
    got = gradjit.optim.SGD(named(gradjit), lr=0.1)
    want = torch.optim.SGD(named(torch), lr=0.1)
    assert got.param_groups[0]["param_names"] == want.param_groups[0]["param_names"]
    assert list(got.state_dict()["param_groups"][0]) == list(
        want.state_dict()["param_groups"][0])


@pytest.mark.parametrize("groups", [
    lambda lib: [named(lib)[0], params(lib)[1]],
    lambda lib: [{"params": params(lib)[:1]}, {"params": named(lib)[1:]}],
], ids=["mixed-params", "mixed-groups"])
def test_names_are_given_for_all_parameters_or_none(groups):
    same_error(lambda: gradjit.optim.SGD(groups(gradjit)),
               lambda: torch.optim.SGD(groups(torch)))


def run(lib, name, steps=3, **options):
    ps = params(lib)
    opt = getattr(lib.optim, name)(ps, **options)
    for _ in range(steps):
        def closure():
            opt.zero_grad()
            loss = (ps[0] ** 4).sum() + (ps[0].sum(1) * ps[1]).sum()
            loss.backward()
            return loss
        opt.step(closure)
    return ps, opt


@pytest.mark.parametrize("name", NAMES)
def test_options_and_state_in_pytorchs_order(name):
    _, got = run(gradjit, name)
    _, want = run(torch, name)
    got, want = got.state_dict(), want.state_dict()
    assert list(got["param_groups"][0]) == list(want["param_groups"][0])
    assert [list(s) for s in got["state"].values()] == [list(s) for s in want["state"].values()]


def test_rprop_float64_steps_use_float64_etas():
    got, _ = run(gradjit, "Rprop", steps=10)
    want, _ = run(torch, "Rprop", steps=10)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-12)


def test_adafactor_refuses_complex_parameters_when_stepping():
    def step(lib):
        p = lib.ones(2, 3, dtype=lib.complex64, requires_grad=True)
        p.grad = lib.ones(2, 3, dtype=lib.complex64)
        lib.optim.Adafactor([p]).step()
    same_error(lambda: step(gradjit), lambda: step(torch))
