"""torch.fx's Graph: Nodes in program order on a circular list, uniquely named, with the
editing API (insertion points, create_node, erase_node, lint, eliminate_dead_code)."""
from __future__ import annotations

import builtins
import contextlib
import inspect
import keyword
import re
import warnings

from gradjit.fx.node import Node, map_arg

_NAME = re.compile(r"^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\d+))?$")
_ILLEGAL_CHARS = re.compile("[^0-9a-zA-Z_]+")
_SNAKE = re.compile(r"(?<=[a-z])([A-Z])")
_RESERVED = {*keyword.kwlist, *builtins.__dict__}  # names a variable must not shadow


class _Namespace:
    """Unique Python identifiers: a candidate taken as it is, or its base numbered after the
    last of that base (sum -> sum_1, add_1 after add)."""

    def __init__(self):
        self._used: set = set()
        self._counts: dict = {}

    def create_name(self, candidate: str) -> str:
        match = _NAME.match(candidate)
        if match is None:
            candidate = _ILLEGAL_CHARS.sub("_", candidate) or "_unnamed"
            if candidate[0].isdigit():
                candidate = f"_{candidate}"
            match = _NAME.match(candidate)
        base, num = match.group(1, 2)
        if num is None or candidate in self._used:
            num = self._counts.get(base, 0)
            if candidate in _RESERVED:
                num += 1
                candidate = f"{base}_{num}"
        else:
            num = int(num)
        while candidate in self._used:
            num += 1
            candidate = f"{base}_{num}"
        self._used.add(candidate)
        self._counts[base] = num
        return candidate


class _NodeList:
    """The graph's nodes in order (a live view: erasing while iterating is safe)."""

    def __init__(self, graph, reverse=False):
        self._graph, self._reverse = graph, reverse

    def __len__(self):
        return self._graph._len

    def __iter__(self):
        root = self._graph._root
        cur = root._prev if self._reverse else root._next
        while cur is not root:
            following = cur._prev if self._reverse else cur._next
            if not cur._erased:
                yield cur
            cur = following

    def __reversed__(self):
        return iter(_NodeList(self._graph, not self._reverse))


def _target_name(target) -> str:
    name = target.__name__ if callable(target) else target
    if name.startswith("__") and name.endswith("__"):
        name = name[2:-2]
    return _SNAKE.sub(r"_\1", name).lower()


class Graph:
    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._namespace = _Namespace()
        self._len = 0
        self._insert = self._root.prepend
        self.owning_module = owning_module
        self._tracer_cls = tracer_cls

    @property
    def nodes(self) -> _NodeList:
        return _NodeList(self)

    def find_nodes(self, *, op: str, target=None, sort=True) -> list:
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None) -> Node:
        name = self._namespace.create_name(name if name is not None else _target_name(target))
        node = Node(self, name, op, target, args or (), kwargs or {}, type_expr)
        self._insert(node)
        self._len += 1
        return node

    def placeholder(self, name: str, type_expr=None,
                    default_value=inspect.Parameter.empty) -> Node:
        args = () if default_value is inspect.Parameter.empty else (default_value,)
        return self.create_node("placeholder", name, args, type_expr=type_expr)

    def get_attr(self, qualified_name: str, type_expr=None) -> Node:
        module = self.owning_module
        for atom in qualified_name.split(".") if module is not None else ():
            module = getattr(module, atom, None)
            if module is None:
                warnings.warn("Attempted to insert a get_attr Node with no underlying reference "
                              "in the owning GraphModule! Call GraphModule.add_submodule to add "
                              "the necessary submodule, GraphModule.add_parameter to add the "
                              "necessary Parameter, or nn.Module.register_buffer to add the "
                              "necessary buffer", stacklevel=2)
                break
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name: str, args=None, kwargs=None, type_expr=None) -> Node:
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name: str, args=None, kwargs=None, type_expr=None) -> Node:
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None) -> Node:
        return self.create_node("call_function", the_function, args, kwargs,
                                type_expr=type_expr)

    def output(self, result, type_expr=None) -> Node:
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    @contextlib.contextmanager
    def _inserting(self, insert):
        outer, self._insert = self._insert, insert
        try:
            yield
        finally:
            self._insert = outer

    def inserting_before(self, n: Node | None = None):
        """New nodes go just before n (None: at the start)."""
        return self._inserting((n if n is not None else self._root._next).prepend)

    def inserting_after(self, n: Node | None = None):
        """New nodes go just after n, each before the previous one (None: at the end)."""
        return self._inserting(n.append if n is not None else self._root.prepend)

    def erase_node(self, to_erase: Node) -> None:
        if to_erase.users:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had "
                               f"{len(to_erase.users)} users in the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase._update_args_kwargs((), {})

    def node_copy(self, node: Node, arg_transform=lambda x: x) -> Node:
        """A copy of node (from any graph) here, its input nodes mapped by arg_transform."""
        args, kwargs = map_arg(node.args, arg_transform), map_arg(node.kwargs, arg_transform)
        copy = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        copy.meta = dict(node.meta)
        return copy

    def graph_copy(self, g: Graph, val_map: dict, return_output_node=False):
        """g's nodes copied here (val_map: g's nodes -> these; those it has already are not
        copied), returning its output's value."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                out = map_arg(node.args[0], lambda n: val_map[n])
                return (out, node) if return_output_node else out
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None) -> Graph:
        """The nodes copied into a graph of no module."""
        g = Graph(tracer_cls=self._tracer_cls)
        copied = g.graph_copy(self, {} if memo is None else memo, return_output_node=True)
        if copied is not None:
            out, node = copied
            g.output(out, node.type)
        return g

    def lint(self) -> None:
        """Check the graph is well formed: inputs of this graph defined before use, unique
        names, targets present on the owning module."""
        seen, names = set(), set()
        for node in self.nodes:
            if node.name in names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            for arg in node._input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' does not belong to "
                                       "this Graph, but was used as an argument! If you are "
                                       "copying nodes from another graph, make sure to use "
                                       "``arg_transform`` on node_copy() to remap values\n"
                                       f"{self}")
                if arg not in seen:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it "
                                       "has been defined! Please check that Nodes in the graph "
                                       "are topologically ordered\n"
                                       f"{self}")
            seen.add(node)
            names.add(node.name)
            if self.owning_module is not None and node.op in ("get_attr", "call_module"):
                self._check_target(node)

    def _check_target(self, node):
        module = self.owning_module
        path = node.target.split(".")
        for i, atom in enumerate(path):
            if not hasattr(module, atom):
                seen = ".".join(path[:i])
                raise RuntimeError(f"Node {node} target {node.target} references nonexistent "
                                   f"attribute {atom} of {seen}")
            module = getattr(module, atom)

    def eliminate_dead_code(self, is_impure_node=None) -> bool:
        """Erase the nodes nothing uses and that have no effect, latest first; whether any
        went."""
        impure = is_impure_node or (lambda n: n.is_impure())
        changed = False
        for node in reversed(self.nodes):
            if not node.users and not impure(node):
                self.erase_node(node)
                changed = True
        return changed

    def python_code(self, root_module: str):
        from gradjit.fx.codegen import python_code
        return python_code(self, root_module)

    def __str__(self):
        names: list = []  # empty: PyTorch prints the placeholders as nodes
        returns = [""]
        lines = [n.format_node(names, returns) for n in self.nodes]
        return f"graph({', '.join(names)}){returns[0]}:" + \
            "".join("\n    " + line for line in lines if line)

    def print_tabular(self) -> None:
        """The nodes as a table (opcode, name, target, args, kwargs): needs tabulate, as in
        PyTorch."""
        try:
            from tabulate import tabulate
        except ImportError:
            print("`print_tabular` relies on the library `tabulate`, which could not be found "
                  "on this machine. Run `pip install tabulate` to install the library.")
            raise
        rows = [[n.op, n.name, n.target, n.args, n.kwargs] for n in self.nodes]
        print(tabulate(rows, headers=["opcode", "name", "target", "args", "kwargs"]))
