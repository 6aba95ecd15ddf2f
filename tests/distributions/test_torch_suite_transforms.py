"""PyTorch's transforms and constraint-registry suites, side by side with torch: constraint
checks on matrices, biject_to and transform_to of each constraint (values, inverses,
log-det-Jacobians), each transform and its inverse (values, shapes, Jacobians, caching,
equality, reprs), and the shapes of distributions pushed through them."""
import numpy as np
import pytest
import torch

import gradjit
from tests.distributions.test_torch_suite_generic import outcome

MATRICES = [
    ("symmetric", [[2.0, 0], [2.0, 2]]), ("positive_semidefinite", [[2.0, 0], [2.0, 2]]),
    ("positive_definite", [[2.0, 0], [2.0, 2]]), ("symmetric", [[3.0, -5], [-5.0, 3]]),
    ("positive_semidefinite", [[3.0, -5], [-5.0, 3]]),
    ("positive_definite", [[3.0, -5], [-5.0, 3]]), ("symmetric", [[1.0, 2], [2.0, 4]]),
    ("positive_semidefinite", [[1.0, 2], [2.0, 4]]), ("positive_definite", [[1.0, 2], [2.0, 4]]),
] + [(kind, value) for value in ([[[1.0, -2], [-2.0, 1]], [[2.0, 3], [3.0, 2]]],
                                 [[[1.0, -2], [-2.0, 4]], [[1.0, -1], [-1.0, 1]]],
                                 [[[4.0, 2], [2.0, 4]], [[3.0, -1], [-1.0, 3]]])
     for kind in ("symmetric", "positive_semidefinite", "positive_definite")]


@pytest.mark.parametrize("kind,value", MATRICES)
def test_matrix_constraints_as_pytorch(kind, value):
    def check(lib):
        return getattr(lib.distributions.constraints, kind).check(
            lib.tensor(value, dtype=lib.float64)).numpy()
    np.testing.assert_array_equal(check(gradjit), check(torch))


CONSTRAINTS = [
    ("real",), ("real_vector",), ("positive",), ("greater_than", [-10.0, -2, 0, 2, 10]),
    ("greater_than", 0), ("greater_than", 2), ("greater_than", -2), ("greater_than_eq", 0),
    ("greater_than_eq", 2), ("greater_than_eq", -2), ("less_than", [-10.0, -2, 0, 2, 10]),
    ("less_than", 0), ("less_than", 2), ("less_than", -2), ("unit_interval",),
    ("interval", [-4.0, -2, 0, 2, 4], [-3.0, 3, 1, 5, 5]), ("interval", -2, -1),
    ("interval", 1, 2), ("half_open_interval", [-4.0, -2, 0, 2, 4], [-3.0, 3, 1, 5, 5]),
    ("half_open_interval", -2, -1), ("half_open_interval", 1, 2), ("simplex",),
    ("corr_cholesky",), ("lower_cholesky",), ("positive_definite",),
]


def _constraint(lib, row):
    made = getattr(lib.distributions.constraints, row[0])
    args = [lib.tensor(a, dtype=lib.float64) if isinstance(a, list) else a for a in row[1:]]
    return made(*args) if args else made


def _registry(lib, row, registry):
    constraint = _constraint(lib, row)
    try:
        t = getattr(lib.distributions, registry)(constraint)
    except NotImplementedError as e:
        return [("NotImplementedError", str(e))]
    size = 6 if row[0] == "corr_cholesky" else 5
    x = lib.tensor(np.random.RandomState(0).randn(size, size))
    y = t(x)
    return [t.bijective, bool(constraint.check(y).all()), y, t.inv(y), t(t.inv(y)),
            outcome(lambda: t.log_abs_det_jacobian(x, y)), repr(t)]


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("row", CONSTRAINTS, ids=[str(r) for r in CONSTRAINTS])
def test_constraint_registry_as_pytorch(row, registry):
    for g, t in zip(_registry(gradjit, row, registry), _registry(torch, row, registry)):
        if hasattr(t, "shape"):
            assert tuple(g.shape) == tuple(t.shape)
            np.testing.assert_allclose(g.detach().numpy(), t.detach().numpy(), rtol=1e-6,
                                       atol=1e-8)
        else:
            assert g == t


def _transforms(lib, cache_size):
    T, rng = lib.distributions.transforms, np.random.RandomState(2)

    def t(*shape):
        return lib.tensor(np.asarray(rng.randn(*shape), dtype=np.float32))
    made = [
        T.AbsTransform(cache_size=cache_size), T.ExpTransform(cache_size=cache_size),
        T.PowerTransform(exponent=2, cache_size=cache_size),
        T.PowerTransform(exponent=t(), cache_size=cache_size),
        T.SigmoidTransform(cache_size=cache_size), T.TanhTransform(cache_size=cache_size),
        T.AffineTransform(0, 1, cache_size=cache_size),
        T.AffineTransform(1, -2, cache_size=cache_size),
        T.AffineTransform(t(5), t(5), cache_size=cache_size),
        T.AffineTransform(t(4, 5), t(4, 5), cache_size=cache_size),
        T.SoftmaxTransform(cache_size=cache_size), T.SoftplusTransform(cache_size=cache_size),
        T.StickBreakingTransform(cache_size=cache_size),
        T.LowerCholeskyTransform(cache_size=cache_size),
        T.CorrCholeskyTransform(cache_size=cache_size),
        T.ComposeTransform([T.AffineTransform(t(4, 5), t(4, 5), cache_size=cache_size),
                            T.ExpTransform(cache_size=cache_size)]),
        T.ComposeTransform([T.AffineTransform(0, 1, cache_size=cache_size),
                            T.AffineTransform(t(4, 5), t(4, 5), cache_size=cache_size),
                            T.AffineTransform(1, -2, cache_size=cache_size)]),
        T.ReshapeTransform((4, 5), (2, 5, 2)),
        T.IndependentTransform(T.AffineTransform(t(5), t(5), cache_size=cache_size), 1),
    ]
    return made + [m.inv for m in made]


def _data(lib, transform):
    """A value in the transform's domain, the same in both libraries."""
    C, rng = lib.distributions.constraints, np.random.RandomState(1)
    while isinstance(transform, lib.distributions.transforms.IndependentTransform):
        transform = transform.base_transform
    T = lib.distributions.transforms
    if isinstance(transform, T.ReshapeTransform):
        return lib.tensor(rng.randn(*transform.in_shape).astype(np.float32))
    if isinstance(transform.inv, T.ReshapeTransform):
        return lib.tensor(rng.randn(*transform.inv.out_shape).astype(np.float32))
    domain = transform.domain
    while isinstance(domain, C.independent) and domain is not C.real_vector:
        domain = domain.base_constraint
    if C.lower_cholesky in (domain, transform.codomain):
        x = rng.randn(6, 6)
    elif domain is C.real:
        x = rng.randn(4, 5)
    elif domain is C.real_vector:
        x = rng.randn(3, 6)
    elif domain is C.positive:
        x = np.exp(rng.randn(4, 5))
    elif domain is C.unit_interval:
        x = rng.uniform(size=(4, 5))
    elif isinstance(domain, C.interval):
        x = rng.uniform(size=(4, 5)) * (domain.upper_bound - domain.lower_bound) + \
            domain.lower_bound
    elif domain is C.simplex:
        x = np.exp(rng.randn(4, 5))
        x /= x.sum(-1, keepdims=True)
    else:
        assert domain is C.corr_cholesky
        x = np.tril(rng.randn(4, 5, 5))
        x /= np.linalg.norm(x, axis=-1, keepdims=True)
        idx = np.arange(5)
        x[..., idx, idx] = np.abs(x[..., idx, idx])
    return lib.tensor(np.asarray(x, dtype=np.float32))


N = len(_transforms(torch, 0))


def _results(lib, i, cache_size):
    transform = _transforms(lib, cache_size)[i]
    x = _data(lib, transform)
    y = transform(x)
    x2 = outcome(lambda: transform.inv(y.clone()))  # bypassing the cache
    return [repr(transform), transform.bijective, outcome(lambda: transform.event_dim),
            transform.inv.inv is transform, transform == transform.inv.inv,
            tuple(transform.forward_shape(tuple(x.shape))),
            tuple(transform.inverse_shape(tuple(y.shape))), y, x2,
            outcome(lambda: transform(x2)), outcome(lambda: transform.log_abs_det_jacobian(x, y))]


@pytest.mark.parametrize("cache_size", [0, 1])
@pytest.mark.parametrize("i", range(N), ids=[repr(t) for t in _transforms(torch, 0)])
def test_transform_as_pytorch(i, cache_size):
    for g, t in zip(_results(gradjit, i, cache_size), _results(torch, i, cache_size)):
        if hasattr(t, "shape") and not isinstance(t, tuple):
            assert tuple(g.shape) == tuple(t.shape)
            np.testing.assert_allclose(g.detach().numpy(), t.detach().numpy(), rtol=1e-5,
                                       atol=1e-5, equal_nan=True)
        else:
            assert g == t


@pytest.mark.parametrize("i", range(N), ids=[repr(t) for t in _transforms(torch, 0)])
def test_cached_transform_returns_its_last_result(i):
    transform = _transforms(gradjit, 1)[i]
    transform = transform if transform._cache_size else transform.with_cache(1)
    x = _data(gradjit, transform).requires_grad_()
    y = transform(x)
    assert transform(x) is y
    assert transform.inv(y) is x


def test_transforms_are_equal_only_to_themselves():
    made = _transforms(gradjit, 0)
    for a in made:
        for b in made:
            assert (a == b) == (a is b)


SHAPES = [((4, 4), (), "n0", []), ((4,), (4,), "d1", []), ((4, 4), (), "n0", [0]),
          ((4,), (4,), "n0", [1]), ((4,), (4,), "n0", [0, 1]), ((), (4, 4), "n0", [0, 2]),
          ((4,), (4,), "n0", [1, 0]), ((), (4, 4), "n0", [1, 2]), ((), (4, 4), "n0", [2, 0]),
          ((), (4, 4), "n0", [2, 1]), ((4,), (4,), "d1", [0]), ((4,), (4,), "d1", [1]),
          ((), (4, 4), "d1", [2]), ((4,), (4,), "d1", [0, 1]), ((), (4, 4), "d1", [0, 2]),
          ((4,), (4,), "d1", [1, 0]), ((), (4, 4), "d1", [1, 2]), ((), (4, 4), "d1", [2, 0]),
          ((), (4, 4), "d1", [2, 1]), ((3, 4, 4), (), "n2", []), ((3,), (4, 4), "n2", [2]),
          ((3,), (4, 4), "n2", [0, 2]), ((3,), (4, 4), "n2", [1, 2]),
          ((3,), (4, 4), "n2", [2, 0]), ((3,), (4, 4), "n2", [2, 1])]


def _pushed(lib, base, parts):
    D, T = lib.distributions, lib.distributions.transforms
    bases = {"n0": lambda: D.Normal(lib.zeros(4, 4), lib.ones(4, 4)),
             "d1": lambda: D.Dirichlet(lib.ones(4, 4)),
             "n2": lambda: D.Normal(lib.zeros(3, 4, 4), lib.ones(3, 4, 4))}
    pieces = [T.ExpTransform(), T.SoftmaxTransform(), T.LowerCholeskyTransform()]
    return D.TransformedDistribution(bases[base](), [pieces[p] for p in parts]) if parts \
        else bases[base]()


@pytest.mark.parametrize("batch,event,base,parts", SHAPES)
def test_transformed_distribution_shapes_as_pytorch(batch, event, base, parts):
    g, t = _pushed(gradjit, base, parts), _pushed(torch, base, parts)
    assert (tuple(g.batch_shape), tuple(g.event_shape)) == (batch, event) == (
        tuple(t.batch_shape), tuple(t.event_shape))
    torch.manual_seed(0)
    x = t.rsample()
    expected = outcome(lambda: t.log_prob(x))
    found = outcome(lambda: g.log_prob(gradjit.tensor(x.detach().numpy())))
    if isinstance(expected, tuple):
        assert found == expected
    else:
        np.testing.assert_allclose(found.detach().numpy(), expected.detach().numpy(),
                                   rtol=1e-4, atol=1e-4)
