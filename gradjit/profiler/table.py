"""PyTorch's profiler summary table: one row per event (or average), the columns and widths
torch.autograd.profiler_util lays out for CPU-only runs."""
from __future__ import annotations

from gradjit.profiler.events import _format_memory, _format_share, _format_time

_WIDTH, _SPACING = 12, 2
_UNITS = {"s": 1e6, "ms": 1e3, "us": 1.0}


def _time(us: float, unit) -> str:
    if unit in _UNITS:
        return f"{us / _UNITS[unit]:.3f}{unit}"
    return _format_time(us)


def _trim(path: str, width: int) -> str:
    if len(path) > width:
        path = path[len(path) - width:]
        if len(path) > 3:
            path = "..." + path[3:]
    return path


def build_table(events, sort_by, row_limit, max_src_column_width, max_name_column_width,
                max_shapes_column_width, header, top_level_events_only, time_unit,
                profile_memory) -> str:
    if not events:
        return ""
    if sort_by is not None:
        field = sort_by.replace("cuda", "device").replace("xpu", "device")
        events = sorted(events, key=lambda e: getattr(e, field), reverse=True)
    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    shapes_width = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_width = min(shapes_width, max_shapes_column_width)
    has_shapes = any(e.input_shapes for e in events)
    stacks = [e.stack for e in events if e.stack]
    src_width = max(max(len(s) for s in stack) for stack in stacks) + 4 if stacks else 0
    if max_src_column_width is not None:
        src_width = min(src_width, max_src_column_width)

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    widths = [name_width] + [_WIDTH] * (len(headers) - 1)
    aligns = [">"] * len(headers)
    if has_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_width)
        aligns.append(">")
    if stacks:
        headers.append("Source Location")
        widths.append(src_width)
        aligns.append("<")
    row_format = "".join("{: " + a + str(w) + "}" + " " * _SPACING for a, w in zip(aligns, widths))
    separator = "".join("-" * w + " " * _SPACING for w in widths)
    line_length = sum(w + _SPACING for w in widths) - _SPACING

    total = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [separator, row_format.format(*headers), separator]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        row = [name, _format_share(e.self_cpu_time_total, total),
               _time(e.self_cpu_time_total, time_unit), _format_share(e.cpu_time_total, total),
               _time(e.cpu_time_total, time_unit), _time(e.cpu_time, time_unit)]
        if profile_memory:
            row += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
        row.append(e.count)
        if has_shapes:
            row.append(str(e.input_shapes)[:shapes_width])
        if stacks:
            row.append(_trim(e.stack[0], src_width) if e.stack else "")
        lines.append(row_format.format(*row))
        if stacks:
            blank = [""] * (len(headers) - 1)
            lines += [row_format.format(*blank, _trim(s, src_width)) for s in e.stack[1:]]
            lines.append(row_format.format(*blank, ""))
    lines += [separator, f"Self CPU time total: {_time(total, time_unit)}"]
    return "".join(line + "\n" for line in lines)
