"""torch.profiler and torch.autograd.profiler against PyTorch 2.13: the operators a program's
events name (as aten operators) and their counts, user ranges, schedules and their cycles,
the summary table's layout, Chrome traces, and nothing left in place after profiling."""
import json
import warnings

import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

A = np.linspace(-1, 1, 10).astype(np.float32)
M = np.arange(9, dtype=np.float32).reshape(3, 3) / 9


def _program(L):
    """A tutorial's mix of operations: arithmetic, products, reductions, views, nn.functional
    (on tensors made before profiling: torch.tensor's own operators are not gradjit's)."""
    a, b, m = L.tensor(A), L.tensor(A[::-1].copy()), L.tensor(M)
    return lambda: _operations(L, a, b, m)


def _operations(L, a, b, m):
    a + b
    a * b
    L.mm(m, m)
    m @ m
    a.sum()
    a.relu()
    a.exp()
    a.max()
    L.nn.functional.linear(m, m)
    L.matmul(m, m)
    m.t()
    m.view(9)
    m[0]
    m[1:]
    L.cat([a, b])
    a.add_(1)
    a.neg()
    _ = -a


def _profiled(L, setup, **options):
    """The profile of setup(L)'s function."""
    run = setup(L)
    with L.profiler.profile(activities=[L.profiler.ProfilerActivity.CPU], **options) as prof:
        with L.profiler.record_function("model_inference"):
            run()
    return prof


def _top_level(prof, range_name="model_inference"):
    return [e.name for e in prof.events() if e.cpu_parent is not None and
            e.cpu_parent.name == range_name]


def test_operators_called_by_the_program_are_torchs():
    assert _top_level(_profiled(gradjit, _program)) == _top_level(_profiled(torch, _program))


def test_key_averages_counts_as_torch():
    names = {"model_inference", "aten::add", "aten::mul", "aten::mm", "aten::matmul",
             "aten::sum", "aten::linear", "aten::t", "aten::exp", "aten::relu", "aten::cat",
             "aten::add_", "aten::neg", "aten::view", "aten::max"}

    def counts(L):
        return {e.key: e.count for e in _profiled(L, _program).key_averages() if e.key in names}
    assert counts(gradjit) == counts(torch)
    assert len(counts(gradjit)) == len(names)


def _rows(table):
    """The table's lines, each row reduced to its name and call count (times differ)."""
    lines = table.splitlines()
    rows = [line.split() for line in lines[3:-2]]
    return lines[:3], sorted((r[0], r[-1]) for r in rows), lines[-2], lines[-1].split(":")[0]


@pytest.mark.parametrize("options", [{}, {"profile_memory": True}])
def test_table_has_torchs_layout(options):
    def fn(L):
        a = L.tensor(A)
        return lambda: (a * a, a + a, a.exp())
    tables = [_rows(_profiled(L, fn, **options).key_averages().table(
        sort_by="cpu_time_total", row_limit=10)) for L in (gradjit, torch)]
    assert tables[0] == tables[1]


def test_table_grouped_by_input_shape_lists_shapes():
    def fn(L):
        m = L.tensor(M)
        return lambda: L.mm(m, m)
    tables = [_profiled(L, fn, record_shapes=True).key_averages(group_by_input_shape=True)
              .table(row_limit=5) for L in (gradjit, torch)]
    assert [line for line in tables[0].splitlines() if "aten::mm" in line][0].endswith(
        "[[3, 3], [3, 3]]  ")
    assert tables[0].splitlines()[1].split() == tables[1].splitlines()[1].split()
    assert "[[3, 3], [3, 3]]" in tables[1]


def test_memory_is_the_bytes_each_operator_allocates():
    def fn(L):
        a = L.tensor(A)
        return lambda: (a * 2, a.view(2, 5), a.t())
    names = ("aten::mul", "aten::view", "aten::t")  # views allocate nothing
    events = [[(e.name, e.cpu_memory_usage) for e in _profiled(L, fn, profile_memory=True)
               .events() if e.name in names] for L in (gradjit, torch)]
    assert events[0] == events[1] and len(events[0]) == 3


def test_backward_names_each_node_as_torch():
    def fn(L):
        x = L.tensor(A, requires_grad=True)
        return lambda: (x * 2).sin().sum().backward()

    def names(L):
        return [e.name for e in _profiled(L, fn).events() if e.name.startswith("autograd::")
                and "AccumulateGrad" not in e.name]
    assert names(gradjit) == names(torch)
    assert len(names(gradjit)) == 3


@pytest.mark.parametrize("args", [dict(wait=1, warmup=1, active=2),
                                  dict(wait=0, warmup=2, active=1, repeat=2),
                                  dict(wait=2, warmup=1, active=3, repeat=1, skip_first=3),
                                  dict(wait=2, warmup=1, active=1, skip_first=2,
                                       skip_first_wait=1)])
def test_schedule_actions_as_torch(args):
    ours, theirs = gradjit.profiler.schedule(**args), torch.profiler.schedule(**args)
    assert [ours(s).name for s in range(20)] == [theirs(s).name for s in range(20)]


def test_schedule_refuses_what_torch_refuses():
    same_error(lambda: gradjit.profiler.schedule(wait=0, warmup=1, active=0),
               lambda: torch.profiler.schedule(wait=0, warmup=1, active=0))


@pytest.mark.parametrize("args", [dict(wait=1, warmup=1, active=2, repeat=2),
                                  dict(wait=0, warmup=1, active=1)])
def test_scheduled_cycles_reach_on_trace_ready_as_torch(args):
    def run(L):
        cycles = []

        def ready(prof):
            cycles.append(sorted(e.name for e in prof.events()
                                 if e.name.startswith(("ProfilerStep", "aten::add"))))
        a = L.tensor(A)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with L.profiler.profile(schedule=L.profiler.schedule(**args),
                                    on_trace_ready=ready) as prof:
                for _ in range(7):
                    a + a
                    prof.step()
        return cycles
    assert run(gradjit) == run(torch)
    assert run(gradjit)


def test_record_function_decorates_each_call():
    def run(L):
        @L.profiler.record_function("my_block")
        def block(x):
            return x * 2
        a = L.tensor(A)
        with L.profiler.profile() as prof:
            block(block(a))
        return [(e.name, e.cpu_parent and e.cpu_parent.name) for e in prof.events()
                if e.name in ("my_block", "aten::mul")]
    assert run(gradjit) == run(torch)


def test_chrome_trace_and_tensorboard_handler_write_trace_json(tmp_path):
    def fn(L):
        a = L.tensor(A)
        return lambda: a.exp().sum()
    prof = _profiled(gradjit, fn)
    prof.export_chrome_trace(str(tmp_path / "trace.json"))
    trace = json.loads((tmp_path / "trace.json").read_text())
    ops = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert [e["name"] for e in ops] == [e.name for e in prof.events()]
    with gradjit.profiler.profile(schedule=gradjit.profiler.schedule(wait=0, warmup=1, active=1),
                                  on_trace_ready=lambda p: p.export_chrome_trace(
                                      str(tmp_path / "steps.json"))) as prof:
        for _ in range(2):
            prof.step()
    steps = json.loads((tmp_path / "steps.json").read_text())["traceEvents"]
    assert [e["name"] for e in steps] == ["ProfilerStep#1"]
    assert all(e["dur"] >= 0 and e["ts"] >= 0 for e in ops)
    assert ops[0]["cat"] == "user_annotation" and ops[1]["cat"] == "cpu_op"
    handler = gradjit.profiler.tensorboard_trace_handler(str(tmp_path / "log"), "worker")
    run = fn(gradjit)
    with gradjit.profiler.profile(on_trace_ready=handler):
        run()
    written = list((tmp_path / "log").iterdir())
    assert len(written) == 1 and written[0].name.startswith("worker.")
    assert written[0].name.endswith(".pt.trace.json")
    assert "aten::exp" in [e["name"] for e in json.loads(written[0].read_text())["traceEvents"]]


def test_autograd_profiler_older_names():
    def run(L):
        m = L.tensor(M)
        with L.autograd.profiler.profile(record_shapes=True) as prof:
            with L.autograd.profiler.record_function("step"):
                m.mm(m).sum()
        return sorted((e.key, e.count) for e in prof.key_averages()
                      if e.key in ("step", "aten::mm", "aten::sum"))
    assert run(gradjit) == run(torch)
    a = gradjit.tensor(A)
    with gradjit.autograd.profiler.profile() as prof:
        a.sum()
    assert "aten::sum" in str(prof) and prof.self_cpu_time_total > 0


def test_with_stack_names_the_callers_line():
    def fn(L):
        a = L.tensor(A)

        def exp():
            return a.exp()
        return exp
    prof = _profiled(gradjit, fn, with_stack=True)
    exp, = [e for e in prof.events() if e.name == "aten::exp"]
    assert exp.stack[0].endswith(": exp") and __file__ in exp.stack[0]
    assert "Source Location" in prof.key_averages(group_by_stack_n=2).table()


def test_profiling_leaves_the_eager_operations_as_they_were():
    add, linear = gradjit.Tensor.__add__, gradjit.nn.functional.linear
    _profiled(gradjit, _program)
    assert gradjit.Tensor.__add__ is add and gradjit.nn.functional.linear is linear
    assert "__add__" not in gradjit.Tensor.__dict__


def test_summaries_before_the_end_are_empty_as_torchs():
    def inside(L):
        a = L.tensor(A)
        with L.autograd.profiler.profile() as prof:
            a.exp()
            return len(prof.key_averages()), len(prof.function_events)
    assert inside(gradjit) == inside(torch) == (0, 0)


def test_optimizer_steps_are_ranges_as_torch():
    def run(L):
        L.manual_seed(0)
        model = L.nn.Linear(3, 2)
        opt = L.optim.SGD(model.parameters(), lr=0.1)
        x = L.ones(4, 3)
        with L.profiler.profile() as prof:
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
        return [e.name for e in prof.events() if e.name.startswith("Optimizer.")]
    assert run(gradjit) == run(torch) == ["Optimizer.zero_grad#SGD.zero_grad",
                                          "Optimizer.step#SGD.step"]


def test_optimizer_defined_after_a_profile_is_ranged_as_torch():
    """The range comes with the optimizer, not from a search of the classes that existed
    when the first profile began."""
    def run(L):
        with L.profiler.profile():
            L.ones(1).exp()

        class Halving(L.optim.Optimizer):
            def __init__(self, params):
                super().__init__(params, {})

            def step(self, closure=None):
                for group in self.param_groups:
                    for p in group["params"]:
                        p.data.mul_(0.5)

        w = L.ones(2, requires_grad=True)
        opt = Halving([w])
        with L.profiler.profile() as prof:
            opt.zero_grad()
            opt.step()
        return [e.name for e in prof.events() if e.name.startswith("Optimizer.")], w.tolist()
    assert run(gradjit) == run(torch) == (["Optimizer.zero_grad#Halving.zero_grad",
                                           "Optimizer.step#Halving.step"], [0.5, 0.5])


def test_autograd_profiler_loads_when_used():
    """torch.autograd.profiler without an import of its own; other names still refused."""
    assert gradjit.autograd.profiler.profile is gradjit.profiler.session.profile
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        _ = gradjit.autograd.nope
