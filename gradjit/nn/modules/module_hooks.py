"""What a Module call runs around `forward`: forward pre-hooks and hooks (global and the
module's own, with kwargs, prepended, always called) and full backward hooks."""
from __future__ import annotations

import warnings
from collections import OrderedDict

import gradjit
from gradjit.nn.modules.backward_hooks import BackwardHooks
from gradjit.tensor import graph

# torch.nn.modules.module's global hooks: every module runs them before its own
_global_forward_pre_hooks: OrderedDict = OrderedDict()
_global_forward_hooks: OrderedDict = OrderedDict()
_global_forward_hooks_with_kwargs: OrderedDict = OrderedDict()
_global_forward_hooks_always_called: OrderedDict = OrderedDict()
_global_backward_hooks: OrderedDict = OrderedDict()
_global_backward_pre_hooks: OrderedDict = OrderedDict()
_global_module_registration_hooks: OrderedDict = OrderedDict()
_global_parameter_registration_hooks: OrderedDict = OrderedDict()
_global_buffer_registration_hooks: OrderedDict = OrderedDict()


RemovableHandle = graph.RemovableHandle


def register(hooks, hook, prepend=False, options=()):
    """Add `hook` to `hooks`; each (table, wanted) of `options` records a true option
    under the hook's id, so the handle takes it off there too."""
    handle = RemovableHandle(hooks, extra_dict=[table for table, _ in options])
    hooks[handle.id] = hook
    for table, wanted in options:
        if wanted:
            table[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_module_forward_pre_hook(hook):
    return register(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    return register(_global_forward_hooks, hook, options=(
        (_global_forward_hooks_with_kwargs, with_kwargs),
        (_global_forward_hooks_always_called, always_call)))


def register_module_full_backward_hook(hook):
    return register(_global_backward_hooks, hook)


def register_module_full_backward_pre_hook(hook):
    return register(_global_backward_pre_hooks, hook)


def register_module_module_registration_hook(hook):
    return register(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook):
    return register(_global_parameter_registration_hooks, hook)


def register_module_buffer_registration_hook(hook):
    return register(_global_buffer_registration_hooks, hook)


def run_registration_hooks(table, module, name, value):
    """A registration hook may return what gets registered in place of `value`."""
    for hook in list(table.values()):
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value


class HookedCall:
    """Module's calling convention: pre-hooks may rewrite the arguments, hooks the result,
    and hooks marked always_call run even when forward raises."""

    def __call__(self, *args, **kwargs):
        compiled = self.__dict__.get("_compiled_call")
        if compiled is not None:
            return compiled(*args, **kwargs)
        return self._call_impl(*args, **kwargs)

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        return register(self._forward_pre_hooks, hook, prepend,
                        ((self._forward_pre_hooks_with_kwargs, with_kwargs),))

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        return register(self._forward_hooks, hook, prepend,
                        ((self._forward_hooks_with_kwargs, with_kwargs),
                         (self._forward_hooks_always_called, always_call)))

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) once the gradients of a call's inputs are
        known; a tuple it returns replaces grad_input."""
        self._backward_hook_kind(True)
        return register(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """PyTorch's deprecated hook: hook(module, grad_input, grad_output) when the gradient
        node of the output's first tensor ran, grad_input being that node's input gradients."""
        self._backward_hook_kind(False)
        return register(self._backward_hooks, hook)

    def _backward_hook_kind(self, full):
        if self.__dict__.setdefault("_is_full_backward_hook", full) != full:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) before the gradient enters the module; a tuple it
        returns replaces grad_output."""
        return register(self._backward_pre_hooks, hook, prepend)

    def _call_impl(self, *args, **kwargs):
        called, result = set(), None
        try:
            args, kwargs = self._run_forward_pre_hooks(args, kwargs)
            legacy = self.__dict__.get("_is_full_backward_hook") is False
            full = OrderedDict({**_global_backward_hooks,
                                **({} if legacy else self._backward_hooks)})
            pre = OrderedDict({**_global_backward_pre_hooks, **self._backward_pre_hooks})
            backward = None
            if (full or pre) and gradjit.is_grad_enabled():
                backward = BackwardHooks(self, full, pre)
                args = backward.wrap_inputs(args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook, with_kwargs, _ in self._forward_hook_rows():
                called.add(hook_id)
                out = hook(self, args, kwargs, result) if with_kwargs else \
                    hook(self, args, result)
                result = result if out is None else out
            if legacy and self._backward_hooks:
                self._hook_output_node(result)
            return result if backward is None else backward.wrap_outputs(result)
        except Exception:
            self._run_always_called(args, kwargs, result, called)
            raise

    def _hook_output_node(self, result):
        """register_backward_hook's hooks on the gradient node of the first output tensor."""
        first = result
        while not gradjit.is_tensor(first):
            first = next(v for v in first.values() if gradjit.is_tensor(v)) \
                if isinstance(first, dict) else first[0]
        if first.grad_fn is not None:
            for hook in self._backward_hooks.values():
                first.grad_fn.register_hook(
                    lambda grad_input, grad_output, hook=hook: hook(self, grad_input,
                                                                    grad_output))

    def _run_forward_pre_hooks(self, args, kwargs):
        for hook_id, hook in (*_global_forward_pre_hooks.items(),
                              *self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                out = hook(self, args, kwargs)
                if out is None:
                    continue
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError("forward pre-hook must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {out}.")
                args, kwargs = out
            else:
                out = hook(self, args)
                if out is not None:
                    args = out if isinstance(out, tuple) else (out,)
        return args, kwargs

    def _forward_hook_rows(self):
        """(id, hook, with_kwargs, global?) of the forward hooks, the global ones first."""
        rows = [(i, h, i in _global_forward_hooks_with_kwargs, True)
                for i, h in _global_forward_hooks.items()]
        return rows + [(i, h, i in self._forward_hooks_with_kwargs, False)
                       for i, h in self._forward_hooks.items()]

    def _run_always_called(self, args, kwargs, result, called):
        """After forward (or a hook) raised: the always-called hooks not yet run; their own
        errors become warnings so the first error is the one raised."""
        for hook_id, hook, with_kwargs, is_global in self._forward_hook_rows():
            always = _global_forward_hooks_always_called if is_global else \
                self._forward_hooks_always_called
            if hook_id not in always or hook_id in called:
                continue
            try:
                # as PyTorch's: a global hook gets no kwargs here
                out = hook(self, args, kwargs, result) if with_kwargs and not is_global else \
                    hook(self, args, result)
                result = result if out is None else out
            except Exception as e:
                where = "global module" if is_global else "module"
                warnings.warn(f"{where} forward hook with ``always_call=True`` raised an "
                              "exception that was silenced as another error was raised in "
                              f"forward: {e}", stacklevel=2)
