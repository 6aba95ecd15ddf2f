"""Run one scenario in gradjit and in PyTorch and compare what comes out: values, dtypes and
shapes, or the error raised."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")
# Thousands of small transforms: PyTorch's thread pool costs more than it saves on them.
torch.set_num_threads(1)

# Tolerances by the precision of the result.
TOLERANCES = {"float16": 1e-2, "complex32": 1e-2, "float32": 2e-4, "complex64": 2e-4}


def tensors(lib, arrays):
    """Each numpy array as a tensor of lib (float64 and complex128 keep their dtype)."""
    return {name: lib.tensor(a) if isinstance(a, np.ndarray) else a
            for name, a in arrays.items()}


def _values(out):
    if isinstance(out, (tuple, list)):
        return [_values(o) for o in out]
    if hasattr(out, "detach"):
        value = out.detach().resolve_conj()
        dtype = str(out.dtype).split(".")[-1]
        if dtype == "bfloat16":  # numpy has no bfloat16
            value = value.float()
        return dtype, tuple(out.shape), value.numpy()
    return out


def _assert_close(got, want, tol):
    if isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _assert_close(g, w, tol)
        return
    if not isinstance(want, tuple):
        assert got == want
        return
    (g_dtype, g_shape, g_value), (t_dtype, t_shape, t_value) = got, want
    assert (g_dtype, g_shape) == (t_dtype, t_shape)
    tol = tol or TOLERANCES.get(t_dtype, 1e-9)
    np.testing.assert_allclose(g_value, t_value, rtol=tol, atol=tol)


def run(lib, expr, arrays, names=None):
    scope = {"t": lib, "np": np, **tensors(lib, arrays), **(names or {})}
    return eval(expr, scope)


def same(expr, tol=None, names=None, **arrays):
    """expr (with t the library and the arrays as its tensors) gives the same result, or the
    same error, in gradjit as in PyTorch; returns PyTorch's result."""
    try:
        want = run(torch, expr, arrays, names)
    except Exception:
        same_error(lambda: run(gradjit, expr, arrays, names), lambda: run(torch, expr, arrays,
                                                                            names))
        return None
    got = run(gradjit, expr, arrays, names)
    _assert_close(_values(got), _values(want), tol)
    return want

