"""A trace whose program is in the disk cache runs it without differentiating or optimizing
again, yet re-validates what the program depends on: a trace that differs (another branch, a
value read into Python, another dtype), another compiler, a damaged entry all transform and
compile afresh, and give numpy's answer."""
import warnings

import numpy as np
import pytest

import gradjit
from gradjit.runtime import cache, private, programs
from gradjit.tracer import api


def loss(x):
    return np.sum(np.sin(x) * x)


def branchy(x):
    if np.sum(x) > 0:
        return np.sum(x * x)
    return np.sum(np.exp(x))


def scaled(x):
    return np.sum(x * float(x[0]))


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """A new process's first call, as far as gradjit's caches go: nothing in memory, the disk
    cache in tmp_path. Returns (the call's result, how many times the IR passes ran)."""
    monkeypatch.setenv("GRADJIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(programs, "memory", cache.LeastRecentlyUsed())
    monkeypatch.setattr(private, "_warned", set())
    runs = []
    optimize = api.optimize

    def counted(fn):
        runs.append(fn)
        return optimize(fn)
    monkeypatch.setattr(api, "optimize", counted)

    def call(fn, *args, transform=gradjit.grad):
        programs.memory.clear()
        runs.clear()
        transformed = transform(fn)
        result = transformed(*args)
        return result, len(runs), transformed.cache.last
    return call


def test_a_warm_hit_skips_the_passes_and_gives_the_same_gradient(fresh):
    x = np.linspace(-1.0, 1.0, 9)
    first, passes, entry = fresh(loss, x)
    assert passes == 1 and not entry.program.from_disk
    again, passes, entry = fresh(loss, x)
    assert passes == 0 and entry.program.from_disk
    np.testing.assert_array_equal(again, first)
    np.testing.assert_allclose(again, np.sin(x) + x * np.cos(x))
    # the later stages are still there for whoever asks, made from the trace
    assert len(entry.function.ops) > 0 and "differentiated" in entry.stages
    assert passes == 0


def test_another_branch_traces_and_compiles_afresh(fresh):
    up, down = np.linspace(0.5, 1.5, 5), np.linspace(-1.5, -0.5, 5)
    fresh(branchy, up)
    result, passes, entry = fresh(branchy, down)
    assert passes == 1 and not entry.program.from_disk
    np.testing.assert_allclose(result, np.exp(down))
    result, passes, _ = fresh(branchy, up)
    assert passes == 0
    np.testing.assert_allclose(result, 2 * up)


def test_a_value_read_into_python_keys_the_program(fresh):
    x = np.array([2.0, 1.0, 3.0])
    fresh(scaled, x)
    y = np.array([5.0, 1.0, 3.0])
    result, passes, _ = fresh(scaled, y)
    assert passes == 1
    np.testing.assert_allclose(result, [5.0, 5.0, 5.0])  # float() cuts x[0] off the gradient


def test_another_dtype_or_shape_misses(fresh):
    x = np.linspace(-1.0, 1.0, 9)
    fresh(loss, x)
    for other in (x.astype(np.float32), x[:5]):
        result, passes, _ = fresh(loss, other)
        assert passes == 1 and result.dtype == other.dtype
        np.testing.assert_allclose(result, np.sin(other) + other * np.cos(other), rtol=1e-6)


def test_another_compiler_misses(fresh, monkeypatch):
    x = np.linspace(-1.0, 1.0, 9)
    fresh(loss, x)
    monkeypatch.setattr(programs, "fingerprint", lambda: "another gradjit, numpy or llvmlite")
    _, passes, entry = fresh(loss, x)
    assert passes == 1 and not entry.program.from_disk


@pytest.mark.parametrize("which", ["trace", "program"])
def test_a_damaged_entry_is_ignored_with_a_note(fresh, tmp_path, which):
    x = np.linspace(-1.0, 1.0, 9)
    first, _, entry = fresh(loss, x)
    program_file = tmp_path / f"{entry.program.cache_key}.bin"
    (trace_file,) = set(tmp_path.glob("*.bin")) - {program_file}
    damaged = {"trace": trace_file, "program": program_file}[which]
    data = damaged.read_bytes()
    damaged.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again, passes, entry = fresh(loss, x)
    assert [str(w.message) for w in caught] == [
        f"gradjit ignored a damaged entry of its compile cache ({damaged}: not whole, or not "
        "written under this user's key for this name); it compiles again and rewrites it"]
    assert passes == 1 and entry.program.from_disk == (which == "trace")
    np.testing.assert_array_equal(again, first)
    _, passes, entry = fresh(loss, x)  # rewritten whole
    assert passes == 0 and entry.program.from_disk


def test_vmaps_of_one_trace_along_other_axes_get_their_own_programs(fresh):
    def f(x, y):
        return x * y + x
    x, y = np.arange(16.0).reshape(4, 4), np.arange(4.0) + 1
    fresh(f, x, y, transform=lambda f: gradjit.vmap(f, in_axes=(0, None)))
    result, passes, _ = fresh(f, y, x, transform=lambda f: gradjit.vmap(f, in_axes=(None, 0)))
    assert passes == 1  # the same traced IR (x: f64[4], y: f64[4]), batched otherwise
    np.testing.assert_array_equal(result, y * x + y)
    result, passes, _ = fresh(f, x, y, transform=lambda f: gradjit.vmap(f, (0, None), 1))
    assert passes == 1
    np.testing.assert_array_equal(result, (x * y + x).T)
    result, passes, _ = fresh(f, x, y, transform=lambda f: gradjit.vmap(f, (0, None), 1))
    assert passes == 0
    np.testing.assert_array_equal(result, (x * y + x).T)


def double_with_gradient(k):
    """A custom_vjp function: its IR text names it, its gradient rule is the caller's code."""
    @gradjit.custom_vjp
    def double(x):
        return 2 * x

    double.defvjp(lambda x: (2 * x, None), lambda _, g: (k * g,))
    return lambda x: np.sum(double(x))


def test_a_custom_rule_edited_between_processes_gives_its_own_gradient(fresh):
    x = np.ones(3)
    first, _, _ = fresh(double_with_gradient(3.0), x)
    result, passes, _ = fresh(double_with_gradient(5.0), x)  # the same traced IR text
    assert passes == 1
    np.testing.assert_array_equal(first, [3.0, 3.0, 3.0])
    np.testing.assert_array_equal(result, [5.0, 5.0, 5.0])


def test_the_stages_of_a_trace_are_those_its_mode_makes(fresh):
    x = np.linspace(-1.0, 1.0, 9)
    _, _, entry = fresh(loss, x)
    assert list(entry.stages) == ["traced", "differentiated", "optimized"]
    with pytest.raises(KeyError):
        entry.stages["fused"]
    jitted = gradjit.jit(lambda x: np.sin(x) * x)
    np.testing.assert_allclose(jitted(x), np.sin(x) * x)
    stages = jitted.cache.last.stages
    assert list(stages) == ["traced", "optimized"] and stages.get("differentiated") is None
