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
