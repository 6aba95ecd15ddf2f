"""torch.autograd.profiler's profile (one recording session: its events from enter to exit)
and record_function, the user's named ranges within it."""
from __future__ import annotations

import functools

from gradjit.profiler import hooks
from gradjit.profiler.events import EventList


class profile:
    """Record every timed operation between enter and exit (enabled=False: nothing)."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, **_):
        self.enabled, self.record_shapes = enabled, record_shapes
        self.profile_memory, self.with_stack = profile_memory, with_stack
        self.events: list = []
        self._function_events = None

    def __enter__(self):
        if self.enabled:
            self.events = []
            self._function_events = None
            hooks.install(self)
        return self

    def __exit__(self, *exc):
        if self.enabled:
            hooks.uninstall(self)
            self._function_events = EventList(self.events, self.profile_memory)

    @property
    def function_events(self) -> EventList:
        """The events recorded, once the profile ended (before: none, as in PyTorch)."""
        return EventList() if self._function_events is None else self._function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False) -> EventList:
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n,
                                                 group_by_overload_name)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False) -> str:
        return self.function_events.table(sort_by, row_limit, max_src_column_width,
                                          max_name_column_width, max_shapes_column_width,
                                          header, top_level_events_only)

    def export_chrome_trace(self, path, metadata=None, use_python_export=False) -> None:
        self.function_events.export_chrome_trace(path)

    def total_average(self):
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self.function_events.self_cpu_time_total

    def __str__(self):
        return self.table()

    __repr__ = __str__


class record_function:
    """A named range in the profile (a context manager, or a decorator naming each call)."""

    def __init__(self, name: str, args: str | None = None):
        self.name, self.args = name, args
        self._open: list = []

    def __enter__(self):
        self._open.append(hooks.begin(self.name, user=True))
        return self

    def __exit__(self, *exc):
        event = self._open.pop()
        if event is not None:
            hooks.end(event)

    def __call__(self, fn):
        @functools.wraps(fn)
        def ranged(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return ranged
