"""custom_vjp and custom_jvp as JAX defines them (a function whose derivative is the user's
rule), and checkpoint (a function whose derivatives are recomputed when taken).

The function becomes one host primitive (run through numpy between compiled kernels, like
the LAPACK primitives), made for it and not registered in the table; its rules are more host
primitives: custom_vjp's VJP runs the user's fwd and bwd, custom_jvp's JVP runs the user's
rule and its VJP transposes the rule's tangent map. So grad, jit, value_and_grad, jvp, vmap,
the eager tape and every backend see one op per call. The rules' own derivatives are
gradjit's transformations of the user's functions (gradjit.tracer.host), so higher
derivatives differentiate the rules again, as JAX's do."""
from __future__ import annotations

import functools
import inspect
import itertools
import re
import warnings

import numpy as np

from gradjit import ops
from gradjit.ir.elementwise import zeros_like
from gradjit.ir.primitive import ambient_handler, ir_type
from gradjit.ir.types import TensorType, type_of
from gradjit.ir.types import dtype as ir_dtype
from gradjit.tracer.host import batched_shape, cotangent_rule, host_primitive
from gradjit.tracer.pytree import LEAF, flatten, unflatten
from gradjit.tracer.static import static_value
from gradjit.tracer.trace import Traced

_serial = itertools.count()


class _Custom:
    """A function made one host primitive per set of nondiff values, whose rules (set by the
    subclass, or where it sets none derived from the function) are more host primitives."""

    kind = ""

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun, self.nondiff_argnums = fun, tuple(nondiff_argnums)
        self._primitives = {}  # (nondiff values, operand count) -> (Primitive, its layouts)

    def __call__(self, *args, **kwargs):
        if not self._defined():
            what = self.kind[7:].upper()
            raise AttributeError(f"No {what} defined for {self.kind} function {self.__name__} "
                                 f"using def{what.lower()}.")
        # JAX's too: the rules see every argument by position, defaults filled in (those of
        # the callable itself without keywords: a functools.wraps wrapper of *args has none)
        if kwargs or self._has_defaults:
            bound = inspect.signature(self.fun, follow_wrapped=bool(kwargs)).bind(*args, **kwargs)
            bound.apply_defaults()
            args = bound.args
        # a number that grad traced (JAX's grad leaves the other arguments concrete) is the
        # Python value it holds, under a guard, as a static argument of jit is
        nondiff = tuple(static_value(args[i]) for i in self.nondiff_argnums)
        leaves: list = []  # the operands: the leaves of the differentiable arguments
        structure = flatten(tuple(a for i, a in enumerate(args)
                                  if i not in self.nondiff_argnums), leaves)
        key = (nondiff, structure)
        if key not in self._primitives:
            self._primitives[key] = self._primitive(nondiff, structure)
        prim, layout = self._primitives[key]
        return layout(tuple(ir_type(a) for a in leaves), leaves).unpack(prim(*leaves))

    @functools.cached_property
    def _has_defaults(self) -> bool:
        try:
            parameters = inspect.signature(self.fun, follow_wrapped=False).parameters.values()
        except (TypeError, ValueError):  # a callable without a signature: nothing to fill in
            return False
        return any(p.default is not p.empty for p in parameters)

    def _full(self, nondiff, diff):
        """The user's argument list from the differentiable arguments and nondiff values."""
        args, values, fixed = [], iter(diff), dict(zip(self.nondiff_argnums, nondiff))
        for i in range(len(diff) + len(nondiff)):
            args.append(fixed[i] if i in fixed else next(values))
        return args

    def _primitive(self, nondiff, structure):
        name = f"{self.kind}_{re.sub(r'[^A-Za-z0-9_]', '_', self.__qualname__)}_{next(_serial)}"
        count = _count(structure)

        def full(arrays):
            return self._full(nondiff, unflatten(structure, iter(arrays)))

        def evaluate(*arrays):  # traced too where a rule is derived from it (checkpoint)
            out = self.fun(*full(arrays))
            return layout(tuple(ir_type(a) for a in arrays)).pack(out)

        known = {}  # operand types -> the result's layout: the function runs once per signature

        def layout(types, operands=None):
            if types not in known:
                known[types] = _Layout(probe(types, operands))
            return known[types]

        def probe(types, operands):
            # a probe on zeros: what it warns of (a singular matrix) is not the caller's
            with np.errstate(all="ignore"), ambient_handler(None), \
                    warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    return self.fun(*full([np.zeros(t.shape, t.dtype.numpy) for t in types]))
                except Exception:
                    if operands is None:
                        raise
            # zeros are outside the function's domain (np.linalg.solve raises on a zero
            # matrix): the call's own operands are in it, or the call fails as it should
            return self.fun(*full([_concrete_value(a) for a in operands]))

        def shape_rule(*types):
            return layout(types).packed_type

        vjp, jvp = self._rules(name, nondiff, structure, shape_rule, layout)
        batch = self._batch(name, nondiff, structure, shape_rule, layout) if self.vmap_rule \
            else None
        return host_primitive(name, shape_rule, evaluate, count, vjp=vjp, jvp=jvp, batch=batch,
                              doc=f"{self.__name__} with its {self.kind} rule"), layout

    vmap_rule = None  # rule(axis_size, in_batched, *args) -> (output, out_batched), or None

    def def_vmap(self, rule):
        """vmap applies rule(axis_size, in_batched, *args) to the whole batch at once (as
        jax.custom_batching.custom_vmap's rule): in_batched says per operand whether it
        leads with the batch axis, and the rule returns the output and whether it does."""
        self.vmap_rule = rule
        self._primitives.clear()
        return rule

    def _batch(self, name, nondiff, structure, shape_rule, layout):
        """The batching rule calling self.vmap_rule on the stacked operands, one host op per
        batched pattern; a function of several outputs is looped over (None) as any other."""
        made = {}

        def batch(args, batched, size):
            flags = tuple(batched)
            if not layout(tuple(TensorType(ir_type(a).shape[1:], ir_type(a).dtype) if b else
                                ir_type(a) for a, b in zip(args, flags))).single:
                return None
            if flags not in made:
                def whole(*arrays):
                    out, out_batched = self.vmap_rule(size, list(flags), *self._full(
                        nondiff, unflatten(structure, iter(arrays))))
                    out = np.asarray(out)
                    return out if out_batched else np.broadcast_to(out, (size,) + out.shape)
                made[flags] = host_primitive(f"{name}_vmap_rule", batched_shape(
                    shape_rule, flags, size), whole, len(flags))
            return made[flags](*args)
        return batch

    rule = None  # forward mode's rule(*nondiff, primals, tangents) -> (output, its tangent)

    def defjvp(self, rule):
        self.rule = rule
        self._primitives.clear()
        return rule

    def defjvps(self, *jvps):
        """One rule per differentiable argument, jvp(tangent, output, *primals) -> its part
        of the output's tangent (None: the output does not depend on it), summed."""
        if self.nondiff_argnums:
            raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def rule(primals, tangents):
            out = self.fun(*primals)
            parts = [jvp(t, out, *primals) for jvp, t in zip(jvps, tangents) if jvp is not None]
            if not parts:
                return out, _tree_map(lambda x: x * 0, out)
            return out, functools.reduce(lambda a, b: _tree_map(ops.add, a, b), parts)
        rule.__qualname__ = f"{self.__qualname__}_jvps"
        self.defjvp(rule)

    def _pushforward(self, name, nondiff, structure, out_type, layout):
        """The JVP from the user's rule (one host op), and the rule's tangent map."""
        count = _count(structure)

        def tangent_map(*arrays):
            primals, tangents = arrays[:count], arrays[count:]
            if getattr(self, "_transposing", None):
                self._transposing[-1].update(id(t.ir) for t in tangents if isinstance(t, Traced))
            out_layout = layout(tuple(ir_type(p) for p in primals))
            pair = self.rule(*nondiff, unflatten(structure, iter(primals)),
                             unflatten(structure, iter(tangents)))
            where = f"Custom JVP rule {_name(self.rule)} for function {self.__name__}"
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TypeError(f"{where} must produce a pair (list or tuple of length two) "
                                f"representing primal and tangent outputs, but got {pair}.")
            leaves: list = []
            given, tangent = flatten(pair[0], []), pair[1]
            if flatten(tangent, leaves) != given:
                raise TypeError(f"{where} must produce primal and tangent outputs with equal "
                                f"container (pytree) structures, but got {given} and "
                                f"{flatten(tangent, [])} respectively.")
            shapes = [tuple(np.shape(leaf)) for leaf in leaves]
            if shapes != out_layout.shapes:
                raise ValueError(f"{self.__name__}: its jvp rule {_where(self.rule)} returned "
                                 f"a tangent of shape(s) {_shapes(shapes)} for an output of "
                                 f"shape(s) {_shapes(out_layout.shapes)}")
            return out_layout.pack(tangent)

        def shape_rule(*types):  # the tangent has the output's type
            return out_type(*types[:count])
        pushforward = host_primitive(f"{name}_tangent", shape_rule, tangent_map, 2 * count)

        def jvp(tangents, out, *args):
            return pushforward(*args, *(zeros_like(a) if t is None else t
                                        for t, a in zip(tangents, args)))
        return jvp, tangent_map


class custom_vjp(_Custom):
    """`@gradjit.custom_vjp` then `f.defvjp(fwd, bwd)`: fwd(*args) returns (output,
    residuals), bwd(residuals, g) (bwd(*nondiff, residuals, g) with nondiff_argnums) returns
    a tuple of one cotangent (or None) per differentiable argument. f may return a tuple, list
    or dict of arrays (one op computes them packed), and bwd then gets g of that structure.
    Derivatives of the gradient differentiate fwd and bwd again, so they must then be written
    with numpy or gradjit operations. Forward mode is refused unless a rule is also given by
    `defjvp` (as custom_jvp's, used for forward mode only: a torch autograd.Function with
    both backward and jvp)."""

    kind = "custom_vjp"
    fwd = bwd = None

    def defvjp(self, fwd, bwd):
        self.fwd, self.bwd = fwd, bwd
        self._primitives.clear()

    def _defined(self):
        return self.fwd is not None

    def _rules(self, name, nondiff, structure, out_type, layout):
        arguments = structure[1]  # the structure of each differentiable argument

        def cotangents_of(args, g):
            diff = unflatten(structure, iter(args))
            _, residuals = self.fwd(*self._full(nondiff, diff))
            g = layout(tuple(ir_type(a) for a in args)).unpack(g)
            cts = self.bwd(*nondiff, residuals, g)
            if not isinstance(cts, (tuple, list)) or len(cts) != len(arguments):
                raise TypeError(f"{self.__name__}: its bwd rule {_where(self.bwd)} must return "
                                f"a tuple of {len(arguments)} cotangent(s), one per "
                                f"differentiable argument, not {_describe(cts)}")
            return [leaf for ct, s in zip(cts, arguments) for leaf in _leaf_cotangents(ct, s)]
        jvp = self._pushforward(name, nondiff, structure, out_type, layout)[0] if self.rule \
            else _refuse_jvp
        return cotangent_rule(name, _count(structure), cotangents_of, self.__name__), jvp


class custom_jvp(_Custom):
    """`@gradjit.custom_jvp` then `f.defjvp(rule)`: rule(primals, tangents) (with
    nondiff_argnums, rule(*nondiff, primals, tangents)) returns (output, tangent of the
    output), linear in the tangents. Forward mode applies the rule; reverse mode transposes
    its tangent map (the VJP of the rule's tangent output with respect to the tangents),
    so the rule must be written with numpy or gradjit operations; higher derivatives
    differentiate the rule again. f may return a tuple, list or dict of arrays; the rule's
    tangent then has that structure."""

    kind = "custom_jvp"

    def _defined(self):
        return self.rule is not None

    def _rules(self, name, nondiff, structure, out_type, layout):
        from gradjit.tracer.transforms import _pullback
        jvp, tangent_map = self._pushforward(name, nondiff, structure, out_type, layout)
        count = _count(structure)

        def cotangents_of(args, g):
            # the map is linear in the tangents: its VJP there, at zero tangents, is the
            # transpose, and stays a function of the primals for higher derivatives. A call of
            # this function on the tangents inside the rule is transposed as its own
            # definition (as JAX transposes it), not by this rule again without end.
            floats = tuple(count + i for i, a in enumerate(args) if ir_type(a).dtype.is_float)
            zeros = [zeros_like(a) for a in args]
            self._transposing.append(set())  # the tangents' values, once traced
            try:
                grads = iter(_pullback(tangent_map, floats, False, None)(g, *args, *zeros)
                             if floats else ())
            finally:
                self._transposing.pop()
            return [next(grads) if count + i in floats else None for i in range(count)]
        return cotangent_rule(name, count, cotangents_of, self.__name__), jvp

    @functools.cached_property
    def _transposing(self) -> list:
        """Per transpose of the rule in progress, the ids of its tangents' traced values:
        a call on values computed from them runs the function's code."""
        return []

    def __call__(self, *args, **kwargs):
        if self._transposing and self._transposing[-1] and any(
                _depends(a, self._transposing[-1]) for a in _leaves_of(args)):
            return self.fun(*args, **kwargs)
        return super().__call__(*args, **kwargs)


def _real_as_probed(value, dtype):
    """value, checked not to have become complex where the probe on zeros gave a real result
    (scipy's sqrtm of a matrix with negative eigenvalues): dropping its imaginary part would
    be a wrong answer."""
    if type(value) is np.ndarray and value.dtype.kind == "c" and dtype.kind != "c" and \
            np.any(value.imag != 0):
        raise ValueError(f"a function computed as one op returned complex values here, where "
                         f"its result type, found on zeros, is {dtype}: pass it complex inputs "
                         "(x + 0j) to compute in complex numbers")
    return value


class _Layout:
    """Where a custom function's result (an array, or a tuple/list/dict of them) sits in the
    one flat array its op computes: the leaves raveled one after another in their common
    dtype. A lone array is kept as it is."""

    def __init__(self, out):
        leaves: list = []
        self.structure = flatten(out, leaves)
        arrays = [np.asarray(leaf) for leaf in leaves]
        self.shapes = [a.shape for a in arrays]
        self.dtypes = [a.dtype for a in arrays]
        self.single = self.structure == LEAF
        common = np.result_type(*self.dtypes) if arrays else np.dtype(np.float32)
        self.common = common
        self.packed_type = type_of(arrays[0]) if self.single else \
            TensorType((sum(int(np.prod(s)) for s in self.shapes),), ir_dtype(common))

    def pack(self, out):
        if self.single:
            return _real_as_probed(out, self.dtypes[0])
        leaves: list = []
        if flatten(out, leaves) != self.structure:
            raise TypeError("a custom function's rule gave a result of another structure "
                            "than the function's own")
        leaves = [_real_as_probed(leaf, dtype) for leaf, dtype in zip(leaves, self.dtypes)]
        if not leaves:
            return np.zeros(0, self.common)
        return ops.concatenate([ops.astype(ops.reshape(leaf, (-1,)), self.common)
                                for leaf in leaves])

    def unpack(self, packed):
        if self.single:
            return packed
        pieces, offset = [], 0
        for shape, dtype in zip(self.shapes, self.dtypes):
            size = int(np.prod(shape))
            piece = ops.reshape(ops.getitem(packed, slice(offset, offset + size)), shape)
            pieces.append(ops.astype(piece, dtype))
            offset += size
        return unflatten(self.structure, iter(pieces))


def _leaf_cotangents(ct, structure) -> list:
    """A bwd rule's cotangent of one argument as a list of one per leaf: None (a zero) for
    the whole argument or a tree of the argument's structure, None at some leaves."""
    if ct is None:
        return [None] * _count(structure)
    if structure == LEAF:  # checked against the argument's shape by the cotangent rule
        return [ct]
    leaves: list = []
    given = flatten(ct, leaves)
    if given == structure:
        return leaves
    if given == LEAF or given[0] != structure[0] or len(given[-1]) != len(structure[-1]):
        raise TypeError(f"Custom VJP bwd rule must produce an output with the same container "
                        f"(pytree) structure as the args tuple of the primal function, but "
                        f"got a cotangent of structure {given} for an argument of structure "
                        f"{structure}")
    children = unflatten(given, iter(leaves))
    children = children.values() if isinstance(children, dict) else children
    return [leaf for c, s in zip(children, structure[-1]) for leaf in _leaf_cotangents(c, s)]


def _concrete_value(x) -> np.ndarray:
    """An operand's numpy value: a traced value's (or a Tensor's around one) concrete value."""
    x = getattr(x, "_value", x)
    return x.value if isinstance(x, Traced) else np.asarray(x)


def _count(structure) -> int:
    if structure == LEAF:
        return 1
    return 0 if structure[0] == "static" else sum(_count(s) for s in structure[-1])


def _shapes(shapes) -> str:
    return ", ".join(str(s) for s in shapes)


def _refuse_jvp(tangents, out, *args):
    # JAX refuses too: bwd need not be linear in g (clipping), so it cannot be transposed
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function: it "
                    "defines only a VJP (second derivatives: differentiate in reverse mode "
                    "twice, jacrev(jacrev(f)) rather than hessian)")


def _tree_map(fn, *trees):
    leaves = [[] for _ in trees]
    structure = flatten(trees[0], leaves[0])
    for tree, found in zip(trees[1:], leaves[1:]):
        flatten(tree, found)
    return unflatten(structure, iter(map(fn, *leaves)))


def _name(fn) -> str:
    return getattr(fn, "__name__", type(fn).__name__)


def _where(fn) -> str:
    code = getattr(fn, "__code__", None)
    return f"({code.co_filename}:{code.co_firstlineno})" if code else ""


def _describe(value) -> str:
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)}"
    return f"a {type(value).__name__}"


def custom_gradient(fun):
    """jax.custom_gradient: fun(*args) returns (output, vjp_fn) with vjp_fn(g) the
    cotangents of the arguments (a tuple, or the one cotangent of a lone argument); the
    result is fun's output whose gradient is vjp_fn's."""
    @functools.wraps(fun)
    def primal(*args):
        return fun(*args)[0]

    def bwd(vjp_fn, g):
        cotangents = vjp_fn(g)
        return tuple(cotangents) if isinstance(cotangents, (tuple, list)) else (cotangents,)
    made = custom_vjp(primal)
    made.defvjp(fun, bwd)
    return made


class _Checkpoint(_Custom):
    """A function whose derivatives are gradjit's own, taken only when asked for: its op
    keeps the arguments, and each rule traces the function again (see host_primitive)."""

    kind = "checkpoint"

    def _defined(self):
        return True

    def _rules(self, name, nondiff, structure, out_type, layout):
        return None, None


def checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=()):
    """jax.checkpoint (remat): fun's gradient recomputes its intermediates from its arguments
    instead of keeping them. fun becomes one op that keeps only its arguments; its VJP and
    JVP run fun's compiled pullback and pushforward on them when a derivative is taken (and
    are differentiated again the same way). static_argnums are Python values (a key of the
    op, as nondiff arguments). Every intermediate is recomputed, whatever the policy (a
    policy only lets JAX keep some). A fun that reads traced values from outside its
    arguments (a closure inside a transformed function) cannot be one op: it runs inline,
    its intermediates kept, with the same values and derivatives."""
    from gradjit.tracer import jit
    from gradjit.tracer.array_methods import TracerArrayConversionError
    from gradjit.tracer.static import static_value
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    compiled = jit(fun, static_argnums=static)

    def forward(*args):
        return compiled(*args)
    functools.update_wrapper(forward, fun)
    op = _Checkpoint(forward, nondiff_argnums=static)

    @functools.wraps(fun)
    def checkpointed(*args, **kwargs):
        args = [static_value(a) if i in static else a for i, a in enumerate(args)]
        try:
            return op(*args, **kwargs)
        except TracerArrayConversionError:  # raised by the probe, before any op is recorded
            return fun(*args, **kwargs)
    return checkpointed


def _leaves_of(tree) -> list:
    leaves: list = []
    flatten(tree, leaves)
    return leaves


def _depends(x, seeds) -> bool:
    """Whether traced x is computed from the traced values whose ids are in seeds."""
    x = getattr(x, "_value", x)
    if not isinstance(x, Traced):
        return False
    found = set(seeds)
    for op in x.owner.builder.ops:
        if op.out is not None and any(id(v) in found for v in op.inputs):
            found.add(id(op.out))
    return id(x.ir) in found
