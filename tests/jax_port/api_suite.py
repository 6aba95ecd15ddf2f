"""Run one scenario with jax and with gradjit (the same code, its `jax`, `jnp` and `lax`
names bound to either library) and compare the two results: values, dtypes' kinds, pytree
structure and container types; or the errors both raise."""
import re

import numpy as np
import pytest

import gradjit
import gradjit.numpy  # noqa: F401  (the submodule, as jnp)
import gradjit.lax  # noqa: F401

jax = pytest.importorskip("jax")

LIBRARIES = {"jax": (jax, jax.numpy, jax.lax), "gradjit": (gradjit, gradjit.numpy, gradjit.lax)}


def outcome(scenario, library):
    """What scenario(jax, jnp, lax) returns, or the exception it raises."""
    try:
        return scenario(*LIBRARIES[library])
    except Exception as error:  # the error is the outcome to compare
        return error


def both(scenario):
    """(jax's outcome, gradjit's outcome)."""
    return outcome(scenario, "jax"), outcome(scenario, "gradjit")


def assert_agree(expected, actual, rtol=1e-7, atol=1e-12, message=None):
    """The same pytree of the same container types, leaves of equal shape and close values;
    or errors of the same type, gradjit's message matching `message` when one is given."""
    if isinstance(expected, Exception) or isinstance(actual, Exception):
        assert isinstance(expected, Exception), f"only gradjit raised: {actual!r}"
        assert isinstance(actual, Exception), f"only jax raised: {expected!r}"
        assert isinstance(actual, type(expected)), (expected, actual)
        if message is not None:
            assert re.search(message, str(expected)), str(expected)
            assert re.search(message, str(actual)), str(actual)
        return
    tree = jax.tree_util
    assert tree.tree_structure(actual) == tree.tree_structure(expected), (expected, actual)
    for e, a in zip(tree.tree_leaves(expected), tree.tree_leaves(actual)):
        if isinstance(e, (str, type)):  # names and types the scenario reports
            assert a == e, (e, a)
            continue
        e, a = np.asarray(e), np.asarray(a)
        assert a.shape == e.shape, (e, a)
        assert a.dtype.kind == e.dtype.kind or {a.dtype.kind, e.dtype.kind} <= set("iu"), (e, a)
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)


def agree(scenario, **options):
    """Both libraries run the scenario to the same result (or the same error)."""
    assert_agree(*both(scenario), **options)
