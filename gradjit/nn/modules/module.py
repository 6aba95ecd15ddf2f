"""nn.Module: the registry of parameters, buffers and submodules behind attribute access, and
what PyTorch builds on it (state dicts, modes, hooks, device/dtype moves, printing)."""
from __future__ import annotations

import itertools
from collections import OrderedDict, namedtuple

import gradjit
from gradjit.nn.modules.backward_hooks import BackwardHooks
from gradjit.nn.parameter import Buffer, Parameter


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


_handle_ids = itertools.count()


class RemovableHandle:
    """What registering a hook returns: `remove()` unregisters it."""

    def __init__(self, hooks):
        self._hooks, self.id = hooks, next(_handle_ids)

    def remove(self):
        self._hooks.pop(self.id, None)


def _registered(hooks, hook, prepend):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


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


class Module:
    """Base class of every layer: assign Parameters, Modules and buffers as attributes and
    they are registered; `forward` says what a call computes."""

    training: bool

    def __init__(self):
        for name, value in (("training", True), ("_parameters", OrderedDict()),
                            ("_buffers", OrderedDict()), ("_non_persistent", set()),
                            ("_modules", OrderedDict()), ("_forward_pre_hooks", OrderedDict()),
                            ("_forward_hooks", OrderedDict()), ("_backward_hooks", OrderedDict()),
                            ("_backward_pre_hooks", OrderedDict())):
            object.__setattr__(self, name, value)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    def __call__(self, *args, **kwargs):
        compiled = self.__dict__.get("_compiled_call")
        if compiled is not None:
            return compiled(*args, **kwargs)
        return self._call_impl(*args, **kwargs)

    def compile(self, *args, **kwargs):
        """Compile this module's calls in place with gradjit.compile's options (its parameters
        and state stay this module's)."""
        object.__setattr__(self, "_compiled_call", gradjit.compile(self._call_impl, *args,
                                                                   **kwargs))

    def _call_impl(self, *args, **kwargs):
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        backward = None
        if (self._backward_hooks or self._backward_pre_hooks) and gradjit.is_grad_enabled():
            backward = BackwardHooks(self, self._backward_hooks, self._backward_pre_hooks)
            args = backward.wrap_inputs(args)
        output = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            result = hook(self, args, output)
            if result is not None:
                output = result
        return output if backward is None else backward.wrap_outputs(output)

    def register_forward_pre_hook(self, hook):
        handle = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        return handle

    def register_forward_hook(self, hook):
        handle = RemovableHandle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) once the gradients of a call's inputs are
        known; a tuple it returns replaces grad_input."""
        return _registered(self._backward_hooks, hook, prepend)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) before the gradient enters the module; a tuple it
        returns replaces grad_output."""
        return _registered(self._backward_pre_hooks, hook, prepend)

    # ---- registration ----

    def _check_new_name(self, name, kind):
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
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
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_new_name(name, "buffer")
        if tensor is not None and not gradjit.is_tensor(tensor):
            raise TypeError(f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent.discard(name)
        else:
            self._non_persistent.add(name)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        self._check_new_name(name, "module")
        self._modules[name] = module

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
            modules[name] = value
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
            if name not in module._modules:
                raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
            module = module._modules[name]
        return module

    def get_parameter(self, target):
        owner, _, name = target.rpartition(".")
        module = self.get_submodule(owner)
        if name not in module._parameters:
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        return module._parameters[name]

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- state ----

    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        destination = OrderedDict() if destination is None else destination
        for name, value in itertools.chain(self._parameters.items(), self._buffers.items()):
            if value is not None and name not in self._non_persistent:
                destination[prefix + name] = value if keep_vars else value.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict=True, assign=False):
        own = self.state_dict(keep_vars=True)
        missing = [key for key in own if key not in state_dict]
        unexpected = [key for key in state_dict if key not in own]
        errors = []
        with gradjit.no_grad():
            for key, target in own.items():
                if key not in state_dict:
                    continue
                source = state_dict[key]
                if getattr(target, "materialize", None) is not None:  # a lazy module's
                    target.materialize(tuple(source.shape))
                if tuple(source.shape) != tuple(target.shape):
                    errors.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{source.shape} from checkpoint, the shape in current model "
                                  f"is {target.shape}.")
                elif assign:
                    self._assign(key, source, target.requires_grad)
                else:
                    target.copy_(source)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {self._get_name()}:\n\t" +
                               "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    def _assign(self, key, source, requires_grad):
        """load_state_dict(assign=True): the checkpoint's tensor itself takes the place (so a
        model built on the meta device gets real storage); requires_grad stays the module's."""
        path, _, name = key.rpartition(".")
        owner = self.get_submodule(path) if path else self
        if name in owner._parameters:
            owner._parameters[name] = source if isinstance(source, Parameter) and \
                source.requires_grad == requires_grad else Parameter(source, requires_grad)
        else:
            owner._buffers[name] = source

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

    def to(self, *args, memory_format=None, **kwargs):
        def move(t):
            moved = t.to(*args, **kwargs)
            moved = moved if t.is_floating_point() else moved.to(t.dtype)
            # as PyTorch's: a memory format reaches the weights of 4-d and 5-d shape only
            return moved.contiguous(memory_format) if memory_format is not None and \
                t.dim() in (4, 5) else moved
        return self._apply(move)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

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
