"""torch.autograd.forward_ad: dual tensors within a dual level. A tangent is pushed forward
on demand, at unpack_dual, by the double-backward trick over the eager tape: with g = J^T u
for a free cotangent u, J t is the gradient of <g, t> with respect to u."""
from __future__ import annotations

import threading
from collections import namedtuple

from gradjit.tensor import graph
from gradjit.tensor.factories import zeros
from gradjit.tensor.grad_mode import is_grad_enabled

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])

_levels: list[dict] = []  # per level: {id(dual): (dual, tangent)}


class _Pushing(threading.local):
    active = False  # unpack_dual's pullback is running: Functions with a jvp stop it


_pushing = _Pushing()


def pushing_tangents() -> bool:
    return _pushing.active


def enter_dual_level():
    if _levels:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _levels.append({})
    return len(_levels) - 1


def exit_dual_level(*, level=None):
    if not _levels:
        raise RuntimeError("Dual level must be a positive number.")
    if level is not None and level != len(_levels) - 1:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    _levels.pop()


class dual_level:
    """A `with` block inside which make_dual's tangents live."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()


def make_dual(tensor, tangent, *, level=None):
    """tensor, with `tangent` as its forward gradient (recorded on the tape as a leaf that
    requires grad, or as a view of a tensor that already does)."""
    if not _levels:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    for name, t in (("primal", tensor), ("tangent", tangent)):
        if not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise ValueError(f"Expected {name} to be floating point or complex, but got: "
                             f"{t.dtype}")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError("Trying to set a forward gradient that has a different size than "
                           "that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(tensor.shape)} while the given forward gradient is of "
                           f"size {list(tangent.shape)}.")
    return carry(tensor.view_as(tensor) if tensor._edge is not None else tensor, tangent, level)


def carry(tensor, tangent, level=None):
    """tensor (a fresh leaf where it does not require grad) as a dual of the level."""
    if tensor._edge is None:  # on the tape only to carry the tangent: no gradient of its own
        tensor = tensor.detach().requires_grad_()
        graph.carry_tangent(tensor._edge)
    _levels[-1 if level is None else level][id(tensor)] = (tensor, tangent)
    return tensor


def unpack_dual(tensor, *, level=None):
    """(primal, tangent): the tangent is the Jacobian-vector product of the tensor's history
    with the duals' tangents, None when it depends on none of them or outside a level."""
    from gradjit.autograd import grad
    duals = list(_levels[-1 if level is None else level].values()) if _levels else []
    primal = tensor.detach()
    if not duals or tensor._edge is None:
        return UnpackedDualTensor(primal, None)
    own = [t for d, t in duals if d is tensor]
    if own:
        return UnpackedDualTensor(primal, own[0])
    u = zeros(tuple(tensor.shape), dtype=tensor.dtype, requires_grad=True)
    _pushing.active = True
    try:
        grads = grad(tensor, [d for d, _ in duals], u, create_graph=True, allow_unused=True)
    finally:
        _pushing.active = False
    pairs = [(g, t) for g, (_, t) in zip(grads, duals) if g is not None]
    if not pairs:
        return UnpackedDualTensor(primal, None)
    linear = [(g, t) for g, t in pairs if g._edge is not None]
    if not linear:
        return UnpackedDualTensor(primal, zeros(tuple(tensor.shape), dtype=tensor.dtype))
    # forward over reverse: the tangent keeps a history where the tensor's or a tangent's
    # reaches a tensor that requires grad
    keep = is_grad_enabled() and (any(t.requires_grad for _, t in linear) or
                                  tensor.requires_grad)
    (tangent,) = grad([g for g, _ in linear], u, [t.to(g.dtype) for g, t in linear],
                      allow_unused=True, materialize_grads=True, create_graph=keep)
    return UnpackedDualTensor(primal, tangent)
