"""PyTorch's pytree suite (test_pytree.py) side by side with torch: torch.utils._pytree's
flatten and unflatten of tuples, lists, dicts in insertion order, namedtuples, OrderedDict,
defaultdict, deque, tensors and None (a leaf); TreeSpecs (counts, contexts, equality, hashing,
printing); tree_map over several trees and its structure errors; the *_only, all/any and
in-place forms; key paths; is_leaf; registered classes; torch.return_types results."""
import collections
import importlib

import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()
Point = collections.namedtuple("Point", "x y")


def pytree(lib):
    return importlib.import_module(lib.__name__ + ".utils._pytree")


def every_node(lib):
    return {"b": [1, (2, 3)], "a": None, "c": collections.OrderedDict(x=4), "d": Point(5, 6),
            "e": collections.defaultdict(list, k=7), "f": collections.deque([8], maxlen=3),
            "t": lib.ones(2)}


@scenario
def flatten_and_unflatten(lib):
    p = pytree(lib)
    leaves, spec = p.tree_flatten(every_node(lib))
    back = p.tree_unflatten(leaves, spec)
    return (leaves, repr(spec), spec.num_leaves, spec.num_nodes, spec.num_children,
            spec.context, spec.is_leaf(), list(back), back["d"], type(back["e"]).__name__,
            back["e"].default_factory is list, back["f"].maxlen, back["c"])


@scenario
def key_paths(lib):
    p = pytree(lib)
    paths = p.tree_flatten_with_path(every_node(lib))[0]
    return ([p.keystr(k) for k, _ in paths], [str(k[0]) for k, _ in paths],
            [repr(k[-1]) for k, _ in paths])


@scenario
def structures_and_their_printing(lib):
    p = pytree(lib)
    return (repr(p.tree_structure((1, [2]))), repr(p.tree_structure(3)),
            p.treespec_pprint(p.tree_structure((1, [2], {"a": 3}))),
            p.treespec_pprint(p.tree_structure(every_node(lib))),
            repr(p.tree_flatten([])[1]), p.tree_flatten(None)[0])


@scenario
def map_over_trees(lib):
    p = pytree(lib)
    return (p.tree_map(lambda a, b: a + b, (1, [2]), (10, [20])),
            p.tree_map(lambda x, y: [x] + y, [5, 6], [[7, 9], [1, 2]]),
            p.tree_map(lambda x: x is None, {"x": 7, "z": None}),
            p.tree_map(lambda a, b: a + b, {"a": 1, "b": 2}, collections.OrderedDict(b=5, a=3)),
            p.tree_map(lambda a, b: a + b, collections.deque([1], maxlen=3),
                       collections.deque([2], maxlen=5)),
            p.tree_structure([1, (2, 3)]).flatten_up_to([[5], ([6], {"z": 7})]))


def mismatch(name, other):
    def run(lib):
        return pytree(lib).tree_map(lambda a, b: a, *other)
    run.__name__ = name
    scenario(run)


for _name, _trees in {
        "map_node_type_mismatch": ((1, [2]), (10, (20,))),
        "map_arity_mismatch": ((1, [2]), (10, [20, 3])),
        "map_keys_mismatch": ({"a": 1, "b": 2}, {"a": 1, "c": 2}),
        "map_namedtuple_mismatch": (Point(1, 2), collections.namedtuple("Other", "x y")(1, 2)),
        "map_deque_into_list": (collections.deque([1]), [1])}.items():
    mismatch(_name, _trees)


@scenario
def unflatten_wrong_count(lib):
    p = pytree(lib)
    return p.tree_unflatten([1], p.tree_structure((1, 2)))


@scenario
def unflatten_arguments_either_way(lib):
    p = pytree(lib)
    return p.tree_unflatten(p.tree_structure((1, 2)), [3, 4])


@scenario
def unflatten_without_a_spec(lib):
    return pytree(lib).tree_unflatten([1], 5)


@scenario
def only_all_and_any(lib):
    p = pytree(lib)
    return (p.tree_map_only(int, lambda x: x * 2, (1, 2.0, "a", True)),
            p.tree_map_only((int, str), lambda x: x * 2, [1, "a", 2.5]),
            p.tree_map_only(lambda x: x == 2, lambda x: -x, [1, 2]),
            p.tree_map_only(lib.Tensor, lambda t: t * 2, {"t": lib.ones(2), "n": 3}),
            p.tree_all(lambda x: x > 0, [1, 2]), p.tree_any(lambda x: x > 1, [1, 2]),
            p.tree_all_only(int, lambda x: x > 0, [1, "a"]),
            p.tree_any_only(str, lambda x: x == "b", [1, "a"]), p.tree_leaves((1, None, [])))


@scenario
def map_only_of_a_non_type(lib):
    return pytree(lib).tree_map_only(3, lambda x: x, [1])


@scenario
def is_leaf_predicates(lib):
    p = pytree(lib)

    def tuples(x):
        return isinstance(x, tuple)
    return (p.tree_leaves([(1, 2), [3]], is_leaf=tuples), p.tree_is_leaf(None),
            p.tree_is_leaf([1]), p.tree_is_leaf((1,), is_leaf=lambda x: True),
            p.tree_structure([(1, 2)], is_leaf=tuples).num_leaves)


@scenario
def map_in_place(lib):
    seen, tree = [], [1, (2, 3)]
    returned = pytree(lib).tree_map_(seen.append, tree)
    return returned is tree, seen


@scenario
def registered_class(lib):
    p = pytree(lib)

    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b
    p.register_pytree_node(
        Pair, lambda x: ([x.a, x.b], "ctx"), lambda v, c: Pair(*v),
        flatten_with_keys_fn=lambda x: ([(p.GetAttrKey("a"), x.a), (p.GetAttrKey("b"), x.b)],
                                        "ctx"))
    leaves, spec = p.tree_flatten([Pair(1, (2, 3))])
    back = p.tree_unflatten([10, 20, 30], spec)
    other = p.tree_structure([Pair(5, (6, 7))])
    return (leaves, repr(spec), back[0].a, back[0].b,
            [p.keystr(k) for k, _ in p.tree_leaves_with_path([Pair(1, 2)])], spec == other,
            hash(spec) == hash(other))


def tagged(lib):
    """A registered class whose context is its tag."""
    class Tagged:
        def __init__(self, value, tag):
            self.value, self.tag = value, tag
    pytree(lib).register_pytree_node(Tagged, lambda x: ([x.value], x.tag),
                                     lambda v, c: Tagged(v[0], c))
    return Tagged


@scenario
def registered_context_mismatch(lib):
    node = tagged(lib)
    return pytree(lib).tree_map(lambda a, b: a, node(1, "x"), node(2, "y"))


@scenario
def registered_type_mismatch(lib):
    return pytree(lib).tree_map(lambda a, b: a, tagged(lib)(1, "x"), [2])


@scenario
def registered_twice(lib):
    return pytree(lib).register_pytree_node(list, lambda x: (x, None), lambda v, c: v)


@scenario
def registered_without_keys(lib):
    p = pytree(lib)

    class Box:
        def __init__(self, v):
            self.v = v
    p.register_pytree_node(Box, lambda x: ([x.v], None), lambda v, c: Box(*v))
    return p.tree_leaves(Box(3)), p.tree_leaves_with_path(Box(3))


@scenario
def spec_equality_and_hashing(lib):
    p = pytree(lib)
    a, b = p.tree_structure({"a": [1, 2]}), p.tree_structure({"a": [3, 4]})
    return (a == b, hash(a) == hash(b), a == p.tree_structure({"b": [1, 2]}),
            a != p.tree_structure([1]), p.tree_structure(1) == p.treespec_leaf(),
            a.child(0).num_leaves, len(a.children()))


@scenario
def map_with_path(lib):
    p = pytree(lib)
    return p.tree_map_with_path(lambda kp, x, y: (p.keystr(kp), x + y), {"a": [1, 2], "b": 3},
                                {"a": [10, 20], "b": 30})


@scenario
def return_types_are_nodes(lib):
    p = pytree(lib)
    leaves, spec = p.tree_flatten(lib.tensor([1.0, 3.0]).max(0))
    back = p.tree_unflatten(leaves, spec)
    return len(leaves), type(back).__name__, back.values, spec.num_children


@pytest.mark.parametrize("name", cases(SCENARIOS, {}))
def test_pytree_scenario_matches_torch(name):
    check(SCENARIOS[name])
