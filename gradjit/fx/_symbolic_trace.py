"""torch.fx's symbolic tracing: a module's forward run on Proxies, with torch.*,
nn.functional.* and fx.wrap'd functions recording call_function nodes, leaf modules
call_module nodes and parameters get_attr nodes, into a Graph."""
from __future__ import annotations

import builtins
import functools
import inspect
import math
import types

from gradjit.fx.graph import Graph
from gradjit.fx.node import map_aggregate
from gradjit.fx.proxy import Proxy, TraceError
from gradjit.fx.torch_forms import as_recorded
from gradjit.misc.patching import Patches

_wrapped: dict = {}  # (id of a globals dict, name) -> that dict, for each name fx.wrap got
_BASE_TYPES = (str, int, float, bool, complex, type(None), type(...), slice, range)


class PHBase:
    """A concrete_args value standing for an input that stays a placeholder."""

    def __repr__(self):
        return "PH"


PH = PHBase()


def _assert_is_none(value, msg):
    assert value is None, msg


def wrap(fn_or_name):
    """Record calls of this module-level function (or name) on Proxies as call_function nodes
    instead of tracing through them."""
    name = fn_or_name if isinstance(fn_or_name, str) else fn_or_name.__name__
    caller = inspect.currentframe().f_back
    if caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _wrapped[id(caller.f_globals), name] = caller.f_globals
    return fn_or_name


def _find_proxy(args, kwargs):
    found = []
    map_aggregate((args, kwargs), lambda a: found.append(a) if isinstance(a, Proxy) else None)
    return found[0] if found else None


def _recording(fn, wrapped=False, functional_name=None):
    """fn, recorded as a call_function node when a Proxy is among its arguments (as PyTorch
    records nn.functional's `functional_name`)."""
    def call(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is None:
            return fn(*args, **kwargs)
        if functional_name is not None:
            args, kwargs = as_recorded(functional_name, fn, args, kwargs)
        out = proxy.tracer.create_proxy("call_function", fn, args, kwargs)
        if wrapped:
            out.node.meta["is_wrapped"] = True
        return out
    call.__wrapped__ = fn
    return call


def _tensor_method(method, name):
    """A Tensor method that records call_method `name` when a Proxy is among its arguments
    (a module's buffer or a constant, on the left of an operation on a traced value)."""
    def call(self, *args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is None:
            return method(self, *args, **kwargs)
        return proxy.tracer.create_proxy("call_method", name, (self, *args), kwargs)
    return call


@functools.cache
def _tensor_method_names() -> tuple:
    """(name, the name recorded) of the Tensor methods a Proxy may be passed to."""
    import gradjit
    from gradjit.profiler.hooks import DUNDERS
    names = []
    for name in dir(gradjit.Tensor):
        method = inspect.getattr_static(gradjit.Tensor, name)
        if type(method) is types.FunctionType and not name.startswith("_"):
            names.append((name, name))
        elif name in DUNDERS and name not in _INDEXING and not (
                name.startswith("__r") and f"__{name[3:]}" in DUNDERS):  # (reflected)
            names.append((name, DUNDERS[name]))
    return tuple(names)


_INDEXING = {"__getitem__", "__setitem__", "__bool__"}  # (operator.getitem, or control flow)


def _torch_functions():
    """(namespace, name) of every gradjit function a Proxy may reach as torch.X or F.X."""
    import gradjit
    from gradjit.nn import functional
    for space in (gradjit, functional, gradjit.linalg, gradjit.special, gradjit.fft):
        for name, fn in vars(space).items():
            if not name.startswith("__") and callable(fn) and not isinstance(fn, type) and \
                    (getattr(fn, "__module__", None) or "").startswith("gradjit"):
                yield space, name, fn


class Tracer:
    def __init__(self, autowrap_modules=(math,), autowrap_functions=(),
                 param_shapes_constant=False):
        self._autowrap_modules = autowrap_modules
        self._autowrap_ids = {id(v) for m in autowrap_modules for v in vars(m).values()
                              if callable(v)} | {id(f) for f in autowrap_functions}
        self.param_shapes_constant = param_shapes_constant
        self.root = None
        self.graph = None
        self.tensor_attrs: dict = {}
        self._module_paths: dict = {}

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None,
                     proxy_factory_fn=None) -> Proxy:
        node = self.create_node(kind, target, self.create_arg(tuple(args)),
                                self.create_arg(dict(kwargs)), name, type_expr)
        return proxy_factory_fn(node) if proxy_factory_fn is not None else self.proxy(node)

    def proxy(self, node) -> Proxy:
        return Proxy(node, self)

    def create_arg(self, a):
        """a as a node argument: Proxies as their nodes, parameters, buffers and other
        tensors as get_attr nodes (constants kept on the root as _tensor_constant<i>)."""
        import gradjit
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, gradjit.nn.Parameter):
            for name, p in self.root.named_parameters():
                if p is a:
                    return self.create_node("get_attr", name, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, gradjit.Tensor):
            name = self.tensor_attrs.get(id(a))
            if name is None:
                i = 0
                while hasattr(self.root, f"_tensor_constant{i}"):
                    i += 1
                name = f"_tensor_constant{i}"
                setattr(self.root, name, a)
                self.tensor_attrs[id(a)] = name
            return self.create_node("get_attr", name, (), {})
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            return type(a)(*(self.create_arg(e) for e in a))
        if isinstance(a, (tuple, list)):
            return type(a)(self.create_arg(e) for e in a)
        if isinstance(a, dict):
            return {k: self.create_arg(v) for k, v in a.items()}
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop),
                         self.create_arg(a.step))
        if isinstance(a, _BASE_TYPES) or isinstance(a, (gradjit.dtype, gradjit.device)) or \
                callable(a) or isinstance(a, gradjit.memory_format):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def is_leaf_module(self, m, module_qualified_name: str) -> bool:
        """Modules of gradjit.nn (but Sequential) are recorded as calls, not traced through."""
        import gradjit
        return type(m).__module__.startswith("gradjit.nn") and \
            not isinstance(m, gradjit.nn.Sequential)

    def path_of_module(self, mod) -> str:
        if not self._module_paths:
            self._module_paths = {id(m): name for name, m in self.root.named_modules()}
        path = self._module_paths.get(id(mod))
        if path is None:
            raise NameError("module is not installed as a submodule")
        return path

    def call_module(self, m, forward, args, kwargs):
        name = self.path_of_module(m)
        if not self.is_leaf_module(m, name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", name, args, kwargs)

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """A module attribute read while tracing: parameters as get_attr proxies."""
        import gradjit
        if isinstance(attr_val, gradjit.nn.Parameter):
            for name, p in self.root.named_parameters():
                if p is attr_val:
                    if name not in parameter_proxy_cache:
                        parameter_proxy_cache[name] = self.create_proxy("get_attr", name, (), {})
                    return parameter_proxy_cache[name]
        return attr_val

    def iter(self, obj):
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy "
                         "is used in a loop or as a *args or **kwargs function argument. See the "
                         "torch.fx docs on pytorch.org for a more detailed explanation of what "
                         "types of control flow can be traced, and check out the Proxy docstring "
                         "for help troubleshooting Proxy iteration errors")

    def to_bool(self, obj):
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def keys(self, obj):
        return obj.__getattr__("keys")()

    def trace(self, root, concrete_args=None) -> Graph:
        import gradjit
        if isinstance(root, gradjit.nn.Module):
            self.root, fn = root, type(root).forward
        else:
            self.root, fn = gradjit.nn.Module(), root
        self.graph = Graph(tracer_cls=type(self))
        self.tensor_attrs = {id(t): name for name, t in self.root.named_buffers()}
        self._module_paths = {}
        patches = Patches()
        try:
            self._patch(patches, fn)
            result = fn(*self._placeholders(fn, isinstance(root, gradjit.nn.Module),
                                            concrete_args))
        finally:
            patches.restore()
        self.create_node("output", "output", (self.create_arg(result),), {},
                         type_expr=fn.__annotations__.get("return"))
        return self.graph

    def _placeholders(self, fn, is_module, concrete_args):
        code = inspect.unwrap(fn).__code__
        names = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
        args = [self.root] if is_module else []
        names = names[1:] if is_module else names
        if isinstance(concrete_args, tuple):
            if len(names) != len(concrete_args):
                raise RuntimeError(f"Tracing expected {len(names)} arguments but got "
                                   f"{len(concrete_args)} concrete arguments")
            concrete_args = dict(zip(names, concrete_args))
        parameters = inspect.signature(inspect.unwrap(fn)).parameters
        for name in names:
            default = parameters[name].default
            defaults = () if default is inspect.Parameter.empty else (default,)
            if concrete_args is not None and name in concrete_args:
                args.append(self._specialized(name, concrete_args[name], defaults))
            else:
                args.append(self.create_proxy("placeholder", name, defaults, {},
                                              type_expr=fn.__annotations__.get(name)))
        return args

    def _specialized(self, name, value, defaults):
        """A concrete argument: its value in the trace, a placeholder that asserts it."""
        import gradjit
        out = self.create_proxy("placeholder", f"{name}_1", defaults, {})
        if isinstance(value, PHBase):
            return out
        if isinstance(value, _BASE_TYPES) and value is not None:
            gradjit._assert(out == value,
                    f"{name} has been specialized to have value {value} but got another value")
        elif value is None:
            self.create_proxy("call_function", _assert_is_none,
                              (out, f"{name} has been specialized to have value None but got "
                               "another value"), {})
        elif not isinstance(value, gradjit.Tensor):
            import warnings
            warnings.warn(f"Was not able to add assertion to guarantee correct input {name} to "
                          "specialized function. It is up to the user to make sure that your "
                          "inputs match the inputs you specialized the function with.",
                          stacklevel=2)
        return value

    def _patch(self, patches, fn):
        import gradjit
        tracer, cache = self, {}
        module_getattr, module_call_impl = gradjit.nn.Module.__getattr__, gradjit.nn.Module.__call__

        def module_call(mod, *args, **kwargs):
            return tracer.call_module(mod, lambda *a, **k: module_call_impl(mod, *a, **k), args,
                                      kwargs)

        def attribute(mod, name):
            return tracer.getattr(name, module_getattr(mod, name), cache)
        patches.set(gradjit.nn.Module, "__call__", module_call)
        for name, recorded in _tensor_method_names():
            patches.set(gradjit.Tensor, name,
                        _tensor_method(getattr(gradjit.Tensor, name), recorded))
        patches.set(gradjit.nn.Module, "__getattr__", attribute)
        for space, name, original in _torch_functions():
            patches.set(space, name, _recording(
                original, functional_name=name if space is gradjit.nn.functional else None))
        for (_, name), namespace in _wrapped.items():
            original = namespace.get(name, getattr(builtins, name, None))
            patches.set(namespace, name, _recording(original, wrapped=True))
        for namespace in (getattr(inspect.unwrap(fn), "__globals__", {}),
                          *(vars(m) for m in self._autowrap_modules)):
            for name, value in list(namespace.items()):
                if id(value) in self._autowrap_ids and not name.startswith("__"):
                    patches.set(namespace, name, _recording(value, wrapped=True))


def symbolic_trace(root, concrete_args=None):
    """root (a Module or a function) traced into a GraphModule."""
    import gradjit
    from gradjit.fx.graph_module import GraphModule
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, gradjit.nn.Module) else root.__name__
    return GraphModule(tracer.root, graph, name)

