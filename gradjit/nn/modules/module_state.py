"""Module state dicts: saving parameters, persistent buffers and extra state under dotted
keys, loading them back (strict, assign) and the hooks around both."""
from __future__ import annotations

import itertools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

import gradjit
from gradjit.nn.modules.module_hooks import register
from gradjit.nn.parameter import Parameter

_EXTRA_STATE = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class _WithModule:
    """A load_state_dict pre-hook registered through the public API gets the module first."""

    def __init__(self, hook, module):
        self.hook, self.module = hook, module

    def __call__(self, *args):
        return self.hook(*args) if self.module is None else self.hook(self.module, *args)


class StateDict:
    """state_dict and load_state_dict of a Module, as PyTorch's."""

    _version = 1

    def _overrides(self, name):
        return getattr(type(self), name) is not getattr(StateDict, name)

    def get_extra_state(self):
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never "
                           "be called. Please file an issue at https://github.com/pytorch/"
                           "pytorch/issues/new?template=bug-report.yml to report this bug.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never "
                           "be called. Please file an issue at https://github.com/pytorch/"
                           "pytorch/issues/new?template=bug-report.yml to report this bug.")

    def register_state_dict_pre_hook(self, hook):
        return register(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        hook._from_public_api = True
        return register(self._state_dict_hooks, hook)

    def _register_state_dict_hook(self, hook):
        """The older post-hook: what it returns becomes the state dict."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via "
                               "register_state_dict_post_hook")
        return register(self._state_dict_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook):
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        return register(self._load_state_dict_pre_hooks,
                        _WithModule(hook, self if with_module else None))

    def register_load_state_dict_post_hook(self, hook):
        return register(self._load_state_dict_post_hooks, hook)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, value in itertools.chain(self._parameters.items(), self._buffers.items()):
            if value is not None and name not in self._non_persistent:
                # a lazy module's uninitialized tensor stays one (it has no shape to detach)
                lazy = getattr(value, "materialize", None) is not None
                destination[prefix + name] = value if keep_vars or lazy else value.detach()
        if self._overrides("get_extra_state"):
            destination[prefix + _EXTRA_STATE] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning,
                          stacklevel=2)
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            out = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                destination = destination if out is None else out
            elif out is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        local = {name: value for name, value in itertools.chain(
            self._parameters.items(), self._buffers.items())
            if value is not None and name not in self._non_persistent}
        for name, target in local.items():
            key = prefix + name
            if key in state_dict:
                self._load_one(name, key, target, state_dict[key], error_msgs,
                               local_metadata.get("assign_to_params_buffers", False))
            elif strict:
                missing_keys.append(key)
        extra_key = prefix + _EXTRA_STATE
        if self._overrides("set_extra_state"):
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if not key.startswith(prefix) or key == extra_key:
                    continue
                head, dot, _ = key[len(prefix):].partition(".")
                if head not in (self._modules if dot else local):
                    unexpected_keys.append(key)

    def _load_one(self, name, key, target, source, error_msgs, assign):
        if not gradjit.is_tensor(source):
            error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor'
                              f" or Tensor-like object from checkpoint but received "
                              f"{type(source)}")
            return
        if getattr(target, "materialize", None) is not None:  # a lazy module's
            target.materialize(tuple(source.shape))
        if target.dim() == 0 and tuple(source.shape) == (1,):
            source = source[0]
        if tuple(source.shape) != tuple(target.shape):
            error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                              f"{source.shape} from checkpoint, the shape in current model is "
                              f"{target.shape}.")
            return
        try:
            with gradjit.no_grad():
                if not assign:
                    target.copy_(source)
                elif isinstance(target, Parameter):
                    setattr(self, name, source.requires_grad_(target.requires_grad)
                            if isinstance(source, Parameter) else
                            Parameter(source, requires_grad=target.requires_grad))
                else:
                    setattr(self, name, source)
        except Exception as ex:
            error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in '
                              f"the model are {target.size()} and whose dimensions in the "
                              f"checkpoint are {source.size()}, an exception occurred : "
                              f"{ex.args}.")

    def load_state_dict(self, state_dict, strict=True, assign=False):
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)

        def load(module, local_state, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state, prefix, local_metadata, True, missing,
                                         unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state.items()
                                 if k.startswith(child_prefix)}, child_prefix)
            keys = _IncompatibleKeys(missing, unexpected)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, keys) is not None:
                    raise AssertionError("Hooks registered with "
                                         "``register_load_state_dict_post_hook`` are not "
                                         "expected to return new values, if incompatible_keys "
                                         "need to be modified, it should be done inplace.")

        load(self, state_dict)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)
