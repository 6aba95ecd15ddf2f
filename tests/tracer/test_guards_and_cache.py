"""Control flow on traced values: concrete answers, guards, the specialization cache, the
bound on re-traces and explain."""
import warnings

import numpy as np
import pytest

import gradjit
from gradjit.tracer import RetraceWarning


def branchy(x):
    if x.sum() > 0:
        return np.sum(x * x)
    return np.sum(-x)


def test_branches_retrace_once_per_path_and_then_hit():
    f = gradjit.grad(branchy)
    np.testing.assert_allclose(f(np.array([1.0, 2.0])), [2, 4])
    np.testing.assert_allclose(f(np.array([-1.0, -2.0])), [-1, -1])
    np.testing.assert_allclose(f(np.array([3.0, 1.0])), [6, 2])
    np.testing.assert_allclose(f(np.array([-3.0, 1.0])), [-1, -1])
    assert f.cache_info() == (2, 2, 2)


def test_new_shapes_and_dtypes_are_new_keys():
    f = gradjit.grad(branchy)
    f(np.ones(2))
    f(np.ones(3))
    f(np.ones(3, np.float32))
    f(np.ones(3, np.float32))
    assert f.cache_info() == (3, 1, 3)


def test_python_scalars_are_runtime_values_unless_control_flow_uses_them():
    f = gradjit.grad(lambda x, s: np.sum(x * s))
    for s in (1.0, 2.0, 3.0):
        np.testing.assert_allclose(f(np.ones(2), s), [s, s])
    assert f.cache_info().traces == 1

    def g(x, s):
        return np.sum(x * s) if s > 1 else np.sum(x)
    g = gradjit.grad(g)
    for s in (2.0, 3.0, 0.5, 0.25):
        g(np.ones(2), s)
    assert g.cache_info().traces == 2


def test_python_scalar_arguments_promote_weakly():
    f = gradjit.jit(lambda x, s: x * s)
    assert f(np.ones(2, np.float32), 2.5).dtype == np.float32
    assert f(np.ones(2, np.int64), 2.5).dtype == np.float64


def test_conversions_return_concrete_values_and_guard_them():
    seen = []

    def f(x, k):
        seen.append((float(x.max()), int(k), x[0].item(), bool(x[1] > 0)))
        n = int(k)
        for _ in range(n):
            x = x * 2
        return np.sum(x)
    g = gradjit.grad(f)
    np.testing.assert_allclose(g(np.array([1.0, 2.0]), 2), [4, 4])
    assert seen == [(2.0, 2, 1.0, True)]
    np.testing.assert_allclose(g(np.array([1.0, 2.0]), 3), [8, 8])  # int(k) guard fails
    g(np.array([1.0, 2.0]), 3)
    assert g.cache_info() == (2, 1, 2)
    assert len(seen) == 2


def test_while_loops_on_values():
    def f(a):
        b = a * 2
        while np.linalg.norm(b) < 1000:
            b = b * 2
        return np.sum(b)
    g = gradjit.grad(f)
    np.testing.assert_allclose(g(np.array([1.0, 1.0])), [1024, 1024])
    np.testing.assert_allclose(g(np.array([1.5, 1.0])), [1024, 1024])
    np.testing.assert_allclose(g(np.array([100.0, 1.0])), [16, 16])
    assert g.cache_info() == (2, 1, 2)


def test_guard_failures_of_the_compiled_program_trigger_retracing():
    calls = []

    @gradjit.jit
    def f(x):
        calls.append(1)
        return x * 2 if x[0] > 0 else x * 3
    f(np.ones(2))
    f(-np.ones(2))
    f(np.ones(2))
    f(-np.ones(2))
    assert len(calls) == 2 and f.cache_info() == (2, 2, 2)


def test_retraces_are_bounded_and_the_warning_names_the_guard():
    def f(x):
        return x * float(x.sum())
    g = gradjit.jit(f, max_traces=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(6):
            np.testing.assert_allclose(g(np.full(2, float(i))), np.full(2, 2.0 * i * i))
    messages = [str(w.message) for w in caught if issubclass(w.category, RetraceWarning)]
    assert len(messages) == 1
    assert "test_guards_and_cache.py:" in messages[0]
    assert "float(x.sum())" in messages[0] and "static" in messages[0]
    assert g.cache_info().traces == 6
    assert len(g.cache.entries(next(iter(g.cache.by_key)))) == 3


def test_explain_lists_traces_guards_and_source_lines():
    f = gradjit.grad(branchy)
    f(np.ones(2))
    f(-np.ones(2))
    text = gradjit.explain(f)
    assert "2 traces" in text and "signature (float64[2])" in text
    assert text.count("if x.sum() > 0:") == 2
    assert "bool(...) is True" in text and "bool(...) is False" in text
    assert f.explain() == text
    assert repr(text) == str(text) and "\n  signature" in repr(text)  # lines at the REPL
    with pytest.raises(TypeError, match="made by grad"):
        gradjit.explain(branchy)


def test_explain_ends_a_guard_of_code_without_a_file_at_the_guard():
    namespace = {}
    exec("import numpy as np\ndef f(x):\n    return np.sum(x * x) if x.sum() > 0 else 0.0\n",
         namespace)
    f = gradjit.grad(namespace["f"])
    f(np.ones(2))
    assert gradjit.explain(f).splitlines()[-1] == "      <string>:3: bool(...) is True"


def test_ops_and_guards_carry_the_user_source_line():
    f = gradjit.jit(lambda x: np.exp(x) if x.sum() > 0 else x)
    f(np.ones(2))
    entry = f.cache.entries(next(iter(f.cache.by_key)))[0]
    sites = {op.site for op in entry.function.ops if op.site}
    assert sites and all("test_guards_and_cache.py:" in s for s in sites)


def test_guards_are_checked_before_the_expensive_work():
    f = gradjit.jit(lambda w, s: np.tanh(w @ w @ w) if s > 0 else w)
    f(np.ones((8, 8)), 1.0)
    ops = f.cache.entries(next(iter(f.cache.by_key)))[0].function.ops
    guard = next(i for i, op in enumerate(ops) if op.prim.name == "guard")
    first_matmul = next(i for i, op in enumerate(ops) if op.prim.name == "matmul")
    assert guard < first_matmul
