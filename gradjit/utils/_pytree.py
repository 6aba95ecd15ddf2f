"""torch.utils._pytree: nested containers flattened to their leaves and a TreeSpec that rebuilds
them. Unlike JAX's trees (gradjit.tree_util), None is a leaf, dicts keep their insertion order,
and the nodes are tuples, lists, dicts, namedtuples, OrderedDict, defaultdict, deque and the
classes registered with register_pytree_node."""
from __future__ import annotations

import collections
import dataclasses
import functools
import types
from collections import OrderedDict, defaultdict, deque, namedtuple
from typing import Any, Callable, NamedTuple


class NodeDef(NamedTuple):
    type: Any
    flatten_fn: Callable
    unflatten_fn: Callable
    flatten_with_keys_fn: Callable | None


SUPPORTED_NODES: dict = {}


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    key: Any

    def __str__(self):
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self):
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


def keystr(kp) -> str:
    """A key path as the accesses that reach its leaf: `['b'][1].x`."""
    return "".join(str(k) for k in kp)


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None):
    """Make `cls` a node: flatten_fn(x) -> (children, context) and
    unflatten_fn(children, context) -> x; flatten_with_keys_fn(x) -> ([(key, child)],
    context) gives its children's keys to the *_with_path functions."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)


def _register_builtin(cls, children, context, unflatten, key):
    """A built-in node: its children and context of an instance, its rebuild, and the key
    of each child (by position, by mapping key or by field name)."""
    def flatten(x):
        return list(children(x)), context(x)

    def flatten_with_keys(x):
        values, ctx = flatten(x)
        return [(key(x, i), v) for i, v in enumerate(values)], ctx
    register_pytree_node(cls, flatten, unflatten, flatten_with_keys_fn=flatten_with_keys)


def _by_position(x, i):
    return SequenceKey(i)


def _by_mapping_key(x, i):
    return MappingKey(list(x)[i])


_register_builtin(tuple, iter, lambda x: None, lambda v, c: tuple(v), _by_position)
_register_builtin(list, iter, lambda x: None, lambda v, c: list(v), _by_position)
_register_builtin(dict, dict.values, list, lambda v, c: dict(zip(c, v)), _by_mapping_key)
_register_builtin(namedtuple, iter, type, lambda v, c: c(*v),
                  lambda x, i: GetAttrKey(x._fields[i]))
_register_builtin(OrderedDict, OrderedDict.values, list, lambda v, c: OrderedDict(zip(c, v)),
                  _by_mapping_key)
_register_builtin(defaultdict, defaultdict.values, lambda x: [x.default_factory, list(x)],
                  lambda v, c: defaultdict(c[0], zip(c[1], v)), _by_mapping_key)
_register_builtin(deque, iter, lambda x: x.maxlen, lambda v, c: deque(v, maxlen=c),
                  _by_position)
BUILTIN_TYPES = frozenset(SUPPORTED_NODES)
STANDARD_DICT_TYPES = frozenset({dict, OrderedDict, defaultdict})


def is_namedtuple_class(cls) -> bool:
    return (isinstance(cls, type) and issubclass(cls, tuple)
            and isinstance(getattr(cls, "_fields", None), tuple)
            and all(type(f) is str for f in cls._fields)
            and callable(getattr(cls, "_make", None)) and callable(getattr(cls, "_asdict", None)))


def is_namedtuple_instance(obj) -> bool:
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj) -> bool:
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def _node_type(tree):
    """The registry's key for a node: every namedtuple class is the one `namedtuple` node."""
    return namedtuple if is_namedtuple_instance(tree) else type(tree)


def tree_is_leaf(tree, is_leaf=None) -> bool:
    return (is_leaf is not None and is_leaf(tree)) or _node_type(tree) not in SUPPORTED_NODES


class TreeSpec:
    """A tree's structure: its root's node type (None for a leaf), the context that rebuilds
    it, and its children's specs."""

    def __init__(self, type, context, children_specs):
        self.type, self.context, self.children_specs = type, context, list(children_specs)
        self.num_children = len(self.children_specs)
        self.num_nodes = 1 + sum(c.num_nodes for c in self.children_specs)
        self.num_leaves = 1 if type is None else sum(c.num_leaves for c in self.children_specs)

    def is_leaf(self) -> bool:
        return self.type is None

    def children(self):
        return list(self.children_specs)

    def child(self, index):
        return self.children_specs[index]

    def unflatten(self, leaves):
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} "
                             f"but the spec refers to a pytree that holds {self.num_leaves} "
                             f"items ({self}).")
        if self.is_leaf():
            return leaves[0]
        children, start = [], 0
        for spec in self.children_specs:
            children.append(spec.unflatten(leaves[start:start + spec.num_leaves]))
            start += spec.num_leaves
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self.context)

    def flatten_up_to(self, tree):
        """The subtrees of `tree` at this spec's leaves: tree must have this structure down
        to them (dicts of the standard kinds may stand for one another)."""
        if self.is_leaf():
            return [tree]
        node = _node_type(tree)
        dicts = self.type in STANDARD_DICT_TYPES and node in STANDARD_DICT_TYPES
        if not dicts and node != self.type:
            what = "Node type" if self.type in BUILTIN_TYPES else "Type"
            raise ValueError(f"{what} mismatch; expected {self.type!r}, but got {node!r}.")
        children, context = SUPPORTED_NODES[node].flatten_fn(tree)
        if len(children) != self.num_children:
            raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got "
                             f"{len(children)}.")
        if dicts:
            children = self._dict_children(tree)
        elif self.type not in BUILTIN_TYPES and context != self.context:
            raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        elif self.type is not deque and context != self.context:
            raise ValueError(f"Node context mismatch for node type {self.type!r}; expected "
                             f"{self.context!r}, but got {context!r}.")
        return [leaf for spec, child in zip(self.children_specs, children)
                for leaf in spec.flatten_up_to(child)]

    def _dict_children(self, tree):
        keys = self.context[1] if self.type is defaultdict else self.context
        missing, extra = set(keys) - set(tree), set(tree) - set(keys)
        if missing or extra:
            raise ValueError("Node keys mismatch"
                             + (f"; missing key(s): {missing}" if missing else "")
                             + (f"; extra key(s): {extra}" if extra else "") + ".")
        return [tree[k] for k in keys]

    def __eq__(self, other):
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (str(self.type) == str(other.type) and self.context == other.context
                and self.children_specs == other.children_specs)

    def __hash__(self):
        context = self.context
        if self.type is defaultdict:
            context = (context[0], tuple(context[1]))
        elif isinstance(context, list):
            context = tuple(context)
        elif self.type not in BUILTIN_TYPES and self.type is not None:
            context = None  # a registered class's context need not hash
        return hash((self.type, context, tuple(self.children_specs)))

    def __repr__(self, indent=0):
        if self.is_leaf():
            return "*"
        inner = indent + 2
        children = (",\n" + " " * inner).join(c.__repr__(inner) for c in self.children_specs)
        return f"TreeSpec({self.type.__name__}, {self.context}, [{children}])"


class LeafSpec(TreeSpec):
    def __init__(self):
        super().__init__(None, None, [])


treespec_leaf = LeafSpec


def tree_flatten(tree, is_leaf=None):
    """(leaves left to right, the TreeSpec that unflattens them into tree's structure)."""
    leaves = []

    def spec_of(node):
        if tree_is_leaf(node, is_leaf):
            leaves.append(node)
            return LeafSpec()
        kind = _node_type(node)
        children, context = SUPPORTED_NODES[kind].flatten_fn(node)
        return TreeSpec(kind, context, [spec_of(c) for c in children])
    spec = spec_of(tree)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    if not isinstance(treespec, TreeSpec):
        if not isinstance(leaves, TreeSpec):
            raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item "
                            f"of type {type(treespec)}.")
        leaves, treespec = treespec, leaves  # PyTorch takes the two in either order
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    for child in SUPPORTED_NODES[_node_type(tree)].flatten_fn(tree)[0]:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree, is_leaf=None):
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """func over the leaves of tree and the subtrees of `rests` at the same places (each of
    rests has tree's structure at least down to tree's leaves)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    return spec.unflatten(map(func, leaves, *(spec.flatten_up_to(r) for r in rests)))


def tree_map_(func, tree, *rests, is_leaf=None):
    """func called on the leaves for its effect (an in-place update); tree itself returned."""
    leaves, spec = tree_flatten(tree, is_leaf)
    collections.deque(map(func, leaves, *(spec.flatten_up_to(r) for r in rests)), maxlen=0)
    return tree


def map_only(type_or_types_or_pred):
    """A decorator: the function applies to leaves of the given type(s) (or passing the
    predicate), other leaves pass through."""
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):
        def pred(x):
            return isinstance(x, type_or_types_or_pred)
    elif callable(type_or_types_or_pred):
        pred = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapper(func):
        @functools.wraps(func)
        def wrapped(x):
            return func(x) if pred(x) else x
        return wrapped
    return wrapper


def tree_map_only(type_or_types_or_pred, func, tree, is_leaf=None):
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, func, tree, is_leaf=None):
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None) -> bool:
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None) -> bool:
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, pred, tree, is_leaf=None) -> bool:
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, pred, tree, is_leaf=None) -> bool:
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def _key_paths(path, tree, is_leaf):
    if (is_leaf is not None and is_leaf(tree)) or _node_type(tree) not in SUPPORTED_NODES:
        yield path, tree
        return
    node = SUPPORTED_NODES[_node_type(tree)]
    if node.flatten_with_keys_fn is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {node.type}. Please "
                         "pass a flatten_with_keys_fn argument to register_pytree_node.")
    for key, child in node.flatten_with_keys_fn(tree)[0]:
        yield from _key_paths((*path, key), child, is_leaf)


def tree_leaves_with_path(tree, is_leaf=None):
    """(key path, leaf) pairs, a key path being the keys from the root to the leaf."""
    return list(_key_paths((), tree, is_leaf))


def tree_flatten_with_path(tree, is_leaf=None):
    return tree_leaves_with_path(tree, is_leaf), tree_structure(tree, is_leaf)


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    """func(key path, leaf, *subtrees of rests at the leaf) over tree's leaves."""
    paths, spec = tree_flatten_with_path(tree, is_leaf)
    return spec.unflatten(func(path, leaf, *others) for (path, leaf), *others in
                          zip(paths, *(spec.flatten_up_to(r) for r in rests)))


class _Star(str):
    """A leaf's mark in treespec_pprint, printed bare."""

    def __repr__(self):
        return "*"


def treespec_pprint(treespec) -> str:
    """The structure drawn as the containers it rebuilds, with `*` for each leaf."""
    return repr(treespec.unflatten([_Star("*")] * treespec.num_leaves))
