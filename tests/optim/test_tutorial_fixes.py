"""Scheduler behaviours that PyTorch's learning-rate recipes show, compared with torch."""
import warnings

import torch

import gradjit


def _warnings_and_state(t, optimizer_first):
    layer = t.nn.Linear(2, 1)
    opt = t.optim.SGD(layer.parameters(), lr=0.1)
    sched = t.optim.lr_scheduler.StepLR(opt, step_size=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if optimizer_first:
            opt.step()
        sched.step()
        opt.step()
        sched.step()
    return [str(w.message) for w in caught], list(sched.state_dict()), sched.get_last_lr()


def test_scheduler_stepped_before_optimizer_warns_as_torch():
    for optimizer_first in (False, True):
        got = _warnings_and_state(gradjit, optimizer_first)
        assert got == _warnings_and_state(torch, optimizer_first)
    assert len(_warnings_and_state(gradjit, False)[0]) == 1
