"""JAX's `jax.tree` namespace: the tree_util functions under their short names."""
from gradjit.tree_util import tree_all as all  # noqa: A004
from gradjit.tree_util import tree_flatten as flatten
from gradjit.tree_util import tree_leaves as leaves
from gradjit.tree_util import tree_map as map  # noqa: A004
from gradjit.tree_util import tree_reduce as reduce
from gradjit.tree_util import tree_structure as structure
from gradjit.tree_util import tree_unflatten as unflatten

__all__ = ["all", "flatten", "leaves", "map", "reduce", "structure", "unflatten"]
