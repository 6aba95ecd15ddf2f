"""The buffer plan: temporaries share one workspace, placed by liveness so that buffers
whose lifetimes do not overlap reuse the same bytes."""
from __future__ import annotations

import heapq
from bisect import bisect_right

ALIGN = 64


def plan_workspace(buffers, steps) -> int:
    """Set every temporary buffer's byte offset; returns the workspace size. A buffer lives
    from the first step that touches it to the last. O(n log n) in the temporaries (2-4 us
    per op of a gradient from 1,000 to 100,000 ops). Lifetimes read the same backwards,
    so the plan is made in both directions of time and the smaller kept: a small buffer born
    before a large one and living through it can take the bytes the large one needs in one
    direction and not in the other (an MLP's gradient: 32 MB one way, 24 MB the other)."""
    first, last = {}, {}
    for position, step in enumerate(steps):
        for b in step.buffers():
            first.setdefault(b, position)
            last[b] = position
    temps = [b for b in buffers if b.kind == "temp" and b.id in first]
    size = {b.id: -(-max(b.nbytes, 1) // ALIGN) * ALIGN for b in temps}
    end = len(steps) - 1
    forward = _place(size, first, last)
    backward = _place(size, {i: end - t for i, t in last.items()},
                      {i: end - t for i, t in first.items()})
    total, offsets = min(forward, backward, key=lambda plan: plan[0])
    for b in temps:
        b.offset = offsets[b.id]
    return total


def _place(size: dict, first: dict, last: dict) -> tuple[int, dict]:
    """(workspace size, offset of each buffer in `size`): steps are visited in order, the
    buffers that died before a step give their bytes back, then those born at it (largest
    first) take the smallest free gap that holds them, or grow the workspace at its top."""
    births = sorted(size, key=lambda i: (first[i], -size[i], i))
    deaths = sorted(size, key=lambda i: last[i])
    space = FreeSpace(sorted(set(size.values())))
    offsets, dead = {}, 0
    for i in births:
        while last[deaths[dead]] < first[i]:
            space.give(offsets[deaths[dead]], size[deaths[dead]])
            dead += 1
        offsets[i] = space.take(size[i])
    return space.top, offsets


class FreeSpace:
    """The free gaps of a workspace, merged with their neighbours when bytes come back, and
    found by size in O(log n). The sizes that will be asked for are known up front: a gap
    sits in the class of the largest of them it holds, a heap per class keeps its gaps
    smallest first, and a Fenwick tree counting the gaps per class finds the first class at
    or above a request's that has one."""

    def __init__(self, sizes: list[int]):
        self.sizes = sizes
        self.ends: dict[int, int] = {}  # gap start -> gap end
        self.starts: dict[int, int] = {}  # gap end -> gap start
        self.heaps: list[list[tuple[int, int]]] = [[] for _ in sizes]  # (size, start)
        self.counts = [0] * (len(sizes) + 1)  # Fenwick tree of live gaps per class, 1-based
        self.top = 0

    def take(self, size: int) -> int:
        """The start of the smallest gap that holds `size` bytes (the lowest of equal ones),
        else of the bytes at the top, growing the workspace."""
        found = self._first_class_from(bisect_right(self.sizes, size) - 1)
        if found < len(self.sizes):
            heap = self.heaps[found]
            while self.ends.get(heap[0][1]) != heap[0][1] + heap[0][0]:
                heapq.heappop(heap)  # a gap merged or taken since it was pushed
            _, start = heapq.heappop(heap)
            end = self._remove(start)
            if start + size < end:
                self._add(start + size, end)
            return start
        start = self.starts.get(self.top, self.top)
        if start != self.top:
            self._remove(start)
        self.top = start + size
        return start

    def give(self, start: int, size: int) -> None:
        end = start + size
        if end in self.ends:
            end = self._remove(end)
        if start in self.starts:
            start = self.starts[start]
            self._remove(start)
        self._add(start, end)

    def _add(self, start: int, end: int) -> None:
        self.ends[start], self.starts[end] = end, start
        kind = bisect_right(self.sizes, end - start) - 1
        if kind >= 0:  # a gap smaller than every request waits to merge
            heapq.heappush(self.heaps[kind], (end - start, start))
            self._count(kind, 1)

    def _remove(self, start: int) -> int:
        end = self.ends.pop(start)
        del self.starts[end]
        kind = bisect_right(self.sizes, end - start) - 1
        if kind >= 0:
            self._count(kind, -1)
        return end

    def _count(self, kind: int, change: int) -> None:
        i = kind + 1
        while i < len(self.counts):
            self.counts[i] += change
            i += i & -i

    def _first_class_from(self, kind: int) -> int:
        """The lowest class >= kind holding a gap; len(sizes) when none does."""
        below, i = 0, kind
        while i > 0:  # gaps in the classes below `kind`
            below += self.counts[i]
            i -= i & -i
        position, step = 0, 1 << len(self.sizes).bit_length()
        while step:  # descend to the last class whose prefix count is still `below`
            if position + step < len(self.counts) and self.counts[position + step] <= below:
                position += step
                below -= self.counts[position]
            step >>= 1
        return position
