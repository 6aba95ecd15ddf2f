"""Under tracing, detach() and .data are views of their source: a write through them reaches
the source (and a write into the source reaches them) as in eager PyTorch, with the source's
gradient as if its history were unchanged; an argument written through them is refused by jit
and updated for the caller by compile."""
import numpy as np
import pytest
import torch as real

import gradjit
from gradjit.tracer.trace import TraceError

BACKENDS = ["interpreter", "cpu"]
DATA = np.arange(6.0).reshape(2, 3) / 4.0 - 0.5


def row_through_detach(x, lib):
    y = x * 2
    y.detach()[0].add_(1)
    return y


def whole_through_data(x, lib):
    y = x * x  # (not exp: its backward would read the written result, as torch's does)
    y.data.mul_(3)
    return y * x


def source_written_after_detach(x, lib):
    y = x + 1
    d = y.detach()
    y[1].mul_(x[0])
    return d * 2 + y


def view_of_detached_written(x, lib):
    y = x.sin()
    v = y[:, 1]
    y.detach().t()[1].fill_(5.0)
    return y + v[:, None]


def grad_written_through_detach(x, lib):
    y = x * x
    d = y.detach()
    d[0] = x[1] * 10  # the value reaches y, the gradient does not
    return y


PROGRAMS = [row_through_detach, whole_through_data, source_written_after_detach,
            view_of_detached_written, grad_written_through_detach]


def _torch(fn):
    t = real.tensor(DATA, requires_grad=True)
    out = fn(t, real)
    (out * out).sum().backward()
    return out.detach().numpy(), t.grad.numpy()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", PROGRAMS)
def test_jit_matches_torch_values_and_gradients(fn, backend):
    value, grad = _torch(fn)
    x = gradjit.tensor(DATA, requires_grad=True)
    out = gradjit.jit(lambda x: fn(x, gradjit), backend=backend)(x)
    np.testing.assert_allclose(out.detach().numpy(), value)
    (out * out).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), grad)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", PROGRAMS)
def test_grad_matches_torch(fn, backend):
    _, grad = _torch(fn)
    got = gradjit.grad(lambda x: (fn(x, gradjit) ** 2).sum(), backend=backend)(
        gradjit.tensor(DATA))
    np.testing.assert_allclose(got.numpy(), grad)


@pytest.mark.parametrize("fn", PROGRAMS)
def test_compile_matches_torch_values(fn):
    value, _ = _torch(fn)
    f = gradjit.compile(lambda x: fn(x, gradjit), fullgraph=True)
    for _ in range(2):  # the traced call, then the cached program
        np.testing.assert_allclose(f(gradjit.tensor(DATA)).numpy(), value)


def detach_add(x):
    x.detach().add_(1)
    return x * 2


def data_setitem(x):
    x.data[0] = 5.0
    return x * 2


@pytest.mark.parametrize("fn", [detach_add, data_setitem])
def test_jit_refuses_an_argument_written_through_detach(fn):
    x = gradjit.tensor([1.0, 2.0])
    with pytest.raises(TraceError, match=r"argument x is updated in place(.|\n)*"
                                         r"test_detach_writes.py:\d+"):
        gradjit.jit(fn)(x)
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])


@pytest.mark.parametrize("fn", [detach_add, data_setitem])
def test_compile_updates_an_argument_written_through_detach(fn):
    x, theirs = gradjit.tensor([1.0, 2.0]), real.tensor([1.0, 2.0])
    got, want = gradjit.compile(fn, fullgraph=True)(x), fn(theirs)
    np.testing.assert_array_equal(x.numpy(), theirs.numpy())
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_detach_shares_the_version_counter_and_data_does_not():
    def f(x, lib):
        y = x * 1
        before = y._version
        y.detach().add_(1)
        middle = y._version
        y.data.add_(1)
        return y, before, middle, y._version
    x = real.tensor(DATA)
    _, *want = f(x, real)
    seen = []
    gradjit.jit(lambda x: f(x, gradjit)[0] if seen.append(f(x, gradjit)[1:]) is None else 0)(
        gradjit.tensor(DATA))
    assert list(seen[0]) == want
