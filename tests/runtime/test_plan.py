"""The buffer plan: temporaries whose lifetimes do not overlap share workspace bytes."""
import random
import sys

import pytest

from gradjit.ir.types import float32
from gradjit.runtime.plan import plan_workspace
from gradjit.runtime.steps import Buffer


class Step:
    def __init__(self, *ids):
        self.ids = set(ids)

    def buffers(self):
        return self.ids


def lifetimes(steps):
    first, last = {}, {}
    for position, step in enumerate(steps):
        for b in step.buffers():
            first.setdefault(b, position)
            last[b] = position
    return first, last


def aligned(b):
    return -(-max(b.nbytes, 1) // 64) * 64


def random_program(seed, most=40):
    """Buffers of mixed sizes (some not temporaries) born at random steps, living a step, a
    few or most of the program."""
    rng = random.Random(seed)
    n, span = rng.randint(1, most), rng.randint(1, most)
    bufs = [Buffer(i, float32, rng.choice([2, 16, 25, 160, 1024, rng.randint(1, 2000),
                                           rng.randint(1, 100_000)]),
                   "temp" if rng.random() < 0.85 else "param") for i in range(n)]
    steps = [Step() for _ in range(span)]
    for b in bufs:
        born = rng.randrange(span)
        died = min(span - 1, born + int(rng.expovariate(1 / rng.choice([1, 5, 30]))))
        steps[born].ids.add(b.id)
        steps[died].ids.add(b.id)
    return bufs, steps


def test_dead_buffers_are_reused_and_live_ones_are_not():
    a, b, c = (Buffer(i, float32, 1000) for i in range(3))
    param = Buffer(3, float32, 10, "param")
    total = plan_workspace([a, b, c, param], [Step(3, 0), Step(0, 1), Step(1, 2)])
    assert a.offset != b.offset and b.offset != c.offset
    assert a.offset == c.offset
    assert total == 2 * 4032


def test_offsets_are_aligned():
    bufs = [Buffer(i, float32, 3) for i in range(3)]
    plan_workspace(bufs, [Step(0, 1, 2)])
    assert sorted(b.offset for b in bufs) == [0, 64, 128]


def _scan(temps, first, last):
    """The plan's rule in one direction of time, written plainly: in order of birth (largest
    first at a step), each buffer takes the smallest gap (lowest on ties) between the bytes
    of the buffers still alive, else the bytes from the last gap's start or the top."""
    offsets, top = {}, 0
    for b in sorted(temps, key=lambda b: (first[b.id], -aligned(b), b.id)):
        busy = sorted((offsets[p.id], offsets[p.id] + aligned(p)) for p in temps
                      if p.id in offsets and last[p.id] >= first[b.id])
        gaps, reached = [], 0
        for low, high in busy + [(top, top)]:
            if low > reached:
                gaps.append((low - reached, reached))
            reached = max(reached, high)
        fits = [g for g in gaps if g[0] >= aligned(b)]
        if fits:
            offsets[b.id] = min(fits)[1]
        else:
            offsets[b.id] = gaps[-1][1] if gaps and sum(gaps[-1]) == top else top
        top = max(top, offsets[b.id] + aligned(b))
    return top, offsets


def _best_fit_in_time(buffers, steps):
    first, last = lifetimes(steps)
    temps = [b for b in buffers if b.kind == "temp" and b.id in first]
    end = len(steps) - 1
    forward = _scan(temps, first, last)
    backward = _scan(temps, {i: end - t for i, t in last.items()},
                     {i: end - t for i, t in first.items()})
    return min(forward, backward, key=lambda found: found[0])


def test_the_plan_is_the_smallest_fit_in_time_on_random_lifetimes():
    for trial in range(200):
        bufs, steps = random_program(trial)
        total = plan_workspace(bufs, steps)
        want_total, want = _best_fit_in_time(bufs, steps)
        assert total == want_total, trial
        assert {b.id: b.offset for b in bufs if b.id in want} == want, trial


# Measured on these 300 programs: at most 1.58x the bytes alive at once, 1.05x on average
# (the largest-first plan this one replaced, quadratic in the buffers: 1.25x, 1.01x). The
# benchmarks' and the corpus's compiled programs get at most 64 bytes more than that plan did.
PEAK_FACTOR = 1.6


@pytest.mark.parametrize("most", [40, 300])
def test_live_buffers_never_share_bytes_and_the_workspace_stays_near_the_peak(most):
    for trial in range(150):
        bufs, steps = random_program(1000 + trial, most)
        total = plan_workspace(bufs, steps)
        first, last = lifetimes(steps)
        temps = [b for b in bufs if b.kind == "temp" and b.id in first]
        for k, a in enumerate(temps):
            assert a.offset % 64 == 0 and a.offset + aligned(a) <= total
            for b in temps[k + 1:]:
                if first[a.id] <= last[b.id] and first[b.id] <= last[a.id]:
                    assert (a.offset + aligned(a) <= b.offset
                            or b.offset + aligned(b) <= a.offset), trial
        alive = [sum(aligned(b) for b in temps if first[b.id] <= t <= last[b.id])
                 for t in range(len(steps))]
        assert total == max((b.offset + aligned(b) for b in temps), default=0)
        assert total <= PEAK_FACTOR * max(alive), trial


def test_a_small_buffer_living_through_a_large_ones_birth_does_not_push_it_up():
    """An MLP's gradient (W3): 8 MB values are born and die while 160 kB ones live on.
    Forwards in time the small ones take the first dead 8 MB value's bytes and a later 8 MB
    value goes on top; backwards every buffer fits in the peak of live bytes."""
    mb8, kb160 = 2 * 1024 * 1024, 40 * 1024
    lives = [(mb8, 0, 1), (kb160, 2, 4), (mb8, 1, 7), (1, 4, 9), (mb8, 5, 7), (kb160, 3, 6),
             (mb8, 7, 8)]
    bufs = [Buffer(i, float32, size) for i, (size, _, _) in enumerate(lives)]
    steps = [Step(*(i for i, (_, born, died) in enumerate(lives) if t in (born, died)))
             for t in range(10)]
    assert plan_workspace(bufs, steps) == 3 * 4 * mb8 + 64


def test_nested_lifetimes_of_a_long_gradient_get_distinct_slots():
    n = 2000  # forward values alive until their gradient: every pair overlaps
    bufs = [Buffer(i, float32, 16) for i in range(n)]
    total = plan_workspace(bufs, [Step(i) for i in range(n)] +
                           [Step(n - 1 - i) for i in range(n)])
    assert sorted(b.offset for b in bufs) == [64 * i for i in range(n)] and total == 64 * n


def lines_run(plan_of, buffers, steps) -> int:
    """Python lines run in plan_of's module to plan these buffers."""
    count, module = 0, plan_of.__code__.co_filename

    def trace(frame, event, arg):
        nonlocal count
        if frame.f_code.co_filename != module:
            return None
        count += event == "line"
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        plan_of(buffers, steps)
    finally:
        sys.settrace(previous)
    return count


def nested(n):
    bufs = [Buffer(i, float32, 16 * (1 + i % 3)) for i in range(n)]
    return bufs, [Step(i) for i in range(n)] + [Step(n - 1 - i) for i in range(n)]


def chain(n):
    """Every buffer born at its own step and read a few steps later or far on: a long
    program's forward values and their gradients."""
    rng = random.Random(n)
    bufs = [Buffer(i, float32, rng.choice([8, 16, 1000, 4096])) for i in range(n)]
    steps = [Step(i) for i in range(n)]
    for i in range(n):
        steps[min(n - 1, i + int(rng.expovariate(1 / rng.choice([2, 50, n // 4]))))].ids.add(i)
    return bufs, steps


def growth(plan_of, program, n):
    """Lines run per buffer for 8n buffers over those for n."""
    short, long = (lines_run(plan_of, *program(k)) / k for k in (n, 8 * n))
    return long / short


@pytest.mark.parametrize("program", [nested, chain])
def test_the_plans_work_per_buffer_does_not_grow_with_length(program):
    """Lines run, not time, so a busy machine cannot fail it."""
    assert growth(plan_workspace, program, 1_000) <= 1.2


def test_the_line_count_sees_a_plan_that_checks_every_placed_buffer():
    assert growth(_best_fit_in_time, nested, 50) > 4
