"""The buffer plan: temporaries whose lifetimes do not overlap share workspace bytes."""
from gradjit.ir.types import float32
from gradjit.runtime.plan import plan_workspace
from gradjit.runtime.steps import Buffer


class Step:
    def __init__(self, *ids):
        self.ids = set(ids)

    def buffers(self):
        return self.ids


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


def _first_fit(buffers, steps):
    """The plan's rule written plainly: largest first (then by id), each at the lowest
    aligned offset clear of every placed buffer alive at the same time."""
    first, last = {}, {}
    for position, step in enumerate(steps):
        for b in step.buffers():
            first.setdefault(b, position)
            last[b] = position
    placed, offsets = [], {}
    for b in sorted((b for b in buffers if b.kind == "temp" and b.id in first),
                    key=lambda b: (-b.nbytes, b.id)):
        size = -(-max(b.nbytes, 1) // 64) * 64
        offset = 0
        while any(first[p.id] <= last[b.id] and first[b.id] <= last[p.id]
                  and offsets[p.id] < offset + size and offset < offsets[p.id] + psize
                  for p, psize in placed):
            offset += 64
        offsets[b.id] = offset
        placed.append((b, size))
    return offsets


def test_the_plan_is_the_lowest_first_fit_on_random_lifetimes():
    import random
    for trial in range(100):
        rng = random.Random(trial)
        n = rng.randint(1, 40)
        bufs = [Buffer(i, float32, rng.choice([2, 16, 25, 160, 1024, rng.randint(1, 2000)]),
                       "temp" if rng.random() < 0.85 else "param") for i in range(n)]
        steps = [Step(*rng.sample(range(n), rng.randint(0, min(n, 5))))
                 for _ in range(rng.randint(1, 30))]
        plan_workspace(bufs, steps)
        want = _first_fit(bufs, steps)
        assert {b.id: b.offset for b in bufs if b.id in want} == want, trial


def test_nested_lifetimes_of_a_long_gradient_get_distinct_slots():
    n = 2000  # forward values alive until their gradient: every pair overlaps
    bufs = [Buffer(i, float32, 16) for i in range(n)]
    total = plan_workspace(bufs, [Step(i) for i in range(n)] +
                           [Step(n - 1 - i) for i in range(n)])
    assert sorted(b.offset for b in bufs) == [64 * i for i in range(n)] and total == 64 * n
