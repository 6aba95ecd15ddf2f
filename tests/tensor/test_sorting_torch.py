"""PyTorch's sorting and order statistics on eager tensors against PyTorch 2.13 itself:
values, indices, dtypes, gradients and grad_fn names."""
import math

import numpy as np
import pytest

import gradjit
from tests.tensor.test_vs_torch import assert_errors_match, compare, summary, with_grads

torch = pytest.importorskip("torch")

rng = np.random.default_rng(11)
A = rng.standard_normal((4, 6)).astype(np.float32)  # distinct: indices agree with PyTorch's
D = rng.standard_normal((3, 5))
N = A.copy()
N[1, 2] = N[3, 0] = N[3, 4] = math.nan
TIES = np.array([[2, 1, 2, 0, 1, 2], [3, 3, 3, 1, 1, 0]], np.float32)
Q = np.array([0.0, 0.2, 0.5, 0.9, 1.0], np.float32)
S = np.array([-1.0, -0.5, 0.0, 0.0, 0.25, 1.0, 1.0, 2.0], np.float32)

PROGRAMS = {
    "sort": lambda t: with_grads(t, lambda t, x: (*x.sort(), *x.sort(0, descending=True),
                                                  *t.sort(x, dim=-2, stable=True)), A),
    "sort-nan": lambda t: (*t.tensor(N).sort(), *t.tensor(N).sort(descending=True)),
    "sort-ties-stable": lambda t: (*t.tensor(TIES).sort(stable=True),
                                   *t.tensor(TIES).sort(descending=True, stable=True),
                                   t.tensor(TIES).argsort(stable=True)),
    "sort-int": lambda t: (*t.tensor(TIES.astype(np.int64)).sort(dim=0, stable=True),
                           *t.tensor(TIES.astype(np.int32)).topk(2, dim=0),
                           *t.tensor(TIES > 1).sort(stable=True),
                           *t.tensor(np.argsort(A, 1)).kthvalue(4)),
    "sort-0d": lambda t: with_grads(t, lambda t, x: (*x.sort(), x.argsort(), *x.topk(1),
                                                     *x.kthvalue(1, keepdim=True), x.median(),
                                                     *x.median(0), *x.nanmedian(-1)),
                                    np.array(2.5, np.float32)),
    "argsort-msort": lambda t: with_grads(t, lambda t, x: (x.argsort(), t.argsort(
        x, dim=0, descending=True), x.msort(), t.msort(x)), A),
    "topk": lambda t: with_grads(t, lambda t, x: (*x.topk(3), *t.topk(x, 2, dim=0,
                                                                       largest=False)), D),
    "kthvalue": lambda t: with_grads(t, lambda t, x: (*x.kthvalue(2), *t.kthvalue(
        x, 3, dim=0, keepdim=True)), A),
    "median": lambda t: with_grads(t, lambda t, x: (x.median(), *x.median(1),
                                                    *t.median(x, dim=0, keepdim=True)), A),
    "median-odd": lambda t: with_grads(t, lambda t, x: (x.median(), *x.median(0)), D),
    "median-nan": lambda t: (t.tensor(N).median(), *t.tensor(N).median(1)),
    "median-ties-grad": lambda t: with_grads(t, lambda t, x: x.median(), TIES),
    "nanmedian": lambda t: with_grads(t, lambda t, x: (x.nanmedian(), *x.nanmedian(1)), N),
    "quantile": lambda t: with_grads(t, lambda t, x: (x.quantile(0.3), t.quantile(
        x, t.tensor(Q), dim=1, keepdim=True), x.quantile(0.75, dim=0)), A),
    "quantile-methods": lambda t: with_grads(t, lambda t, x: tuple(
        x.quantile(t.tensor(Q, dtype=x.dtype), dim=1, interpolation=m) for m in
        ("linear", "lower", "higher", "midpoint", "nearest")), D),
    "nanquantile": lambda t: (t.tensor(N).quantile(0.4, dim=1), *with_grads(
        t, lambda t, x: (x.nanquantile(t.tensor(Q), dim=1), t.nanquantile(x, 0.3)), N)),
    "searchsorted": lambda t: (
        t.searchsorted(t.tensor(S), t.tensor(A)),
        t.searchsorted(t.tensor(S), t.tensor(A), right=True),
        t.searchsorted(t.tensor(S), t.tensor(S), side="right", out_int32=True),
        t.searchsorted(t.tensor(np.sort(A, 1)), t.tensor(A[:, :3])),
        t.searchsorted(t.tensor(S[::-1].copy()), t.tensor(A),
                       sorter=t.tensor(np.arange(7, -1, -1))),
        t.searchsorted(t.tensor(S), 0.25, right=True)),
    "bucketize": lambda t: (t.bucketize(t.tensor(A), t.tensor(S)),
                            t.bucketize(t.tensor(A), t.tensor(S), right=True)),
    "unique": lambda t: (t.unique(t.tensor(TIES)),
                         *t.unique(t.tensor(TIES), return_inverse=True, return_counts=True),
                         *t.tensor([3, 1, 2, 1, 3]).unique(return_counts=True),
                         *t.unique(t.tensor([math.nan, 1.0, math.nan, 1.0]), return_inverse=True,
                                   return_counts=True)),
    "unique_consecutive": lambda t: (
        t.unique_consecutive(t.tensor([1, 1, 2, 2, 3, 1, 1, 2])),
        *t.tensor(TIES).unique_consecutive(return_inverse=True, return_counts=True),
        *t.unique_consecutive(t.tensor([math.nan, math.nan, 1.0]), return_counts=True),
        *t.unique_consecutive(t.tensor([]), return_inverse=True, return_counts=True)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_pytorch(name):
    program = PROGRAMS[name]
    compare(summary(program(gradjit)), summary(program(torch)), name)


def test_median_tie_index_is_an_index_of_the_value():
    # PyTorch leaves the index of a tie unspecified; ours is the first in stable order.
    values, indices = gradjit.tensor(TIES).median(1)
    assert np.array_equal(values.numpy(), torch.tensor(TIES).median(1).values.numpy())
    assert np.array_equal(np.take_along_axis(TIES, indices.numpy()[:, None], 1)[:, 0],
                          values.numpy())


ERRORS = {
    "topk-k": lambda t: t.tensor(A).topk(7),
    "kthvalue-k": lambda t: t.tensor(A).kthvalue(0),
    "sort-dim": lambda t: t.tensor(A).sort(2),
    "quantile-int": lambda t: t.tensor([1, 2]).quantile(0.5),
    "quantile-range": lambda t: t.tensor(A).quantile(1.5),
    "quantile-dtype": lambda t: t.tensor(A).quantile(t.tensor([0.5], dtype=t.float64)),
    "quantile-2d-q": lambda t: t.tensor(A).quantile(t.tensor(A[:2, :2] * 0)),
    "quantile-empty": lambda t: t.tensor([]).quantile(0.5),
    "quantile-method": lambda t: t.tensor(A).quantile(0.5, interpolation="cubic"),
    "median-empty-dim": lambda t: t.zeros(0, 2).median(0),
    "searchsorted-side": lambda t: t.searchsorted(t.tensor(S), t.tensor(A), side="mid"),
    "searchsorted-opposite": lambda t: t.searchsorted(t.tensor(S), t.tensor(A), right=True,
                                                      side="left"),
    "searchsorted-shape": lambda t: t.searchsorted(t.tensor(A), t.tensor(A[:2])),
    "bucketize-2d": lambda t: t.bucketize(t.tensor(A), t.tensor(A)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_pytorch(name):
    assert_errors_match(ERRORS[name])
