"""torch.profiler's profile: recording sessions cut into cycles by a schedule of steps (wait,
warmup, active), each finished cycle handed to on_trace_ready."""
from __future__ import annotations

import enum
import os
import time
import warnings

from gradjit.profiler import session
from gradjit.profiler.events import EventList
from gradjit.profiler.session import record_function


class ProfilerActivity(enum.Enum):
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities() -> set:
    return {ProfilerActivity.CPU}


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):
    """The action for each step: skip_first steps, then cycles of wait, warmup and active
    steps (repeat of them; 0: without end), the last active step saving the cycle."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
            f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
            f"skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)
    cycle = wait + warmup + active

    def action(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        at = step % cycle
        if at < wait:
            return ProfilerAction.NONE
        if at < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if at < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return action


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False, use_python_export: bool = False):
    """An on_trace_ready writing each cycle's Chrome trace into dir_name (TensorBoard's
    logdir) as <worker>.<ns>.pt.trace.json."""
    def handler(prof) -> None:
        import socket  # (25 ms to import: only where a trace is written)
        nonlocal worker_name
        os.makedirs(dir_name, exist_ok=True)
        worker_name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        prof.export_chrome_trace(os.path.join(dir_name, name))
    return handler


class profile:
    """A profiler over steps: without a schedule it records from enter to exit; with one,
    step() moves through its cycles and each saved cycle goes to on_trace_ready."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False, with_flops=False,
                 with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, use_cuda=None, **_):
        self.activities = set(activities) if activities else supported_activities()
        self.record_steps = schedule is not None
        self.schedule = schedule or (lambda step: ProfilerAction.RECORD)
        self.on_trace_ready = on_trace_ready
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self.with_stack = with_stack
        self.step_num = 0
        self.current_action = self.schedule(0)
        self.profiler: session.profile | None = None
        self._step_range = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self) -> None:
        self._move(ProfilerAction.NONE, self.current_action)
        self._open_step()

    def stop(self) -> None:
        self._close_step()
        self._move(self.current_action, None)

    def step(self) -> None:
        """The next step begins: the schedule's action for it takes over."""
        self._close_step()
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._move(previous, self.current_action)
        self._open_step()

    def _open_step(self):
        if self.record_steps:
            self._step_range = record_function(f"ProfilerStep#{self.step_num}")
            self._step_range.__enter__()

    def _close_step(self):
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
            self._step_range = None

    def _move(self, before, after) -> None:
        for act in _TRANSITIONS.get((before, after), ()):
            act(self)

    def _start_trace(self):
        self.profiler = session.profile(record_shapes=self.record_shapes,
                                        profile_memory=self.profile_memory,
                                        with_stack=self.with_stack)
        self.profiler.__enter__()

    def _stop_trace(self):
        self.profiler.__exit__(None, None, None)

    def _trace_ready(self):
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def events(self) -> EventList:
        return self.profiler.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False) -> EventList:
        return self.profiler.key_averages(group_by_input_shape, group_by_stack_n,
                                          group_by_overload_name)

    def export_chrome_trace(self, path: str, use_python_export: bool = False) -> None:
        self.profiler.export_chrome_trace(path)


def _warning(text):
    return lambda prof: warnings.warn(text, stacklevel=4)


_N, _W, _R, _S = ProfilerAction.NONE, ProfilerAction.WARMUP, ProfilerAction.RECORD, \
    ProfilerAction.RECORD_AND_SAVE
_START, _STOP, _READY = profile._start_trace, profile._stop_trace, profile._trace_ready
# What happens between the actions of two steps (None: the profiler stops), as in PyTorch.
_TRANSITIONS = {
    (_N, _R): (_START,), (_N, _S): (_START,),
    (_W, _N): (_warning("Incorrect schedule: WARMUP followed by NONE"), _START, _STOP),
    (_W, _R): (_START,), (_W, _S): (_START,),
    (_R, _N): (_warning("Incorrect schedule: RECORD followed by NONE"), _STOP),
    (_R, _W): (_warning("Incorrect schedule: RECORD followed by WARMUP"), _STOP),
    (_S, _N): (_STOP, _READY), (_S, _W): (_STOP, _READY), (_S, _R): (_STOP, _READY, _START),
    (_S, _S): (_STOP, _READY, _START),
    (_W, None): (_START, _STOP), (_R, None): (_STOP, _READY), (_S, None): (_STOP, _READY),
}
