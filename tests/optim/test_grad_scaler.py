"""torch.amp.GradScaler('cpu') against PyTorch 2.13 over training steps that include gradients
with inf and nan: scales, growth trackers, parameters, skipped steps, unscale_ before the step,
state_dict round trips, enabled=False, the deprecated torch.cpu.amp form and the errors."""
import pickle
import warnings

import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")


def _setup(lib, **options):
    rng = np.random.default_rng(2)
    w = lib.tensor(rng.standard_normal((3, 2)).astype(np.float32), requires_grad=True)
    x = lib.tensor(rng.standard_normal((4, 3)).astype(np.float32))
    opt = lib.optim.SGD([w], lr=0.1, momentum=0.9)
    return w, x, opt, lib.amp.GradScaler("cpu", **options)


def _train(lib, poison_steps=(2, 5), unscale_first=False, **options):
    w, x, opt, scaler = _setup(lib, **options)
    log = []
    for step in range(8):
        opt.zero_grad()
        with lib.autocast("cpu"):
            loss = (x @ w).float().pow(2).mean()
        if step in poison_steps:  # an overflowed loss: inf (or nan) gradients
            loss = loss * (float("inf") if step % 2 else float("nan"))
        scaler.scale(loss).backward()
        if unscale_first:
            scaler.unscale_(opt)
            log.append(w.grad.clone().numpy().tolist())
        result = scaler.step(opt)
        scaler.update()
        log.append((result, scaler.get_scale(), scaler._get_growth_tracker(),
                    w.detach().numpy().tolist()))
    return log, scaler.state_dict()


@pytest.mark.parametrize("options", [{}, {"init_scale": 4.0, "growth_interval": 2},
                                     {"init_scale": 3.0, "growth_factor": 3.0,
                                      "backoff_factor": 0.3, "growth_interval": 1},
                                     {"init_scale": 2.0**127, "growth_interval": 1},
                                     {"enabled": False}])
@pytest.mark.parametrize("unscale_first", [False, True])
def test_training_matches_torch(options, unscale_first):
    g = _train(gradjit, unscale_first=unscale_first, **options)
    t = _train(torch, unscale_first=unscale_first, **options)
    assert repr(g) == repr(t)  # repr: nan parameters (a disabled scaler steps on them) compare


def test_scale_of_lists_and_state_dict_round_trip():
    for lib in (gradjit, torch):
        scaler = lib.amp.GradScaler("cpu", init_scale=8.0)
        a, b = lib.ones(2), lib.ones(3)
        scaled = scaler.scale([a, (b, a)])
        assert isinstance(scaled, list) and isinstance(scaled[1], tuple)
        assert scaled[1][0].tolist() == [8.0] * 3
        other = lib.amp.GradScaler("cpu")
        other.load_state_dict({**scaler.state_dict(), "_growth_tracker": 3})
        assert other.get_scale() == 8.0 and other._get_growth_tracker() == 3
        scaler.update(lib.tensor(2.0))
        assert scaler.get_scale() == 2.0
        other.scale(a)
        other.update(0.5)
        assert other.get_scale() == 0.5 and other._get_growth_tracker() == 3
        restored = pickle.loads(pickle.dumps(scaler))
        assert restored.get_scale() == 2.0 and restored._scale is None


def test_disabled_and_cuda_without_a_gpu():
    for lib in (gradjit, torch):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            scaler = lib.amp.GradScaler()
        assert "CUDA is not available.  Disabling." in str(record[0].message)
        assert not scaler.is_enabled() and scaler.get_scale() == 1.0
        assert scaler.state_dict() == {}
        t = lib.ones(2)
        assert scaler.scale(t) is t
        with pytest.warns(FutureWarning, match=r"torch.amp.GradScaler\('cpu', args...\)"):
            assert lib.cpu.amp.GradScaler().is_enabled()


def _used(lib, stage):
    w, x, opt, scaler = _setup(lib)
    scaler.scale((x @ w).sum()).backward()
    for call in stage:
        getattr(scaler, call)(opt)
    return scaler, opt


@pytest.mark.parametrize("call", [
    lambda L: L.amp.GradScaler("cpu", growth_factor=1.0),
    lambda L: L.amp.GradScaler("cpu", backoff_factor=1.0),
    lambda L: L.amp.GradScaler("cpu").unscale_(None),
    lambda L: L.amp.GradScaler("cpu").load_state_dict({}),
    lambda L: L.amp.GradScaler("cpu").scale(3),
    lambda L: _used(L, ["unscale_", "unscale_"]),
    lambda L: _used(L, ["step", "unscale_"]),
    lambda L: _used(L, ["step", "step"]),
    lambda L: _used(L, [])[0].step(_used(L, [])[1], closure=lambda: 0),
    lambda L: _used(L, [])[0].update(),
    lambda L: _used(L, [])[0].update(L.ones(2)),
    lambda L: pickle.dumps(_used(L, ["unscale_"])[0]),
])
def test_errors_match_torch(call):
    same_error(lambda: call(gradjit), lambda: call(torch))


def test_float16_gradients_are_refused():
    for lib in (gradjit, torch):
        w = lib.ones(2, dtype=lib.float16, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        scaler = lib.amp.GradScaler("cpu")
        scaler.scale(w.sum()).backward()
        with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
            scaler.step(opt)
