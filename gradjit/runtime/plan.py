"""The buffer plan: temporaries share one workspace, placed by liveness so that buffers
whose lifetimes do not overlap reuse the same bytes."""
from __future__ import annotations

import numpy as np

ALIGN = 64


def plan_workspace(buffers, steps) -> int:
    """Set every temporary buffer's byte offset; returns the workspace size. A buffer lives
    from the first step that touches it to the last. Largest first, each at the lowest offset
    clear of the placed buffers alive with it; the placed ones sit in arrays, so checking a
    buffer against thousands of them (every forward value of a long gradient) is one
    vectorized pass, not a Python loop."""
    first, last = {}, {}
    for position, step in enumerate(steps):
        for b in step.buffers():
            first.setdefault(b, position)
            last[b] = position
    temps = sorted((b for b in buffers if b.kind == "temp" and b.id in first),
                   key=lambda b: (-b.nbytes, b.id))
    count = len(temps)
    starts, stops = np.empty(count, np.int64), np.empty(count, np.int64)
    lows, highs = np.empty(count, np.int64), np.empty(count, np.int64)
    total = 0
    for k, buffer in enumerate(temps):
        size = -(-max(buffer.nbytes, 1) // ALIGN) * ALIGN
        begin, end = first[buffer.id], last[buffer.id]
        alive = (starts[:k] <= end) & (begin <= stops[:k])
        busy_lo, busy_hi = lows[:k][alive], highs[:k][alive]
        offset = 0
        if len(busy_lo):
            order = np.lexsort((busy_hi, busy_lo))
            busy_lo, busy_hi = busy_lo[order], busy_hi[order]
            reached = np.maximum.accumulate(busy_hi)  # the offset after each busy block
            before = np.concatenate(([0], reached[:-1]))
            fits = np.flatnonzero(before + size <= busy_lo)  # gaps wide enough, lowest first
            offset = int(before[fits[0]]) if len(fits) else int(reached[-1])
        buffer.offset = offset
        starts[k], stops[k], lows[k], highs[k] = begin, end, offset, offset + size
        total = max(total, offset + size)
    return total
