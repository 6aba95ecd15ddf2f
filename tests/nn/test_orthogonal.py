"""parametrizations.orthogonal against PyTorch: every map, tall, square and wide matrices and
batches, with and without a trivialization base; seeded values, gradients and errors."""
import numpy as np
import pytest

import gradjit
from tests.nn.helpers import close, randn, same_error

torch = pytest.importorskip("torch")


def _orthogonal(lib, shape, **kwargs):
    lib.manual_seed(0)
    m = lib.nn.Linear(shape[1], shape[0])
    return lib.nn.utils.parametrizations.orthogonal(m, **kwargs)


@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6)])
@pytest.mark.parametrize("orthogonal_map", [None, "matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_values_and_gradients_match_torch(shape, orthogonal_map, use_trivialization):
    kwargs = dict(orthogonal_map=orthogonal_map, use_trivialization=use_trivialization)
    g, t = _orthogonal(gradjit, shape, **kwargs), _orthogonal(torch, shape, **kwargs)
    close(g.parametrizations.weight.original, t.parametrizations.weight.original)
    close(g.weight, t.weight)
    w = np.asarray(g.weight.detach())
    small = w if shape[0] >= shape[1] else w.T
    np.testing.assert_allclose(small.T @ small, np.eye(min(shape)), atol=1e-5)
    x = randn(2, shape[1])
    (g(gradjit.tensor(x)) ** 2).sum().backward()
    (t(torch.tensor(x)) ** 2).sum().backward()
    close(g.parametrizations.weight.original.grad, t.parametrizations.weight.original.grad,
          atol=1e-5)
    assert repr(g) == repr(t)


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "householder"])
def test_batch_of_matrices_and_assignment(orthogonal_map):
    def build(lib):
        lib.manual_seed(1)
        m = lib.nn.Module()
        m.weight = lib.nn.Parameter(lib.randn(2, 5, 3))
        lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orthogonal_map)
        with lib.no_grad():
            m.weight = lib.randn(2, 5, 3)  # re-initialized through right_inverse
        return m
    g, t = build(gradjit), build(torch)
    close(g.weight, t.weight, atol=1e-5)
    close(g.parametrizations.weight[0].base, t.parametrizations.weight[0].base, atol=1e-5)


@pytest.mark.parametrize("case", ["vector", "missing", "map", "assign_exp", "assign_shape"])
def test_errors_match_torch(case):
    def call(lib):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 3)
        orthogonal = lib.nn.utils.parametrizations.orthogonal
        if case == "vector":
            return lambda: orthogonal(m, "bias")
        if case == "missing":
            return lambda: orthogonal(m, "kernel")
        if case == "map":
            return lambda: orthogonal(m, orthogonal_map="qr")
        if case == "assign_exp":
            orthogonal(m, use_trivialization=False)
            return lambda: setattr(m, "weight", lib.eye(3))
        orthogonal(m)
        return lambda: setattr(m, "weight", lib.eye(4))
    same_error(call(gradjit), call(torch))
