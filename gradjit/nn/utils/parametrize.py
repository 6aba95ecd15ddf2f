"""torch.nn.utils.parametrize: a module's tensor computed from an `original` by a chain of
modules each time it is read. The module's class becomes `Parametrized<Class>` with a property
for the tensor; the original lives at `module.parametrizations[name].original` (so in the
state dict), and assigning the tensor goes through the chain's `right_inverse`s."""
from __future__ import annotations

import contextlib
import copy

import gradjit
from gradjit.nn.modules.container import ModuleDict, ModuleList
from gradjit.nn.parameter import Parameter

_cache: dict | None = None  # (module id, name) -> value, inside `cached()`


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in order, and its `original` (or `original0`,
    `original1`, ... where the first one's right_inverse gives several tensors)."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        before = original.dtype, original.shape  # as registered: keeping may change them
        with gradjit.no_grad():
            value = _inverted(self, original, initial=True)
        if not gradjit.is_tensor(value) and not isinstance(value, (list, tuple)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(value).__name__}")
        self.is_tensor = gradjit.is_tensor(value)
        self.ntensors = 1 if self.is_tensor else len(value)
        if self.is_tensor:
            self._keep_original(original, value)
        else:
            self._keep_originals(original, value)
        if not unsafe:
            with gradjit.no_grad():
                _check_same(before, self())

    def _keep_original(self, original, value):
        if original.dtype != value.dtype:
            raise ValueError("When `right_inverse` outputs one tensor, it may not change the "
                             f"dtype.\noriginal.dtype: {original.dtype}\n"
                             f"right_inverse(original).dtype: {value.dtype}")
        if isinstance(original, Parameter):
            if value is not original:
                original.data = value.detach()  # the optimizer's Parameter is kept
            self.original = original
        else:
            self.register_buffer("original", value)

    def _keep_originals(self, original, values):
        for i, part in enumerate(values):
            if not gradjit.is_tensor(part):
                raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                                 f"(list, tuple...). Got element {i} of the sequence with type "
                                 f"{type(part).__name__}.")
            if isinstance(original, Parameter):
                self.register_parameter(f"original{i}",
                                        Parameter(part.detach(), original.requires_grad))
            else:
                self.register_buffer(f"original{i}", part.requires_grad_(original.requires_grad))

    def originals(self):
        return [self.original] if self.is_tensor else \
            [getattr(self, f"original{i}") for i in range(self.ntensors)]

    def right_inverse(self, value):
        """Set the originals so that the chain gives `value`."""
        with gradjit.no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
            value = _inverted(self, value, initial=False)
            parts = [value] if gradjit.is_tensor(value) else list(value)
            for target, part in zip(self.originals(), parts, strict=True):
                if tuple(part.shape) != tuple(target.shape) and not self.unsafe:
                    raise RuntimeError(f"The tensor returned by right_inverse has shape "
                                       f"{tuple(part.shape)} while `original` has shape "
                                       f"{tuple(target.shape)}")
                target.data = part.detach().to(target.dtype)

    def forward(self):
        first, *rest = list(self)
        value = first(*self.originals())
        for module in rest:
            value = module(value)
        return value


def _inverted(chain, value, initial):
    """value through the chain's right_inverses, last first. A missing one is the identity;
    so is an unimplemented one when registering (assigning then raises, as PyTorch does)."""
    for module in reversed(list(chain)):
        if hasattr(module, "right_inverse"):
            try:
                value = module.right_inverse(value)
            except NotImplementedError:
                if not initial:
                    raise
    return value


def _property(name):
    def get(module):
        chain = module.parametrizations[name]
        if _cache is None:
            return chain()
        key = (id(module), name)
        if key not in _cache:
            _cache[key] = chain()
        return _cache[key]

    def put(module, value):
        module.parametrizations[name].right_inverse(value)
    return property(get, put)


def _refuse_pickling(module):
    raise RuntimeError("Serialization of parametrized modules is only supported through "
                       "state_dict(). See:\nhttps://pytorch.org/tutorials/beginner/"
                       "saving_loading_models.html#saving-loading-a-general-checkpoint-for-"
                       "inference-and-or-resuming-training")


def _copied(module, memo):
    """deepcopy without pickling's __getstate__, which parametrized modules refuse."""
    if id(module) in memo:
        return memo[id(module)]
    replica = module.__new__(type(module))
    memo[id(module)] = replica
    replica.__dict__ = copy.deepcopy(module.__dict__, memo)
    return replica


def _parametrized_class(module):
    cls = type(module)
    if getattr(cls, "_parametrized_from", None) is not None:
        return cls
    members = {"_parametrized_from": cls, "__getstate__": _refuse_pickling}
    if not hasattr(cls, "__deepcopy__"):
        members["__deepcopy__"] = _copied
    return type(f"Parametrized{cls.__name__}", (cls,), members)


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make `module.<tensor_name>` parametrization(original); a second call on the same name
    appends to its chain."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        chain = module.parametrizations[tensor_name]
        if not unsafe:
            _check_appended(parametrization, getattr(module, tensor_name), tensor_name)
        chain.append(parametrization)
        chain.unsafe |= unsafe
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    original = getattr(module, tensor_name)
    # the new chain checks the parametrization on right_inverse's tensors, which may be several
    chain = ParametrizationList([parametrization], original, unsafe)
    for table in (module._parameters, module._buffers):
        table.pop(tensor_name, None)
    if not is_parametrized(module):
        module.__class__ = _parametrized_class(module)
        module.parametrizations = ModuleDict()
    module.parametrizations[tensor_name] = chain
    setattr(type(module), tensor_name, _property(tensor_name))
    return module


def _check_appended(parametrization, current, name):
    """A parametrization added to a chain keeps the tensor's dtype and shape, and so does its
    right_inverse."""
    out = parametrization(current)
    if not gradjit.is_tensor(out):
        raise ValueError(f"A parametrization must return a tensor. Got {type(out).__name__}.")
    _check_kept(current, out, name, "Registering a parametrization may not change the {} of "
                "the tensor", "parametrization(module.{name}).{}")
    try:
        inverse = parametrization.right_inverse(out) if \
            hasattr(parametrization, "right_inverse") else None
    except NotImplementedError:
        inverse = None
    if inverse is not None:
        if not gradjit.is_tensor(inverse):
            raise ValueError("parametrization.right_inverse must return a tensor. Got: "
                             f"{type(inverse).__name__}")
        _check_kept(current, inverse, name, "The tensor returned by parametrization."
                    "right_inverse must have the same {} as module." + name, "returned {}")


def _check_kept(current, new, name, headline, label):
    for what, old, now in (("dtype", current.dtype, new.dtype),
                           ("shape", current.shape, new.shape)):
        if old != now:
            raise ValueError(headline.format(what) + ", unless the `unsafe` flag is enabled.\n"
                             f"module.{name}.{what}: {old}\n"
                             f"{label.format(what, name=name)}: {now}")


def _check_same(before, out):
    if not gradjit.is_tensor(out):
        raise ValueError(f"A parametrization must return a tensor. Got {type(out).__name__}.")
    for what, old, now in zip(("dtype", "shape"), before, (out.dtype, out.shape)):
        if old != now:
            raise ValueError(f"Registering a parametrization may not change the {what} of the "
                             f"tensor, unless `unsafe` flag is enabled.\nunparametrized {what}: "
                             f"{old}\nparametrized {what}: {now}")


def is_parametrized(module, tensor_name=None) -> bool:
    chains = module.__dict__.get("_modules", {}).get("parametrizations")
    if chains is None or getattr(type(module), "_parametrized_from", None) is None:
        return False
    return bool(len(chains)) if tensor_name is None else tensor_name in chains


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """The tensor back as a plain Parameter (or buffer): its current parametrized value, or
    its original with leave_parametrized=False."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if not chain.is_tensor:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        value = getattr(module, tensor_name)
        original = Parameter(value) if value.requires_grad else value
    elif leave_parametrized:
        original = chain.original
        with gradjit.no_grad():
            value = getattr(module, tensor_name)
        if isinstance(original, Parameter):
            original.data = value.detach()
        else:
            original = value.detach()
    else:
        original = chain.original
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    if isinstance(original, Parameter):
        module.register_parameter(tensor_name, original)
    else:
        module.register_buffer(tensor_name, original)
    if not len(module.parametrizations):
        del module.parametrizations
        module.__class__ = type(module)._parametrized_from
    return module


@contextlib.contextmanager
def cached():
    """Inside, each parametrized tensor is computed once and reused."""
    global _cache
    outer, _cache = _cache, {} if _cache is None else _cache
    try:
        yield
    finally:
        _cache = outer


def type_before_parametrizations(module):
    """The module's class as it was before register_parametrization subclassed it."""
    return type(module).__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Give to_module from_module's parametrizations of tensor_name (of every tensor when
    None), sharing their original tensors; a tensor to_module lacks is created first."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        source = from_module.parametrizations[name]
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        originals = ["original"] if source.is_tensor else \
            [f"original{i}" for i in range(source.ntensors)]
        for original in originals:
            setattr(target, original, getattr(source, original))
    return to_module
