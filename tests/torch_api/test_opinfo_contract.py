"""einsum against torch where the operator database found it apart: an output without '...'
sums the dims the inputs' '...' cover."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import weighted_gradients

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("equation, shapes", [
    ("...ik, ...j -> ij", [(1, 2, 3), (3,)]), ("...ik, ...j -> ij", [(4, 2, 3), (3,)]),
    ("...ik->ik", [(4, 5, 2, 3)]), ("...ik->", [(4, 2, 3)]), ("i...,i...->i", [(2, 3), (2, 3)]),
    ("...ik->...", [(4, 2, 3)]),
])
def test_einsum_sums_uncovered_ellipsis(equation, shapes):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    call = lambda t, *xs: t.einsum(equation, *xs)  # noqa: E731
    got, got_grads = weighted_gradients(gradjit, call, arrays, np.float64)
    want, want_grads = weighted_gradients(torch, call, arrays, np.float64)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    for g, w in zip(got_grads, want_grads):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12)
