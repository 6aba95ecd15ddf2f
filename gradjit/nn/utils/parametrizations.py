"""torch.nn.utils.parametrizations: weight normalization as a parametrization (the weight
is g * v / ||v||, norms taken over every dim but `dim`), and the older
torch.nn.utils.weight_norm that keeps `<name>_g` and `<name>_v` on the module itself."""
from __future__ import annotations

import warnings

import gradjit
from gradjit.nn.modules.module import Module
from gradjit.nn.parameter import Parameter
from gradjit.nn.utils import parametrize


def norm_except_dim(v, pow=2, dim=0):
    """The p-norm of v over every dim but `dim`, that dim kept (dim -1: of all of v)."""
    if dim == -1:
        return gradjit.linalg.vector_norm(v, pow)
    others = [d for d in range(v.dim()) if d != dim % v.dim()]
    return gradjit.linalg.vector_norm(v, pow, dim=others, keepdim=True)


def _weight_norm(v, g, dim=0):
    return v * (g / norm_except_dim(v, 2, dim))


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """module.<name> = g * v / ||v||, with g (original0) and v (original1) its parameters."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _OldWeightNorm:
    """The forward pre-hook of torch.nn.utils.weight_norm: recompute the weight from
    `<name>_g` and `<name>_v` before each call."""

    def __init__(self, name, dim):
        self.name, self.dim = name, -1 if dim is None else dim

    def compute_weight(self, module):
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"),
                            self.dim)

    def __call__(self, module, inputs):
        object.__setattr__(module, self.name, self.compute_weight(module))


def old_weight_norm(module, name="weight", dim=0):
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                  "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, _OldWeightNorm) and hook.name == name:
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter "
                               f"{name}")
    hook = _OldWeightNorm(name, dim)
    weight = getattr(module, name)
    del module._parameters[name]
    module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2,
                                                                     hook.dim).detach()))
    module.register_parameter(name + "_v", Parameter(weight.detach()))
    object.__setattr__(module, name, hook.compute_weight(module))
    module.register_forward_pre_hook(hook)
    return module


def remove_weight_norm(module, name="weight"):
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, _OldWeightNorm) and hook.name == name:
            weight = hook.compute_weight(module).detach()
            object.__delattr__(module, name)
            del module._parameters[name + "_g"], module._parameters[name + "_v"]
            module.register_parameter(name, Parameter(weight))
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
