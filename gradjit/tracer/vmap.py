"""vmap as JAX defines it, over the batching pass: the function is traced once on one example
of each mapped argument, the trace is batched (gradjit/ir/batching.py) and compiled, so the
whole batch runs as one native program; called on traced values, it inlines like jit."""
from __future__ import annotations

import numpy as np

from gradjit.ir.batching import batch
from gradjit.ir.collectives import binding, bound_axes
from gradjit.ir.primitive import BatchingError
from gradjit.tracer import leaves as L
from gradjit.tracer.api import Transformed, _count
from gradjit.tracer.outputs import BatchedOutputs, tree_outputs
from gradjit.tracer.pytree import LEAF, MAPPING_KEYS, NODES, Node
from gradjit.tracer.trace import Traced, source_line, user_site, varies


class Batched(Transformed):
    """A function wrapped by vmap, with its specialization cache."""

    def __init__(self, fn, in_axes=0, out_axes=0, axis_size=None, backend=None, axis_name=None):
        if not isinstance(in_axes, (int, type(None), tuple, list)):
            raise BatchingError(f"vmap in_axes must be an int, None, or a tuple of entries "
                                f"corresponding to the positional arguments passed to the "
                                f"function, but got {in_axes!r}" + _at_call())
        super().__init__(fn, "vmap", backend=backend)
        self.in_axes, self.out_axes, self.axis_size = in_axes, out_axes, axis_size
        self.axis_name = axis_name

    def __reduce__(self):
        return Batched, (self.fn, self.in_axes, self.out_axes, self.axis_size, self.backend,
                         self.axis_name)

    def without_traces(self) -> Batched:
        return Batched(self.fn, self.in_axes, self.out_axes, self.axis_size, self.backend,
                       self.axis_name)

    def _trace(self, structure, leaves):
        if self.axis_name is None:
            return super()._trace(structure, leaves)
        size = self._mapped(structure, leaves)[1]  # the collectives inside see the axis bound
        with binding(bound_axes, bound_axes.get() + ((self.axis_name, size),)):
            return super()._trace(structure, leaves)

    def _inputs(self, trace, structure, leaves, names):
        in_axes, size = self._mapped(structure, leaves)
        inputs = [_example(trace, x, axis, size, name)
                  for x, axis, name in zip(leaves, in_axes, names)]
        trace.mapped.update(id(L.unwrap(stand_in).ir) for x, stand_in, axis in
                            zip(leaves, inputs, in_axes) if axis is not None or varies(L.unwrap(x)))
        return inputs

    def _outputs(self, out, structure, leaves):
        in_axes, size = self._mapped(structure, leaves)
        results, tree = tree_outputs(out)
        out_axes = _leaf_axes(self.out_axes, tree.structure, "out_axes")
        out_axes = [_normalize(a, _rank_of(r, v) + 1, "out_axes", f"output {i}")
                    for i, (a, r, (_, v)) in enumerate(zip(out_axes, _fill(results, tree.kinds),
                                                           tree.kinds))]
        return results, BatchedOutputs(tree, in_axes, out_axes, size)

    def _transform(self, traced, unpack):
        in_axes = list(unpack.in_axes) + [None] * (len(traced.params) - len(unpack.in_axes))
        try:
            return batch(traced, in_axes, unpack.size, unpack.result_axes, self.axis_name)
        except BatchingError as error:
            if "\n  at " in str(error):
                raise
            raise BatchingError(f"{error}" + _at_call()) from None

    def _recipe(self, unpack) -> str:
        return (f"vmap in_axes={list(unpack.in_axes)} size={unpack.size} "
                f"result_axes={unpack.result_axes} symbolic={self.symbolic} "
                f"axis_name={self.axis_name!r}")

    def _mapped(self, structure, leaves):
        """The mapped axis of each argument leaf (None: shared) and the batch size."""
        args_structure = structure[1][0]
        spec = self.in_axes
        if isinstance(spec, (tuple, list)):
            if len(spec) != len(args_structure[1]):
                raise BatchingError(f"vmap in_axes must be an int, None, or a tuple of entries "
                                    f"corresponding to the positional arguments passed to the "
                                    f"function, but got len(in_axes)={len(spec)}, "
                                    f"len(args)={len(args_structure[1])}" + _at_call())
            spec = tuple(spec)
        axes = _leaf_axes(spec, args_structure, "in_axes")
        axes += [0] * (len(leaves) - len(axes))  # keyword arguments are mapped along axis 0
        sizes = []
        for i, (x, axis) in enumerate(zip(leaves, axes)):
            if axis is None:
                continue
            shape = np.shape(_value(x))
            if not -len(shape) <= axis < len(shape):
                raise BatchingError(f"vmap was requested to map its argument along axis {axis}, "
                                    f"which implies that its rank should be at least "
                                    f"{axis + 1 if axis >= 0 else -axis}, but is only {len(shape)} "
                                    f"(its shape is {shape})" + _at_call())
            axes[i] = axis % len(shape)
            sizes.append((shape[axes[i]], i, shape))
        size = self.axis_size
        if size is None and not sizes:
            raise BatchingError("vmap must have at least one non-None value in in_axes (or be "
                                "given axis_size)" + _at_call())
        found = {s for s, _, _ in sizes} | ({size} if size is not None else set())
        if len(found) > 1:
            lines = "".join(f"\n  * one axis had size {s}: axis {axes[i]} of argument leaf "
                            f"{i} of shape {shape};" for s, i, shape in sizes)
            given = f" (axis_size={size})" if size is not None else ""
            raise BatchingError(f"vmap got inconsistent sizes for array axes to be mapped{given}:"
                                f"{lines}" + _at_call())
        return axes, found.pop()


def vmap(fn, in_axes=0, out_axes=0, axis_name=None, axis_size=None, *, backend=None):
    """fn mapped over an axis of its arguments, as jax.vmap: `in_axes` is an int, None, or a
    tuple with an entry per positional argument, each an int, None, or a pytree prefix of that
    argument (keyword arguments are mapped along axis 0); `out_axes` likewise for the result;
    negative axes count from the end; `axis_size` gives the size when no argument is mapped;
    `axis_name` names the mapped axis for the collectives inside (gradjit.lax.psum, ...).
    The function is traced once on one example, batched as IR and compiled: shared arguments
    (None) are computed with once, not per example."""
    for what, spec in (("in_axes", in_axes), ("out_axes", out_axes)):
        if isinstance(spec, (tuple, list, dict)) and not _axes_tree(spec):
            raise TypeError(f"vmap {what} must be an int, None, or (nested) container with "
                            f"those types as leaves, but got {spec}.")
    return Batched(fn, in_axes, out_axes, axis_size, backend, axis_name)


def _axes_tree(spec) -> bool:
    """Whether spec is a tree of axes: ints and Nones in tuples, lists, dicts or nodes."""
    if spec is None or isinstance(spec, int):
        return True
    if isinstance(spec, (tuple, list)):
        return all(map(_axes_tree, spec))
    if isinstance(spec, dict):
        return all(map(_axes_tree, spec.values()))
    return type(spec) in NODES and all(map(_axes_tree, NODES[type(spec)][0](spec)[0]))


def _at_call() -> str:
    """Where the user called the vmapped function, for its errors."""
    site = user_site()
    return f"\n  at {site}: {source_line(site)}" if site else ""


def _value(x):
    inner = L.unwrap(x)
    return inner.value if isinstance(inner, Traced) else L.to_array(x)


def _example(trace, x, axis, size, name):
    """The traced stand-in of one example of leaf x (x itself if shared)."""
    if axis is None:
        return L.traced_input(trace, x, name)
    value = _value(x)
    example = np.take(value, 0, axis) if size else np.zeros(
        value.shape[:axis] + value.shape[axis + 1:], value.dtype)
    inner = L.unwrap(x)
    flavor = "torch" if L.is_tensor(x) else getattr(inner, "__gradjit_flavor__", "numpy")
    traced = trace.input(example, flavor=flavor, name=name)
    return L.wrap_tensor(traced) if L.is_tensor(x) else traced


def _fill(results, kinds):
    results = iter(results)
    return [None if kind == "const" else next(results) for kind, _ in kinds]


def _rank_of(result, constant):
    return result.ir.type.rank if result is not None else np.ndim(constant)


def _normalize(axis, rank, what, where):
    if axis is None:
        return None
    if not -rank <= axis < rank:
        raise BatchingError(f"vmap {what}={axis} is out of range for {where}, whose rank with the "
                            f"mapped axis is {rank}" + _at_call())
    return axis % rank


def _leaf_axes(spec, structure, what) -> list:
    """The axis (int or None) of each leaf of `structure`, from a pytree-prefix spec."""
    if spec is None or (isinstance(spec, int) and not isinstance(spec, bool)):
        return [spec] * _count(structure)
    kind = structure[0] if structure != LEAF else None
    if isinstance(spec, (tuple, list)) and kind in (tuple, list) or (
            isinstance(kind, type) and issubclass(kind, tuple) and isinstance(spec, tuple)):
        if len(spec) == len(structure[1]):
            return [a for s, child in zip(spec, structure[1]) for a in _leaf_axes(s, child, what)]
    if isinstance(spec, dict) and kind is dict and set(spec) == set(structure[1]):
        return [a for key, child in zip(structure[1], structure[2])
                for a in _leaf_axes(spec[key], child, what)]
    if isinstance(kind, Node) and type(spec) is kind.cls:  # a registered node's axes
        specs, aux = NODES[kind.cls][0](spec)
        if aux == kind.aux and len(specs) == len(structure[1]):  # an OrderedDict's keys, ...
            return [a for s, child in zip(specs, structure[1]) for a in _leaf_axes(s, child, what)]
    raise BatchingError(f"vmap {what} specification must be a tree prefix of the corresponding "
                        f"value, got specification {spec!r} for value tree "
                        f"{_describe(structure)}" + _at_call())


def _describe(structure) -> str:
    if structure == LEAF:
        return "*"
    kind = structure[0]
    if kind == "static":
        return repr(structure[1])
    if kind is dict:
        return "{" + ", ".join(f"{k!r}: {_describe(s)}" for k, s in
                               zip(structure[1], structure[2])) + "}"
    inner = ", ".join(_describe(s) for s in structure[1])
    if isinstance(kind, Node) and kind.cls in MAPPING_KEYS:
        keys = MAPPING_KEYS[kind.cls](kind.aux)
        return f"{kind.cls.__name__}(" + ", ".join(
            f"{k!r}: {_describe(s)}" for k, s in zip(keys, structure[1])) + ")"
    if isinstance(kind, Node):
        return f"{kind.cls.__name__}({inner})"
    return f"[{inner}]" if kind is list else f"({inner}{',' if len(structure[1]) == 1 else ''})"
