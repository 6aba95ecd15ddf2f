"""The buffer plan: temporaries share one workspace, placed by liveness so that buffers
whose lifetimes do not overlap reuse the same bytes."""
from __future__ import annotations

ALIGN = 64


def plan_workspace(buffers, steps) -> int:
    """Set every temporary buffer's byte offset; returns the workspace size. A buffer lives
    from the first step that touches it to the last."""
    first, last = {}, {}
    for position, step in enumerate(steps):
        for b in step.buffers():
            first.setdefault(b, position)
            last[b] = position
    temps = sorted((b for b in buffers if b.kind == "temp" and b.id in first),
                   key=lambda b: (-b.nbytes, b.id))
    placed, total = [], 0
    for buffer in temps:
        size = -(-max(buffer.nbytes, 1) // ALIGN) * ALIGN
        busy = sorted((p.offset, p.offset + psize) for p, psize in placed
                      if first[p.id] <= last[buffer.id] and first[buffer.id] <= last[p.id])
        offset = 0
        for lo, hi in busy:
            if offset + size <= lo:
                break
            offset = max(offset, hi)
        buffer.offset = offset
        placed.append((buffer, size))
        total = max(total, offset + size)
    return total
