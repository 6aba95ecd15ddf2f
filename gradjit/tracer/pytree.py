"""Nested tuples/lists/dicts (and registered node types) of leaves, flattened to a list of
leaves and a hashable description of the structure (static leaves, such as strings or None,
live in it)."""
from __future__ import annotations

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


def flatten(tree, leaves: list):
    """Append the array-like leaves of `tree` to `leaves`; return its structure."""
    if isinstance(tree, (tuple, list)):
        kind = tree.__class__
        return (kind, tuple(flatten(x, leaves) for x in tree))
    if isinstance(tree, dict):
        return (dict, tuple(tree), tuple(flatten(x, leaves) for x in tree.values()))
    if type(tree) in NODES:
        children, aux = NODES[type(tree)][0](tree)
        return (Node(type(tree), aux), tuple(flatten(x, leaves) for x in children))
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
