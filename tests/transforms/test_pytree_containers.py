"""The containers every transformation takes and gives back, against jax: OrderedDict (keys
in insertion order, type kept), dicts (keys sorted), namedtuples, defaultdict (default_factory
kept), None inside lists and tuples, registered dataclasses; in_axes/out_axes prefixes of
those; torch.func keeping torch's dict order."""
import dataclasses
from collections import OrderedDict, defaultdict, namedtuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import gradjit
import gradjit.numpy as gnp

jax.config.update("jax_enable_x64", True)

Pair = namedtuple("Pair", "w b")


@dataclasses.dataclass
class Params:
    x: object
    y: object


gradjit.tree_util.register_dataclass(Params, data_fields=["x", "y"], meta_fields=[])
jax.tree_util.register_dataclass(Params, data_fields=["x", "y"], meta_fields=[])

A, B = np.array([0.5, -1.25]), np.array(0.75)
TREES = {
    "ordered-dict": OrderedDict(b=A, a=B),
    "dict-unsorted": {"b": A, "a": B},
    "namedtuple": Pair(A, B),
    "defaultdict": defaultdict(list, {"b": A, "a": B}),
    "nested-with-none": [(A, None), [B]],
    "dataclass": Params(A, B),
}


def scalar(np_):
    """A scalar of every leaf, each weighted by its place in the leaf order."""
    def f(tree):
        leaves = jax.tree_util.tree_leaves(tree)
        return sum(np_.sum(np_.sin(leaf) * (i + 1)) for i, leaf in enumerate(leaves))
    return f


def elementwise(np_):
    return lambda tree: jax.tree_util.tree_map(lambda leaf: np_.sin(leaf) * 2, tree)


def stacked(tree):
    return jax.tree_util.tree_map(lambda leaf: np.stack([leaf, leaf + 1]), tree)


TRANSFORMS = {
    "grad": lambda G, N, t: G.grad(scalar(N))(t),
    "value_and_grad": lambda G, N, t: G.value_and_grad(scalar(N))(t)[1],
    "jit": lambda G, N, t: G.jit(elementwise(N))(t),
    "jvp": lambda G, N, t: G.jvp(elementwise(N), (t,), (t,))[1],
    "vjp": lambda G, N, t: G.vjp(elementwise(N), t)[1](t)[0],
    "jacfwd": lambda G, N, t: G.jacfwd(scalar(N))(t),
    "jacrev": lambda G, N, t: G.jacrev(scalar(N))(t),
    "jacrev-tree-output": lambda G, N, t: G.jacrev(elementwise(N))(t),
    "hessian": lambda G, N, t: G.hessian(scalar(N))(t),
    "checkpoint": lambda G, N, t: G.grad(G.checkpoint(scalar(N)))(t),
    "vmap": lambda G, N, t: G.vmap(elementwise(N))(stacked(t)),
}


def layout(tree):
    """What a caller sees of a result: its structure, its leaves in order, and each
    container's own type and key order."""
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    kinds = []

    def walk(x):
        if not isinstance(x, (dict, list, tuple, Params)):
            return
        kinds.append((type(x).__name__, list(x) if isinstance(x, dict) else None,
                      getattr(x, "default_factory", None)))
        children = x.values() if isinstance(x, dict) else (
            dataclasses.astuple(x) if isinstance(x, Params) else
            x if isinstance(x, (list, tuple)) else ())
        for child in children:
            walk(child)
    walk(tree)
    return str(treedef), [np.asarray(v) for v in leaves], kinds


@pytest.mark.parametrize("transform", TRANSFORMS)
@pytest.mark.parametrize("tree", TREES)
def test_containers_come_back_as_jax_gives_them(tree, transform):
    want = layout(TRANSFORMS[transform](jax, jnp, TREES[tree]))
    got = layout(TRANSFORMS[transform](gradjit, gnp, TREES[tree]))
    assert got[0] == want[0] and got[2] == want[2]
    assert len(got[1]) == len(want[1])
    for g, w in zip(got[1], want[1]):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_tree_util_flattens_ordered_and_default_dicts_as_jax():
    for tree in (OrderedDict(b=1.0, a=2.0), defaultdict(list, {"b": 1.0, "a": 2.0}),
                 {"b": 1.0, "a": 2.0}):
        leaves, treedef = gradjit.tree_util.tree_flatten(tree)
        want_leaves, want_def = jax.tree_util.tree_flatten(tree)
        assert leaves == want_leaves and repr(treedef) == repr(want_def)
        rebuilt = treedef.unflatten(leaves)
        assert type(rebuilt) is type(tree) and list(rebuilt) == list(want_def.unflatten(leaves))
        paths = [jax.tree_util.keystr(p) for p, _ in jax.tree_util.tree_leaves_with_path(tree)]
        assert [gradjit.tree_util.keystr(p) for p, _ in
                gradjit.tree_util.tree_leaves_with_path(tree)] == paths


def vmapped(G, in_axes, out_axes):
    def f(d):
        return Pair(d["b"] * d["a"], d["b"].sum())
    x = OrderedDict(b=np.arange(6.0).reshape(2, 3), a=np.array(2.0))
    return G.vmap(f, in_axes=in_axes, out_axes=out_axes)(x)


@pytest.mark.parametrize("in_axes,out_axes", [
    ((OrderedDict(b=1, a=None),), Pair(1, 0)),
    ((OrderedDict(b=0, a=None),), Pair(0, 0)),
])
def test_axes_given_as_ordered_dict_and_namedtuple_prefixes(in_axes, out_axes):
    want, got = vmapped(jax, in_axes, out_axes), vmapped(gradjit, in_axes, out_axes)
    assert type(got) is Pair
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w)


def test_ordered_dict_axes_with_other_key_order_is_not_a_prefix():
    axes = (OrderedDict(a=None, b=1),)  # the value's keys come b, a
    with pytest.raises(ValueError, match="tree prefix"):
        jax.vmap(lambda d: d["a"] * d["b"], in_axes=axes)(
            OrderedDict(b=jnp.ones((2, 3)), a=2.0))
    with pytest.raises(ValueError, match=r"tree prefix .*OrderedDict\('b': \*, 'a': \*\)"):
        vmapped(gradjit, axes, 0)


def test_custom_vjp_takes_and_gives_an_ordered_dict():
    def build(G):
        @G.custom_vjp
        def h(d):
            return d["b"] * d["a"]

        def fwd(d):
            return h(d), d

        def bwd(d, g):  # a rule of its own (not the true derivative), to see it is used
            return (OrderedDict(b=g * d["a"] * 10, a=g * d["b"]),)
        h.defvjp(fwd, bwd)
        return G.grad(h)(OrderedDict(b=3.0, a=2.0))
    want, got = build(jax), build(gradjit)
    assert type(got) is OrderedDict and list(got) == list(want) == ["b", "a"]
    np.testing.assert_allclose([float(v) for v in got.values()],
                               [float(v) for v in want.values()])


def test_torch_func_keeps_dicts_in_insertion_order_as_torch():
    def f(p):
        return (p["w"] * p["b"]).sum()
    make = {"w": [1.0, 2.0], "b": [3.0, 4.0]}
    want = torch.func.grad(f)({k: torch.tensor(v) for k, v in make.items()})
    got = gradjit.func.grad(f)({k: gradjit.tensor(v) for k, v in make.items()})
    assert list(got) == list(want) == ["w", "b"]
    for k in want:
        np.testing.assert_allclose(got[k].numpy(), want[k].numpy())
    # the same function under JAX's grad gives JAX's sorted keys
    assert list(gradjit.grad(f)({k: np.array(v) for k, v in make.items()})) == ["b", "w"]
