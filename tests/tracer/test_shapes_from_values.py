"""Shapes that follow from values computed at run time (boolean masks, np.nonzero, repeat
counts): the trace holds for the values it saw, guarded, and re-traces for others; compiled
results and gradients equal numpy's and finite differences."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import gradjit
from gradjit.tracer.cache import RetraceWarning
from tests.e2e.checks import central_differences

rng = np.random.default_rng(7)


def masked_squares(x):
    return (x[x > 0] ** 2).sum() + x[x[:, 0] < 0, 1:].sum()


def positions(x):
    rows = np.nonzero(x[:, 1] > 0)[0]
    return (np.repeat(x[rows, 0], 2).sum() + x[np.argwhere(x > 0.5)[:, 0], 0].sum()
            + x.ravel()[np.flatnonzero(x < 0)].sum() + x[np.where(x[:, 2] > 0)].sum())


def masked_writes(x):
    y = x.copy()
    y[x < 0] = 0.0
    big = x > 1
    y[big] = x[big] ** 3
    return (y * np.arange(y.size).reshape(y.shape)).sum()


@pytest.mark.parametrize("fn", [masked_squares, positions, masked_writes])
def test_values_and_gradients_equal_numpy_for_each_pattern(fn):
    compiled, gradient = gradjit.jit(fn), gradjit.grad(fn)
    for _ in range(3):
        x = rng.normal(size=(6, 3))
        np.testing.assert_allclose(compiled(x), fn(x), rtol=1e-12)
        np.testing.assert_allclose(gradient(x), central_differences(fn, (x,), 0), atol=1e-5)


def test_a_pattern_seen_before_runs_its_trace_and_a_new_one_traces_again():
    f = gradjit.jit(lambda x: x[x > 0].sum())
    x = rng.normal(size=20)
    f(x)
    f(x.copy())
    f(x + 1e-3 * np.sign(x))  # the same signs: the same mask
    assert f.cache_info().traces == 1 and f.cache_info().hits == 2
    f(-x)
    assert f.cache_info().traces == 2


def test_a_mask_of_the_wrong_shape_is_refused_as_numpy_refuses_it():
    f = gradjit.jit(lambda x, m: x[m])
    x = np.arange(4.0)
    with pytest.raises(IndexError):
        x[np.array([True, False])]
    with pytest.raises(IndexError):
        f(x, np.array([True, False]))
    with pytest.raises(IndexError):
        gradjit.jit(lambda x: x[x[:2] > 0])(x)


def test_many_patterns_warn_with_advice_to_keep_shapes_fixed():
    f = gradjit.jit(lambda x: x[x > 0].sum(), max_traces=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(6):
            x = rng.normal(size=30)
            assert f(x) == pytest.approx(x[x > 0].sum())
    words = [str(w.message) for w in caught if issubclass(w.category, RetraceWarning)]
    assert len(words) == 1 and "np.where(mask, x, 0)" in words[0]


def test_eval_shape_refuses_shapes_that_follow_from_values():
    """eval_shape runs on zeros standing in for the values: a shape read from them would be
    the zeros' shape, not the function's."""
    x = rng.normal(size=(3, 4))
    with pytest.raises(IndexError, match="boolean mask computed at run time"):
        gradjit.eval_shape(lambda r: r[r > 0], x)
    with pytest.raises(TypeError, match="np.nonzero is not supported on values computed"):
        gradjit.eval_shape(np.nonzero, x)
    with pytest.raises(TypeError, match="repeats computed at run time"):
        gradjit.eval_shape(lambda r: np.repeat(r, (r[0] > 0).astype(np.int64), axis=1), x)


def test_a_mask_in_compiled_torch_code_matches_eager_with_gradients():
    import gradjit as torch

    def fn(t):
        return ((t[t > 0] * t[t > 0]).sum() + t[t < 0].abs().sum()
                + torch.masked_select(t, t > 0.5).sum()
                + t[torch.nonzero(t > 1, as_tuple=True)].sum()
                + t[torch.argwhere(t < -1)[:, 0]].sum() + t.masked_scatter(t > 0, t * 2).sum())
    compiled = torch.compile(fn)
    for seed in range(2):
        torch.manual_seed(seed)
        eager_in = torch.randn(12, requires_grad=True)
        compiled_in = eager_in.detach().clone().requires_grad_()
        fn(eager_in).backward()
        out = compiled(compiled_in)
        out.backward()
        assert torch.allclose(out, fn(eager_in.detach()))
        assert torch.allclose(compiled_in.grad, eager_in.grad)


def test_numpy_submodules_imported_while_tracing_load():
    """numpy.ma, imported lazily by a traced function, checks the docstrings of numpy's
    functions (np.clip, np.empty), which the stand-ins of a trace must give as numpy's."""
    program = ("import numpy as np, gradjit\n"
               "def f(x):\n"
               "    import numpy.ma\n"
               "    return np.clip(x, 0, 1).sum() + numpy.ma.masked_array([1.0]).sum()\n"
               "print(gradjit.jit(f)(np.array([-1.0, 0.5, 2.0])))\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) == 2.5
