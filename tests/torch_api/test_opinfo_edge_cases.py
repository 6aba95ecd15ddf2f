"""Edge cases from PyTorch's operator database against torch 2.13: 0-d tensors taking the dims
of 1-d ones, empty axes, positional overloads (Tensor.to's flags, var's unbiased), memory_format
of casts, integer dtypes kept."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error, weighted_gradients

torch = pytest.importorskip("torch")

PROGRAMS = {
    "transpose 0-d": (lambda t, a: a.transpose(0, -1), ()),
    "swapaxes 0-d": (lambda t, a: t.swapaxes(a, -1, 0), ()),
    "unfold 0-d": (lambda t, a: a.unfold(0, 1, 2), ()),
    "unfold 0-d empty": (lambda t, a: a.unfold(-1, 0, 1), ()),
    "to positional flags": (lambda t, a: a.to("cpu", t.float32, True, True), (2, 3)),
    "to dtype copy": (lambda t, a: a.to(t.float64, False, True), (3,)),
    "float memory_format": (lambda t, a: a.float(memory_format=t.contiguous_format), (2, 2)),
    "double preserve_format": (lambda t, a: a.double(memory_format=t.preserve_format), ()),
    "scatter 0-d": (lambda t, a, b: a.scatter(0, t.tensor(0), b), (), ()),
    "scatter_add 0-d": (lambda t, a, b: a.scatter_add(-1, t.tensor([0]), b), (), (1,)),
    "scatter_reduce 0-d": (lambda t, a, b: a.scatter_reduce(0, t.tensor(0), b, "amax"), (),
                           ()),
    "std unbiased overload": (lambda t, a: t.std(a, False), (5, 3)),
    "var unbiased overload": (lambda t, a: a.var(True), (4,)),
    "var_mean unbiased overload": (lambda t, a: t.var_mean(a, False)[0], (3, 2)),
    "std_mean unbiased overload": (lambda t, a: t.std_mean(a, True)[1], (3, 2)),
    "nextafter": (lambda t, a, b: t.nextafter(a, b), (2, 3), (3,)),
    "nextafter equal": (lambda t, a: a.nextafter(a.detach() * 1), (4,)),
    "ormqr": (lambda t, a, tau, c: t.ormqr(a, tau, c), (5, 3), (3,), (5, 4)),
    "ormqr right transposed": (lambda t, a, tau, c: a.ormqr(tau, c, left=False, transpose=True),
                               (2, 4, 3), (2, 3), (2, 2, 4)),
    "norm 0": (lambda t, a: t.norm(a, 0), (3, 4)),
    "vector_norm 0 with zeros": (lambda t, a: t.linalg.vector_norm(a * (a > 0), 0, dim=1), (3, 4)),
    "__rdiv__": (lambda t, a: a.__rdiv__(2.0), (3,)),
    "narrow tensor start": (lambda t, a: a.narrow(1, t.tensor(1), 2), (2, 4)),
    "masked_fill complex into complex": (lambda t, a: a.to(t.complex128).masked_fill(
        t.tensor([True, False]), 1j).real, (2,)),
    "softmax empty axis": (lambda t, a: t.softmax(a, -1), (5, 0, 0)),
    "log_softmax empty axis": (lambda t, a: a.log_softmax(0), (0, 3)),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_like_torch(name):
    fn, *shapes = PROGRAMS[name]
    arrays = [np.random.default_rng(3).standard_normal(s) for s in shapes]
    t_out, t_grads = weighted_gradients(torch, fn, arrays, np.float64)
    g_out, g_grads = weighted_gradients(gradjit, fn, arrays, np.float64)
    assert str(g_out.dtype) == str(t_out.dtype) and tuple(g_out.shape) == tuple(t_out.shape)
    assert g_out.requires_grad == t_out.requires_grad
    np.testing.assert_allclose(g_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    for g, t, a in zip(g_grads, t_grads, arrays):  # no gradient reads as zeros, as in
        g, t = (np.zeros(a.shape) if v is None else v.numpy() for v in (g, t))  # opinfo
        np.testing.assert_allclose(g, t, rtol=1e-12)


ERRORS = {
    "transpose 0-d": lambda t: t.tensor(1.0).transpose(0, 1),
    "unfold 0-d": lambda t: t.tensor(1.0).unfold(0, 2, 1),
    "narrow 0-d": lambda t: t.tensor(1.0).narrow(0, 0, 1),
    "narrow 1-d start": lambda t: t.zeros(4, 3).narrow(1, t.tensor([1]), 2),
    "narrow bool start": lambda t: t.zeros(4, 3).narrow(0, t.tensor(True), 2),
    "masked_fill complex": lambda t: t.zeros(2).masked_fill(t.tensor([True, False]), 1j),
    "masked_fill complex tensor": lambda t: t.zeros(2, dtype=t.int64).masked_fill(
        t.tensor([True, False]), t.tensor(1j)),
    "narrow_copy dim past the end": lambda t: t.narrow_copy(t.zeros(10, 5, 20), 3, 0, 0),
    "narrow_copy method dim past the end": lambda t: t.zeros(2, 3).narrow_copy(2, 0, 1),
    "narrow_copy negative dim": lambda t: t.narrow_copy(t.zeros(2, 3), -3, 0, 1),
    "ormqr 1-d input": lambda t: t.ormqr(t.ones(3), t.ones(2), t.ones(3, 3)),
    "ormqr short tau": lambda t: t.ormqr(t.ones(5, 3), t.ones(2), t.ones(5, 5)),
    "ormqr other rows": lambda t: t.ormqr(t.ones(5, 3), t.ones(3), t.ones(4, 5)),
    "ormqr tau dims": lambda t: t.ormqr(t.ones(5, 3), t.ones(3, 3), t.ones(5, 5)),
    "vsplit str": lambda t: t.vsplit(t.zeros(4, 4), "abc"),
    "unique_consecutive 0-d dim": lambda t: t.unique_consecutive(t.tensor(3.0), dim=0),
    "unique_consecutive empty slices": lambda t: t.unique_consecutive(t.zeros(2, 0), dim=0),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_like_torch(name):
    call = ERRORS[name]
    same_error(lambda: call(gradjit), lambda: call(torch))


@pytest.mark.parametrize("call", [lambda t: t.tensor([3, 1, 2]).median(),
                                  lambda t: t.tensor([[4, 1], [2, 3]]).nanmedian(),
                                  lambda t: t.tensor(-8).median()])
def test_integer_median_keeps_the_dtype(call):
    got, want = call(gradjit), call(torch)
    assert str(got.dtype) == str(want.dtype) and got.tolist() == want.tolist()


def test_scatter_refuses_another_source_dtype():
    def call(t):
        return t.zeros(3).scatter_add(0, t.tensor([0]), t.ones(1).double())
    same_error(lambda: call(gradjit), lambda: call(torch))


@pytest.mark.parametrize("call", [lambda t, a, b: a ** b, lambda t, a, b: b.__rpow__(a),
                                  lambda t, a, b: 2 ** b, lambda t, a, b: t.pow(a.int(), b)])
def test_integers_to_negative_integer_powers(call):
    def run(t):
        return call(t, t.tensor([2, 1, -1, 0, 3, -1, -5]), t.tensor([-1, -2, -3, 2, 0, -2, 3]))
    got, want = run(gradjit), run(torch)
    assert str(got.dtype) == str(want.dtype) and got.tolist() == want.tolist()


@pytest.mark.parametrize("shape,dim", [((5, 3), 0), ((5, 3), 1), ((0, 3), 0), ((6, 1, 2), -1),
                                       ((6, 1, 2), 0)])
def test_unique_consecutive_along_a_dim(shape, dim):
    rows = np.array([[1, 1, 2], [1, 1, 2], [3, np.nan, 1], [3, np.nan, 1], [0, 0, 0],
                     [0, 0, 0]])
    x = np.resize(rows, shape) if 0 not in shape else np.zeros(shape)

    def run(t):
        return t.unique_consecutive(t.tensor(x), dim=dim, return_inverse=True,
                                    return_counts=True)
    for got, want in zip(run(gradjit), run(torch)):
        assert str(got.dtype) == str(want.dtype)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_float32_matrix_exp_keeps_float32_accuracy():
    a = np.random.default_rng(3).uniform(-9, 9, (3, 5, 5)).astype(np.float32)
    got = gradjit.matrix_exp(gradjit.tensor(a))
    exact = torch.matrix_exp(torch.tensor(a, dtype=torch.float64)).numpy()
    assert str(got.dtype) == "torch.float32"
    np.testing.assert_allclose(got.numpy(), exact, rtol=1e-6, atol=1e-7 * np.abs(exact).max())


HISTOGRAMDD = {
    "bins per dim, weights": lambda t, x: t.histogramdd(x, bins=[3, 4],
                                                        weight=t.arange(6, dtype=x.dtype)),
    "one bin count, range, density": lambda t, x: t.histogramdd(x, bins=2,
                                                                range=[0., 1., 0., 1.],
                                                                density=True),
    "edges": lambda t, x: t.histogramdd(x, bins=[t.tensor([0., 1., 3.], dtype=x.dtype),
                                                 t.tensor([0., .5, 2.], dtype=x.dtype)]),
}


@pytest.mark.parametrize("name", HISTOGRAMDD)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogramdd_as_torch(name, dtype):
    points = np.array([[0., 1.], [1., 0.], [2., 0.], [2., 2.], [0.25, 0.75], [1.5, 0.5]])
    got, want = (HISTOGRAMDD[name](t, t.tensor(points, dtype=getattr(t, dtype)))
                 for t in (gradjit, torch))
    assert str(got.hist.dtype) == str(want.hist.dtype)
    np.testing.assert_allclose(got.hist.numpy(), want.hist.numpy(), rtol=1e-6)
    assert len(got.bin_edges) == len(want.bin_edges)
    for g, w in zip(got.bin_edges, want.bin_edges):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)
    assert repr(got).partition("(")[0] == repr(want).partition("(")[0]


def test_histogramdd_of_integers_refused():
    same_error(lambda: gradjit.histogramdd(gradjit.ones(3, 2, dtype=gradjit.int64), bins=2),
               lambda: torch.histogramdd(torch.ones(3, 2, dtype=torch.int64), bins=2))
