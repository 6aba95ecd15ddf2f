"""A program written once with `gj`/`np` names, run with gradjit's imports and with JAX's (in
float64, as numpy computes), and the two `result` trees compared leaf by leaf."""
import textwrap

import numpy
import pytest

jax = pytest.importorskip("jax")


def _run(source, imports):
    namespace = {"numpy": numpy}
    exec(imports + textwrap.dedent(source), namespace)
    return namespace["result"]


def assert_agrees_with_jax(source, imports, rtol, atol):
    """`imports` maps "gradjit" and "jax" to the import lines each run starts with."""
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        ours, theirs = _run(source, imports["gradjit"]), _run(source, imports["jax"])
    finally:
        jax.config.update("jax_enable_x64", before)
    ours_leaves, ours_tree = jax.tree.flatten(ours)
    theirs_leaves, theirs_tree = jax.tree.flatten(theirs)
    assert ours_tree == theirs_tree
    for a, b in zip(ours_leaves, theirs_leaves):
        if isinstance(b, str):  # key paths
            assert a == b
            continue
        numpy.testing.assert_allclose(numpy.asarray(a), numpy.asarray(b), rtol=rtol, atol=atol)
