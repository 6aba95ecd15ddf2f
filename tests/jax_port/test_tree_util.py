"""gradjit.tree_util and gradjit.tree against jax.tree_util on the same trees, and registered
nodes through jit, grad and vmap."""
from collections import OrderedDict, namedtuple

import numpy as np
import pytest

import gradjit
from gradjit import tree_util as gt
from gradjit.ir.primitive import BatchingError

jax = pytest.importorskip("jax")
jt = jax.tree_util

Point = namedtuple("Point", "x y")
TREES = [
    {"b": [1, (2, None)], "a": Point(3, {"z": 4, "y": 5})},
    (1,), [], None, 7, [None, [None]], OrderedDict([("q", 1), ("p", (2, 3))]),
]


@pytest.mark.parametrize("tree", TREES, ids=range(len(TREES)))
def test_flatten_like_jax(tree):
    leaves, treedef = gt.tree_flatten(tree)
    assert leaves == jt.tree_leaves(tree)
    assert treedef.num_leaves == jt.tree_structure(tree).num_leaves
    assert treedef.num_nodes == jt.tree_structure(tree).num_nodes
    assert gt.tree_unflatten(treedef, leaves) == jt.tree_unflatten(jt.tree_structure(tree),
                                                                   leaves)
    if not isinstance(tree, OrderedDict):
        assert repr(treedef) == repr(jt.tree_structure(tree))


def test_map_several_trees_and_is_leaf():
    a, b = {"k": [1, 2], "j": (3,)}, {"k": [10, 20], "j": (30,)}
    assert gt.tree_map(lambda x, y: x + y, a, b) == jt.tree_map(lambda x, y: x + y, a, b)
    pairs = [(1, 2), (3, 4)]
    is_pair = lambda x: isinstance(x, tuple)
    assert gt.tree_map(sum, pairs, is_leaf=is_pair) == jt.tree_map(sum, pairs, is_leaf=is_pair)
    prefix = gt.tree_map(lambda x, sub: (x, sub), [1, 2], [(5, 6), {"u": 7}])
    assert prefix == jt.tree_map(lambda x, sub: (x, sub), [1, 2], [(5, 6), {"u": 7}])
    with pytest.raises(ValueError):
        gt.tree_map(lambda x, y: x, [1, 2], [1, 2, 3])


def test_jax_tree_namespace():
    tree = {"w": [1.0, 2.0], "b": 3.0}
    assert gradjit.tree.map(lambda x: x * 2, tree) == jax.tree.map(lambda x: x * 2, tree)
    assert gradjit.tree.leaves(tree) == jax.tree.leaves(tree)
    assert gradjit.tree.reduce(lambda a, b: a + b, tree, 1.0) == jax.tree.reduce(
        lambda a, b: a + b, tree, 1.0)
    assert gradjit.tree.all([1, (True, 2)]) and not gradjit.tree.all([1, (0,)])
    leaves, treedef = gradjit.tree.flatten(tree)
    assert gradjit.tree.unflatten(treedef, leaves) == tree
    assert gradjit.tree.structure(tree) == treedef
    with pytest.raises(ValueError, match="Too few leaves"):
        treedef.unflatten([1.0])


@gt.register_pytree_node_class
class Linear:
    def __init__(self, w, b, name="layer"):
        self.w, self.b, self.name = w, b, name

    def tree_flatten(self):
        return (self.w, self.b), self.name

    @classmethod
    def tree_unflatten(cls, name, children):
        return cls(*children, name)


@jax.tree_util.register_pytree_node_class
class JaxLinear(Linear):
    pass


def _loss(model, x):
    return ((x @ model.w + model.b) ** 2).sum()


def test_registered_class_through_transformations():
    w, b = np.linspace(-1, 1, 6).reshape(3, 2), np.array([0.5, -0.25])
    x = np.arange(6.0).reshape(2, 3)
    g = gradjit.grad(_loss)(Linear(w, b), x)
    ref = jax.grad(_loss)(JaxLinear(w, b), x)
    assert type(g) is Linear and g.name == "layer"
    np.testing.assert_allclose(g.w, ref.w, rtol=1e-6)
    np.testing.assert_allclose(g.b, ref.b, rtol=1e-6)
    batched = gradjit.vmap(_loss, in_axes=(None, 0))(Linear(w, b), x)
    np.testing.assert_allclose(batched, jax.vmap(_loss, in_axes=(None, 0))(JaxLinear(w, b), x),
                               rtol=1e-6)
    out = gradjit.jit(lambda m: Linear(m.w * 2, m.b, m.name + "2"))(Linear(w, b))
    assert out.name == "layer2"
    np.testing.assert_array_equal(out.w, 2 * w)


def test_registered_with_functions_and_partial():
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    gt.register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda _, c: Pair(*c))
    assert gt.tree_leaves(Pair(1, [2, 3])) == [1, 2, 3]
    scale = gt.Partial(lambda a, x: a * x, np.float64(3.0))
    assert gt.tree_leaves(scale) == [3.0]
    out = gradjit.jit(lambda f, x: f(x))(scale, np.ones(2))
    np.testing.assert_array_equal(out, [3.0, 3.0])
    again = gt.Partial(scale, np.float64(2.0))
    assert again() == 6.0 and again.args == (3.0, 2.0)


def test_vmap_axes_given_as_a_registered_node():
    w, b = np.linspace(-1, 1, 12).reshape(2, 3, 2), np.array([0.5, -0.25])
    x = np.arange(6.0).reshape(2, 3)
    f = lambda m, x: x @ m.w + m.b
    got = gradjit.vmap(f, in_axes=(Linear(0, None), 0))(Linear(w, b), x)
    want = jax.vmap(f, in_axes=(JaxLinear(0, None), 0))(JaxLinear(w, b), x)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(BatchingError, match=r"tree prefix .* Linear\(\*, \*\)"):
        gradjit.vmap(f, in_axes=((0, None), 0))(Linear(w, b), x)
