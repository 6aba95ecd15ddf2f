"""torch._foreach_*: an op applied tensor by tensor over lists of tensors, each family generated
from one table over gradjit's own ops (so autograd and tracing come with them); the in-place `_`
forms update the tensors and return the list given, and list lengths are checked as torch does."""
from __future__ import annotations

import numbers

import gradjit
from gradjit.tensor import Tensor

UNARY = ("abs acos asin atan ceil cos cosh erf erfc exp expm1 floor frac lgamma log log10 log1p "
         "log2 neg reciprocal round rsqrt sigmoid sign sin sinh sqrt tan tanh trunc").split()

# name: (the op with a tensor operand, the op with a number: torch.maximum takes no number)
BINARY = {"add": ("add", "add"), "sub": ("sub", "sub"), "mul": ("mul", "mul"),
          "div": ("div", "div"), "pow": ("pow", "pow"), "maximum": ("maximum", "clamp_min"),
          "minimum": ("minimum", "clamp_max"), "clamp_min": ("clamp_min", "clamp_min"),
          "clamp_max": ("clamp_max", "clamp_max")}

# name: how many tensor lists follow self, then the scalar operand (a weight or value)
TERNARY = {"addcmul": 2, "addcdiv": 2, "lerp": 1}


def _checked(tensors, name) -> list:
    """The tensors of a foreach op's first argument, a non-empty list or tuple of Tensors."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'self' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    if not tensors:
        raise RuntimeError("Tensor list must have at least one tensor.")
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(x).__name__}")
    return list(tensors)


def _same_length(tensors, other):
    if len(other) != len(tensors):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got "
                           f"{len(tensors)} and {len(other)}")


def _spread(tensors, other) -> list:
    """other as one operand per tensor: a list of tensors or of numbers (each its tensor's), a
    0-dim tensor or a number (the same for all)."""
    if isinstance(other, Tensor):
        if other.dim() != 0:
            raise RuntimeError(f"scalar tensor expected to be 0 dim but it has {other.dim()} "
                               f"dimensions and {other.numel()} elements.")
        return [other] * len(tensors)
    if not isinstance(other, (list, tuple)):
        return [other] * len(tensors)
    if other and not isinstance(other[0], Tensor):
        if len(other) != len(tensors):
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        return list(other)
    _same_length(tensors, other)
    return list(other)


def _apply(tensors, results, inplace):
    """The results, or for an in-place form the tensors given, updated to them."""
    if not inplace:
        return tuple(results)
    for x, r in zip(tensors, results):
        if r is not x:
            x.copy_(r)
    return tensors


def _unary(name, inplace):
    def op(self):
        tensors = _checked(self, op.__name__)
        return _apply(self, [getattr(x, name + "_" if inplace else name)() for x in tensors],
                      inplace)
    return op


def _binary(tensor_op, number_op, inplace):
    def op(self, other, **alpha):
        if isinstance(self, numbers.Number):  # pow(number, tensors)
            return tuple(gradjit.pow(self, x) for x in _checked(other, op.__name__))
        tensors = _checked(self, op.__name__)
        results = []
        for x, o in zip(tensors, _spread(tensors, other)):
            name = tensor_op if isinstance(o, Tensor) else number_op
            method = getattr(x, name + "_", None) if inplace else None
            results.append(method(o, **alpha) if method else getattr(gradjit, name)(x, o, **alpha))
        return _apply(self, results, inplace)
    return op


def _ternary(name, lists, inplace):
    def op(self, *operands, **options):
        tensors = _checked(self, op.__name__)
        for other in operands[:lists]:
            _same_length(tensors, other)
        rest = operands[lists:] or tuple(options.values()) or (1,)
        scalars = rest[0].tolist() if isinstance(rest[0], Tensor) and rest[0].dim() else rest[0]
        key = "weight" if name == "lerp" else "value"
        results = [getattr(x, name + "_")(*others, **{key: w}) if inplace else
                   getattr(gradjit, name)(x, *others, **{key: w}) for x, w, *others in
                   zip(tensors, _spread(tensors, scalars), *operands[:lists])]
        return _apply(self, results, inplace)
    return op


def _foreach_norm(self, ord=2, dtype=None):
    return tuple(gradjit.linalg.vector_norm(x, ord, dtype=dtype)
                 for x in _checked(self, "_foreach_norm"))


def _foreach_max(self):
    tensors = _checked(self, "_foreach_max")
    if any(x.numel() == 0 for x in tensors):
        raise RuntimeError("_foreach_max cannot compute the maximum of an empty tensor; max over "
                           "zero elements is undefined.")
    return tuple(x.max() for x in tensors)


def _foreach_clone(self):
    return tuple(x.clone() for x in _checked(self, "_foreach_clone"))


def _foreach_zero_(self):
    for x in _checked(self, "_foreach_zero_"):
        x.zero_()
    return self


def _foreach_copy_(self, src, non_blocking=False):
    tensors = _checked(self, "_foreach_copy_")
    _same_length(tensors, src)
    for x, s in zip(tensors, src):
        x.copy_(s)
    return self


def _family():
    table = {}
    for suffix, inplace in (("", False), ("_", True)):
        table.update({f"_foreach_{n}{suffix}": _unary(n, inplace) for n in UNARY})
        table.update({f"_foreach_{n}{suffix}": _binary(*ops, inplace)
                      for n, ops in BINARY.items()})
        table.update({f"_foreach_{n}{suffix}": _ternary(n, k, inplace)
                      for n, k in TERNARY.items()})
    for name, fn in table.items():
        fn.__name__ = fn.__qualname__ = name
    return table


_FAMILY = _family()
globals().update(_FAMILY)
__all__ = sorted(_FAMILY) + ["_foreach_clone", "_foreach_copy_", "_foreach_max",
                               "_foreach_norm", "_foreach_zero_"]
