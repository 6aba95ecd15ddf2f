"""HIPS autograd's gradient checker: `check_grads(fun, modes=["fwd", "rev"], order=2)(*args)`
compares forward mode (jvp) and reverse mode (vjp) with central differences along random
directions, and the derivatives of those maps again up to `order`. Arguments and results may
be arrays, numbers or tuples/lists/dicts of them; float64 (complex128) is what the tolerances
assume. Complex values are paired as JAX pairs them, Re(sum(a * b)): a VJP is the transpose of
the JVP under that pairing."""
from __future__ import annotations

import itertools

import numpy as np

from gradjit.tracer.pytree import flatten, unflatten
from gradjit.tracer.transforms import jvp, vjp

EPS, RTOL, ATOL = 1e-6, 1e-5, 1e-6
_RNG = np.random.default_rng(0)


def _leaves(tree):
    leaves: list = []
    flatten(tree, leaves)
    return [np.asarray(leaf, _wide(leaf)) for leaf in leaves]


def _wide(leaf):
    return np.complex128 if np.iscomplexobj(leaf) else np.float64


def _random_like(tree):
    leaves: list = []
    structure = flatten(tree, leaves)
    return unflatten(structure, iter([_random(np.shape(leaf), np.iscomplexobj(leaf))
                                      for leaf in leaves]))


def _random(shape, complex_):
    x = _RNG.standard_normal(shape)
    return x + 1j * _RNG.standard_normal(shape) if complex_ else x


def _combine(a, b, scale):
    """a + scale * b, leaf by leaf."""
    leaves: list = []
    structure = flatten(a, leaves)
    return unflatten(structure, iter([np.asarray(x, _wide(x)) + scale * y
                                      for x, y in zip(leaves, _leaves(b))]))


def _inner(a, b) -> float:
    return float(sum(np.real(np.sum(x * y)) for x, y in zip(_leaves(a), _leaves(b))))


def _numeric(f, x, v):
    """The directional derivative of f at x along v, by central differences."""
    ahead, behind = _leaves(f(_combine(x, v, EPS))), _leaves(f(_combine(x, v, -EPS)))
    return [(a - b) / (2 * EPS) for a, b in zip(ahead, behind)]


def _close(got, want, mode, name, x):
    got, want = np.asarray(got, _wide(got)), np.asarray(want, _wide(want))
    if not np.allclose(got, want, rtol=RTOL, atol=ATOL):
        raise AssertionError(f"Derivative ({mode}) check of {name} failed with arg {x}:\n"
                             f"analytic: {got}\nnumeric:  {want}")


def check_jvp(f, x, name=None):
    v = _random_like(x)
    tangent = jvp(f, (x,), (v,))[1]
    for got, want in zip(_leaves(tangent), _numeric(f, x, v), strict=True):
        _close(got, want, "JVP", name or _name(f), x)


def check_vjp(f, x, name=None):
    v = _random_like(x)
    out, pull = vjp(f, x)
    u = _random_like(out)
    _close(_inner(pull(u)[0], v), sum(np.real(np.sum(a * b))
                                      for a, b in zip(_leaves(u), _numeric(f, x, v))),
           "VJP", name or _name(f), x)


def _check(f, x, modes, order, name):
    """Each mode's derivative map, then (to `order`) the derivatives of that map with respect
    to both its point and its direction, as HIPS autograd checks them (`jvp_f`, `vjp_f`)."""
    if "fwd" in modes:
        check_jvp(f, x, name)
        if order > 1:
            _check(lambda pair: jvp(f, (pair[0],), (pair[1],))[1], (x, _random_like(x)),
                   modes, order - 1, f"jvp_{name}")
    if "rev" in modes:
        check_vjp(f, x, name)
        if order > 1:
            _check(lambda pair: vjp(f, pair[0])[1](pair[1])[0], (x, _random_like(f(x))),
                   modes, order - 1, f"vjp_{name}")


def _name(f) -> str:
    return getattr(f, "__name__", type(f).__name__)


def check_grads(fun, argnum=0, modes=("fwd", "rev"), order=2):
    """A function of fun's arguments that raises AssertionError where a derivative of fun
    with respect to argument `argnum` (an int, or a tuple of them: those arguments as one
    tuple) disagrees with finite differences, for every order up to `order`."""
    unknown = set(modes) - {"fwd", "rev"}
    if unknown:
        raise ValueError(f"check_grads: modes are 'fwd' and 'rev', not {sorted(unknown)}")
    several = isinstance(argnum, (tuple, list))
    positions = tuple(argnum) if several else (argnum,)

    def checked(*args, **kwargs):
        def f(x):
            full = list(args)
            for i, value in zip(positions, x if several else (x,)):
                full[i] = value
            return fun(*full, **kwargs)
        start = tuple(args[i] for i in positions) if several else args[argnum]
        _check(f, start, modes, order, _name(fun))
    return checked


def combo_check(fun, *args, **kwargs):
    """HIPS autograd's combo_check: `combo_check(fun, argnum)(xs, ys, key=[...])` runs
    check_grads(fun, argnum) at every combination of the listed arguments and keyword values."""
    checker = check_grads(fun, *args, **kwargs)

    def checked(*choices, **keyword_choices):
        names = list(keyword_choices)
        for positional in itertools.product(*choices):
            for values in itertools.product(*keyword_choices.values()):
                checker(*positional, **dict(zip(names, values)))
    return checked
