"""Runs one autograd scenario in gradjit and in PyTorch and compares what each returned or
raised: tensors by value, dtype and shape, errors by type and message."""
import warnings

import numpy as np
import pytest
import torch

import gradjit

A = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.5]])
B = np.array([[0.5, 1.5, -2.0], [-0.75, 2.0, 1.0]])


class Scenarios(dict):
    """Scenario functions by name; calling it with one (as a decorator) registers it."""

    def __call__(self, fn):
        self[fn.__name__] = fn
        return fn


def leaves(lib, *arrays):
    """Tensors of lib that require grad, of the arrays (default: A and B)."""
    return [lib.tensor(a, requires_grad=True) for a in (arrays or (A, B))]


def square_function(lib):
    """A custom Function x -> x * x of lib that saves its input for backward."""
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g
    return Square


def outcome(scenario, lib):
    """What scenario(lib) returns, with tensors as (dtype name, numpy value), or its error as
    ("raised", type name, message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return plain(scenario(lib))
    except Exception as error:  # noqa: BLE001 - the error is what the scenario compares
        return ("raised", type(error).__name__, str(error).partition("\n  at ")[0])


def plain(x):
    if isinstance(x, (gradjit.Tensor, torch.Tensor)):
        return ("tensor", str(x.dtype).split(".")[-1], x.detach().numpy().copy())
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (torch.dtype, torch.Size)):
        return str(x).replace("torch.Size", "").replace("torch.", "")
    if type(x).__module__.startswith("gradjit") and "dtype" in type(x).__name__.lower():
        return str(x).replace("torch.", "")
    return x


def assert_same(mine, want, rtol=1e-7, path="result"):
    if isinstance(want, np.ndarray):
        assert isinstance(mine, np.ndarray), (path, mine)
        assert mine.shape == want.shape, (path, mine.shape, want.shape)
        tol = max(rtol, 2e-6) if want.dtype == np.float32 else rtol  # float32's rounding
        np.testing.assert_allclose(mine, want, rtol=tol, atol=tol, err_msg=path)
    elif isinstance(want, (list, tuple)):
        assert isinstance(mine, (list, tuple)) and len(mine) == len(want), (path, mine, want)
        for i, (m, w) in enumerate(zip(mine, want)):
            assert_same(m, w, rtol, f"{path}[{i}]")
    elif isinstance(want, dict):
        assert isinstance(mine, dict) and mine.keys() == want.keys(), (path, mine, want)
        for k in want:
            assert_same(mine[k], want[k], rtol, f"{path}[{k!r}]")
    elif isinstance(want, float):
        assert isinstance(mine, (float, int)), (path, mine, want)
        np.testing.assert_allclose(mine, want, rtol=rtol, atol=rtol, err_msg=path)
    else:
        assert mine == want, (path, mine, want)


def check(scenario, rtol=1e-7):
    """scenario(lib) gives the same outcome with lib gradjit as with lib torch."""
    assert_same(outcome(scenario, gradjit), outcome(scenario, torch), rtol)


def cases(scenarios, differences):
    """pytest params over the scenarios by name; those in `differences` (name: why) are
    expected to differ from torch still."""
    return [pytest.param(name, marks=pytest.mark.xfail(reason=differences[name], strict=True))
            if name in differences else name for name in sorted(scenarios)]
