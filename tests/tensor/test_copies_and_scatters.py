"""PyTorch's *_copy operations, the functional scatters and the unsafe_ splits against torch:
values, gradients, grad_fn names, and results that own their memory."""
import numpy as np
import pytest

import gradjit
from tests.nn.helpers import torch

X = np.random.default_rng(0).standard_normal((3, 4, 2))

CASES = {
 "alias_copy": lambda L, x: L.alias_copy(x),
 "t_copy": lambda L, x: L.t_copy(x[:,:,0]),
 "transpose_copy": lambda L, x: L.transpose_copy(x,0,2),
 "permute_copy": lambda L, x: L.permute_copy(x,(2,0,1)),
 "expand_copy": lambda L, x: L.expand_copy(x[:1], (5,4,2)),
 "diagonal_copy": lambda L, x: L.diagonal_copy(x, 1, 0, 1),
 "select_copy": lambda L, x: L.select_copy(x, 1, 2),
 "slice_copy": lambda L, x: L.slice_copy(x, 1, 1, 4, 2),
 "slice_copy0": lambda L, x: L.slice_copy(x),
 "squeeze_copy": lambda L, x: L.squeeze_copy(x[:1]),
 "squeeze_copy1": lambda L, x: L.squeeze_copy(x[:1], 0),
 "squeeze_copy2": lambda L, x: L.squeeze_copy(x[:1,:1], (0,1)),
 "unsqueeze_copy": lambda L, x: L.unsqueeze_copy(x, 1),
 "view_copy": lambda L, x: L.view_copy(x, (12,2)),
 "unfold_copy": lambda L, x: L.unfold_copy(x, 1, 2, 1),
 "split_copy": lambda L, x: L.split_copy(x, 2, 1),
 "unbind_copy": lambda L, x: L.unbind_copy(x, 2),
 "split_with_sizes_copy": lambda L, x: L.split_with_sizes_copy(x, [1,3], 1),
 "narrow_copy": lambda L, x: L.narrow_copy(x, 1, 1, 2),
 "narrow_copy_m": lambda L, x: x.narrow_copy(0, 1, 2),
 "select_scatter": lambda L, x: L.select_scatter(x, x[:,0]*3, 1, 0),
 "slice_scatter": lambda L, x: L.slice_scatter(x, x[:,:2]**2, 1, 2),
 "slice_scatter_m": lambda L, x: x.slice_scatter(x[:,::2]**2, dim=1, step=2),
 "diagonal_scatter": lambda L, x: L.diagonal_scatter(x, x.diagonal()*2),
 "diagonal_scatter_off": lambda L, x: L.diagonal_scatter(x, x.diagonal(1, 0, 2)*2, 1, 0, 2),
 "diagonal_scatter_neg": lambda L, x: x.diagonal_scatter(x.diagonal(-1)*2, -1),
 "unsafe_split": lambda L, x: L.unsafe_split(x, 2, 1),
 "unsafe_chunk": lambda L, x: L.unsafe_chunk(x, 2, 1),
 "unsafe_split_with_sizes": lambda L, x: x.unsafe_split_with_sizes([1,2], 0),
}


@pytest.mark.parametrize("name", CASES)
def test_matches_torch(name):
    results = []
    for lib in (torch, gradjit):
        x = lib.tensor(X, requires_grad=True)
        out = CASES[name](lib, x)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        sum((o * o).sum() for o in outs).backward()
        results.append(([o.detach().numpy() for o in outs], x.grad.numpy(),
                        [type(o.grad_fn).__name__ for o in outs]))
    (want, want_grad, want_nodes), (got, got_grad, got_nodes) = results
    assert got_nodes == want_nodes
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-12)


def test_copies_own_their_memory():
    x = gradjit.tensor(X)
    for copy in (gradjit.t_copy(x[:, :, 0]), gradjit.view_copy(x, (24,)),
                 gradjit.detach_copy(x), gradjit.select_scatter(x, x[:, 0], 1, 0)):
        before = copy.clone()
        x.add_(1)
        np.testing.assert_array_equal(copy.numpy(), before.numpy())
    assert gradjit.detach_copy(gradjit.ones(2, requires_grad=True)).grad_fn is None


@pytest.mark.parametrize("compiled", [False, True])
def test_scatter_gives_infinite_values_sharing_an_index_their_gradient(compiled):
    values = np.array([[1.0, np.inf, -np.inf]])
    index = np.array([[0, 2, 2]])
    weights = np.array([[5.0, 6.0, 7.0]])
    results = []
    for lib in (torch, gradjit):
        def weighted(x, i, lib=lib):
            scattered = lib.zeros(1, 3, dtype=lib.float64).scatter(-1, i, x)
            return (scattered * lib.tensor(weights)).sum()
        x = lib.tensor(values, requires_grad=True)
        run = gradjit.compile(weighted) if compiled and lib is gradjit else weighted
        total = run(x, lib.tensor(index))
        total.backward()
        results.append((total.item(), x.grad.numpy()))
    (want, want_grad), (got, got_grad) = results
    assert got == want
    np.testing.assert_array_equal(got_grad, want_grad)  # each reads its index's 7
