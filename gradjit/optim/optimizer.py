"""The Optimizer base of torch.optim: parameter groups with per-group options, per-parameter
state, zero_grad, state_dict and load_state_dict; subclasses supply the update of one group."""
from __future__ import annotations

import collections
import copy
import functools
import warnings

import gradjit
from gradjit.nn.modules.module_hooks import register
from gradjit.profiler.session import record_function

# hooks every optimizer runs around its step, before (and after) its own
_global_optimizer_pre_hooks = collections.OrderedDict()
_global_optimizer_post_hooks = collections.OrderedDict()


def register_optimizer_step_pre_hook(hook):
    """hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs), run before any step."""
    return register(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """hook(optimizer, args, kwargs) -> None, run after any optimizer's step."""
    return register(_global_optimizer_post_hooks, hook)


def _hooked_step(step):
    """The step with the step hooks around it, in the profiler's range
    Optimizer.step#SGD.step. As in PyTorch, the hooks see the arguments with the optimizer
    first, and a pre hook may replace them all."""
    @functools.wraps(step)
    def wrapper(*args, **kwargs):
        self = args[0]
        with record_function(f"Optimizer.step#{type(self).__name__}.step"):
            return _run_hooked(step, self, args, kwargs)
    wrapper.hooked = True
    return wrapper


def _run_hooked(step, self, args, kwargs):
    for hook in [*_global_optimizer_pre_hooks.values(),
                 *self._optimizer_step_pre_hooks.values()]:
        result = hook(self, args, kwargs)
        if result is None:
            continue
        if not (isinstance(result, tuple) and len(result) == 2):
            raise RuntimeError(f"{step} must return None or a tuple of (new_args, "
                               f"new_kwargs), but got {result}.")
        args, kwargs = result
    out = step(*args, **kwargs)
    for hook in [*self._optimizer_step_post_hooks.values(),
                 *_global_optimizer_post_hooks.values()]:
        hook(self, args, kwargs)
    return out


def _registrar(table: str, doc: str, ordered: bool = True):
    """A register_*_hook method adding to the optimizer's table of that name; `ordered` ones
    take prepend=True to run first."""
    if ordered:
        def method(self, hook, prepend=False):
            return register(getattr(self, table), hook, prepend)
    else:
        def method(self, hook):
            return register(getattr(self, table), hook)
    method.__doc__ = doc
    return method


def check_range(description: str, value, ok: bool):
    """PyTorch's check of a hyperparameter at construction: `Invalid learning rate: -1`."""
    if not ok:
        raise ValueError(f"Invalid {description}: {value}")


def check_lr(lr, foreach=None, capturable=False):
    """A learning rate is a number or a one-element tensor, never negative; only the capturable
    form of a foreach update takes it as a tensor (Adam's constructor checks that too)."""
    if gradjit.is_tensor(lr):
        if foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and "
                             "foreach=True")
        if lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
    check_range("learning rate", lr, lr >= 0.0)


def check_adam_options(lr, betas, eps, weight_decay, foreach=None, capturable=False):
    """The checks of the Adam family's constructors, in PyTorch's order."""
    check_lr(lr, foreach, capturable)
    check_range("epsilon value", eps, eps >= 0.0)
    check_range("beta parameter at index 0", betas[0], 0.0 <= betas[0] < 1.0)
    check_range("beta parameter at index 1", betas[1], 0.0 <= betas[1] < 1.0)
    check_range("weight_decay value", weight_decay, weight_decay >= 0.0)


def check_tensor_betas(betas, foreach=None, capturable=False):
    """Adam's betas are two floats or two one-element tensors (a tensor beta1 only where the
    update can read it without a host sync)."""
    if not (all(isinstance(b, float) for b in betas) or all(map(gradjit.is_tensor, betas))):
        raise ValueError("betas must be either both floats or both Tensors")
    for i, beta in enumerate(betas):
        if gradjit.is_tensor(beta):
            if foreach and not capturable:
                raise ValueError(f"betas[{i}] as a Tensor is not supported for "
                                 "capturable=False and foreach=True")
            if beta.numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")


class Optimizer:
    """Holds `param_groups` (dicts of 'params' and options) and `state` (a dict per parameter);
    `step()` calls `_update_group(group)`, which each optimizer defines, without recording."""

    def __init__(self, params, defaults: dict):
        if gradjit.is_tensor(params):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {gradjit.typename(params)}")
        self.defaults = defaults
        for table in _HOOK_TABLES:
            setattr(self, table, collections.OrderedDict())
        if not getattr(type(self).step, "hooked", False):
            # PyTorch wraps the class's own step once, so an override calling super() runs
            # the hooks once
            type(self).step = _hooked_step(type(self).step)
        self.state = collections.defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    register_step_pre_hook = _registrar(
        "_optimizer_step_pre_hooks", "hook(optimizer, args, kwargs) -> None or (new_args, "
        "new_kwargs), run before this optimizer's step.", ordered=False)
    register_step_post_hook = _registrar(
        "_optimizer_step_post_hooks", "hook(optimizer, args, kwargs), run after this "
        "optimizer's step.", ordered=False)
    register_state_dict_pre_hook = _registrar(
        "_optimizer_state_dict_pre_hooks", "hook(optimizer), run before state_dict().")
    register_state_dict_post_hook = _registrar(
        "_optimizer_state_dict_post_hooks", "hook(optimizer, state_dict) -> None or the "
        "state_dict to return instead.")
    register_load_state_dict_pre_hook = _registrar(
        "_optimizer_load_state_dict_pre_hooks", "hook(optimizer, state_dict) -> None or the "
        "state_dict to load instead.")
    register_load_state_dict_post_hook = _registrar(
        "_optimizer_load_state_dict_post_hooks", "hook(optimizer), run after "
        "load_state_dict().")

    def add_param_group(self, param_group: dict):
        params = param_group["params"]
        if gradjit.is_tensor(params):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        group = {**param_group, "params": list(params)}
        _split_names(group)
        for p in group["params"]:
            if not gradjit.is_tensor(p):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                f"{gradjit.typename(p)}")
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            group.setdefault(name, default)
        ids = [id(p) for p in group["params"]]
        if len(set(ids)) != len(ids):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        for other in self.param_groups:
            if ("param_names" in group) != ("param_names" in other):
                kind = "with names" if "param_names" in group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {kind} to the optimizer")
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if seen & set(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True):
        with record_function(f"Optimizer.zero_grad#{type(self).__name__}.zero_grad"):
            self._zero_grads(set_to_none)

    def _zero_grads(self, set_to_none: bool):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                grad = p.grad
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with gradjit.enable_grad():
                loss = closure()
        # a differentiable optimizer records its update, so gradients flow through the step
        with gradjit.set_grad_enabled(bool(self.defaults.get("differentiable"))):
            for group in self.param_groups:
                self._check_capturable(group)
                self._update_group(group)
        return loss

    # what PyTorch's capturable update names as on the devices it can capture, and those
    _capturable_tensors = "params and state_steps"
    _capturable_devices = ("cuda", "xpu", "hpu", "privateuseone", "xla")

    def _check_capturable(self, group: dict):
        """A capturable update keeps its step counters on a device that records graphs."""
        if not group.get("capturable") or gradjit.compiler.is_compiling():
            return
        devices = list(self._capturable_devices)
        for p in group["params"]:
            if p.grad is not None and p.device.type not in devices:
                raise AssertionError(f"If capturable=True, {self._capturable_tensors} must be "
                                     f"on supported devices: {devices}.")

    def _grad(self, group: dict, p):
        """The gradient the update follows: negated when the group maximizes."""
        return -p.grad if group.get("maximize") else p.grad

    def _state(self, group: dict, p) -> dict:
        return self.state[p]

    def _state_of(self, p, *buffers, scalars=None) -> dict:
        """self.state[p], made at its first step as PyTorch's optimizers make it: a step
        counter, then a scalar tensor for each item of `scalars`, then a zero tensor like p
        for each name in `buffers`."""
        state = self.state[p]
        if not state:
            state["step"] = gradjit.tensor(0.0)
            state.update((name, gradjit.tensor(value)) for name, value in (scalars or {}).items())
            state.update((name, gradjit.zeros_like(p)) for name in buffers)
        return state

    # PyTorch's refusal of a complex parameter (None: updated as pairs of reals)
    _complex_refusal = None

    # PyTorch's refusal of a sparse gradient (None: the update takes one)
    @property
    def _sparse_refusal(self):
        return f"{type(self).__name__} does not support sparse gradients"

    def _stepped(self, group: dict):
        """(parameter, gradient, state) for each parameter of `group` that has a gradient,
        its state's step counter advanced: the loop every stateful update runs."""
        for p in group["params"]:
            if p.grad is None:
                continue
            if p.grad.is_sparse and self._sparse_refusal:
                raise RuntimeError(self._sparse_refusal)
            if p.is_complex() and self._complex_refusal:
                raise RuntimeError(self._complex_refusal)
            grad = self._grad(group, p)
            state = self._state(group, p)
            state["step"] += 1
            if not p.is_complex():
                yield p, grad, state
                continue
            # PyTorch updates a complex parameter as the pairs of reals it holds; gradjit's
            # view_as_real copies, so the update runs on copies written back after it
            buffers = {k: v for k, v in state.items() if gradjit.is_tensor(v) and v.is_complex()}
            state.update((k, gradjit.view_as_real(v)) for k, v in buffers.items())
            real = gradjit.view_as_real(p)
            yield real, gradjit.view_as_real(grad), state
            p.copy_(gradjit.view_as_complex(real))
            for k, v in buffers.items():
                state[k] = v.copy_(gradjit.view_as_complex(state[k]))

    # ---- saving and loading ----

    def state_dict(self) -> dict:
        """State keyed by the index of each parameter across the groups, as PyTorch saves it;
        the tensors are the optimizer's own (not copies)."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index = {}
        groups = []
        for group in self.param_groups:
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            groups.append({**{k: v for k, v in group.items() if k != "params"},
                           "params": [index[id(p)] for p in group["params"]]})
        state = {index[id(p)]: s for p, s in self.state.items() if id(p) in index}
        state_dict = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            state_dict = _hook_result(hook(self, state_dict), state_dict)
        return state_dict

    def load_state_dict(self, state_dict: dict):
        state_dict = dict(state_dict)
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            state_dict = _hook_result(hook(self, state_dict), state_dict)
        # the groups are copied; the state's tensors already of the parameter's dtype are
        # taken as they are, as PyTorch takes them
        groups, saved = self.param_groups, copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        params = {i: p for g, s in zip(groups, saved) for i, p in zip(s["params"], g["params"])}
        self.state = collections.defaultdict(dict)
        for i, values in state_dict["state"].items():
            p = params[i]
            self.state[p] = {k: _like_param(k, v, p) for k, v in values.items()}
        self.__setstate__({"state": self.state, "param_groups": [
            {**s, "params": g["params"]} for g, s in zip(groups, saved)]})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    # whether state["step"] is a tensor (SparseAdam counts in a Python int)
    _tensor_step = True

    def __getstate__(self) -> dict:
        """Pickles and copies leave the hooks behind, as PyTorch's do."""
        return {k: self.__dict__[k] for k in ("defaults", "state", "param_groups")}

    def __setstate__(self, state: dict):
        """Also what loading runs: a state saved by an older version gets the hook tables,
        the options added since (at this optimizer's defaults) and tensor step counters."""
        self.__dict__.update(state)
        for table in _HOOK_TABLES:
            self.__dict__.setdefault(table, collections.OrderedDict())
        for group in self.param_groups:
            for name, default in self.defaults.items():
                group.setdefault(name, default)
        if not self._tensor_step:
            return
        for values in self.state.values():
            if "step" in values and not gradjit.is_tensor(values["step"]):
                values["step"] = gradjit.tensor(float(values["step"]), dtype=gradjit.float32)

    def __repr__(self) -> str:
        blocks = []
        for i, group in enumerate(self.param_groups):
            lines = [f"Parameter Group {i}"]
            lines += [f"    {k}: {group[k]}" for k in sorted(group) if k != "params"]
            blocks.append("\n".join(lines) + "\n")
        return f"{type(self).__name__} (\n" + "\n".join(blocks) + ")"


_HOOK_TABLES = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks")


def _hook_result(result, state_dict):
    return state_dict if result is None else result


def _split_names(group: dict):
    """Named parameters, given as (name, tensor) pairs, put their names under 'param_names'."""
    named = [p for p in group["params"] if isinstance(p, tuple)]
    if not named:
        return
    if len(named) != len(group["params"]):
        raise ValueError("all optimizer params should be with/without names. Some param names "
                         "are missing")
    group["param_names"] = [name for name, _ in named]
    group["params"] = [p for _, p in named]


def _like_param(key, value, param):
    """A loaded state value with its floating tensors in the parameter's dtype (step counters
    keep theirs), in new containers."""
    if isinstance(value, dict):
        return {k: _like_param(k, v, param) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_like_param(key, v, param) for v in value)
    if not gradjit.is_tensor(value) or key == "step" or not value.dtype.is_floating_point:
        return value
    return value.to(param.dtype)
