"""torch.nn.utils.prune: a module's tensor `name` becomes `name_orig * name_mask`, the mask a
buffer that each pruning step (random or by magnitude, element by element or whole slices
along a dim, or a given mask) narrows further; a forward pre-hook recomputes the product and
`remove` makes the pruned tensor a plain parameter again."""
from __future__ import annotations

import numbers
from collections.abc import Iterable

import gradjit


class BasePruningMethod:
    """A pruning step: `compute_mask(t, default_mask)` gives the new mask (0 where pruned)."""

    PRUNING_TYPE = "unstructured"
    _tensor_name: str

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    def compute_mask(self, t, default_mask):
        raise NotImplementedError(f"{type(self).__name__} does not define compute_mask(t, "
                                  "default_mask)")

    def apply_mask(self, module):
        return getattr(module, self._tensor_name + "_orig") * \
            getattr(module, self._tensor_name + "_mask")

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        method = _combined(module, name, cls(*args, **kwargs))
        orig = getattr(module, name)
        scores = orig if importance_scores is None else importance_scores
        if tuple(scores.shape) != tuple(orig.shape):
            raise AssertionError(f"importance_scores should have the same shape as parameter "
                                 f"{name} of {module}, got {scores.shape} vs {orig.shape}")
        if isinstance(method, PruningContainer):
            default_mask = getattr(module, name + "_mask").detach().clone()
        else:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = gradjit.ones_like(orig)
        with gradjit.no_grad():
            mask = method.compute_mask(scores.detach(), default_mask=default_mask)
        module.register_buffer(name + "_mask", mask)
        object.__setattr__(module, name, method.apply_mask(module))
        module.register_forward_pre_hook(method)
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        scores = t if importance_scores is None else importance_scores
        mask = gradjit.ones_like(t) if default_mask is None else default_mask
        return t * self.compute_mask(scores, default_mask=mask)

    def remove(self, module):
        pruned = self.apply_mask(module).detach()
        object.__delattr__(module, self._tensor_name)
        orig = module._parameters.pop(self._tensor_name + "_orig")
        del module._buffers[self._tensor_name + "_mask"]
        orig.data = pruned
        module.register_parameter(self._tensor_name, orig)


def _combined(module, name, method):
    """`method` for module.<name>, in a PruningContainer after the steps already applied."""
    method._tensor_name = name
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            del module._forward_pre_hooks[key]
            container = hook if isinstance(hook, PruningContainer) else PruningContainer(hook)
            container.add_pruning_method(method)
            return container
    return method


class PruningContainer(BasePruningMethod):
    """Steps applied one after the other: each new one prunes only what is still kept."""

    def __init__(self, *methods):
        self._pruning_methods: tuple = ()
        for method in methods:
            self.add_pruning_method(method)

    def add_pruning_method(self, method):
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None:
            if self._pruning_methods and self._tensor_name != method._tensor_name:
                raise ValueError(f"Can only add pruning methods acting on the parameter named "
                                 f"'{self._tensor_name}' to PruningContainer {self}. Found "
                                 f"'{method._tensor_name}'")
            self._tensor_name = method._tensor_name
            self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, index):
        return self._pruning_methods[index]

    def compute_mask(self, t, default_mask):
        """The last step's mask on the part the earlier ones kept: the kept elements
        (unstructured), the kept slices along its dim (structured), or all (global)."""
        method = self._pruning_methods[-1]
        mask = default_mask.to(t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            kept = mask == 1
        elif method.PRUNING_TYPE == "structured":
            dim = method.dim % t.dim()
            others = [d for d in range(t.dim()) if d != dim]
            kept = (slice(None),) * dim + (mask.sum(dim=others) != 0,)
        else:
            kept = (slice(None),) * t.dim()
        mask[kept] = method.compute_mask(t[kept], default_mask=mask[kept]).to(mask.dtype)
        return mask


class Identity(BasePruningMethod):
    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """`amount` elements (a count, or a fraction of them) at random."""

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        count = _count(self.amount, t.numel())
        mask = default_mask.clone()
        if count:
            chosen = gradjit.topk(gradjit.rand_like(t).view(-1), k=count).indices
            mask.view(-1)[chosen] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """The `amount` elements of smallest magnitude."""

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        count = _count(self.amount, t.numel())
        mask = default_mask.clone()
        if count:
            smallest = gradjit.topk(t.abs().view(-1), k=count, largest=False).indices
            mask.view(-1)[smallest] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """`amount` whole slices along `dim`, at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount, self.dim = amount, dim

    def compute_mask(self, t, default_mask):
        _check_structured(t)
        channels = t.shape[self.dim]
        count = _count(self.amount, channels)
        if not count:
            return default_mask
        draw = gradjit.rand(channels)
        kept = draw > gradjit.kthvalue(draw, k=count).values
        return _slices(t, self.dim, kept) * default_mask.to(t.dtype)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """The `amount` slices along `dim` of smallest n-norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _check_amount(amount)
        self.amount, self.n, self.dim = amount, n, dim

    def compute_mask(self, t, default_mask):
        _check_structured(t)
        channels = t.shape[self.dim]
        count = _count(self.amount, channels)
        if not count:
            return default_mask
        dim = self.dim % t.dim()
        norms = gradjit.linalg.vector_norm(t, self.n, dim=[d for d in range(t.dim()) if d != dim])
        largest = gradjit.topk(norms, k=channels - count).indices
        return _slices(t, dim, largest) * default_mask.to(t.dtype)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match self.mask "
                                 f"shape {self.mask.shape}")
        return default_mask * self.mask.to(default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def _slices(t, dim, which):
    """Ones in the slices along dim that `which` selects (a mask or indices), else zeros."""
    mask = gradjit.zeros_like(t)
    mask[(slice(None),) * (dim % t.dim()) + (which,)] = 1
    return mask


def _check_structured(t):
    if t.dim() <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {t.shape} with {t.dim()} dims")


def _check_amount(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if isinstance(amount, numbers.Integral) and amount < 0 or \
            not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0:
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _count(amount, size):
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise ValueError(f"amount={amount} should be smaller than the number of parameters "
                             f"to prune={size}")
        return amount
    return round(amount * size)


def identity(module, name):
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """One pruning step over several tensors taken together as one vector."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    if not isinstance(parameters[0] if parameters else None, tuple):
        raise TypeError("global_unstructured(): parameters must be an iterable of "
                        "(module, name) tuples")
    scores = importance_scores or {}
    vector = gradjit.cat([scores.get((m, n), getattr(m, n)).detach().reshape(-1)
                          for m, n in parameters])
    default = gradjit.cat([getattr(m, n + "_mask", gradjit.ones_like(getattr(m, n))).reshape(-1)
                           for m, n in parameters])
    method = pruning_method(**kwargs)
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    method._tensor_name = "temp"
    with gradjit.no_grad():
        mask = PruningContainer(method).compute_mask(vector, default)
    start = 0
    for module, name in parameters:
        size = getattr(module, name).numel()
        custom_from_mask(module, name, mask=mask[start:start + size].view_as(getattr(module,
                                                                                    name)))
        start += size


def remove(module, name):
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module) -> bool:
    return any(isinstance(hook, BasePruningMethod)
               for m in module.modules() for hook in m._forward_pre_hooks.values())
