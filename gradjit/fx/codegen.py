"""A Graph as the Python source of its forward (PyTorch's layout: one statement a node, each
value set to None after its last use) and the globals that source names."""
from __future__ import annotations

import builtins
import copy
import operator
from dataclasses import dataclass

from gradjit.fx.node import MAGIC, Node, qualified_name
from gradjit.fx.torch_forms import TorchNamespace


@dataclass
class PythonCode:
    src: str
    globals: dict


def _target(base: str, path: str) -> str:
    """base.a.b, through getattr where a part is no identifier (self.layers.0)."""
    for atom in path.split("."):
        base = f"{base}.{atom}" if atom.isidentifier() else f'getattr({base}, "{atom}")'
    return base


class _Globals:
    """The names the source uses for functions: torch.* for gradjit's, builtins as they are,
    others under their qualified name made an identifier (_operator_abs, math_sqrt), clear of
    the graph's node names."""

    def __init__(self, namespace):
        self.values = {"torch": TorchNamespace(), "operator": operator, "builtins": builtins}
        self._namespace, self._names = copy.deepcopy(namespace), {}

    def name(self, fn) -> str:
        qualified = qualified_name(fn)
        if qualified.startswith("torch.") or "." not in qualified:
            return qualified
        if id(fn) not in self._names:
            self._names[id(fn)] = self._namespace.create_name(qualified)
            self.values[self._names[id(fn)]] = fn
        return self._names[id(fn)]


def _repr(arg) -> str:
    if isinstance(arg, Node):
        return arg.name
    if isinstance(arg, tuple) and not hasattr(arg, "_fields"):
        return "(" + ", ".join(map(_repr, arg)) + ("," if len(arg) == 1 else "") + ")"
    if isinstance(arg, list):
        return "[" + ", ".join(map(_repr, arg)) + "]"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k!r}: {_repr(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, slice):
        return f"slice({_repr(arg.start)}, {_repr(arg.stop)}, {_repr(arg.step)})"
    return repr(arg)


def _call_args(args, kwargs) -> str:
    return ", ".join([_repr(a) for a in args] + [f"{k} = {_repr(v)}" for k, v in kwargs.items()])


def _statement(node: Node, root_module: str, names: _Globals) -> str:
    op, target, args = node.op, node.target, node.args
    if op == "call_method":
        method = _target(_repr(args[0]), target)
        return f"{node.name} = {method}({_call_args(args[1:], node.kwargs)})"
    if op == "call_module":
        return f"{node.name} = {_target(root_module, target)}({_call_args(args, node.kwargs)})"
    if op == "get_attr":
        return f"{node.name} = {_target(root_module, target)}"
    if op == "output":
        return f"return {_repr(args[0])}"
    if getattr(target, "__module__", "") == "_operator" and target.__name__ in MAGIC:
        return f"{node.name} = " + MAGIC[target.__name__].format(*map(_repr, args))
    name = names.name(target)
    if name == "getattr" and len(args) == 2 and isinstance(args[1], str) and \
            args[1].isidentifier():
        return f"{node.name} = {_target(_repr(args[0]), args[1])}"
    return f"{node.name} = {name}({_call_args(args, node.kwargs)})"


def python_code(graph, root_module: str) -> PythonCode:
    nodes = list(graph.nodes)
    last_uses: dict = {}  # node -> the values whose last use it is
    used: set = set()
    for node in reversed(nodes):
        for arg in node._input_nodes:
            if arg not in used:
                used.add(arg)
                last_uses.setdefault(node, []).append(arg)
    names, free_vars, body, wrapped = _Globals(graph._namespace), ["self"], [], []
    for node in nodes:
        if node.op == "placeholder":
            default = f" = {_repr(node.args[0])}" if node.args else ""
            free_vars.append(f"{node.target}{default}")
            if node.target.replace("*", "") != node.name:
                body.append(f"{node.name} = {node.target.replace('*', '')}")
            continue
        line = _statement(node, root_module, names)
        if node.meta.get("is_wrapped") and names.name(node.target) not in wrapped:
            wrapped.append(names.name(node.target))
        if node.op != "output":
            dead = last_uses.get(node, []) + ([node] if not node.users else [])
            if dead:
                line += ";  " + " = ".join([n.name for n in dead] + ["None"])
        body.append(line)
    code = "\n".join(body or ["pass"]) + "\n"
    calls = "\n".join(f'torch.fx._symbolic_trace.wrap("{name}")' for name in wrapped)
    src = f"\n{calls}\n\ndef forward({', '.join(free_vars)}):\n" + \
        "\n".join("    " + line for line in code.split("\n"))
    return PythonCode(src, names.values)
