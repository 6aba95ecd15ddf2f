"""torch.fx's Proxy: a stand-in for a value while tracing; each operation on it records a
Node (operators as operator.* calls, attributes as getattr, methods as call_method)."""
from __future__ import annotations

import dis
import inspect
import operator
from bisect import bisect_left

from gradjit.fx.node import MAGIC, REFLECTABLE


class TraceError(ValueError):
    pass


class Proxy:
    def __init__(self, node, tracer=None):
        self.node, self.tracer = node, tracer

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, k):
        if k.startswith("_"):  # gradjit's own probes (_edge, _value) see no tensor here
            raise AttributeError(k)
        return Attribute(self, k)

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self, *args), kwargs)

    def __iter__(self):
        """Unpacking into a fixed number of names gives that many items; other iteration
        has no length to trace."""
        caller = inspect.currentframe().f_back
        instructions = list(dis.get_instructions(caller.f_code))
        inst = instructions[bisect_left(instructions, caller.f_lasti, key=lambda i: i.offset)]
        if inst.opname == "UNPACK_SEQUENCE":
            return (self[i] for i in range(inst.argval))
        return self.tracer.iter(self)

    def __bool__(self):
        return self.tracer.to_bool(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want "
                           "this call to be recorded, please call torch.fx.wrap('len') at "
                           "module scope")

    def __abs__(self):
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def keys(self):
        return self.tracer.keys(self)

    __hash__ = object.__hash__


class Attribute(Proxy):
    """proxy.attr: a getattr node when used as a value, a call_method when called."""

    def __init__(self, root: Proxy, attr: str):
        self.root, self.attr, self.tracer = root, attr, root.tracer
        self._node = None

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr,
                                                  (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root, *args), kwargs)


def _operator_method(name, reflected=False):
    fn = getattr(operator, name)
    if MAGIC[name].count("{}") == 1:
        return lambda self: self.tracer.create_proxy("call_function", fn, (self,), {})
    if reflected:
        return lambda self, other: self.tracer.create_proxy("call_function", fn, (other, self),
                                                            {})
    return lambda self, other: self.tracer.create_proxy("call_function", fn, (self, other), {})


for _name in MAGIC:
    _dunder = _name.rstrip("_")
    setattr(Proxy, f"__{_dunder}__", _operator_method(_name))
    if _name in REFLECTABLE:
        setattr(Proxy, f"__r{_dunder}__", _operator_method(_name, reflected=True))
