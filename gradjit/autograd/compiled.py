"""A compiled call (jit, grad, value_and_grad, compile) on Tensors that require grad joins the
caller's eager tape as one node, `CompiledFunctionBackward`, whose backward is the compiled
pullback of the call: the gradient of <call(*args), cotangents> with respect to the arguments
that require grad, traced and compiled once per call signature. Run with create_graph=True,
that pullback is itself a compiled call on Tensors that require grad, so it joins the graph
the same way and higher-order gradients come from compiling the pullback's pullback."""
from __future__ import annotations

import functools

from gradjit.autograd.function import _Pick
from gradjit.tensor import graph
from gradjit.tensor.base import TensorBase
from gradjit.tensor.defaults import promote_types
from gradjit.tensor.grad_mode import is_grad_enabled, no_grad
from gradjit.tracer.api import Transformed
from gradjit.tracer.pytree import LEAF, Static, flatten, unflatten

NAME = "CompiledFunctionBackward"


def record(transformed, structure, leaves):
    """The call's result with its float Tensor outputs on the tape (NotImplemented when grad
    is disabled: the caller then runs it unrecorded, as PyTorch would)."""
    if not is_grad_enabled():
        return NotImplemented
    detached = [x.detach() if isinstance(x, TensorBase) else x for x in leaves]
    result = transformed.run_leaves(structure, detached)
    outputs = []
    out_structure = flatten(result, outputs)
    # A call may say which part of its result is the user's (gradjit.compile's programs
    # also return the state they write back, which joins no graph).
    taped = getattr(transformed, "taped", None)
    visible = outputs if taped is None else [id(o) for o in _leaves(taped(result))]
    chosen = [i for i, o in enumerate(outputs) if isinstance(o, TensorBase) and
              (o.dtype.is_floating_point or o.dtype.is_complex) and
              (taped is None or id(o) in visible)]
    wrt = [i for i, x in enumerate(leaves) if isinstance(x, TensorBase) and x.requires_grad]
    if not chosen:
        return result
    pullback = _pullback(transformed, structure, out_structure, tuple(chosen), tuple(wrt))
    tensors = [i for i, x in enumerate(leaves) if isinstance(x, TensorBase)]
    # The tensors themselves are the record's saved operands (versions checked by backward).
    kept = [None if isinstance(x, TensorBase) else x for x in leaves]
    rule = _Compiled(pullback, kept, tensors, wrt, outputs, chosen)
    edges = [leaves[i]._grad_edge() for i in tensors]
    node = graph.Node.named(NAME)
    args = [leaves[i] for i in tensors]
    if len(chosen) == 1:
        o = outputs[chosen[0]]
        o._edge = rule.record = graph.Record(rule, {}, args, edges, o, node)
    else:
        dtype = functools.reduce(promote_types, (outputs[i].dtype for i in chosen))
        with no_grad():
            packed = outputs[chosen[0]].new_zeros((sum(outputs[i].numel() for i in chosen),),
                                                  dtype=dtype)
        whole = rule.record = graph.Record(rule, {}, args, edges, packed, node)
        for i in chosen:
            outputs[i]._edge = graph.Record(_Pick(rule, i), {}, [packed], [whole], outputs[i],
                                            node)
    return unflatten(out_structure, iter(outputs))


class _Compiled:
    """Stands where a primitive stands in a tape record (as autograd.Function's rule does):
    the engine calls `vjp` with the output's cotangent (several outputs' packed into one flat
    vector, see _Pick) and the call's Tensor arguments as saved."""

    differentiable = True
    name = NAME

    def __init__(self, pullback, leaves, tensors, wrt, outputs, chosen):
        self.pullback, self.leaves, self.tensors, self.wrt = pullback, leaves, tensors, wrt
        self.outputs, self.differentiable = outputs, chosen
        self.received = set()  # positions whose cotangent reached the packed vector (_Pick)
        self.record = None

    def vjp(self, g, out, *operands):
        if len(self.differentiable) == 1:
            cotangents = [g]
        else:
            cotangents, offset = [], 0
            for i in self.differentiable:
                o = self.outputs[i]
                piece = g[offset:offset + o.numel()].reshape(tuple(o.shape)).to(o.dtype)
                cotangents.append(piece if i in self.received else o.new_zeros(tuple(o.shape)))
                offset += o.numel()
            self.received = set()
        leaves = list(self.leaves)
        for i, t in zip(self.tensors, operands):
            problem = t._problem() if t._saved is not None else None
            if problem is not None:  # freed, or changed in place since the call
                raise RuntimeError(problem)
            leaves[i] = t
        cotangents = [c.to(self.outputs[i].dtype) for c, i in zip(cotangents, self.differentiable)]
        grads = iter(self.pullback(tuple(cotangents), *leaves))
        wrt = set(self.wrt)
        return [next(grads) if i in wrt else None for i in self.tensors]


def _pullback(transformed, structure, out_structure, chosen, wrt) -> Transformed:
    """grad of (cotangents, *leaves) -> <call(*leaves)[chosen], cotangents> with respect to
    the leaves `wrt`, one per call and output structure (cached on the call's Transformed)."""
    table = transformed.__dict__.setdefault("_pullbacks", {})
    key = (structure, out_structure, chosen, wrt)
    if key not in table:
        def pullback(cotangents, *leaves):
            # the call's static arguments stay static (not traced) in the call inlined here
            args, kwargs = unflatten(_kept_static(structure), iter(leaves))
            outputs = []
            flatten(transformed(*args, **kwargs), outputs)
            total = 0.0
            for i, c in zip(chosen, cotangents):
                # a complex output's cotangent on the tape is dL/dRe(z) - i dL/dIm(z), so
                # Re(z c) is the real pairing whose gradient is the call's
                term = outputs[i] * c
                total = total + (term.real if term.dtype.is_complex else term).sum()
            return total
        pullback.__qualname__ = f"pullback_{transformed.cache.name}"
        table[key] = Transformed(pullback, "grad", argnums=tuple(1 + i for i in wrt),
                                 backend=transformed.backend)
    return table[key]


def _kept_static(structure):
    """structure with its static values wrapped as Static, which unflatten hands back as they
    are and flatten reads as static again."""
    if structure == LEAF:
        return structure
    if structure[0] == "static":
        return ("static", Static(structure[1]))
    return (*structure[:-1], tuple(map(_kept_static, structure[-1])))


def _leaves(tree) -> list:
    leaves = []
    flatten(tree, leaves)
    return leaves
