"""torch.fx's Node: one operation of a Graph (placeholder, get_attr, call_function,
call_method, call_module, output), its arguments, its users, and its printed forms."""
from __future__ import annotations

import builtins

_OPS = ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output",
        "root")
# call_function targets with effects beyond their result: dead-code elimination keeps them.
_RANDOM = {"rand", "randn", "randint", "rand_like", "randn_like", "randint_like", "randperm",
           "bernoulli", "normal", "multinomial", "poisson", "dropout", "alpha_dropout",
           "feature_alpha_dropout", "rrelu"}


def map_aggregate(a, fn):
    """fn applied to every leaf of a (tuples, lists, dicts and slices rebuilt around them)."""
    if isinstance(a, tuple):
        t = tuple(map_aggregate(e, fn) for e in a)
        return t if not hasattr(a, "_fields") else type(a)(*t)
    if isinstance(a, list):
        return [map_aggregate(e, fn) for e in a]
    if isinstance(a, dict):
        return {k: map_aggregate(v, fn) for k, v in a.items()}
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn),
                     map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a, fn):
    """fn applied to every Node within a."""
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _nodes_in(args, kwargs) -> dict:
    found: dict = {}
    map_arg((args, kwargs), lambda n: found.setdefault(n))
    return found


def qualified_name(fn) -> str:
    """Where a function lives, as PyTorch prints it: torch.relu, torch.nn.functional.gelu,
    torch.Tensor.add, a builtin's bare name, or module.name otherwise."""
    if hasattr(fn, "_qualified_name"):  # an ATen overload of gradjit.export
        return fn._qualified_name
    name = fn.__name__
    if getattr(builtins, name, None) is fn:
        return name
    import gradjit
    from gradjit.fx.torch_forms import C_NN
    if getattr(gradjit, name, None) is fn:
        return f"torch.{name}"
    if name in C_NN and getattr(gradjit.nn.functional, name, None) is fn:
        return f"torch._C._nn.{C_NN[name]}"
    for path, space in (("torch.nn.functional", gradjit.nn.functional),
                        ("torch.Tensor", gradjit.Tensor), ("torch.linalg", gradjit.linalg),
                        ("torch.special", gradjit.special), ("torch.fft", gradjit.fft)):
        if getattr(space, name, None) is fn:
            return f"{path}.{name}"
    module = getattr(fn, "__module__", None) or "__main__"
    return f"{module}.{name}"


def pretty_target(target) -> str:
    """A target as a graph prints it (builtins.getattr, operator.add, torch.relu, or the
    name of a method, module or attribute)."""
    if isinstance(target, str):
        return target
    module = getattr(target, "__module__", None)
    if module == "builtins":
        return f"builtins.{target.__name__}"
    if module == "_operator":
        return f"operator.{target.__name__}"
    return qualified_name(target)


def format_arg(arg) -> str:
    if isinstance(arg, list):
        return "[" + ", ".join(format_arg(a) for a in arg) + "]"
    if isinstance(arg, tuple):
        return "(" + ", ".join(format_arg(a) for a in arg) + ("," if len(arg) == 1 else "") + ")"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {format_arg(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, Node):
        return "%" + str(arg)
    return str(arg)


class Node:
    """An operation in a Graph, linked to its neighbours in program order."""

    def __init__(self, graph, name, op, target, args, kwargs, return_type=None):
        if op not in _OPS:
            raise AssertionError(f"op '{op}' is not in _legal_ops")
        self.graph, self.name, self.op, self.target = graph, name, op, target
        self.type, self.meta = return_type, {}
        self.users: dict = {}  # the nodes using this one, in order of use
        self._input_nodes: dict = {}
        self._args, self._kwargs = (), {}
        self._prev = self._next = self
        self._erased = False
        self._update_args_kwargs(args, kwargs)

    @property
    def next(self) -> Node:
        return self._next

    @property
    def prev(self) -> Node:
        return self._prev

    @property
    def args(self) -> tuple:
        return self._args

    @args.setter
    def args(self, value):
        self._update_args_kwargs(value, self._kwargs)

    @property
    def kwargs(self) -> dict:
        return self._kwargs

    @kwargs.setter
    def kwargs(self, value):
        self._update_args_kwargs(self._args, value)

    @property
    def all_input_nodes(self) -> list:
        return list(self._input_nodes)

    def _update_args_kwargs(self, args, kwargs):
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._args, self._kwargs = tuple(args), dict(kwargs)
        self._input_nodes = _nodes_in(self._args, self._kwargs)
        for new in self._input_nodes:
            new.users.setdefault(self)

    def update_arg(self, idx: int, arg) -> None:
        args = list(self._args)
        args[idx] = arg
        self.args = tuple(args)

    def update_kwarg(self, key: str, arg) -> None:
        self.kwargs = {**self._kwargs, key: arg}

    def prepend(self, x: Node) -> None:
        """Move x just before this node."""
        if self is x:
            return
        x._remove_from_list()
        p = self._prev
        p._next, x._prev, x._next, self._prev = x, p, self, x

    def append(self, x: Node) -> None:
        """Move x just after this node."""
        self._next.prepend(x)

    def _remove_from_list(self):
        p, n = self._prev, self._next
        p._next, n._prev = n, p

    def replace_all_uses_with(self, replace_with: Node, delete_user_cb=lambda user: True, *,
                              propagate_meta=False) -> list:
        """Every use of this node (where delete_user_cb(user)) becomes replace_with."""
        if propagate_meta:
            replace_with.meta.update(self.meta)
        changed = [u for u in list(self.users) if delete_user_cb(u)]
        for user in changed:
            user.replace_input_with(self, replace_with)
        return changed

    def replace_input_with(self, old: Node, new: Node) -> None:
        swap = lambda n: new if n is old else n  # noqa: E731
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def is_impure(self, impure_random: bool = True) -> bool:
        """Whether the node must stay though nothing uses it (dead-code elimination)."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_module":
            module = self.graph.owning_module
            return bool(module is not None and
                        getattr(module.get_submodule(self.target), "_is_impure", False))
        if self.op == "call_function":
            name = getattr(self.target, "__name__", "")
            return name == "_assert" or name.endswith("_") and not name.endswith("__") or \
                impure_random and name in _RANDOM
        return False

    def format_node(self, placeholder_names=None, maybe_return_typename=None) -> str | None:
        """The node as Graph's printout writes it (%name : [num_users=n] = op[target=...])."""
        typename = f"{_type_repr(self.type)} " if self.type is not None else ""
        head = f"%{self.name} : {typename}[num_users={len(self.users)}] = {self.op}"
        if self.op == "placeholder":
            if placeholder_names:  # (as PyTorch: an empty list collects nothing)
                placeholder_names.append(self.target)
                return None
            default = f"(default={self.args[0]})" if self.args else ""
            return f"{head}[target={self.target}]{default}"
        if self.op == "get_attr":
            return f"{head}[target={pretty_target(self.target)}]"
        if self.op == "output":
            if self.type is not None and maybe_return_typename:
                maybe_return_typename[0] = f" -> {_type_repr(self.type)}"
            return f"return {self.args[0]}"
        return (f"{head}[target={pretty_target(self.target)}](args = {format_arg(self.args)}, "
                f"kwargs = {format_arg(self.kwargs)})")

    def __repr__(self):
        return self.name


def _type_repr(t) -> str:
    if isinstance(t, type):
        return "torch.Tensor" if t.__name__ == "Tensor" else \
            t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
    return repr(t)


MAGIC = {"eq": "{} == {}", "ne": "{} != {}", "lt": "{} < {}", "gt": "{} > {}",
         "le": "{} <= {}", "ge": "{} >= {}", "pos": "+{}", "neg": "-{}", "invert": "~{}"}
REFLECTABLE = {"add": "{} + {}", "sub": "{} - {}", "mul": "{} * {}", "floordiv": "{} // {}",
               "truediv": "{} / {}", "mod": "{} % {}", "pow": "{} ** {}",
               "lshift": "{} << {}", "rshift": "{} >> {}", "and_": "{} & {}", "or_": "{} | {}",
               "xor": "{} ^ {}", "getitem": "{}[{}]", "matmul": "{} @ {}"}
MAGIC.update(REFLECTABLE)
