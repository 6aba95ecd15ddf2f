"""benchmarks/program_length.py: its stage timers see every stage of a grad and put back
what they wrap."""
import numpy as np

import gradjit
import gradjit.codegen.compile as C
from benchmarks.program_length import STAGES, stage_timers, unrolled_solver


def test_every_stage_of_grad_is_timed_and_put_back(monkeypatch):
    monkeypatch.setenv("GRADJIT_CACHE_DIR", "off")
    plan, f = C.plan_workspace, gradjit.grad(unrolled_solver(77))
    with stage_timers({}) as spent:
        f(np.ones(8, np.float32))
    assert set(spent) == {stage for stage, _, _ in STAGES}
    assert all(seconds > 0 for seconds in spent.values())
    assert C.plan_workspace is plan
