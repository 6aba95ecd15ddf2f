"""JAX's pytree functions (`import gradjit.tree_util as tree_util` for `jax.tree_util`): trees of
tuples, lists, dicts, namedtuples, None and registered node types, whose registry the
transformations (jit, grad, vmap) flatten their arguments and results with too."""
from __future__ import annotations

import dataclasses
import functools

from gradjit.tracer.pytree import MAPPING_KEYS, NODES, Node, sorted_keys


def register_pytree_node(nodetype, flatten_func, unflatten_func):
    """Make `nodetype` a tree node: flatten_func(node) -> (children, aux_data), unflatten_func
    (aux_data, children) -> node; aux_data must be hashable (it is part of the structure)."""
    NODES[nodetype] = (flatten_func, unflatten_func)
    return nodetype


def register_pytree_node_class(cls):
    """Class decorator: `cls` flattens with its tree_flatten method and rebuilds with its
    tree_unflatten classmethod."""
    register_pytree_node(cls, lambda node: node.tree_flatten(), cls.tree_unflatten)
    return cls


def register_dataclass(nodetype, data_fields=None, meta_fields=None, drop_fields=()):
    """Make a dataclass a tree node (also as a decorator): its data fields are children, its
    meta fields static aux data, its drop fields left out. Without the lists, the fields
    whose metadata says static=True are meta, the others data (as JAX infers them)."""
    if data_fields is None and meta_fields is None:
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(f"register_dataclass: {nodetype.__name__} is not a dataclass, so "
                            "data_fields and meta_fields must be given")
        fields = [f for f in dataclasses.fields(nodetype) if f.init and f.name not in drop_fields]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
    elif data_fields is None or meta_fields is None:
        raise TypeError("register_dataclass: data_fields and meta_fields are given together "
                        "or not at all")
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    _ATTRIBUTE_CHILDREN[nodetype] = data_fields

    def flatten(node):
        return ([getattr(node, name) for name in data_fields],
                tuple(getattr(node, name) for name in meta_fields))

    def unflatten(aux, children):
        return nodetype(**dict(zip(data_fields, children)), **dict(zip(meta_fields, aux)))
    return register_pytree_node(nodetype, flatten, unflatten)


class Partial(functools.partial):
    """functools.partial as a tree: the function is static, the bound arguments are leaves,
    so a Partial can be passed to and returned from transformed functions."""

    def __new__(cls, func, *args, **kw):
        if isinstance(func, functools.partial):  # JAX's flattening of nested partials
            args, kw = func.args + args, {**func.keywords, **kw}
            func = func.func
        return super().__new__(cls, func, *args, **kw)


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, children: Partial(func, *children[0], **children[1]))


def _children(tree):
    """(kind, aux, children) of a node, or None for a leaf."""
    if tree is None:
        return (None, None, ())
    if type(tree) in NODES:
        children, aux = NODES[type(tree)][0](tree)
        return (Node(type(tree), aux), None, tuple(children))
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):
        return (type(tree), None, tuple(tree))
    if type(tree) in (tuple, list):
        return (type(tree), None, tuple(tree))
    if type(tree) is dict:
        keys = sorted_keys(tree)
        return (dict, keys, tuple(tree[k] for k in keys))
    return None


def _rebuild(kind, aux, children):
    if kind is None:
        return None
    if isinstance(kind, Node):
        return kind.rebuild(list(children))
    if aux is not None:  # dict
        return kind(zip(aux, children))
    return kind(*children) if hasattr(kind, "_fields") else kind(children)


class PyTreeDef:
    """The structure of a tree: node kinds and aux data, with a place for each leaf."""

    __slots__ = ("_node",)

    def __init__(self, node):
        self._node = node  # "*" for a leaf, else (kind, aux, children's nodes)

    @property
    def num_leaves(self) -> int:
        return _count(self._node)

    @property
    def num_nodes(self) -> int:
        return _count(self._node, nodes=True)

    def unflatten(self, leaves):
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            many = "few" if len(leaves) < self.num_leaves else "many"
            raise ValueError(f"Too {many} leaves for PyTreeDef; expected {self.num_leaves}, "
                             f"got {len(leaves)}.")
        return _build(self._node, iter(leaves))

    def flatten_up_to(self, tree):
        """The subtrees of `tree` at this structure's leaves (it must have this structure
        down to them)."""
        out = []
        _up_to(self._node, tree, out)
        return out

    def children(self):
        return [] if self._node == "*" else [PyTreeDef(c) for c in self._node[2]]

    def __eq__(self, other):
        return isinstance(other, PyTreeDef) and self._node == other._node

    def __hash__(self):
        return hash(self._node)

    def __repr__(self):
        return f"PyTreeDef({_text(self._node)})"


def _count(node, nodes=False):
    if node == "*":
        return 1
    return int(nodes) + sum(_count(c, nodes) for c in node[2])


def _build(node, leaves):
    if node == "*":
        return next(leaves)
    kind, aux, children = node
    return _rebuild(kind, aux, [_build(c, leaves) for c in children])


def _up_to(node, tree, out):
    if node == "*":
        out.append(tree)
        return
    found = _children(tree)
    if found is None or found[0] != node[0] or found[1] != node[1] or \
            len(found[2]) != len(node[2]):
        raise ValueError(f"Tree structures did not match: expected a node {_text(node)}, got "
                         f"{type(tree).__name__} {tree!r}")
    for child_node, child in zip(node[2], found[2]):
        _up_to(child_node, child, out)


def _text(node) -> str:
    if node == "*":
        return "*"
    kind, aux, children = node
    inner = ", ".join(_text(c) for c in children)
    if kind is None:
        return "None"
    if kind is tuple:
        return f"({inner},)" if len(children) == 1 else f"({inner})"
    if kind is list:
        return f"[{inner}]"
    if kind is dict:
        return "{" + ", ".join(f"{k!r}: {_text(c)}" for k, c in zip(aux, children)) + "}"
    if isinstance(kind, Node):
        return f"CustomNode({kind.cls.__name__}[{kind.aux}], [{inner}])"
    return f"CustomNode(namedtuple[{kind.__name__}], [{inner}])"


def _flatten(tree, is_leaf, leaves):
    if is_leaf is not None and is_leaf(tree):
        leaves.append(tree)
        return "*"
    found = _children(tree)
    if found is None:
        leaves.append(tree)
        return "*"
    kind, aux, children = found
    return (kind, aux, tuple(_flatten(c, is_leaf, leaves) for c in children))


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"


@dataclasses.dataclass(frozen=True)
class DictKey:
    key: object

    def __str__(self):
        return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self):
        return f".{self.name}"


@dataclasses.dataclass(frozen=True)
class FlattenedIndexKey:
    key: int

    def __str__(self):
        return f"[<flat index {self.key}>]"


_ATTRIBUTE_CHILDREN: dict = {}  # a registered dataclass -> its data fields, its children's keys


def _keys(kind, aux, count) -> list:
    """The key of each child of a node, as JAX names them in key paths."""
    if isinstance(kind, Node) and kind.cls in MAPPING_KEYS:
        return [DictKey(k) for k in MAPPING_KEYS[kind.cls](kind.aux)]
    if isinstance(kind, Node):
        names = _ATTRIBUTE_CHILDREN.get(kind.cls)
        return [GetAttrKey(n) for n in names] if names else \
            [FlattenedIndexKey(i) for i in range(count)]
    if aux is not None:  # dict
        return [DictKey(k) for k in aux]
    if hasattr(kind, "_fields"):
        return [GetAttrKey(n) for n in kind._fields]
    return [SequenceKey(i) for i in range(count)]


def _flatten_with_path(tree, is_leaf, path, found):
    node = None if is_leaf is not None and is_leaf(tree) else _children(tree)
    if node is None:
        found.append((path, tree))
        return
    kind, aux, children = node
    for key, child in zip(_keys(kind, aux, len(children)), children):
        _flatten_with_path(child, is_leaf, path + (key,), found)


def tree_flatten_with_path(tree, is_leaf=None):
    """([(key path, leaf), ...], treedef): each leaf with the tuple of keys leading to it."""
    found: list = []
    _flatten_with_path(tree, is_leaf, (), found)
    return found, tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree, is_leaf=None) -> list:
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(f, tree, *rest, is_leaf=None):
    """f(key path, leaf, *matching subtrees of rest) at each leaf of `tree`."""
    found, treedef = tree_flatten_with_path(tree, is_leaf)
    others = [treedef.flatten_up_to(r) for r in rest]
    return treedef.unflatten(f(path, leaf, *xs) for (path, leaf), *xs in zip(found, *others))


def keystr(keys) -> str:
    """A key path as text: ['a'][0].w"""
    return "".join(str(k) for k in keys)


def tree_flatten(tree, is_leaf=None):
    """(leaves, treedef): the leaves left to right (dicts by sorted key), None holding none."""
    leaves = []
    return leaves, PyTreeDef(_flatten(tree, is_leaf, leaves))


def tree_unflatten(treedef: PyTreeDef, leaves):
    return treedef.unflatten(leaves)


def tree_leaves(tree, is_leaf=None) -> list:
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None) -> PyTreeDef:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(f, tree, *rest, is_leaf=None):
    """f applied to the leaves of `tree` and the matching subtrees of each tree in `rest`
    (which have `tree`'s structure, or a deeper one below its leaves)."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = [treedef.flatten_up_to(r) for r in rest]
    return treedef.unflatten(f(*xs) for xs in zip(leaves, *others))


_NONE = object()


def tree_reduce(function, tree, initializer=_NONE, is_leaf=None):
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NONE:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_all(tree, *, is_leaf=None) -> bool:
    return all(tree_leaves(tree, is_leaf))


def treedef_children(treedef: PyTreeDef):
    return treedef.children()


__all__ = ["DictKey", "FlattenedIndexKey", "GetAttrKey", "Partial", "PyTreeDef", "SequenceKey",
           "keystr", "register_dataclass", "register_pytree_node",
           "register_pytree_node_class", "tree_all", "tree_flatten", "tree_leaves",
           "tree_map", "tree_reduce", "tree_structure", "tree_unflatten", "treedef_children",
           "tree_flatten_with_path", "tree_leaves_with_path", "tree_map_with_path"]
