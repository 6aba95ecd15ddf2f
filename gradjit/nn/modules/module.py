"""nn.Module: the registry of parameters, buffers and submodules behind attribute access, and
what PyTorch builds on it (state dicts, modes, hooks, device/dtype moves, printing)."""
from __future__ import annotations

from collections import OrderedDict

import gradjit
from gradjit.nn.modules import module_hooks as hooks
from gradjit.nn.modules.module_hooks import (  # noqa: F401  (torch.nn.modules.module's names)
    HookedCall, RemovableHandle, register_module_buffer_registration_hook,
    register_module_forward_hook, register_module_forward_pre_hook,
    register_module_full_backward_hook, register_module_full_backward_pre_hook,
    register_module_module_registration_hook, register_module_parameter_registration_hook)
from gradjit.nn.modules.module_state import StateDict, _IncompatibleKeys  # noqa: F401
from gradjit.nn.modules.module_to import parse_to
from gradjit.nn.parameter import Buffer, Parameter
from gradjit.warn import warn_at_caller


def _indent(text, spaces=2):
    """Indent every line but the first (a child's repr inside its parent's)."""
    return text.replace("\n", "\n" + " " * spaces)


def _type_name(value):
    """PyTorch's torch.typename: a tensor by its legacy type ('torch.FloatTensor')."""
    if gradjit.is_tensor(value):
        return value.type()
    module = type(value).__module__
    return type(value).__qualname__ if module == "builtins" else \
        module + "." + type(value).__qualname__


_HOOK_TABLES = ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
                "_forward_hooks_with_kwargs", "_forward_hooks_always_called", "_backward_hooks",
                "_backward_pre_hooks", "_state_dict_hooks", "_state_dict_pre_hooks",
                "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks")


class Functional:
    """A layer's nn.functional function, looked up by name when the layer calls it: what
    stands in nn.functional then (a tracer's recording wrapper, a profiler's timer) runs."""

    def __init__(self, name: str):
        self.name = name

    def __get__(self, obj, cls=None):
        from gradjit.nn import functional
        return getattr(functional, self.name)


class Module(HookedCall, StateDict):
    """Base class of every layer: assign Parameters, Modules and buffers as attributes and
    they are registered; `forward` says what a call computes."""

    training: bool

    def __init__(self):
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_non_persistent", set())
        for name in ("_parameters", "_buffers", "_modules") + _HOOK_TABLES:
            object.__setattr__(self, name, OrderedDict())

    def __setstate__(self, state):
        """Modules pickled before a hook table existed get it empty."""
        self.__dict__.update(state)
        for name in _HOOK_TABLES:
            self.__dict__.setdefault(name, OrderedDict())

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    def compile(self, *args, **kwargs):
        """Compile this module's calls in place with gradjit.compile's options (its parameters
        and state stay this module's)."""
        object.__setattr__(self, "_compiled_call", gradjit.compile(self._call_impl, *args,
                                                                   **kwargs))

    # ---- registration ----

    def _check_new_name(self, name, kind):
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            got = f", got: {name}" if kind == "module" else ""  # (as torch words each)
            raise KeyError(f'{kind} name can\'t contain "."{got}')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in getattr(self, f"_{kind}s"):
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_new_name(name, "parameter")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_type_name(param)}' object to parameter "
                            f"'{name}' (torch.nn.Parameter or None required)")
        self._parameters[name] = hooks.run_registration_hooks(
            hooks._global_parameter_registration_hooks, self, name, param)

    def register_buffer(self, name, tensor, persistent=True):
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_new_name(name, "buffer")
        if tensor is not None and not gradjit.is_tensor(tensor):
            raise TypeError(f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = hooks.run_registration_hooks(
            hooks._global_buffer_registration_hooks, self, name, tensor)
        if persistent:
            self._non_persistent.discard(name)
        else:
            self._non_persistent.add(name)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        self._check_new_name(name, "module")
        self._modules[name] = hooks.run_registration_hooks(
            hooks._global_module_registration_hooks, self, name, module)

    register_module = add_module

    def __setattr__(self, name, value):
        params, modules = self.__dict__.get("_parameters"), self.__dict__.get("_modules")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, self._parameters)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            params[name] = None
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, modules)
            modules[name] = hooks.run_registration_hooks(
                hooks._global_module_registration_hooks, self, name, value)
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = None
        elif isinstance(value, Buffer):
            self.register_buffer(name, value, value.persistent)
        elif self.__dict__.get("_buffers") is not None and name in self._buffers:
            if value is not None and not gradjit.is_tensor(value):
                raise TypeError(f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name, kept):
        """Drop `name` from wherever it lives but `kept`, the table it is being assigned into
        (where it keeps its position)."""
        self.__dict__.pop(name, None)
        for table in (self._parameters, self._buffers, self._modules):
            if table is not kept:
                table.pop(name, None)
        self._non_persistent.discard(name)

    def __getattr__(self, name):
        for table in ("_parameters", "_buffers", "_modules"):
            entries = self.__dict__.get(table)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                self._non_persistent.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers) |
                      set(self._modules))

    # ---- traversal ----

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        memo = set() if memo is None else memo
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, prefix + ("." if prefix else "") + name,
                                                remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, table, prefix, recurse, remove_duplicate=True):
        owners = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        seen = set()
        for owner_name, owner in owners:
            for name, value in getattr(owner, table).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield owner_name + ("." if owner_name else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def get_submodule(self, target):
        module = self
        for name in target.split(".") if target else ():
            module = module._member(name, Module, "an nn.Module")
        return module

    def _member(self, name, kind, kind_name):
        """self.name, which must be a `kind`."""
        if not hasattr(self, name):
            raise AttributeError(f"{self._get_name()} has no attribute `{name}`")
        value = getattr(self, name)
        if not isinstance(value, kind):
            raise AttributeError(f"`{name}` is not {kind_name}")
        return value

    def get_parameter(self, target):
        owner, _, name = target.rpartition(".")
        return self.get_submodule(owner)._member(name, Parameter, "an nn.Parameter")

    def get_buffer(self, target):
        owner, _, name = target.rpartition(".")
        module = self.get_submodule(owner)
        value = module._member(name, object, "")
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return value

    def set_submodule(self, target, module, strict=False):
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        owner_path, _, name = target.rpartition(".")
        owner = self.get_submodule(owner_path)
        if strict or hasattr(owner, name):
            owner._member(name, Module, "an nn.Module")
        setattr(owner, name, module)

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- modes ----

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                grad = param.grad.detach()
                param.grad = grad.zero_()

    # ---- moves between dtypes and devices ----

    def _apply(self, fn):
        """Replace each parameter's and buffer's data (and gradient) by `fn` of it, keeping
        the Parameter objects, as optimizers hold them."""
        with gradjit.no_grad():
            for module in self.modules():
                for param in module._parameters.values():
                    if param is not None:
                        param.data = fn(param)
                        if param.grad is not None:
                            param.grad = fn(param.grad)
                for name, buffer in module._buffers.items():
                    if buffer is not None:
                        module._buffers[name] = fn(buffer)
        return self

    def to(self, *args, **kwargs):
        device, dtype, _, memory_format = parse_to(args, kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")
        if dtype is not None and dtype.is_complex:
            warn_at_caller("Complex modules are a new feature under active development whose "
                           "design may change, and some modules might not work as expected when "
                           "using complex tensors as parameters or buffers. Please file an issue "
                           "at https://github.com/pytorch/pytorch/issues/new?template=bug-"
                           "report.yml if a complex module does not work as expected.")

        def move(t):
            moved = t.to(device=device, dtype=dtype if t.is_floating_point() else None)
            # as PyTorch's: a memory format reaches the weights of 4-d and 5-d shape only
            return moved.contiguous(memory_format) if memory_format is not None and \
                t.dim() in (4, 5) else moved
        return self._apply(move)

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def to_empty(self, *, device, recurse=True):
        return self._apply(lambda t: gradjit.empty_like(t, device=device))

    def share_memory(self):
        return self._apply(lambda t: t.share_memory_())

    for _name in ("double", "float", "half", "bfloat16"):
        def _cast(self, _name=_name):
            return self._apply(lambda t: getattr(t, _name)() if t.is_floating_point() else t)
        _cast.__name__ = _cast.__qualname__ = _name
        locals()[_name] = _cast
    del _name, _cast

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    # ---- printing ----

    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        return ""

    def _child_lines(self):
        return [f"({name}): {_indent(repr(module))}" for name, module in self._modules.items()]

    def __repr__(self):
        extra = self.extra_repr().split("\n") if self.extra_repr() else []
        children = self._child_lines()
        if len(extra) == 1 and not children:
            return f"{self._get_name()}({extra[0]})"
        lines = extra + children
        body = "\n  " + "\n  ".join(lines) + "\n" if lines else ""
        return f"{self._get_name()}({body})"
