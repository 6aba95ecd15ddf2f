"""Writes through views of traced arrays (basic indexing, transposes, reshapes, splits) reach
their base and its other live views as in numpy, on both backends and in gradients; writes into
copies are lost as in numpy; a view at an index known only at run time refuses writes."""
import numpy as np
import pytest
import torch as real

import gradjit
from gradjit.tracer.trace import TraceError

BACKENDS = ["interpreter", "cpu"]


def out_into_row(a, b):
    c = np.zeros((2, 3)) + 0 * a
    np.add(a, b, out=c[0])
    return c


def ellipsis_write(a, b):
    c = np.zeros((2, 3)) + 0 * a
    v = c[0]
    v[...] = b
    return c


def chained_index(a, b):
    c = np.zeros((2, 3)) + a
    c[0][1] = b[2]
    return c


def transposed(a, b):
    c = np.zeros((2, 3)) + a
    c.T[0] = b[:2]
    return c


def reshaped(a, b):
    c = np.zeros((2, 3)) + a
    c.reshape(-1)[0] = 1
    np.ravel(c)[4] = b[1]
    return c


def copyto_row(a, b):
    c = np.zeros((2, 3)) + a
    np.copyto(c[1], b)
    return c


def column_add(a, b):
    c = np.zeros((2, 3)) + a
    c[:, 0] += b[0]
    return c


def sibling_views_see_writes(a, b):
    c = np.outer(np.ones(2), a)
    row, col, flat = c[1], c[:, 2], c.reshape(-1)
    col[1] = b[0] * 5.0  # seen by row and flat
    row *= b
    return np.concatenate([c.ravel(), row, col, flat])


def view_of_view_and_new_axes(a, b):
    c = np.stack([a, b, a * b])
    v = c[1:, None, ::-1][..., 1:]
    v[0, 0] = a[:2]
    np.flip(c, 0)[0, 1] = -1.0
    c.swapaxes(0, 1)[2] *= 3.0
    np.split(c, 3, axis=1)[1][:] = 2.0 * b[2]
    return c


def sort_in_place_in_a_row(a, b):
    c = np.stack([b, a])
    c[1].sort()
    c[0, ::2].fill(a[0])
    return c


def copies_are_not_views(a, b):
    c = np.zeros((2, 3)) + a
    c[[0, 1]][0, 0] = 100.0  # an index list copies
    c[np.array([True, False])][0] = 7.0  # a mask copies
    c.T.reshape(-1)[0] = 7.0  # a reshape of a transpose copies
    c.flatten()[1] = 7.0
    c.copy()[0, 2] = 7.0
    d = c[0].copy()
    d[0] = 7.0
    return c + d.sum()


PROGRAMS = [out_into_row, ellipsis_write, chained_index, transposed, reshaped, copyto_row,
            column_add, sibling_views_see_writes, view_of_view_and_new_axes,
            sort_in_place_in_a_row, copies_are_not_views]
A, B = np.array([0.5, -1.25, 2.0]), np.array([1.5, 0.25, -3.0])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", PROGRAMS)
def test_writes_through_views_match_numpy(fn, backend):
    np.testing.assert_allclose(gradjit.jit(fn, backend=backend)(A, B), fn(A.copy(), B.copy()))


def _central_difference(f, x, eps=1e-6):
    grad = np.zeros_like(x)
    for i in range(x.size):
        step = np.zeros_like(x)
        step[i] = eps
        grad[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return grad


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", PROGRAMS)
def test_gradients_through_view_writes_match_central_differences(fn, backend):
    weights = np.linspace(-1.0, 2.0, np.size(fn(A.copy(), B.copy())))

    def loss(a, b):
        return np.sum(np.ravel(fn(a, b)) ** 2 * weights)
    ga, gb = gradjit.grad(loss, argnums=(0, 1), backend=backend)(A, B)
    np.testing.assert_allclose(ga, _central_difference(lambda a: loss(a, B.copy()), A),
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(gb, _central_difference(lambda b: loss(A.copy(), b), B),
                               rtol=1e-6, atol=1e-6)


def test_read_only_views_refuse_writes_as_numpy():
    def f(a):
        np.broadcast_to(a, (2, 3))[0, 0] = 1.0
        return a
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        f(A.copy())
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        gradjit.jit(lambda a: f(a * 1.0))(A)


def test_a_write_through_a_view_at_a_run_time_index_raises_naming_the_line():
    def f(a, i):
        c = np.outer(a, a)
        row = c[i]  # i is traced: which row is known only when the function runs
        row[0] = 1.0
        return c
    with pytest.raises(TraceError, match=r"run time(.|\n)*test_view_writes.py:\d+(.|\n)*row\[0\]"):
        gradjit.jit(f)(A, np.int64(1))


def test_a_view_at_a_run_time_index_sees_writes_into_its_base():
    def f(a, i):
        c = np.outer(a, a)
        row = c[i]
        c[:, 0] = -1.0
        return row * 2.0
    for i in (0, 2):
        np.testing.assert_allclose(gradjit.jit(f)(A, np.int64(i)), f(A, i))


def test_a_view_of_an_argument_written_is_a_write_into_the_argument():
    def f(x):
        x[0].add_(1.0)
        return x.sum()
    with pytest.raises(TraceError, match="argument x is updated in place"):
        gradjit.jit(f)(gradjit.tensor(np.ones((2, 2))))


@pytest.mark.parametrize("backend", BACKENDS)
def test_tensor_views_written_in_place_match_torch(backend):
    def f(t, lib):
        x = t.clone()
        x[0].add_(1.0)
        x.t()[1].mul_(t[1, 2])
        x[:, 0][1] = 7.0
        x.view(-1)[2].sub_(t[0, 0])
        return x * x
    data = np.arange(6.0).reshape(2, 3) / 4.0
    t = gradjit.tensor(data, requires_grad=True)
    out = gradjit.jit(lambda t: f(t, gradjit), backend=backend)(t)
    rt = real.tensor(data, requires_grad=True)
    expected = f(rt, real)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy())
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), rt.grad.numpy())


def test_parts_of_complex_arrays_follow_writes_and_refuse_being_written():
    def follows(a):
        c = a * (1.0 + 2.0j)
        re, im = c.real, c.imag
        c[0] = 3.0 - 1.0j
        return re + im
    np.testing.assert_allclose(gradjit.jit(follows)(A), follows(A.copy()))

    def writes_real_part(a):
        c = a * (1.0 + 2.0j)
        c.real[0] = 5.0
        return c
    with pytest.raises(TraceError, match=r"real part(.|\n)*test_view_writes.py:\d+"):
        gradjit.jit(writes_real_part)(A)


def test_imaginary_part_of_a_real_array_is_read_only_as_numpy():
    def f(a):
        c = a * 1.0
        c.imag[0] = 5.0
        return c
    for run in (f, gradjit.jit(f)):
        with pytest.raises(ValueError, match="assignment destination is read-only"):
            run(A.copy())


@pytest.mark.parametrize("backend", BACKENDS)
def test_in_place_operators_write_through_views_and_aliases(backend):
    def f(a, b):
        c = np.outer(a, b)
        d = c  # numpy's in-place operators change the array both names hold
        c[1] **= 2
        c[:, ::2] -= a[:, None]
        c.T[0] //= 0.5
        d *= 1.5
        return c + d
    np.testing.assert_allclose(gradjit.jit(f, backend=backend)(A, B), f(A.copy(), B.copy()))


def test_in_place_operators_on_scalars_rebind_as_numpy_scalars_do():
    def f(a, b):
        s = a.sum()  # a numpy scalar: s += b makes a new array of b's shape
        s += b
        i = np.argmax(a)
        i += 0.5
        return s * i
    np.testing.assert_allclose(gradjit.jit(f)(A, B), f(A.copy(), B.copy()))
