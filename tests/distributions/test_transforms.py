"""Transforms, constraint_registry and TransformedDistribution against PyTorch: values of the
map, its inverse and log |det J| with their gradients, sign, domain, codomain, repr, equality,
caching, and the distributions PyTorch builds from transforms."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error


def _lib_of(lib):
    return lib.distributions.transforms


X = [0.3, -1.2, 2.0, 0.7, -0.4, 1.1]
TRANSFORMS = {
    "exp": (lambda T, t: T.ExpTransform(), X),
    "sigmoid": (lambda T, t: T.SigmoidTransform(), X),
    "softplus": (lambda T, t: T.SoftplusTransform(), X),
    "tanh": (lambda T, t: T.TanhTransform(), X),
    "power": (lambda T, t: T.PowerTransform(t([2.0, 0.5, 1.5, 3.0, -1.0, 2.5])),
              [abs(v) for v in X]),
    "affine": (lambda T, t: T.AffineTransform(t([1.0] * 6), t([2.0, -1.0, 0.5, 3.0, 1.0, -2.0])),
               X),
    "affine-numbers": (lambda T, t: T.AffineTransform(1.0, -3.0), X),
    "affine-event": (lambda T, t: T.AffineTransform(0.5, t([2.0, -1.0, 0.5, 3.0, 1.0, -2.0]),
                                                    event_dim=1), X),
    "exp-inverse": (lambda T, t: T.ExpTransform().inv, [abs(v) for v in X]),
    "compose": (lambda T, t: T.ComposeTransform([T.AffineTransform(0.0, 2.0),
                                                  T.SigmoidTransform()]), X),
    "independent": (lambda T, t: T.IndependentTransform(T.ExpTransform(), 1), X),
    "stick-breaking": (lambda T, t: T.StickBreakingTransform(), X),
    "corr-cholesky": (lambda T, t: T.CorrCholeskyTransform(), X),
    "cat": (lambda T, t: T.CatTransform([T.ExpTransform(), T.TanhTransform()], 0, [4, 2]), X),
    "stack": (lambda T, t: T.StackTransform([T.ExpTransform(), T.SigmoidTransform()], 0),
              [X[:3], X[3:]]),
    "reshape": (lambda T, t: T.ReshapeTransform((6,), (2, 3)), X),
}


def _run(lib, name):
    make, x_values = TRANSFORMS[name]
    params = []

    def t(values):
        params.append(lib.tensor(values, dtype=lib.float64, requires_grad=True))
        return params[-1]
    transform = make(_lib_of(lib), t)
    x = lib.tensor(x_values, dtype=lib.float64, requires_grad=True)
    y = transform(x)
    back = transform.inv(y.detach())
    ladj = transform.log_abs_det_jacobian(x, y)
    (y.sum() + back.sum() + ladj.sum()).backward()
    grads = [x.grad] + [p.grad for p in params]
    info = [repr(transform), repr(transform.domain), repr(transform.codomain),
            transform.bijective, transform == make(_lib_of(lib), lambda v: lib.tensor(
                v, dtype=lib.float64)), tuple(transform.forward_shape(tuple(x.shape)))]
    try:
        sign = transform.sign
        info.append(sign.detach().tolist() if hasattr(sign, "detach") else sign)
    except NotImplementedError:
        info.append("no sign")
    return [v.detach().numpy() for v in (y, back, ladj)] + \
        [g.numpy() for g in grads if g is not None], info


@pytest.mark.parametrize("name", TRANSFORMS)
def test_transform_values_gradients_and_attributes_match_torch(name):
    want, want_info = _run(torch, name)
    got, got_info = _run(gradjit, name)
    assert got_info == want_info
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_abs_transform_is_not_bijective_and_has_no_sign():
    for lib in (torch, gradjit):
        t = lib.distributions.transforms.AbsTransform()
        assert not t.bijective and repr(t) == "AbsTransform()"
        with pytest.raises(NotImplementedError):
            assert t.sign is None
        assert t.inv(t(lib.tensor([-2.0]))).tolist() == [2.0]


def test_cache_returns_the_input_object_and_identity():
    T = gradjit.distributions.transforms
    t = T.ExpTransform(cache_size=1)
    x = gradjit.tensor([0.5, 1.0])
    y = t(x)
    assert t.inv(y) is x and t(x) is y
    assert T.ExpTransform().inv(T.ExpTransform()(x)) is not x
    assert t.with_cache(0)._cache_size == 0 and t.inv.inv is t
    assert T.ExpTransform() == T.ExpTransform() and T.ExpTransform() != T.TanhTransform()
    assert T.identity_transform(x) is x
    assert repr(T.identity_transform) == repr(torch.distributions.transforms.identity_transform)
    same_error(lambda: T.ExpTransform(cache_size=2),
               lambda: torch.distributions.transforms.ExpTransform(cache_size=2))
    same_error(lambda: T.ReshapeTransform((2, 3), (5,)),
               lambda: torch.distributions.transforms.ReshapeTransform((2, 3), (5,)))
    same_error(lambda: T.CorrCholeskyTransform().event_dim,
               lambda: torch.distributions.transforms.CorrCholeskyTransform().event_dim)


def test_softmax_and_lower_cholesky_match_torch():
    got = []
    for lib in (torch, gradjit):
        T = lib.distributions.transforms
        x = lib.tensor([[0.3, -1.2, 2.0], [0.7, -0.4, 1.1], [0.2, 0.5, -0.9]],
                       dtype=lib.float64)
        lower = T.LowerCholeskyTransform()(x)
        got.append([T.SoftmaxTransform()(x), T.SoftmaxTransform().inv(x.exp()), lower,
                    T.LowerCholeskyTransform().inv(lower), T.PositiveDefiniteTransform()(x)])
    for g, w in zip(got[1], got[0]):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12)


CONSTRAINTS = ["real", "positive", "nonnegative", "unit_interval", "simplex", "real_vector",
               "corr_cholesky", "lower_cholesky", "positive_definite",
               lambda C: C.greater_than(2.0), lambda C: C.less_than(-1.0),
               lambda C: C.interval(-2.0, 3.0), lambda C: C.half_open_interval(0.0, 1.0),
               lambda C: C.independent(C.positive, 2), lambda C: C.boolean,
               lambda C: C.cat([C.positive, C.real], 0, [2, 1]),
               lambda C: C.stack([C.positive, C.unit_interval], 0)]


@pytest.mark.parametrize("index", range(len(CONSTRAINTS)))
def test_biject_to_and_transform_to_match_torch(index):
    entry = CONSTRAINTS[index]
    for registry in ("biject_to", "transform_to"):
        outcome = []
        for lib in (torch, gradjit):
            C = lib.distributions.constraints
            constraint = getattr(C, entry) if isinstance(entry, str) else entry(C)
            try:
                outcome.append(repr(getattr(lib.distributions.constraint_registry,
                                            registry)(constraint)))
            except NotImplementedError as e:
                outcome.append(str(e))
        assert outcome[1] == outcome[0]


def test_transform_to_values_lie_in_the_constraint():
    C = gradjit.distributions.constraints
    x = gradjit.tensor([0.3, -1.2, 2.0])
    for constraint in (C.positive, C.interval(-2.0, 3.0), C.simplex, C.greater_than(1.0)):
        transform = gradjit.distributions.transform_to(constraint)
        assert bool(constraint.check(transform(x)).all())
        np.testing.assert_allclose(gradjit.distributions.biject_to(constraint).inv(
            gradjit.distributions.biject_to(constraint)(x)).numpy(), x.numpy(), rtol=1e-5)
    with pytest.raises(TypeError, match="Expected constraint"):
        gradjit.distributions.biject_to.register(3, lambda c: None)


PUSHED = {
    "LogNormal": (lambda D, t: D.LogNormal(t([0.5, -1.0]), t([1.5, 0.3])), [0.4, 2.0]),
    "HalfNormal": (lambda D, t: D.HalfNormal(t([1.5, 0.3])), [0.4, 2.0]),
    "HalfCauchy": (lambda D, t: D.HalfCauchy(t([1.5, 0.3])), [0.4, 2.0]),
    "Gumbel": (lambda D, t: D.Gumbel(t([0.5, -1.0]), t([1.5, 0.3])), [0.4, 2.0]),
    "Weibull": (lambda D, t: D.Weibull(t([1.5, 0.3]), t([2.0, 0.7])), [0.4, 2.0]),
    "Pareto": (lambda D, t: D.Pareto(t([0.2, 0.3]), t([2.5, 3.5])), [0.4, 2.0]),
    "LogisticNormal": (lambda D, t: D.LogisticNormal(t([0.5, -1.0]), t([1.5, 0.3])),
                       [0.2, 0.5, 0.3]),
    "Transformed": (lambda D, t: D.TransformedDistribution(D.Normal(t([0.5, -1.0]),
                                                                    t([1.5, 0.3])),
                    [D.transforms.TanhTransform(), D.transforms.AffineTransform(1.0, -2.0)]),
                    [0.4, 2.0]),
}


def _pushed(lib, name):
    make, value = PUSHED[name]
    params = []

    def t(values):
        params.append(lib.tensor(values, dtype=lib.float64, requires_grad=True))
        return params[-1]
    d = make(lib.distributions, t)
    value = lib.tensor(value, dtype=lib.float64)
    out = [d.log_prob(value)]
    for method in ("cdf", "icdf", "entropy"):
        try:
            arg = () if method == "entropy" else (value.clamp(max=0.9),)
            out.append(getattr(d, method)(*arg))
        except NotImplementedError:
            pass
    for prop in ("mean", "mode", "variance"):
        try:
            out.append(getattr(d, prop))
        except NotImplementedError:
            pass
    finite = [o for o in out if bool(o.isfinite().all())]
    grads = lib.autograd.grad(sum(o.sum() for o in finite), params, allow_unused=True)
    lib.manual_seed(5)
    draws = d.rsample((3,)) if d.has_rsample else d.sample((3,))
    info = (repr(d), tuple(d.batch_shape), tuple(d.event_shape), repr(d.support),
            d.has_rsample, isinstance(d, lib.distributions.TransformedDistribution))
    return [o.detach().numpy() for o in out] + [g.numpy() for g in grads] + \
        [draws.detach().numpy()], info


@pytest.mark.parametrize("name", PUSHED)
def test_transformed_distributions_match_torch(name):
    want, want_info = _pushed(torch, name)
    got, got_info = _pushed(gradjit, name)
    assert got_info == want_info
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)


def test_transformed_distribution_errors_match_torch():
    for make in (lambda D: D.TransformedDistribution(D.Normal(0.0, 1.0), 3),
                 lambda D: D.TransformedDistribution(D.Normal(0.0, 1.0), [3]),
                 lambda D: D.TransformedDistribution(D.Normal(0.0, 1.0),
                                                     D.transforms.StickBreakingTransform()),
                 lambda D: D.Weibull(1.0, -1.0)):
        same_error(lambda: make(gradjit.distributions), lambda: make(torch.distributions))


def _errors(lib):
    D = lib.distributions
    C, T = D.constraints, D.transforms
    return {
        "unregistered": lambda: D.constraint_registry.biject_to(C.boolean),
        "register-non-constraint": lambda: D.constraint_registry.biject_to.register(3, len),
        "abstract-check": lambda: C.Constraint().check(lib.zeros(1)),
        "dependent-event-dim": lambda: C.dependent.event_dim,
        "dependent-is-discrete": lambda: C.dependent.is_discrete,
        "dependent-check": lambda: C.dependent.check(lib.zeros(1)),
        "independent-too-few-dims": lambda: C.independent(C.real, 2).check(lib.zeros(3)),
        "abstract-transform": lambda: T.Transform()(lib.zeros(1)),
        "reshape-mismatch": lambda: T.ReshapeTransform((6,), (2, 3)).forward_shape(
            lib.Size([5])),
        "reshape-too-few-dims": lambda: T.ReshapeTransform((2, 3), (6,)).forward_shape((3,)),
        "independent-transform-too-few-dims": lambda: T.IndependentTransform(
            T.ExpTransform(), 2)(lib.zeros(3)),
        "corr-cholesky-not-triangular": lambda: T.CorrCholeskyTransform().forward_shape((4,)),
        "corr-cholesky-not-square": lambda: T.CorrCholeskyTransform().inverse_shape((2, 3)),
        "stick-breaking-too-few-dims": lambda: T.StickBreakingTransform().forward_shape(()),
    }


@pytest.mark.parametrize("name", _errors(torch))
def test_errors_match_torch(name):
    same_error(_errors(gradjit)[name], _errors(torch)[name])


def test_a_distribution_without_a_moment_raises_as_pytorch():
    def make(lib):
        D = lib.distributions
        return D.TransformedDistribution(D.Normal(0.0, 1.0), D.transforms.ExpTransform())
    for moment in ("mean", "variance"):
        same_error(lambda: getattr(make(gradjit), moment), lambda: getattr(make(torch), moment))
    with pytest.raises(NotImplementedError,
                       match="transformed_distribution.TransformedDistribution'> does not "
                             "implement mode"):
        assert make(gradjit).mode is None


def test_expand_matches_torch():
    got = []
    for lib in (torch, gradjit):
        D = lib.distributions
        loc = lib.tensor([0.5, -1.0], dtype=lib.float64)
        dists = [D.Normal(loc, 2.0).expand((3, 2)),
                 D.Independent(D.Normal(loc, 2.0), 1).expand((4,)),
                 D.Gamma(loc.abs(), 1.0).expand((2, 2)),
                 D.LogisticNormal(lib.tensor(0.0), lib.tensor(1.0))]
        got.append([(tuple(d.batch_shape), tuple(d.event_shape),
                     d.log_prob(d.mean if i < 3 else lib.tensor([0.4, 0.6])).numpy())
                    for i, d in enumerate(dists)])
    for (gb, ge, gv), (wb, we, wv) in zip(got[1], got[0]):
        assert (gb, ge) == (wb, we)
        np.testing.assert_allclose(gv, wv, rtol=1e-6)
