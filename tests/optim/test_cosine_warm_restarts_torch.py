"""CosineAnnealingWarmRestarts against PyTorch 2.13: learning rates over steps (plain,
T_mult > 1, fractional epochs passed to step), state and errors."""
import warnings

import pytest
import torch

import gradjit
from tests.torch_reference import same_error


def _schedules(t, epochs=None, **kwargs):
    opt = t.optim.SGD([t.zeros(1, requires_grad=True)], lr=0.1)
    sched = t.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, **kwargs)
    lrs = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for e in epochs if epochs is not None else [None] * 40:
            opt.step()
            sched.step(e)
            lrs.extend((sched.get_last_lr()[0], opt.param_groups[0]["lr"], sched.T_cur,
                        sched.T_i, sched.last_epoch))
    return lrs


@pytest.mark.parametrize("kwargs", [dict(T_0=5), dict(T_0=3, T_mult=2, eta_min=0.01),
                                    dict(T_0=4, T_mult=3)])
def test_lrs_over_steps_as_torch(kwargs):
    assert _schedules(gradjit, **kwargs) == pytest.approx(_schedules(torch, **kwargs))
    epochs = [0.5, 1.25, 2.0, 3.7, 7.2, 10.0, 15.5, 30.1]
    assert _schedules(gradjit, epochs, **kwargs) == pytest.approx(
        _schedules(torch, epochs, **kwargs))


def test_errors_as_torch():
    for kwargs in (dict(T_0=0), dict(T_0=2, T_mult=0), dict(T_0=2, eta_min="x")):
        same_error(lambda: _schedules(gradjit, **kwargs), lambda: _schedules(torch, **kwargs))
    same_error(lambda: _schedules(gradjit, [-1], T_0=2), lambda: _schedules(torch, [-1], T_0=2))
