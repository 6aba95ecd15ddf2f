"""The profiler's records: one FunctionEvent per timed operation or user range, their averages
by name (key_averages), PyTorch's summary table and its Chrome trace JSON."""
from __future__ import annotations

import json
import os

_MICRO = 1000.0  # perf_counter_ns ticks per microsecond


def _format_time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_share(us: float, total: float) -> str:
    return "NaN" if total == 0 else f"{us * 100.0 / total:.2f}%"


def _format_memory(nbytes: int) -> str:
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"


class _Times:
    """The derived columns PyTorch's events share."""
    device_time_total = self_device_time_total = 0.0
    device_memory_usage = self_device_memory_usage = 0
    overload_name, node_id, is_async, is_remote, is_legacy = "", -1, False, False, False
    device_type = "DeviceType.CPU"

    @property
    def cpu_time(self) -> float:
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    self_cpu_time_total_str = property(lambda self: _format_time(self.self_cpu_time_total))
    cpu_time_total_str = property(lambda self: _format_time(self.cpu_time_total))
    cpu_time_str = property(lambda self: _format_time(self.cpu_time))


class FunctionEvent(_Times):
    """One timed range: an operation (aten::add) or a record_function/ProfilerStep range."""
    count = 1

    def __init__(self, id, name, thread, parent, is_user_annotation=False):
        self.id, self.thread, self.trace_name = id, thread, name
        # PyTorch's steps share one name, to be summed in tables, traces keeping their numbers
        self.name = self.key = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
        self.cpu_parent, self.cpu_children = parent, []
        self.is_user_annotation = is_user_annotation
        self.input_shapes, self.stack = [], []
        self.cpu_memory_usage = 0
        self.start_ns = self.end_ns = 0
        if parent is not None:
            parent.cpu_children.append(self)

    @property
    def cpu_time_total(self) -> float:
        return (self.end_ns - self.start_ns) / _MICRO

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self) -> int:
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} overload_name= "
                f"device_type={self.device_type} node_id=-1 cpu_time={self.cpu_time_str} "
                f"start_us={self.start_ns / _MICRO} end_us={self.end_ns / _MICRO} "
                f"cpu_children={[c.id for c in self.cpu_children]} None_time=0.000us "
                f"name={self.name} thread={self.thread} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage} None_memory_usage=0 is_async=False "
                f"is_remote=False seq_nr=-1 is_legacy=False>")


class FunctionEventAvg(_Times):
    """The events of one key (name, and shapes or stack where grouped by them), summed."""

    def __init__(self, first):
        self.key, self.is_user_annotation = first.key, first.is_user_annotation
        self.input_shapes, self.stack = first.input_shapes, first.stack
        self.cpu_parent = first.cpu_parent
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0

    def add(self, event) -> FunctionEventAvg:
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        self.cpu_memory_usage += event.cpu_memory_usage
        self.self_cpu_memory_usage += event.self_cpu_memory_usage
        return self

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str}  self_cuda_time=0.000us cuda_time=0.000us "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
                "cuda_memory_usage=0>")


class EventList(list):
    """A list of events with PyTorch's summaries of them."""

    def __init__(self, events=(), profile_memory=False):
        super().__init__(events)
        self._profile_memory = profile_memory

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False) -> EventList:
        stats: dict = {}
        for event in self:
            key = (event.key, event.is_user_annotation,
                   str(event.input_shapes) if group_by_input_shape else "",
                   *event.stack[:group_by_stack_n])
            if key not in stats:
                stats[key] = FunctionEventAvg(event)
            stats[key].add(event)
        for avg in stats.values():
            avg.stack = avg.stack[:group_by_stack_n]
            if not group_by_input_shape:
                avg.input_shapes = ""
        return EventList(stats.values(), self._profile_memory)

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg(self[0]) if self else None
        for event in self:
            total.add(event)
        if total is not None:
            total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None) -> str:
        from gradjit.profiler.table import build_table
        return build_table(self, sort_by, row_limit, max_src_column_width, max_name_column_width,
                           max_shapes_column_width, header, top_level_events_only, time_unit,
                           self._profile_memory)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path: str) -> None:
        """The events as Chrome's trace event format (complete events, microseconds)."""
        origin = min((e.start_ns for e in self), default=0)
        trace = [{"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                  "name": e.trace_name, "pid": os.getpid(), "tid": e.thread,
                  "ts": (e.start_ns - origin) / _MICRO, "dur": e.cpu_time_total,
                  "args": {"External id": e.id, **({"Input Dims": e.input_shapes}
                                                    if e.input_shapes else {})}}
                 for e in self]
        with open(path, "w") as f:
            json.dump({"schemaVersion": 1, "deviceProperties": [], "traceEvents": trace,
                       "traceName": path, "displayTimeUnit": "ms"}, f)

