"""PyTorch's distributions suite's generic checks, run over its own parameter sets with torch
and gradjit side by side: shapes, supports, flags and reprs; moments, entropy, log_prob, cdf
and icdf with their gradients; expand; enumerate_support; sample shapes and seeded draws;
the errors of invalid parameters."""
import numpy as np
import pytest
import torch

import gradjit
from tests.distributions.torch_suite_examples import (BAD_EXAMPLES, EXAMPLES, build, cases,
                                                      detached)
from tests.torch_reference import message

CASES = cases(EXAMPLES)

IDS = [c[0] for c in CASES]


def both(name, spec):
    return build(torch, spec_of(name, spec)), build(gradjit, spec_of(name, spec))


def spec_of(name, spec):
    from tests.distributions.torch_suite_examples import D
    return D(name, **spec)


def outcome(fn):
    """fn()'s value, or the type and message of what it raised (a class named in it by its
    library's spelling of the module)."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the comparison is the test
        return type(e).__name__, message(e).replace("<class 'gradjit.", "<class 'torch.")


def numpy(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def assert_same(g, t, rtol=1e-5, atol=1e-6):
    if isinstance(t, tuple) and isinstance(t[0], str):  # an error
        assert g == t
        return
    assert tuple(g.shape) == tuple(t.shape)
    assert str(g.dtype) == str(t.dtype)
    np.testing.assert_allclose(numpy(g), numpy(t), rtol=rtol, atol=atol, equal_nan=True)


def grads(out, leaves, lib):
    """The gradients of the sum of out's finite entries, or the error computing them raised."""
    finite = lib.where(lib.isfinite(out), out, lib.zeros_like(out))
    if not finite.requires_grad:
        return []
    found = outcome(lambda: lib.autograd.grad(finite.sum(), leaves, allow_unused=True,
                                              retain_graph=True))
    return found if isinstance(found[0], str) else [g if g is None else numpy(g)
                                                    for g in found]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_shapes_support_flags_and_repr(case):
    _, name, spec = case
    t, g = both(name, spec)
    assert tuple(g.batch_shape) == tuple(t.batch_shape)
    assert tuple(g.event_shape) == tuple(t.event_shape)
    assert g.support.event_dim == t.support.event_dim == len(t.event_shape)
    assert g.support.is_discrete == t.support.is_discrete
    assert type(g.support).__name__ == type(t.support).__name__
    assert (g.has_rsample, g.has_enumerate_support) == (t.has_rsample, t.has_enumerate_support)
    assert repr(g) == repr(t)
    for attr in ("event_dim", "is_discrete"):
        assert outcome(lambda: getattr(type(g).support, attr)) == outcome(
            lambda: getattr(type(t).support, attr))


def leaves(name, spec):
    """The two distributions and the leaves requiring grad they were built from."""
    tl, gl = [], []
    return build(torch, spec_of(name, spec), tl), build(gradjit, spec_of(name, spec), gl), tl, gl


def assert_same_with_grads(t_fn, g_fn, t_leaves, g_leaves, rtol=1e-5, atol=1e-6,
                           grad_rtol=1e-4):
    t_out, g_out = outcome(t_fn), outcome(g_fn)
    assert_same(g_out, t_out, rtol, atol)
    if isinstance(t_out, tuple) or not t_out.requires_grad:
        return
    g_grads, t_grads = grads(g_out, g_leaves, gradjit), grads(t_out, t_leaves, torch)
    if t_grads and isinstance(t_grads[0], str):
        assert g_grads == t_grads
        return
    masked = not bool(torch.isfinite(t_out).all())
    for a, b in zip(g_grads, t_grads):
        assert (a is None) == (b is None)
        if b is not None and masked:
            # The zero cotangent of a masked infinite entry times its infinite derivative:
            # NaN in PyTorch, 0 in gradjit, whose autodiff takes a zero cotangent as no
            # gradient (so an untaken `where` branch cannot poison one).
            either = np.isnan(b) & ((a == 0) | np.isnan(a))
            a, b = np.where(either, 0, a), np.where(either, 0, b)
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=grad_rtol, atol=1e-5, equal_nan=True)


@pytest.mark.parametrize("what", ["mean", "variance", "stddev", "mode", "entropy"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_moments_and_entropy(case, what):
    _, name, spec = case
    t, g, tl, gl = leaves(name, spec)
    pick = (lambda d: d.entropy()) if what == "entropy" else (lambda d: getattr(d, what))
    assert_same_with_grads(lambda: pick(t), lambda: pick(g), tl, gl)


def common_value(t, g):
    """A value in the support: torch's seeded draw, as a tensor of each library."""
    torch.manual_seed(0)
    value = t.sample((3,))
    return value, gradjit.tensor(value.numpy())


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_log_prob_values_and_gradients(case):
    _, name, spec = case
    t, g, tl, gl = leaves(name, spec)
    tv, gv = common_value(t, g)
    assert_same_with_grads(lambda: t.log_prob(tv), lambda: g.log_prob(gv), tl, gl,
                           rtol=1e-4, atol=1e-4, grad_rtol=1e-3)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_cdf_and_icdf(case):
    _, name, spec = case
    t, g, tl, gl = leaves(name, spec)
    tv, gv = common_value(t, g)
    assert_same_with_grads(lambda: t.cdf(tv), lambda: g.cdf(gv), tl, gl, 1e-4, 1e-5)
    tq = outcome(lambda: t.cdf(tv))
    if isinstance(tq, tuple):
        return
    q = tq.detach().clamp(0.01, 0.99)
    gq = gradjit.tensor(q.numpy())
    assert_same_with_grads(lambda: t.icdf(q), lambda: g.icdf(gq), tl, gl, 1e-4, 1e-4)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_expand(case):
    _, name, spec = case
    t, g = both(name, spec)
    tv, gv = common_value(t, g)
    for shape in [(), (2,), (2, 1)]:
        full = shape + tuple(g.batch_shape)
        te, ge = t.expand(list(full)), g.expand(list(full))
        assert type(ge) is type(g)
        assert tuple(ge.batch_shape) == full
        assert tuple(ge.sample().shape) == tuple(te.sample().shape)
        assert_same(ge.log_prob(gv[0]), te.log_prob(tv[0]), 1e-4, 1e-4)
        for what in ("mean", "variance"):
            assert_same(outcome(lambda: getattr(ge, what)), outcome(lambda: getattr(te, what)))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_subclass_expand(case):
    _, name, spec = case
    sub = type("SubClass", (getattr(gradjit.distributions, name),), {})
    g = build(gradjit, spec_of(name, spec))
    g = sub.__new__(sub)
    sub.__init__(g, **{k: build(gradjit, v) for k, v in spec.items()})
    expanded = g.expand((2,) + tuple(g.batch_shape))
    assert type(expanded) is sub
    sample = expanded.sample()
    assert tuple(sample.shape) == (2,) + tuple(g.batch_shape) + tuple(g.event_shape)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_enumerate_support(case):
    _, name, spec = case
    t, g = both(name, spec)
    for expand in (False, True):
        assert_same(outcome(lambda: g.enumerate_support(expand)),
                    outcome(lambda: t.enumerate_support(expand)))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_sample_shapes_and_detachment(case):
    _, name, spec = case
    t, g = both(name, spec)
    for shape in [(), (4,), (2, 3)]:
        ts, gs = t.sample(shape), g.sample(shape)
        assert tuple(gs.shape) == tuple(ts.shape)
        assert str(gs.dtype) == str(ts.dtype)
        assert not gs.requires_grad
    if t.has_rsample:
        assert g.rsample().requires_grad == t.rsample().requires_grad
    else:
        assert outcome(g.rsample) == outcome(t.rsample)


BAD = cases(BAD_EXAMPLES)


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_invalid_parameters_raise_as_pytorch(case, set_default_dtype):
    _, name, spec = case
    checked = dict(spec, validate_args=True)
    # in double, as PyTorch's suite: probs=1.00000001 is 1 in single precision
    set_default_dtype(torch.float64)
    expected = outcome(lambda: build(torch, spec_of(name, checked)))
    assert isinstance(expected, tuple)
    assert outcome(lambda: build(gradjit, spec_of(name, checked))) == expected


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_icdf_inverts_cdf_and_cdf_differentiates_to_the_density(case, set_default_dtype):
    _, name, spec = case
    set_default_dtype(torch.float64)
    t, g = both(name, detached(spec))  # the derivative in x only, as PyTorch's suite
    gradjit.manual_seed(0)
    samples = g.sample((20,))
    found = outcome(lambda: g.icdf(g.cdf(samples)))
    assert isinstance(found, tuple) == isinstance(
        outcome(lambda: t.icdf(t.cdf(t.sample((20,))))), tuple)
    if not isinstance(found, tuple):
        error = (found - samples).abs() / (1e-10 + samples.abs())
        assert float(error.max()) < 1e-4
    x = g.sample()
    if not g.support.is_discrete:
        x = x.detach().requires_grad_()
    cdf = outcome(lambda: g.cdf(x))
    if isinstance(cdf, tuple) or not cdf.requires_grad:
        return
    (slope,) = gradjit.autograd.grad(cdf.sum(), [x])
    np.testing.assert_allclose(slope.numpy(), g.log_prob(x).exp().detach().numpy(),
                               rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_independent_over_every_example(case):
    _, name, spec = case
    t, g = both(name, spec)
    torch.manual_seed(0)
    tx = t.sample()
    gx = gradjit.tensor(tx.numpy())
    for n in range(len(t.batch_shape) + 1):
        ti, gi = torch.distributions.Independent(t, n), gradjit.distributions.Independent(g, n)
        assert_same(gi.log_prob(gx), ti.log_prob(tx), 1e-4, 1e-4)
        assert tuple(gi.sample().shape) == tuple(ti.sample().shape)
        assert gi.has_rsample == ti.has_rsample
        for what in ("mean", "variance"):
            assert_same(outcome(lambda: getattr(gi, what)), outcome(lambda: getattr(ti, what)))
        assert_same(outcome(gi.entropy), outcome(ti.entropy), 1e-5, 1e-5)
        assert_same(outcome(gi.enumerate_support), outcome(ti.enumerate_support))
        for s in [(), (2,), (2, 3)]:
            full = s + tuple(ti.batch_shape)
            te, ge = ti.expand(full), gi.expand(full)
            assert tuple(ge.batch_shape) == full
            assert tuple(ge.event_shape) == tuple(te.event_shape)
            sample = ge.sample()
            assert tuple(sample.shape) == full + tuple(te.event_shape)
            np.testing.assert_allclose(ge.log_prob(sample).detach().numpy(),
                                       gi.log_prob(sample).detach().numpy(), rtol=1e-6)


NORMALIZED_PROBS = {"Categorical", "Multinomial", "OneHotCategorical",
                    "OneHotCategoricalStraightThrough", "RelaxedOneHotCategorical"}


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_parameters_and_samples_satisfy_their_constraints(case):
    _, name, spec = case
    t, g = both(name, spec)
    assert isinstance(type(g).support, gradjit.distributions.constraints.Constraint)
    for key, value in spec.items():
        constraint = g.arg_constraints.get(key)
        if constraint is None:
            continue
        value = build(gradjit, value)
        value = gradjit.tensor([value]) if isinstance(value, (int, float)) else value
        if name in NORMALIZED_PROBS and key == "probs":
            value = value / value.sum(-1, True)
        assert value.dim() >= constraint.event_dim
        gradjit.broadcast_shapes(tuple(g.batch_shape),
                                 tuple(value.shape[:value.dim() - constraint.event_dim]))
        if not gradjit.distributions.constraints.is_dependent(constraint):
            assert bool(constraint.check(value).all())
    torch.manual_seed(0)
    tv = t.sample()
    ok, expected = g.support.check(gradjit.tensor(tv.numpy())), t.support.check(tv)
    assert tuple(ok.shape) == tuple(expected.shape) == tuple(t.batch_shape)
    assert bool(ok.all()) and bool(g.support.check(g.sample()).all())
