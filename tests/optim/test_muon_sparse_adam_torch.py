"""torch.optim.Muon and SparseAdam against PyTorch 2.13: Muon's parameters over 20 steps (in
lockstep on torch's gradients, and on each library's own), its state_dict, the bfloat16
Newton-Schulz iteration, and both constructors' and steps' errors."""
import numpy as np
import pytest
import torch

import gradjit
from gradjit.optim.muon import zeropower_via_newtonschulz
from tests.torch_reference import same_error

OPTIONS = [dict(), dict(lr=0.05, nesterov=False), dict(momentum=0.5, weight_decay=0.01),
           dict(adjust_lr_fn="match_rms_adamw", weight_decay=0.0),
           dict(adjust_lr_fn="original", ns_steps=3, eps=1e-5),
           dict(ns_coefficients=(2.0, -1.5, 0.5), lr=torch.tensor(0.01))]


def _problem(shape):
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s).astype(np.float32)
            for s in (shape, (16, shape[0]), (16, shape[1]))]


def _loss(lib, w, x, y):
    return (lib.tanh(x @ w) - y).pow(2).mean()


def _options(lib, options):
    return {k: lib.tensor(v.item()) if isinstance(v, torch.Tensor) else v
            for k, v in options.items()}


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("shape", [(5, 3), (3, 6)])
def test_muon_follows_torch_for_20_steps(options, shape):
    """The updates are bfloat16: where float32 GEMM sums in another order round one entry to
    the neighbouring bfloat16, the parameters part by lr times that one rounding."""
    w0, x, y = _problem(shape)
    atol = float(options.get("lr", 1e-3)) * 2 ** -6
    theirs = torch.tensor(w0, requires_grad=True)
    ours = gradjit.tensor(w0, requires_grad=True)
    topt = torch.optim.Muon([theirs], **options)
    opt = gradjit.optim.Muon([ours], **_options(gradjit, options))
    x, y = torch.tensor(x), torch.tensor(y)
    for step in range(20):
        topt.zero_grad()
        _loss(torch, theirs, x, y).backward()
        ours.grad = gradjit.tensor(theirs.grad.numpy())
        topt.step()
        opt.step()
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6,
                                   atol=atol, err_msg=f"step {step}")


def test_muon_trains_on_its_own_gradients_as_torch():
    w0, x, y = _problem((5, 3))

    def run(lib):
        w = lib.tensor(w0, requires_grad=True)
        opt = lib.optim.Muon([w], lr=0.02)
        for _ in range(20):
            opt.zero_grad()
            _loss(lib, w, lib.tensor(x), lib.tensor(y)).backward()
            opt.step()
        return w.detach().numpy(), opt
    (ours, opt), (theirs, topt) = run(gradjit), run(torch)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=0.02 * 2 ** -6)
    saved, tsaved = opt.state_dict(), topt.state_dict()
    assert saved["param_groups"] == tsaved["param_groups"]
    assert saved["state"][0].keys() == tsaved["state"][0].keys() == {"momentum_buffer"}
    np.testing.assert_allclose(saved["state"][0]["momentum_buffer"].numpy(),
                               tsaved["state"][0]["momentum_buffer"].numpy(), rtol=1e-5,
                               atol=1e-6)
    assert repr(opt) == repr(topt)


def test_newton_schulz_in_bfloat16_as_torch():
    from torch.optim._muon import _zeropower_via_newtonschulz
    rng = np.random.default_rng(3)
    for shape in ((4, 7), (7, 4), (6, 6)):
        g = rng.standard_normal(shape).astype(np.float32)
        ours = zeropower_via_newtonschulz(gradjit.tensor(g), (3.4445, -4.775, 2.0315), 5, 1e-7)
        theirs = _zeropower_via_newtonschulz(torch.tensor(g), (3.4445, -4.775, 2.0315), 5, 1e-7)
        assert str(ours.dtype) == str(theirs.dtype) == "torch.bfloat16"
        np.testing.assert_array_equal(ours.float().numpy(), theirs.float().numpy())


@pytest.mark.parametrize("make", [
    lambda L, w: L.optim.Muon([L.ones(3, requires_grad=True)]),
    lambda L, w: L.optim.Muon([w, L.ones(2, 2, 2, requires_grad=True)]),
    lambda L, w: L.optim.Muon([w], lr=-1.0),
    lambda L, w: L.optim.Muon([w], lr=L.tensor([0.1, 0.2])),
    lambda L, w: L.optim.Muon([w], momentum=-0.1),
    lambda L, w: L.optim.Muon([w], weight_decay=-0.1),
    lambda L, w: L.optim.Muon([w], adjust_lr_fn="other"),
    lambda L, w: L.optim.SparseAdam([w], lr=0.0),
    lambda L, w: L.optim.SparseAdam([w], lr=L.tensor([0.1, 0.2])),
    lambda L, w: L.optim.SparseAdam([w], eps=0.0),
    lambda L, w: L.optim.SparseAdam([w], betas=(1.0, 0.9)),
    lambda L, w: L.optim.SparseAdam([w], betas=(0.9, -0.1)),
    lambda L, w: L.optim.SparseAdam([w, L.ones(2, dtype=L.cfloat, requires_grad=True)]),
    lambda L, w: L.optim.SparseAdam([{"params": [w]}, {"params": [
        L.ones(2, dtype=L.cfloat, requires_grad=True)]}]),
])
def test_constructor_errors_as_torch(make):
    same_error(lambda: make(gradjit, gradjit.ones(2, 3, requires_grad=True)),
               lambda: make(torch, torch.ones(2, 3, requires_grad=True)))


def _stepped(L, name, options, grad):
    w = L.ones(2, 3, requires_grad=True)
    opt = getattr(L.optim, name)([w], **options)
    w.grad = grad(L)
    return opt.step


@pytest.mark.parametrize("name,options,grad", [
    ("SparseAdam", {}, lambda L: L.ones(2, 3)),
    ("Muon", dict(ns_steps=100), lambda L: L.ones(2, 3)),
    ("Muon", dict(ns_coefficients=(1.0, 2.0)), lambda L: L.ones(2, 3)),
])
def test_step_errors_as_torch(name, options, grad):
    same_error(_stepped(gradjit, name, options, grad), _stepped(torch, name, options, grad))


def test_sparse_adam_without_gradients_steps_nothing():
    for L in (gradjit, torch):
        w = L.ones(2, 3, requires_grad=True)
        opt = L.optim.SparseAdam([w])
        opt.step()
        assert w.tolist() == [[1.0] * 3] * 2 and not opt.state


def test_muon_refuses_complex_parameters_at_its_step_as_torch():
    def step(L):
        w = L.ones(2, 2, dtype=L.cfloat, requires_grad=True)
        opt = L.optim.Muon([w])
        w.grad = L.ones(2, 2, dtype=L.cfloat)
        return opt.step
    same_error(step(gradjit), step(torch))


def test_newton_schulz_refuses_what_torchs_refuses():
    from torch.optim._muon import _zeropower_via_newtonschulz
    same_error(lambda: zeropower_via_newtonschulz(gradjit.ones(3), (1, 2, 3), 5, 1e-7),
               lambda: _zeropower_via_newtonschulz(torch.ones(3), (1, 2, 3), 5, 1e-7))
