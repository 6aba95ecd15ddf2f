"""The composite tensor operations against PyTorch 2.13 itself: bmm and the add*mm family,
matrix_exp, cdist, cosine_similarity, pairwise_distance, dist, cov, corrcoef, the trapezoid
rules, renorm, histc, bincount, isin, the constructors (range, logspace, tril/triu_indices,
cartesian_prod, combinations, block_diag, diagflat, vander, unravel_index) and frexp,
mvlgamma, clamp_min/max: values, dtypes, grad_fn names, gradients, exception types, and the
same functions traced by gradjit.grad."""
import math
import warnings

import numpy as np
import pytest

import gradjit
from tests.torch_reference import weighted_gradients

torch = pytest.importorskip("torch")

rng = np.random.default_rng(13)
pytestmark = pytest.mark.filterwarnings("ignore:torch.(chain_matmul|range) is deprecated")


def r(*shape):
    return rng.standard_normal(shape)


run = weighted_gradients


PROGRAMS = {
    "bmm": (lambda t, a, b: t.bmm(a, b), (2, 3, 4), (2, 4, 5)),
    "bmm method": (lambda t, a, b: a.bmm(b), (3, 1, 2), (3, 2, 2)),
    "addmm": (lambda t, c, a, b: t.addmm(c, a, b), (3, 5), (3, 4), (4, 5)),
    "addmm scaled": (lambda t, c, a, b: c.addmm(a, b, beta=0.5, alpha=-2), (5,), (3, 4), (4, 5)),
    "addmm beta 0": (lambda t, c, a, b: t.addmm(c, a, b, beta=0), (3, 1), (3, 4), (4, 5)),
    "addmv": (lambda t, c, a, v: t.addmv(c, a, v, alpha=3), (3,), (3, 4), (4,)),
    "addmv method": (lambda t, c, a, v: c.addmv(a, v, beta=2), (1,), (3, 4), (4,)),
    "addr": (lambda t, c, u, v: t.addr(c, u, v, beta=2, alpha=0.5), (3, 4), (3,), (4,)),
    "addbmm": (lambda t, c, a, b: t.addbmm(c, a, b, alpha=2), (3, 5), (2, 3, 4), (2, 4, 5)),
    "baddbmm": (lambda t, c, a, b: t.baddbmm(c, a, b, beta=-1), (2, 3, 5), (2, 3, 4),
                (2, 4, 5)),
    "baddbmm broadcast": (lambda t, c, a, b: c.baddbmm(a, b), (5,), (2, 3, 4), (2, 4, 5)),
    "chain_matmul": (lambda t, a, b: t.chain_matmul(a, b, b.T), (3, 4), (4, 5)),
    "matrix_power": (lambda t, a: t.matrix_power(a, 3), (3, 3)),
    "matrix_exp": (lambda t, a: t.matrix_exp(a), (3, 3)),
    "matrix_exp big": (lambda t, a: (a * 7).matrix_exp(), (2, 4, 4)),
    "linalg.matrix_exp": (lambda t, a: t.linalg.matrix_exp(a), (2, 2)),
    "mH": (lambda t, a: a.mH, (2, 3, 4)),
    "adjoint": (lambda t, a: t.adjoint(a), (3, 4)),
    "H": (lambda t, a: a.H, (3, 4)),
    "cdist": (lambda t, a, b: t.cdist(a, b), (5, 3), (4, 3)),
    "cdist 1": (lambda t, a, b: t.cdist(a, b, p=1), (2, 5, 3), (4, 3)),
    "cdist 3": (lambda t, a, b: t.cdist(a, b, 3.0), (5, 3), (1, 4, 3)),
    "cdist inf": (lambda t, a, b: t.cdist(a, b, math.inf), (5, 3), (4, 3)),
    "cdist 0": (lambda t, a, b: t.cdist(a, b, 0), (5, 3), (4, 3)),
    "cdist mm": (lambda t, a, b: t.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
                 (2, 1, 5, 3), (4, 4, 3)),
    "cdist mm rows": (lambda t, a, b: t.cdist(a, b), (30, 3), (2, 4, 3)),
    "cdist no mm": (lambda t, a, b: t.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"),
                    (30, 3), (4, 3)),
    "cosine_similarity": (lambda t, a, b: t.cosine_similarity(a, b), (4, 3), (4, 3)),
    "cosine_similarity dim": (lambda t, a, b: t.cosine_similarity(a, b, dim=-1), (2, 4, 3),
                              (4, 3)),
    "pairwise_distance": (lambda t, a, b: t.pairwise_distance(a, b), (4, 3), (4, 3)),
    "pairwise_distance 1": (lambda t, a, b: t.pairwise_distance(a, b, 1, keepdim=True),
                            (4, 3), (3,)),
    "dist": (lambda t, a, b: t.dist(a, b), (4, 3), (4, 3)),
    "dist 3": (lambda t, a, b: a.dist(b, 3), (4, 3), (3,)),
    "dist inf": (lambda t, a, b: a.dist(b, math.inf), (4, 3), (3,)),
    "cov": (lambda t, a: t.cov(a), (3, 6)),
    "cov vector": (lambda t, a: a.cov(correction=0), (6,)),
    "cov weights": (lambda t, a, w: t.cov(a, fweights=t.tensor([1, 2, 1, 3, 1]),
                                          aweights=w.abs()), (2, 5), (5,)),
    "cov fweights": (lambda t, a: t.cov(a, correction=2, fweights=t.tensor([1, 2, 1, 3, 1])),
                     (2, 5)),
    "cov aweights": (lambda t, a, w: t.cov(a, correction=0, aweights=w.abs()), (2, 5), (5,)),
    "corrcoef": (lambda t, a: t.corrcoef(a), (3, 6)),
    "corrcoef vector": (lambda t, a: a.corrcoef(), (6,)),
    "trapz": (lambda t, a: t.trapz(a), (3, 5)),
    "trapezoid dx": (lambda t, a: t.trapezoid(a, dx=0.5, dim=0), (3, 5)),
    "trapezoid x": (lambda t, a, x: t.trapezoid(a, x.cumsum(0)), (3, 5), (5,)),
    "trapezoid x 2d": (lambda t, a, x: t.trapezoid(a, x, dim=0), (3, 5), (3, 5)),
    "trapz number": (lambda t, a: t.trapz(a, dx=3), (4,)),
    "cumulative_trapezoid": (lambda t, a: t.cumulative_trapezoid(a), (3, 5)),
    "cumulative_trapezoid x": (lambda t, a, x: t.cumulative_trapezoid(a, x, dim=0), (3, 2),
                               (3,)),
    "renorm": (lambda t, a: t.renorm(a, 2, 0, 1.5), (4, 3)),
    "renorm dim": (lambda t, a: a.renorm(1, 1, 2.0), (4, 3, 2)),
    "diagflat": (lambda t, a: t.diagflat(a), (2, 2)),
    "diagflat offset": (lambda t, a: a.diagflat(-2), (3,)),
    "cartesian_prod": (lambda t, a, b, c: t.cartesian_prod(a, b, c), (2,), (3,), (2,)),
    "combinations": (lambda t, a: t.combinations(a), (4,)),
    "combinations r": (lambda t, a: t.combinations(a, 3, with_replacement=True), (3,)),
    "combinations none": (lambda t, a: t.combinations(a, 4), (3,)),
    "block_diag": (lambda t, a, b, c: t.block_diag(a, b, c), (2, 3), (4,), ()),
    "frexp": (lambda t, a: t.frexp(a * 100).mantissa, (5,)),
    "mvlgamma": (lambda t, a: t.mvlgamma(a.abs() + 2, 3), (5,)),
    "multigammaln": (lambda t, a: t.special.multigammaln(a.abs() + 1, 2), (5,)),
    "i0": (lambda t, a: t.i0(a * 5), (6,)),
    "i0 large": (lambda t, a: t.special.i0(a.abs() * 10 + 25), (6,)),
    "polygamma 0": (lambda t, a: t.polygamma(0, a.abs() + 0.5), (5,)),
    "polygamma 1": (lambda t, a: t.polygamma(1, a.abs() + 0.1), (5,)),
    "polygamma 3": (lambda t, a: (a.abs() * 3 + 0.05).polygamma(3), (5,)),
    "polygamma negative": (lambda t, a: t.special.polygamma(2, a * 0.05 + t.tensor(
        [-2.5, -0.3, -7.7, -1.5], dtype=a.dtype)), (4,)),
    "polygamma_ i0_": (lambda t, a: (a.abs() + 1).polygamma_(1).i0_(), (4,)),
    "clamp_min": (lambda t, a: t.clamp_min(a, 0.1), (5,)),
    "clamp_max tensor": (lambda t, a, b: a.clamp_max(b), (5,), (5,)),
    "absolute": (lambda t, a: t.absolute(a), (5,)),
    "negative": (lambda t, a: t.negative(a), (5,)),
    "addmm_": (lambda t, c, a, b: c.clone().addmm_(a, b, alpha=2), (3, 5), (3, 4), (4, 5)),
    "baddbmm_": (lambda t, c, a, b: c.clone().baddbmm_(a, b, beta=2), (2, 3, 5), (2, 3, 4),
                 (2, 4, 5)),
    "addmv_ addr_ addbmm_": (lambda t, c, a, v: (c.clone().addmv_(a, v).unsqueeze(1) * v)
                             .addr_(c, v).addbmm_(a.unsqueeze(0), (a.T @ a).unsqueeze(0)),
                             (3,), (3, 4), (4,)),
    "renorm_": (lambda t, a: (a * 1).renorm_(3, 1, 0.5), (3, 4)),
}


# PyTorch's trigamma is accurate to about 4e-10 (scipy's and gradjit's to 1e-15, below).
LOOSER = {"polygamma 1": 1e-9, "polygamma_ i0_": 1e-9}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_composite_matches_torch(name, dtype):
    fn, *shapes = PROGRAMS[name]
    arrays = [r(*shape) for shape in shapes]
    expected, expected_grads = run(torch, fn, arrays, dtype)
    got, grads = run(gradjit, fn, arrays, dtype)
    tol = LOOSER.get(name, 1e-10) if dtype == np.float64 else 2e-5
    assert str(got.dtype) == str(expected.dtype)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=tol,
                               atol=tol)
    name_of = (lambda t: t.grad_fn.name() if t.grad_fn is not None else None)
    assert name_of(got).replace("torch::autograd::", "") == \
        name_of(expected).replace("torch::autograd::", "")
    for g, e in zip(grads, expected_grads):
        assert (g is None) == (e is None)
        if e is not None:
            np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=10 * tol, atol=10 * tol)


VALUES = {
    "range": lambda t: t.range(0, 3),
    "range step": lambda t: t.range(3, 0, -0.5),
    "range fraction": lambda t: t.range(0, 1, 0.25),
    "range dtype": lambda t: t.range(1, 7, 2, dtype=t.int64),
    "logspace": lambda t: t.logspace(-1, 2, 4),
    "logspace base": lambda t: t.logspace(0, 2, 5, base=2, dtype=t.float64),
    "tril_indices": lambda t: t.tril_indices(3, 3),
    "tril_indices offset": lambda t: t.tril_indices(4, 3, -1),
    "triu_indices": lambda t: t.triu_indices(3, 4, 1, dtype=t.int32),
    "unravel_index": lambda t: t.stack(t.unravel_index(t.tensor([4, 5, -1]), (2, 3))),
    "unravel_index wraps": lambda t: t.stack(t.unravel_index(t.tensor([4, -5, -1]), (2, 2))),
    "unravel_index scalar": lambda t: t.stack(t.unravel_index(t.tensor(17), (3, 2, 4))),
    "frexp": lambda t: t.stack(t.frexp(t.tensor([0., 1., -3.5, 1e-40, math.inf, math.nan,
                                                 1024., 0.75, -0.5, 3e38]))),
    "frexp exponent": lambda t: t.frexp(t.tensor([1e-300, 5e300, 6.0], dtype=t.float64))[1],
    "cov integers": lambda t: t.cov(t.tensor([[1, 2, 4], [3, 1, 0]])),
    "cov one variable": lambda t: t.cov(t.tensor([[1., 2, 4]])),
    "histc": lambda t: t.histc(t.tensor([1., 2, 1, 4, 2.5]), bins=4),
    "histc range": lambda t: t.histc(t.tensor([1., 2, 1, 4, 2.5, -1, 9, 3]), 3, 0, 3),
    "histc constant": lambda t: t.tensor([2., 2]).histc(bins=4),
    "histc nan ignored": lambda t: t.histc(t.tensor([1., math.nan, 2., -math.inf]), 2, 0, 3),
    "histc empty": lambda t: t.histc(t.tensor([]), 3),
    "histc float64": lambda t: t.histc(t.tensor([0.1, 0.2, 0.9], dtype=t.float64), 5, 0, 1),
    "bincount": lambda t: t.bincount(t.tensor([1, 2, 2, 5]), minlength=8),
    "bincount weights": lambda t: t.tensor([1, 2, 2]).bincount(t.tensor([1., 2, 3])),
    "bincount float64": lambda t: t.bincount(t.tensor([1, 2, 2]),
                                             t.tensor([1., 2, 3], dtype=t.float64)),
    "bincount int weights": lambda t: t.bincount(t.tensor([1, 2, 2]), t.tensor([1, 2, 3])),
    "bincount empty": lambda t: t.bincount(t.tensor([], dtype=t.int64)),
    "isin": lambda t: t.isin(t.tensor([[1, 2], [3, 4]]), t.tensor([2, 3])),
    "isin invert": lambda t: t.isin(t.tensor([1., 2]), t.tensor([2.]), invert=True),
    "isin number": lambda t: t.isin(t.tensor([1, 2]), 2),
    "block_diag mixed": lambda t: t.block_diag(t.tensor([[1, 2]]), t.tensor([3.])),
    "block_diag integers": lambda t: t.block_diag(t.tensor([[1, 2]]), t.tensor([[3], [4]])),
    "vander integers": lambda t: t.vander(t.tensor([1, 2, 3]), 4),
    "combinations empty": lambda t: t.combinations(t.tensor([1., 2]), 0),
    "addmm integers float scales": lambda t: t.ones(2, 2, dtype=t.int64).addmm(
        t.ones(2, 2, dtype=t.int64), t.ones(2, 2, dtype=t.int64), beta=2.5, alpha=3.0),
    "block_diag of nothing": lambda t: t.block_diag(),
    "unravel_index int32": lambda t: t.stack(t.unravel_index(t.tensor([3], dtype=t.int32),
                                                             (2, 2))),
    "mvlgamma integers": lambda t: t.mvlgamma(t.tensor([3, 4]), 2),
    "nextafter": lambda t: t.nextafter(t.tensor([1., 0., -1., 2., math.inf, 3.]),
                                       t.tensor([2., -1., -2., 0., 0., 3.])),
    "nextafter float64": lambda t: t.tensor([1e-300, -0.5, 4.0], dtype=t.float64).nextafter(
        t.tensor([0., 1., 5.], dtype=t.float64)),
    "nextafter promotes": lambda t: t.nextafter(t.ones(2), t.zeros(2, dtype=t.float64)),
    "i0 integers": lambda t: t.i0(t.tensor([1, 2])),
    "polygamma integers": lambda t: t.polygamma(1, t.tensor([1, 2])),
    "clamp_min integers": lambda t: t.clamp_min(t.tensor([1, 2, 3]), 2),
    "addmm integers": lambda t: t.addmm(t.tensor([1, 2]), t.tensor([[1, 2], [3, 4]]),
                                        t.tensor([[5, 6], [7, 8]]), alpha=2),
}


def graph(fn):
    """The names of fn's grad_fn and of everything behind it, in next_functions order."""
    return None if fn is None else (fn.name().replace("torch::autograd::", ""),
                                    [graph(f) for f, _ in fn.next_functions])


# Written in PyTorch's order of Tensor operations, so their whole graphs are PyTorch's.
WHOLE_GRAPHS = ["cosine_similarity", "cosine_similarity dim", "pairwise_distance", "trapz",
                "trapezoid dx", "trapezoid x", "trapezoid x 2d", "cumulative_trapezoid",
                "cumulative_trapezoid x", "cov", "cov vector", "cov fweights", "corrcoef",
                "corrcoef vector", "diagflat",
                "diagflat offset", "addmv_ addr_ addbmm_", "block_diag", "cdist 0", "frexp"]


@pytest.mark.parametrize("name", WHOLE_GRAPHS)
def test_graph_is_pytorchs(name):
    fn, *shapes = PROGRAMS[name]
    arrays = [r(*shape) for shape in shapes]
    expected = fn(torch, *[torch.tensor(a, requires_grad=True) for a in arrays])
    got = fn(gradjit, *[gradjit.tensor(a, requires_grad=True) for a in arrays])
    assert graph(got.grad_fn) == graph(expected.grad_fn)


@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_match_torch(name):
    expected, got = VALUES[name](torch), VALUES[name](gradjit)
    assert str(got.dtype) == str(expected.dtype)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)
    assert got.requires_grad == expected.requires_grad


def test_results_print_as_torch_prints_them():
    for fn in (lambda t: t.frexp(t.tensor([1.5, -4.0])),
               lambda t: t.cartesian_prod(t.tensor([1., 2.], requires_grad=True)),
               lambda t: t.combinations(t.tensor([1., 2., 3.], requires_grad=True))):
        assert repr(fn(gradjit)) == repr(fn(torch))


def test_special_functions_match_scipy():
    """Values to double precision, and their gradients (i0' = i1, polygamma's the next)."""
    special = pytest.importorskip("scipy.special")
    x = np.concatenate([np.abs(r(20)) * 10 + 1e-3, [29.9, 30.0, 30.1, 200.0]])
    for n in (1, 2, 4):
        t = gradjit.tensor(x, requires_grad=True)
        y = gradjit.polygamma(n, t)
        y.sum().backward()
        np.testing.assert_allclose(y.detach().numpy(), special.polygamma(n, x), rtol=1e-14)
        np.testing.assert_allclose(t.grad.numpy(), special.polygamma(n + 1, x), rtol=1e-14)
    negative = np.array([-2.5, -0.3, -7.7, -100.25])
    np.testing.assert_allclose(gradjit.polygamma(1, gradjit.tensor(negative)).numpy(),
                               special.polygamma(1, negative), rtol=1e-13)
    x = np.concatenate([x, -x, [0.0, 700.0]])
    t = gradjit.tensor(x, requires_grad=True)
    y = gradjit.i0(t)
    y.sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), special.i0(x), rtol=1e-14)
    np.testing.assert_allclose(t.grad.numpy(), special.i1(x), rtol=1e-12, atol=1e-300)


def test_nextafter_matches_numpy():
    for dtype in (np.float32, np.float64):
        info = np.finfo(dtype)
        x = np.concatenate([r(30) * 10.0 ** rng.uniform(-40, 38, 30), [
            0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, info.max, -info.max, info.tiny,
            -info.tiny, info.smallest_subnormal, 3 * info.smallest_subnormal]]).astype(dtype)
        to = np.array([0.0, np.inf, -np.inf, 1.0, np.nan], dtype)
        xs, ys = np.repeat(x, len(to)), np.tile(to, len(x))
        with np.errstate(over="ignore"):
            expected = np.nextafter(xs, ys)
        got = gradjit.nextafter(gradjit.tensor(xs), gradjit.tensor(ys)).numpy()
        np.testing.assert_array_equal(got, expected)


def test_vander():
    """PyTorch's own vander fails its backward (it writes into a tensor it saved): values and
    grad_fn names against it, the gradient against the derivative of the powers."""
    x = r(4)
    for kwargs in ({}, {"N": 3, "increasing": True}):
        expected = torch.vander(torch.tensor(x, requires_grad=True), **kwargs)
        xs = gradjit.tensor(x, requires_grad=True)
        got = gradjit.vander(xs, **kwargs)
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-12)
        assert got.grad_fn.name() == expected.grad_fn.name()
        got.sum().backward()
        powers = np.arange(got.shape[1])[::1 if kwargs else -1]
        np.testing.assert_allclose(xs.grad.numpy(), (powers * x[:, None] ** np.maximum(
            powers - 1, 0)).sum(1), rtol=1e-12)


def test_out_argument_is_written():
    a, b = r(2, 3, 4), r(2, 4, 2)
    out = gradjit.empty(2, 3, 2, dtype=gradjit.float64)
    result = gradjit.bmm(gradjit.tensor(a), gradjit.tensor(b), out=out)
    assert result is out
    np.testing.assert_allclose(out.numpy(), a @ b)


def test_deprecated_functions_warn():
    """PyTorch warns once per process (so it is not asked here), with these messages."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradjit.range(0, 2)
        gradjit.chain_matmul(gradjit.ones(2, 2), gradjit.ones(2, 2))
    messages = [str(w.message) for w in caught if w.category is UserWarning]
    assert any("torch.range is deprecated" in m for m in messages)
    assert any("chain_matmul is deprecated" in m for m in messages)


ERRORS = {
    "cdist compute_mode": lambda t: t.cdist(t.ones(2, 3), t.ones(2, 3), compute_mode="mm"),
    "bmm 2d": lambda t: t.bmm(t.ones(2, 2), t.ones(2, 2)),
    "bmm batch": lambda t: t.bmm(t.ones(2, 2, 3), t.ones(3, 3, 2)),
    "bmm dtype": lambda t: t.bmm(t.ones(2, 2, 3), t.ones(2, 3, 2, dtype=t.float64)),
    "addmm shapes": lambda t: t.addmm(t.ones(2, 2), t.ones(2, 3), t.ones(2, 2)),
    "addmm input": lambda t: t.addmm(t.ones(3, 3), t.ones(2, 3), t.ones(3, 2)),
    "addmv vector": lambda t: t.addmv(t.ones(2), t.ones(2, 3), t.ones(2)),
    "addr matrix": lambda t: t.addr(t.ones(2, 2), t.ones(2, 1), t.ones(2)),
    "baddbmm input": lambda t: t.baddbmm(t.ones(3, 3), t.ones(2, 2, 3), t.ones(2, 3, 2)),
    "matrix_exp square": lambda t: t.matrix_exp(t.ones(2, 3)),
    "matrix_exp integers": lambda t: t.matrix_exp(t.ones(2, 2, dtype=t.int64)),
    "H 3d": lambda t: t.ones(2, 2, 2).H,
    "cdist 1d": lambda t: t.cdist(t.ones(3), t.ones(2, 3)),
    "cdist columns": lambda t: t.cdist(t.ones(2, 3), t.ones(2, 4)),
    "cdist negative p": lambda t: t.cdist(t.ones(2, 3), t.ones(2, 3), -1),
    "cdist integers": lambda t: t.cdist(t.ones(2, 3, dtype=t.int64),
                                        t.ones(2, 3, dtype=t.int64)),
    "cov 3d": lambda t: t.cov(t.ones(2, 2, 2)),
    "cov fweights float": lambda t: t.cov(t.ones(2, 3), fweights=t.ones(3)),
    "cov weights size": lambda t: t.cov(t.ones(2, 3), aweights=t.ones(4)),
    "renorm 1d": lambda t: t.renorm(t.ones(3), 2, 0, 1.0),
    "histc integers": lambda t: t.histc(t.tensor([1, 2])),
    "histc bins": lambda t: t.histc(t.tensor([1., 2.]), bins=0),
    "histc range": lambda t: t.histc(t.tensor([1., 2.]), min=3, max=1),
    "bincount negative": lambda t: t.bincount(t.tensor([1, -1])),
    "bincount float": lambda t: t.bincount(t.tensor([1., 2.])),
    "bincount 2d": lambda t: t.bincount(t.tensor([[1, 2]])),
    "bincount weights": lambda t: t.bincount(t.tensor([1, 2]), t.ones(3)),
    "frexp integers": lambda t: t.frexp(t.tensor([1, 2])),
    "unravel_index float": lambda t: t.unravel_index(t.tensor([1.0]), (2, 2)),
    "unravel_index negative shape": lambda t: t.unravel_index(t.tensor([0]), (2, -1)),
    "cartesian_prod 2d": lambda t: t.cartesian_prod(t.ones(2, 2)),
    "combinations 2d": lambda t: t.combinations(t.ones(2, 2)),
    "combinations r": lambda t: t.combinations(t.ones(3), -1),
    "block_diag 3d": lambda t: t.block_diag(t.ones(2, 2, 2)),
    "vander 2d": lambda t: t.vander(t.ones(2, 2)),
    "vander N": lambda t: t.vander(t.ones(2), -1),
    "range step": lambda t: t.range(0, 3, 0),
    "range sign": lambda t: t.range(0, 3, -1),
    "logspace steps": lambda t: t.logspace(0, 1, -1),
    "polygamma n": lambda t: t.polygamma(-1, t.ones(2)),
    "nextafter integers": lambda t: t.nextafter(t.ones(2, dtype=t.int64), t.ones(2,
                                                                                dtype=t.int64)),
    "nextafter number": lambda t: t.nextafter(t.ones(2), 2.0),
    "addr float alpha": lambda t: t.addr(t.ones(2, 2, dtype=t.int64), t.ones(2, dtype=t.int64),
                                         t.ones(2, dtype=t.int64), alpha=0.5),
    "cosine_similarity integers": lambda t: t.cosine_similarity(t.ones(2, 2, dtype=t.int64),
                                                                t.ones(2, 2, dtype=t.int64)),
    "cartesian_prod dtypes": lambda t: t.cartesian_prod(t.tensor([1]), t.tensor([1.0])),
    "mH 1d": lambda t: t.ones(2).mH,
    "adjoint 1d": lambda t: t.ones(2).adjoint(),
    "matrix_exp 0d": lambda t: t.matrix_exp(t.tensor(1.0)),
    "dist integers": lambda t: t.dist(t.tensor([1, 2]), t.tensor([2, 2])),
    "renorm integers": lambda t: t.renorm(t.ones(2, 2, dtype=t.int64), 2, 0, 1),
    "histc nan": lambda t: t.histc(t.tensor([1.0, math.nan])),
    "histc infinite range": lambda t: t.histc(t.tensor([1.0, 2.0]), 2, 0, math.inf),
    "range one bound": lambda t: t.range(5),
    "tril_indices row": lambda t: t.tril_indices(-1, 3),
    "triu_indices col": lambda t: t.triu_indices(3, -2),
    "chain_matmul 1d": lambda t: t.chain_matmul(t.ones(2, 2), t.ones(2)),
    "trapezoid x and dx": lambda t: t.trapezoid(t.ones(3), t.ones(3), dx=2),
    "trapezoid x size": lambda t: t.trapezoid(t.ones(3), t.ones(4)),
    "cov aweights 2d": lambda t: t.cov(t.ones(2, 3), aweights=t.ones(1, 3)),
    "bincount minlength": lambda t: t.bincount(t.tensor([1]), minlength=-1),
    "mvlgamma p": lambda t: t.mvlgamma(t.ones(2) * 3, 0),
    "renorm p": lambda t: t.renorm(t.ones(2, 2), -1, 0, 1.0),
    "addmv dims": lambda t: t.addmv(t.ones(2), t.ones(2, 3, 1), t.ones(3)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_same_exception_type(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as expected:
            ERRORS[name](torch)
        with pytest.raises(expected.type):
            ERRORS[name](gradjit)


TRACED = {
    "addmm": (lambda t, c, a, b: t.addmm(c, a, b, beta=0.5, alpha=2).tanh().sum(),
              (3, 5), (3, 4), (4, 5)),
    "baddbmm": (lambda t, c, a, b: c.baddbmm(a, b).sin().sum(), (2, 3, 5), (2, 3, 4),
                (2, 4, 5)),
    "matrix_exp": (lambda t, a: t.matrix_exp(a).sum(), (2, 3, 3)),
    "cdist": (lambda t, a, b: t.cdist(a, b).sum() + t.cosine_similarity(a, b[:5]).sum(),
              (5, 3), (6, 3)),
    "cdist mm": (lambda t, a, b: t.cdist(a, b, compute_mode="use_mm_for_euclid_dist").sum(),
                 (2, 5, 3), (6, 3)),
    "cov corrcoef": (lambda t, a: t.cov(a).sum() + t.corrcoef(a).square().sum(), (3, 6)),
    "trapezoid renorm": (lambda t, a, x: t.trapezoid(a, x.cumsum(0)).sum()
                         + a.renorm(2, 0, 1.0).sum() + t.dist(a, a.flip(0)), (3, 5), (5,)),
    "special functions": (lambda t, a: t.polygamma(2, a.abs() + 0.5).sum()
                          + t.i0(a * 3).sum() + t.mvlgamma(a.abs() + 2, 2).sum(), (6,)),
    "products": (lambda t, a, u, b: t.addr(a, u[:4], u[1:], alpha=2).sum()
                 + a[0].addmv(b[0], u[:4]).sum() + t.addbmm(a, b, b.transpose(1, 2)).sum()
                 + t.bmm(b, b.transpose(1, 2)).square().sum(), (4, 4), (5,), (3, 4, 4)),
    "constructors": (lambda t, a: t.combinations(a).prod(1).sum() + t.cartesian_prod(a, a[:2])
                     .square().sum() + t.diagflat(a).exp().sum()
                     + t.cumulative_trapezoid(a).sum() + t.pairwise_distance(a, a.flip(0)).sum(),
                     (4,)),
    "block_diag frexp": (lambda t, a: t.block_diag(a, a.T).exp().sum()
                         + t.frexp(a).mantissa.sum(), (2, 3)),
}


@pytest.mark.parametrize("name", sorted(TRACED))
def test_gradients_under_gradjit_grad_match_torch(name):
    """The same code traced: gradjit.grad's gradients are PyTorch's backward()."""
    fn, *shapes = TRACED[name]
    arrays = [r(*shape) for shape in shapes]
    xs = [torch.tensor(a, requires_grad=True) for a in arrays]
    fn(torch, *xs).backward()
    argnums = tuple(range(len(arrays)))
    grads = gradjit.grad(lambda *a: fn(gradjit, *a), argnums=argnums)(
        *[gradjit.tensor(a) for a in arrays])
    for g, x in zip(grads, xs):
        np.testing.assert_allclose(np.asarray(g), x.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_histc_and_isin_trace():
    """histc and isin are compositions of comparisons: they run under jit."""
    x = r(20)
    got = gradjit.jit(lambda a: gradjit.histc(a, 5, -1, 1) + gradjit.isin(a, a[:3]).sum())(
        gradjit.tensor(x))
    t = torch.tensor(x)
    np.testing.assert_allclose(np.asarray(got), (torch.histc(t, 5, -1, 1)
                                                 + torch.isin(t, t[:3]).sum()).numpy())
