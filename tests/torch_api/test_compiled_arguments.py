"""gradjit.compile's Python number arguments are treated as torch.compile treats them: an int
(a dim, a size, a padding) is static until a call of the same signature passes another value
there, from which on it is traced; a float is traced; every number becomes static once a trace
needs one's value. Results and gradients are torch's, and the call compiles (runs no eager
fallback) where a traced int would have had to be read into Python."""
import numpy as np
import pytest
import torch

import gradjit


def _run(lib, fn, data, *numbers, compiled=False):
    x = lib.tensor(data, requires_grad=True)
    call = gradjit.compile(fn) if compiled else fn
    out = call(x, *numbers)
    weights = lib.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)))
    (out * weights).sum().backward()
    return out.detach().numpy(), x.grad.numpy(), call


DATA = np.linspace(-1.0, 2.0, 24).reshape(2, 3, 4)


def _by(lib):
    """Calls in which an int argument is a dim, a shape or a size: torch's ops read it in
    Python, so it cannot stay a traced value."""
    return {
        "softmax over dim": lambda x, d: lib.softmax(x, d),
        "reshape to rows": lambda x, n: x.reshape(n, -1).cumsum(1),
        "narrow": lambda x, n: x.narrow(2, 1, n).exp(),
        "split sizes": lambda x, n: lib.cat(x.split(n, dim=2)[::-1], dim=2) * 2,
        "pad": lambda x, n: lib.nn.functional.pad(x, (n, n), mode="reflect"),
        "max_pool": lambda x, k: lib.nn.functional.max_pool1d(x, k),
    }


@pytest.mark.parametrize("name", list(_by(torch)))
def test_an_int_argument_that_sets_a_shape_compiles(name):
    fn_torch, fn_gradjit = _by(torch)[name], _by(gradjit)[name]
    for n in (1, 2, 2):
        want_out, want_grad, _ = _run(torch, fn_torch, DATA, n)
        out, grad, call = _run(gradjit, fn_gradjit, DATA, n, compiled=True)
        np.testing.assert_allclose(out, want_out, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(grad, want_grad, rtol=1e-12, atol=1e-12)
        assert call.eager_calls == 0, call.explain()


def test_an_int_that_varies_is_traced_from_its_second_value_on():
    compiled = gradjit.compile(lambda x, n: x * n + n)
    x = gradjit.tensor(DATA)
    for n in (3, 3, 4, 5, 6, 4):
        np.testing.assert_array_equal(compiled(x, n).numpy(), DATA * n + n)
    # one trace for n=3, one with n traced for every other value
    assert compiled.program.cache.traces == 2 and compiled.eager_calls == 0


def test_a_number_whose_value_a_trace_needs_becomes_static():
    def fn(x, p):
        return x.reshape(int(p), -1) * p  # int() of a traced float reads its value
    compiled = gradjit.compile(fn)
    x = gradjit.tensor(DATA)
    for p in (2.0, 3.0, 2.0):
        np.testing.assert_array_equal(compiled(x, p).numpy(), DATA.reshape(int(p), -1) * p)
    assert compiled.eager_calls == 0 and compiled.program.cache.traces == 2


def test_a_bool_argument_picks_the_path():
    compiled = gradjit.compile(lambda x, flag: x.exp() if flag else x.sin())
    x = gradjit.tensor(DATA)
    for flag in (True, False, True):
        np.testing.assert_allclose(compiled(x, flag).numpy(),
                                   np.exp(DATA) if flag else np.sin(DATA))
    assert compiled.eager_calls == 0


@pytest.mark.parametrize("fn", [
    lambda lib, x, w: lib.lerp(x, x * 2, w),
    lambda lib, x, w: x.new_full((3,), w) * x.sum(),
    lambda lib, x, w: lib.clamp(x, min=w),
])
def test_a_float_argument_leaves_the_result_a_tensor(fn):
    want_out, want_grad, _ = _run(torch, lambda x, w: fn(torch, x, w), DATA, 0.25)
    out, grad, call = _run(gradjit, lambda x, w: fn(gradjit, x, w), DATA, 0.25, compiled=True)
    np.testing.assert_allclose(out, want_out, rtol=1e-12)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-12)
    assert call.eager_calls == 0


def test_a_float_argument_is_traced_and_returns_a_tensor():
    compiled = gradjit.compile(lambda x, w: gradjit.lerp(x, x * 2, w))
    x = gradjit.tensor(DATA)
    for w in (0.25, 0.5, 0.75):
        out = compiled(x, w)
        assert isinstance(out, gradjit.Tensor)
        np.testing.assert_allclose(out.numpy(), DATA + w * DATA)
    assert compiled.program.cache.traces == 1


def test_a_signature_that_runs_eagerly_is_not_traced_again_for_other_numbers():
    traces = []

    def fn(x, lr):
        traces.append(gradjit.compiler.is_compiling())
        return x * lr + float(x.sum())  # float() of a Tensor: the call runs eagerly
    compiled = gradjit.compile(fn)
    x = gradjit.tensor(DATA)
    for lr in (0.1, 0.2, 0.3):
        np.testing.assert_allclose(compiled(x, lr).numpy(), DATA * lr + DATA.sum())
    # lr traced, then lr static: both read the sum; from then on, eager calls alone
    assert traces == [True, True, False, False, False] and compiled.eager_calls == 3
