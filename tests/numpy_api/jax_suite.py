"""The three checks of the test_jax_suite_* files, after JAX's numpy tests: a numpy-written
function on its arguments runs eagerly on Tensors, compiled with traced arguments, and (for
float results) differentiated, each against numpy itself."""
import sys
import warnings
import zlib
from typing import Callable, NamedTuple

import numpy as np
import pytest

import gradjit
from tests.e2e.checks import assert_trees_close, central_differences

BACKEND = "interpreter"  # numpy's own evaluation of the IR: the quick one for a wide table
_rngs: dict = {}  # one generator per test module, so its draws do not depend on the others


def arg(shape, dtype="f8", low=None, high=None):
    """A random array of numpy dtype `dtype`: bools half true, integers in [-3, 4) (from 0
    for unsigned), floats normal or uniform in [low, high), complex with both parts so."""
    module = sys._getframe(1).f_globals["__name__"]
    rng = _rngs.setdefault(module, np.random.default_rng(zlib.crc32(module.encode())))
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) > 0.5
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else -3, 4, shape).astype(dtype)
    draw = (lambda: rng.standard_normal(shape)) if low is None else \
        (lambda: rng.uniform(low, high, shape))
    value = draw() + 1j * draw() if dtype.kind == "c" else draw()
    return np.asarray(value).astype(dtype)


class Case(NamedTuple):
    """fn(*args) as numpy computes it; `grad` lists the arguments to differentiate."""
    name: str
    fn: Callable
    args: tuple
    grad: tuple = ()

    @property
    def id(self):
        return self.name


def case(name, fn, *args, grad=None):
    """A Case; the float64 arguments are differentiated when every result is float64 (finite
    differences of float32 are too coarse), unless `grad` names the arguments (() for none)."""
    if grad is None:
        grad = tuple(i for i, a in enumerate(args)
                     if isinstance(a, np.ndarray) and a.dtype == np.float64 and a.size)
        leaves = _leaves(_numpy_result(fn, args))  # a NaN result makes finite differences NaN
        if not all(leaf.dtype == np.float64 and not np.isnan(leaf).any() for leaf in leaves):
            grad = ()
    return Case(name, fn, args, grad)


def _numpy_result(fn, args):
    try:
        return _quiet(fn, *args)
    except Exception:  # noqa: BLE001 - a refusal the checks compare, nothing to differentiate
        return np.array(0)


def _leaves(tree):
    if isinstance(tree, (tuple, list)):
        return [leaf for t in tree for leaf in _leaves(t)]
    return [np.asarray(tree)]


def _quiet(call, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return call(*args)


def check_eager(c: Case, signed_zeros=False):
    """fn on eager Tensors gives numpy's values and dtypes, or raises numpy's exception;
    `signed_zeros`: a zero's sign too."""
    # copies: PyTorch refuses arrays of negative strides (M[:, ::-1])
    tensors = tuple(gradjit.tensor(a.copy()) if isinstance(a, np.ndarray) else a for a in c.args)
    _same_outcome(lambda: _to_numpy(_quiet(c.fn, *tensors)), c, signed_zeros)


def check_jit(c: Case, backend=BACKEND, signed_zeros=False):
    """jit(fn) with the arrays as traced arguments gives numpy's values and dtypes, or raises
    numpy's exception; `signed_zeros`: a zero's sign too."""
    _same_outcome(lambda: _quiet(gradjit.jit(c.fn, backend=backend), *c.args), c, signed_zeros)


def _same_outcome(run, c, signed_zeros=False):
    try:
        want = _quiet(c.fn, *c.args)
    except Exception as error:  # noqa: BLE001 - whichever numpy raises, gradjit must too
        with pytest.raises(_builtin(type(error))):
            run()
        return
    got = run()
    _same(got, want)
    if signed_zeros:
        for g, w in zip(_leaves(got), _leaves(want)):
            _same_zero_signs(g, w)


def check_grad(c: Case):
    """grad of sum(result * weights) (over each result of a tuple) with respect to the float64
    arguments against central differences; random weights give each element its own factor."""
    draw = np.random.default_rng(1)
    weights = [draw.uniform(0.5, 1.5, leaf.shape) for leaf in _leaves(_quiet(c.fn, *c.args))]

    def scalar(*a):
        return sum((leaf * w).sum() for leaf, w in zip(_leaves_traced(c.fn(*a)), weights))
    want = _quiet(central_differences, scalar, c.args, c.grad, 1e-6)
    got = _quiet(gradjit.grad(scalar, argnums=c.grad, backend=BACKEND), *c.args)
    assert_trees_close(got, want, rtol=1e-5, atol=1e-7)


def suite_tests(cases):
    """A suite module's three tests over its cases (eager, jit, and grad for those that have
    arguments to differentiate), for the module to bind as test_eager, test_jit, test_grad."""
    def by_id(c):
        return c.id

    @pytest.mark.parametrize("c", cases, ids=by_id)
    def test_eager(c):
        check_eager(c)

    @pytest.mark.parametrize("c", cases, ids=by_id)
    def test_jit(c):
        check_jit(c)

    @pytest.mark.parametrize("c", [c for c in cases if c.grad], ids=by_id)
    def test_grad(c):
        check_grad(c)
    return test_eager, test_jit, test_grad


def _leaves_traced(tree):
    return [leaf for t in tree for leaf in _leaves_traced(t)] \
        if isinstance(tree, (tuple, list)) else [tree]


def _builtin(kind):
    """The first built-in exception kind kind derives from (numpy's UFuncTypeError: TypeError),
    which is what numpy code catches."""
    return next(k for k in kind.__mro__ if k.__module__ == "builtins")


def _same(got, want):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert np.shape(got) == np.shape(want), (np.shape(got), np.shape(want))
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    tight = want.dtype.kind in "biu" or want.dtype in (np.float64, np.complex128)
    np.testing.assert_allclose(got, want, rtol=1e-12 if tight else 1e-5, atol=1e-12,
                               equal_nan=True)


def _same_zero_signs(got, want):
    """Where numpy gives a zero (in either part of a complex), gradjit gives the same zero."""
    if want.dtype.kind not in "fc":
        return
    for part in (np.real, np.imag) if want.dtype.kind == "c" else (np.real,):
        g, w = part(got), part(want)
        zeros = w == 0
        np.testing.assert_array_equal(np.signbit(g[zeros]), np.signbit(w[zeros]),
                                      err_msg=f"signs of zeros at {np.argwhere(zeros).ravel()}")


def _to_numpy(tree):
    if isinstance(tree, (tuple, list)):
        items = [_to_numpy(t) for t in tree]
        return type(tree)(*items) if hasattr(tree, "_fields") else type(tree)(items)
    return tree.numpy() if isinstance(tree, gradjit.Tensor) else tree
