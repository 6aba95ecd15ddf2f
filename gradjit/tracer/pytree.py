"""Nested tuples/lists/dicts (and registered node types) of leaves, flattened to a list of
leaves and a hashable description of the structure (static leaves, such as strings or None,
live in it)."""
from __future__ import annotations

import contextlib
import contextvars
from collections import OrderedDict, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

LEAF = "*"

# type -> (flatten: node -> (children, aux), unflatten: (aux, children) -> node), JAX's
# register_pytree_node; every transformation sees these nodes through flatten below.
NODES: dict[type, tuple] = {}


@dataclass(frozen=True)
class Node:
    """The kind of a registered node in a structure: its type and its static aux data."""
    cls: type
    aux: object

    def rebuild(self, children):
        return NODES[self.cls][1](self.aux, children)


def is_array_like(x) -> bool:
    """Leaves that become traced values: arrays, numbers, tensors and traced values."""
    return (isinstance(x, (np.ndarray, np.generic, bool, int, float, complex))
            or hasattr(type(x), "__gradjit_priority__"))


class Static:
    """An argument declared static (jit's static_argnums): part of the cache key, not traced."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def sorted_keys(mapping) -> tuple:
    """A dict's keys in JAX's leaf order: sorted (insertion order where they don't compare)."""
    try:
        return tuple(sorted(mapping))
    except TypeError:
        return tuple(mapping)


_INSERTION_ORDER = contextvars.ContextVar("dicts_in_insertion_order", default=False)


@contextlib.contextmanager
def dicts_in_insertion_order():
    """Flatten dicts in torch.utils._pytree's order, their keys as inserted (torch.func's
    transformations run in it; JAX's sort the keys, so their results' dicts come out sorted)."""
    token = _INSERTION_ORDER.set(True)
    try:
        yield
    finally:
        _INSERTION_ORDER.reset(token)


def dict_keys(mapping) -> tuple:
    """A dict's keys in the leaf order of the transformation flattening it."""
    return tuple(mapping) if _INSERTION_ORDER.get() else sorted_keys(mapping)


# As in JAX, an OrderedDict keeps its keys' order and type, a defaultdict its default_factory
# (its keys in a dict's order).
NODES[OrderedDict] = (lambda d: (list(d.values()), tuple(d)),
                      lambda keys, children: OrderedDict(zip(keys, children)))
NODES[defaultdict] = (lambda d: ([d[k] for k in dict_keys(d)],
                                 (d.default_factory, dict_keys(d))),
                      lambda aux, children: defaultdict(aux[0], zip(aux[1], children)))
# The keys of the children of those nodes (their key paths name them by DictKey).
MAPPING_KEYS = {OrderedDict: lambda aux: aux, defaultdict: lambda aux: aux[1]}


def flatten(tree, leaves: list):
    """Append the array-like leaves of `tree` to `leaves`; return its structure."""
    if type(tree) in NODES:
        children, aux = NODES[type(tree)][0](tree)
        return (Node(type(tree), aux), tuple(flatten(x, leaves) for x in children))
    if isinstance(tree, (tuple, list)):
        kind = tree.__class__
        return (kind, tuple(flatten(x, leaves) for x in tree))
    if isinstance(tree, dict):
        keys = dict_keys(tree)
        return (dict, keys, tuple(flatten(tree[k], leaves) for k in keys))
    if isinstance(tree, Static) or not is_array_like(tree):
        value = tree.value if isinstance(tree, Static) else tree
        if isinstance(value, Iterator):  # a cached call would hand back the one, spent object
            raise TypeError(f"{type(value).__name__} is an iterator, which runs once; pass or "
                            "return a tuple or list of its items instead")
        try:
            hash(value)
        except TypeError:
            raise TypeError(f"{type(value).__name__} is neither an array nor a hashable static "
                            "value; pass arrays, numbers, tensors or tuples/lists/dicts of "
                            "them") from None
        return ("static", value)
    leaves.append(tree)
    return LEAF


def unflatten(structure, leaves):
    """Rebuild a tree from its structure and an iterator over its leaves."""
    if structure == LEAF:
        return next(leaves)
    kind = structure[0]
    if kind == "static":
        return structure[1]
    if kind is dict:
        return {k: unflatten(s, leaves) for k, s in zip(structure[1], structure[2])}
    if isinstance(kind, Node):
        return kind.rebuild([unflatten(s, leaves) for s in structure[1]])
    children = [unflatten(s, leaves) for s in structure[1]]
    return kind(*children) if hasattr(kind, "_fields") else kind(children)  # namedtuple or not
