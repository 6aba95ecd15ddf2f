"""How a compiled program's outputs (arrays, or traced values when inlined) become the call's
result: gradients in the structure and type of the arguments, jit's result tree, aux values.
They are plain objects rather than closures so that cached traces can be pickled."""
from __future__ import annotations

import numpy as np

from gradjit.tracer import leaves as L
from gradjit.tracer.pytree import flatten, unflatten
from gradjit.tracer.trace import Traced


class TreeOutputs:
    """A returned tree: its traced leaves are the program's first outputs; other leaves are
    returned as they were (as zeros with `zero_constants`: the tangent of a constant)."""

    def __init__(self, structure, kinds, zero_constants=False):
        self.structure, self.kinds, self.zero_constants = structure, kinds, zero_constants
        self.count = sum(kind != "const" for kind, _ in kinds)

    def __call__(self, outs, call_leaves):
        outs = iter(outs[:self.count])
        return unflatten(self.structure, iter([self._constant(v) if k == "const"
                                               else as_output(next(outs), k)
                                               for k, v in self.kinds]))

    def _constant(self, value):
        if not self.zero_constants:
            return value
        zeros = np.zeros_like(L.to_array(value), dtype=float)
        return L.wrap_tensor(zeros) if L.is_tensor(value) else zeros


class WriteBack:
    """jit of a function that writes into its array arguments (x[i] = v, out=, x += y): the
    program's first outputs are their new values, copied into the caller's arrays as numpy's
    writes would have left them."""

    def __init__(self, tree: TreeOutputs, written: list[int]):
        self.tree, self.written = tree, written

    def __call__(self, outs, call_leaves):
        count = len(self.written)
        for i, value in zip(self.written, outs[:count]):
            leaf = call_leaves[i]
            if isinstance(leaf, Traced):  # inlined into an outer trace: its value is rebound
                leaf._become(value)
            else:
                np.copyto(leaf, value)  # a read-only array raises numpy's ValueError
        return self.tree(outs[count:], call_leaves)


def tree_outputs(out, zero_constants=False):
    """The traced leaves of `out` (the IR function's results) and its TreeOutputs."""
    out_leaves = []
    structure = flatten(out, out_leaves)
    results, kinds = [], []
    for x in out_leaves:
        inner = L.unwrap(x)
        if isinstance(inner, Traced):
            # Results keep the type of the arguments they were computed from: a Tensor made
            # by a gradjit function from numpy arguments comes back as a numpy array, one
            # made from Python numbers alone as the Tensor it is.
            weak_tensor = inner.__gradjit_weak__ and L.is_tensor(x)
            kinds.append(("torch" if weak_tensor else inner.__gradjit_flavor__, None))
            results.append(inner)
        else:
            kinds.append(("const", x))
    return results, TreeOutputs(structure, kinds, zero_constants)


class JvpOutputs:
    """jvp: (primals_out, tangents_out), the tangents being the outputs after the primals;
    `wrt` are the differentiated primal leaves and `tangents` the leaves that carry theirs."""

    def __init__(self, primals: TreeOutputs, tangents: TreeOutputs, wrt, tangent_leaves):
        self.primals, self.tangents_out = primals, tangents
        self.wrt, self.tangents, self.discard = wrt, tangent_leaves, ()

    def __call__(self, outs, call_leaves):
        count = self.primals.count
        return (self.primals(outs[:count], call_leaves),
                self.tangents_out(outs[count:], call_leaves))


class Gradients:
    """The gradients, outputs from `start` on, rebuilt as the differentiated arguments:
    `groups` holds (structure, leaf indices) per argument, or None when every one is a plain
    array (nothing to rebuild). `wrt` lists the differentiated leaves; `discard` the outputs
    the call does not return (grad drops the value)."""

    def __init__(self, start, many, groups, wrt, integral=()):
        self.start, self.many, self.groups, self.wrt = start, many, groups, wrt
        self.integral = frozenset(integral)  # leaves whose gradient is float0 zeros
        self.discard = (0,)

    @property
    def pick(self):
        """The output that is the call's result as it is (one array's gradient), or None."""
        return self.start if self.groups is None and not self.many else None

    def __call__(self, outs, call_leaves):
        if self.groups is None:
            return tuple(outs[self.start:]) if self.many else outs[self.start]
        grads = iter(outs[self.start:])
        trees = tuple(unflatten(s, iter([
            np.zeros(np.shape(L.unwrap(call_leaves[i])), FLOAT0) if i in self.integral
            else L.like(call_leaves[i], next(grads)) for i in indices]))
            for s, indices in self.groups)
        return trees if self.many else trees[0]


# JAX's dtype of the gradient of an integer or bool input (grad's allow_int): no values at all
FLOAT0 = np.dtype([("float0", np.void, 0)])


class ValueAndGradients:
    """grad with has_aux: (gradients, aux); value_and_grad: (value, gradients), the value
    being (value, aux) with has_aux."""

    def __init__(self, mode, flavor, grads: Gradients, aux: TreeOutputs | None):
        self.mode, self.flavor, self.grads, self.aux = mode, flavor, grads, aux
        self.wrt = grads.wrt
        self.discard = (0,) if mode == "grad" else ()

    def __call__(self, outs, call_leaves):
        grads = self.grads(outs, call_leaves)
        aux = self.aux(outs[1:self.grads.start], call_leaves) if self.aux else None
        if self.mode == "grad":
            return grads, aux
        value = as_output(outs[0], self.flavor)
        return ((value, aux) if self.aux else value), grads


def as_output(value, flavor):
    if isinstance(value, Traced):
        return L.wrap_tensor(value) if flavor in ("torch", "tensor") else value
    return L.as_output(value, "torch" if flavor == "tensor" else flavor)


class BatchedOutputs:
    """vmap: the returned tree, each traced leaf stacked by the program along its out axis,
    each constant leaf (the same for every example) stacked here. `in_axes` (per argument
    leaf), `out_axes` (per returned leaf) and `size` are what the batching pass was given."""

    def __init__(self, tree: TreeOutputs, in_axes, out_axes, size):
        self.tree, self.in_axes, self.out_axes, self.size = tree, in_axes, out_axes, size
        self.result_axes = [a for (kind, _), a in zip(tree.kinds, out_axes) if kind != "const"]
        self.wrt, self.discard = (), ()

    def __call__(self, outs, call_leaves):
        outs = iter(outs[:self.tree.count])
        return unflatten(self.tree.structure, iter([
            self._constant(v, axis) if kind == "const" else as_output(next(outs), kind)
            for (kind, v), axis in zip(self.tree.kinds, self.out_axes)]))

    def _constant(self, value, axis):
        if axis is None:
            return value
        array = L.to_array(value)
        stacked = np.moveaxis(np.broadcast_to(array, (self.size,) + array.shape), 0, axis).copy()
        return L.wrap_tensor(stacked) if L.is_tensor(value) else stacked
