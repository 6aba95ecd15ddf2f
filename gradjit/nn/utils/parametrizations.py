"""torch.nn.utils.parametrizations: weight normalization (the weight is g * v / ||v||, norms
taken over every dim but `dim`) and spectral normalization (the weight over its largest
singular value, estimated by power iteration) as parametrizations, and the older
torch.nn.utils.weight_norm/spectral_norm that keep their tensors on the module itself and
recompute the weight in a forward pre-hook."""
from __future__ import annotations

import warnings

import gradjit
from gradjit.nn.modules.module import Module
from gradjit.nn.parameter import Parameter
from gradjit.nn.utils import parametrize
from gradjit.nn.utils.orthogonal import orthogonal  # noqa: F401


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


def _is_transposed_conv(module) -> bool:
    return type(module).__name__.startswith("ConvTranspose") or \
        type(module).__name__.startswith("LazyConvTranspose")


def _as_matrix(weight, dim):
    """weight with `dim` first, the rest flattened: the matrix whose largest singular value
    the power method estimates."""
    if dim != 0:
        weight = weight.permute(dim, *(d for d in range(weight.dim()) if d != dim))
    return weight.reshape(weight.shape[0], -1)


def _normalized(x, eps):
    return gradjit.nn.functional.normalize(x, dim=0, eps=eps)


class _SpectralNorm(Module):
    """weight / sigma, sigma = u . W v with u, v the power method's singular vectors, updated
    (in place, without gradient) at each training-mode call."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.dim()
        if not -ndim <= dim < ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, "
                             f"{ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim, self.eps = dim % ndim, eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            matrix = _as_matrix(weight, self.dim)
            u = matrix.new_empty(matrix.shape[0]).normal_(0, 1)
            v = matrix.new_empty(matrix.shape[1]).normal_(0, 1)
            self.register_buffer("_u", _normalized(u, eps))
            self.register_buffer("_v", _normalized(v, eps))
            self._power_method(matrix, 15)

    def _power_method(self, matrix, iterations):
        with gradjit.no_grad():
            for _ in range(iterations):
                self._u.copy_(_normalized(gradjit.mv(matrix, self._v), self.eps))
                self._v.copy_(_normalized(gradjit.mv(matrix.t(), self._u), self.eps))

    def forward(self, weight):
        if weight.dim() == 1:
            return _normalized(weight, self.eps)
        matrix = _as_matrix(weight, self.dim)
        if self.training:
            self._power_method(matrix, self.n_power_iterations)
        sigma = gradjit.vdot(self._u.clone(), gradjit.mv(matrix, self._v.clone()))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """module.<name> divided by its spectral norm (estimated by power iteration)."""
    weight = getattr(module, name, None)
    if not gradjit.is_tensor(weight):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if _is_transposed_conv(module) else 0
    parametrize.register_parametrization(module, name,
                                         _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


class _OldSpectralNorm:
    """The forward pre-hook of torch.nn.utils.spectral_norm: `<name>_orig` divided by sigma
    from the buffers `<name>_u` and `<name>_v`, power-iterated in training mode."""

    def __init__(self, name, n_power_iterations, dim, eps):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.n_power_iterations, self.dim, self.eps = (name, n_power_iterations,
                                                                  dim, eps)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        matrix = _as_matrix(weight, self.dim)
        if do_power_iteration:
            with gradjit.no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(_normalized(gradjit.mv(matrix.t(), u), self.eps))
                    u.copy_(_normalized(gradjit.mv(matrix, v), self.eps))
        sigma = gradjit.dot(u.clone(), gradjit.mv(matrix, v.clone()))
        return weight / sigma

    def __call__(self, module, inputs):
        object.__setattr__(module, self.name,
                           self.compute_weight(module, do_power_iteration=module.training))


def old_spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, _OldSpectralNorm) and hook.name == name:
            raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter "
                               f"{name}")
    if dim is None:
        dim = 1 if _is_transposed_conv(module) else 0
    hook = _OldSpectralNorm(name, n_power_iterations, dim, eps)
    weight = module._parameters[name]
    with gradjit.no_grad():
        matrix = _as_matrix(weight, dim)
        u = _normalized(weight.new_empty(matrix.shape[0]).normal_(0, 1), eps)
        v = _normalized(weight.new_empty(matrix.shape[1]).normal_(0, 1), eps)
    del module._parameters[name]
    module.register_parameter(name + "_orig", weight)
    object.__setattr__(module, name, weight.data)
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    module.register_forward_pre_hook(hook)
    return module


def remove_spectral_norm(module, name="weight"):
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, _OldSpectralNorm) and hook.name == name:
            with gradjit.no_grad():
                weight = hook.compute_weight(module, do_power_iteration=False)
            object.__delattr__(module, name)
            del module._parameters[name + "_orig"]
            del module._buffers[name + "_u"], module._buffers[name + "_v"]
            module.register_parameter(name, Parameter(weight.detach()))
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
