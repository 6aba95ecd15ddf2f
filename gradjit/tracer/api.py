"""grad, value_and_grad and jit: a function is traced once per input signature and control-flow
path, differentiated, optimized and compiled; a later call runs the first cached program whose
guards hold. Called while another function is being traced, it is traced and inlined instead."""
from __future__ import annotations

import functools
import inspect
import math
import re
import threading

import numpy as np

from gradjit import ops
from gradjit.ir import GuardFailed, interpret, verify
from gradjit.ir.autodiff import differentiate
from gradjit.ir.forward import forward
from gradjit.ir.passes import optimize
from gradjit.ir.symbolic_simplify import simplify_elementwise
from gradjit.runtime.collector import collector_paused
from gradjit.tracer import leaves as L
from gradjit.tracer import portable
from gradjit.tracer.cache import Cache, Entry, Explanation
from gradjit.tracer.outputs import (Gradients, JvpOutputs, ValueAndGradients, WriteBack,
                                    tree_outputs)
from gradjit.tracer.pytree import LEAF, Static, flatten, unflatten
from gradjit.tracer.stages import Stages, compile_stages
from gradjit.tracer.static import static_arguments, static_value
from gradjit.tracer.trace import (TRACING, Trace, TraceError, Traced, _stack, current_trace,
                                  locate, source_line, varies)


# Called as observe(f, entry) after every compilation. gradjit's package assembly adds the dump
# tool's GRADJIT_DUMP writer here, so the compile path imports none of the tools that inspect it.
COMPILE_OBSERVERS: list = []

# Called as record(transformed, structure, leaves) for a call on Tensors that require grad;
# it returns the call's result joined to the eager autograd graph, or NotImplemented to run
# the call as usual (grad disabled). The autograd package sets it (the tracer imports no
# Tensor code).
EAGER_GRAPH: list = []


class Transformed:
    """A function wrapped by grad / value_and_grad / jit, with its specialization cache."""

    def __init__(self, fn, mode, argnums=0, has_aux=False, static_argnums=(), backend=None,
                 max_traces=64, symbolic=False, deterministic=False, holomorphic=False,
                 allow_int=False, static_argnames=(), complex_output=False):
        if not callable(fn):
            raise TypeError(f"Expected a callable value, got {fn!r}")
        functools.update_wrapper(self, fn)
        self.fn, self.mode, self.has_aux, self.backend = fn, mode, has_aux, backend
        self.deterministic, self.holomorphic = deterministic, holomorphic
        self.symbolic, self.allow_int = symbolic, allow_int
        # a complex value to differentiate: holomorphic's, or a pullback's <out, ct> of any input
        self.complex_output = holomorphic or complex_output
        self.argnums = argnums
        self.static_argnums, self.static_argnames = static_arguments(fn, static_argnums,
                                                                     static_argnames)
        self.cache = Cache(getattr(fn, "__qualname__", repr(fn)), max_traces)
        self._tracing = threading.RLock()  # threads that miss together trace once
        self.options = dict(argnums=argnums, has_aux=has_aux, static_argnums=static_argnums,
                            backend=backend, max_traces=max_traces, symbolic=symbolic,
                            deterministic=deterministic, holomorphic=holomorphic,
                            allow_int=allow_int, static_argnames=static_argnames,
                            complex_output=complex_output)
        self.ship_traces = True

    def __reduce__(self):
        return portable.reduce(self)

    def without_traces(self) -> Transformed:
        """The same transformation of the same function with an empty cache, which pickles
        without traces (the receiver traces on its first call)."""
        fresh = Transformed(self.fn, self.mode, **self.options)
        fresh.ship_traces = False
        return fresh

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def __repr__(self) -> str:
        return f"<gradjit.{self.mode} of {self.cache.name}>"

    def cache_info(self):
        """(traces, hits, misses) of the specialization cache."""
        return self.cache.info()

    def explain(self) -> Explanation:
        """The cached traces with their guards and the source lines they come from."""
        return self.cache.explain()

    def __call__(self, *args, **kwargs):
        if not kwargs and not TRACING:  # the lean common case: arrays, no trace anywhere
            cache = self.cache
            entry = cache.checked  # the same arrays as last time: no key to build
            if entry is not None:
                try:
                    result = entry.checked(args)
                    entry.hits += 1
                    cache.last = entry
                    return result
                except GuardFailed:  # other arrays (or another path): look them up
                    pass
            for entry in cache.fast.get(_layout(args), ()):
                try:
                    result = entry.lean(args)
                except GuardFailed:
                    break  # the general path below re-runs, counts and re-traces
                entry.hits += 1
                cache.last = entry
                if entry.checked is not None:
                    cache.checked = entry
                return result
        return self._call(args, kwargs)

    def into(self, out, *args, **kwargs):
        """Call, writing the array results into `out` instead of new memory: the gradients
        (grad, value_and_grad) or the results (jit), laid out as the call returns them (an
        array, or a tuple/list/dict of arrays), C-contiguous and of the results' shapes and
        dtypes. Returns the result built on `out`. A caller that calls in a loop passes the
        same buffers each time, so no fresh memory is allocated and faulted in."""
        buffers = []
        flatten(out, buffers)
        if not all(isinstance(b, np.ndarray) for b in buffers):
            raise TypeError("into(): out must hold numpy arrays")
        if not kwargs and not TRACING:  # the lean path of __call__: arrays, no trace anywhere
            for entry in self.cache.fast.get(_layout(args), ()):
                try:
                    outs = _run(entry.program, args, buffers)
                except GuardFailed:
                    break  # the general path below re-runs, counts and re-traces
                self.cache.hit(entry)
                return entry.unpack(outs, args)
        return self._call(args, kwargs, buffers)

    def _call(self, args, kwargs, buffers=None):
        if _stack.jit_disabled and self.mode == "jit" and buffers is None:
            return self.fn(*args, **kwargs)
        if self.static_argnums or self.static_argnames:
            args = tuple(_as_static(a) if i in self.static_argnums else a
                         for i, a in enumerate(args))
            kwargs = {k: _as_static(v) if k in self.static_argnames else v
                      for k, v in kwargs.items()}
        tree = (args, kwargs)
        leaves = []
        structure = flatten(tree, leaves)
        if current_trace() is not None:
            if buffers is not None:
                raise TypeError(f"{self.cache.name}: into() runs compiled code, so it cannot "
                                "be called while another function is being traced")
            return self._inline(structure, leaves)
        if EAGER_GRAPH and any(map(L.requires_grad, leaves)):
            if buffers is not None:
                raise TypeError(f"{self.cache.name}: into() writes numpy buffers, which carry "
                                "no gradient, and an argument requires grad; call it without "
                                "into() or on detached tensors")
            result = EAGER_GRAPH[0](self, structure, leaves)
            if result is not NotImplemented:
                return result
        return self.run_leaves(structure, leaves, buffers)

    def run_leaves(self, structure, leaves, buffers=None):
        """The call on flattened arguments, outside any trace, with no autograd recording."""
        key = (structure, tuple(map(L.signature, leaves)))
        arrays = [L.to_array(x) for x in leaves]
        found, outs = self._lookup(key, arrays, buffers)
        if found is None:
            with self._tracing:  # another thread may have traced this path meanwhile
                found, outs = self._lookup(key, arrays, buffers)
                if found is None:
                    found = self._compile(structure, leaves)
                    self.cache.add(key, found, outs)
                    if _plain_positional(structure, leaves):
                        self.cache.fast[_layout(leaves)] = self.cache.by_key[key]
                    outs = _run_traced(found, arrays, buffers)
                else:
                    self.cache.hit(found)
        else:
            self.cache.hit(found)
        if _stack.inspect is not None:
            _stack.inspect(found, arrays, outs)
        return found.unpack(outs, leaves)

    def _lookup(self, key, arrays, buffers):
        """(entry, outputs) of the first cached trace whose guards hold, else (None, the last
        GuardFailed or None)."""
        failed = None
        for entry in self.cache.entries(key):
            try:
                return entry, _run(entry.program, arrays, buffers)
            except GuardFailed as failure:
                failed = failure
        return None, failed

    # ---- tracing ----

    def _trace(self, structure, leaves):
        trace = Trace(re.sub(r"\W+", "_", self.cache.name).strip("_") or "f")
        with trace:
            names = _leaf_names(self.fn, structure)
            inputs = self._inputs(trace, structure, leaves, names)
            given = [getattr(x, "ir", None) for x in inputs]
            params = [L.unwrap(x).ir for x in inputs]
            args, kwargs = unflatten(structure, iter(inputs))
            try:
                out = self.fn(*args, **kwargs)
            except Exception as error:
                locate(error)  # in place: the error keeps its class, traceback and fields
                raise
            if getattr(self, "taped", None) is None:  # gradjit.compile threads its updates
                _check_unchanged(trace, leaves, inputs, params, names, self.cache.name)
                if self.mode == "jit":
                    _check_detached(out, self.cache.name)
            results, unpack = self._outputs(out, structure, leaves)
            written = [i for i, (x, ir) in enumerate(zip(inputs, given))
                       if ir is not None and x.ir is not ir and _writable(leaves[i])]
            if written and self.mode == "jit":  # first, as into() fills the last results
                results, unpack = [inputs[i] for i in written] + results, WriteBack(unpack,
                                                                                    written)
            fn = trace.function(results)
        return trace, fn, unpack

    def _inputs(self, trace, structure, leaves, names):
        """The traced stand-ins that the function is called with, one per argument leaf (an
        outer value that an enclosing vmap maps gives a mapped input)."""
        inputs = [L.traced_input(trace, x, name) for x, name in zip(leaves, names)]
        trace.mapped.update(id(L.unwrap(stand_in).ir) for x, stand_in in zip(leaves, inputs)
                            if varies(L.unwrap(x)))
        return inputs

    def _outputs(self, out, structure, leaves):
        """The traced values to return from the IR function, and the object that turns the
        program's outputs (arrays, or traced values when inlined) into the call's result."""
        if self.mode == "jit":
            return tree_outputs(out)
        if self.mode == "jvp":
            return _jvp_outputs(out, structure, leaves)
        if self.has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise TypeError(f"{self.cache.name} was differentiated with has_aux=True, so it "
                                f"must return (value, aux), not {type(out).__name__}")
            out, aux = out
        aux_results, aux_unpack = tree_outputs(aux) if self.has_aux else ([], None)
        # the arguments first, as JAX checks them: grad(f)(3) names the integer argument
        grads = self._wrt(structure, leaves, 1 + len(aux_results))
        value = _scalar_output(out, self.cache.name, self.complex_output)
        flavor = getattr(L.unwrap(value), "__gradjit_flavor__", "numpy")
        if self.mode == "grad" and not self.has_aux:
            return [value], grads
        return [value, *aux_results], ValueAndGradients(self.mode, flavor, grads, aux_unpack)

    def _wrt(self, structure, leaves, start) -> Gradients:
        """The differentiated leaves and how to rebuild their structure from the program's
        outputs (the gradients are those from `start` on)."""
        arg_structures = structure[1][0][1]
        many = not isinstance(self.argnums, int)
        argnums = tuple(self.argnums) if many else (self.argnums,)
        starts = [0]
        for s in arg_structures:
            starts.append(starts[-1] + _count(s))
        groups = []
        for n in argnums:
            if not -len(arg_structures) <= n < len(arg_structures):
                raise TypeError(f"{self.cache.name}: argnums {n} is out of range for "
                                f"{len(arg_structures)} positional arguments")
            n %= len(arg_structures)
            indices = list(range(starts[n], starts[n + 1]))
            _check_differentiable(arg_structures[n], [leaves[i] for i in indices], n,
                                  self.holomorphic, self.allow_int)
            groups.append((arg_structures[n], indices))
        # with allow_int, integer and bool leaves get float0 zeros, as in JAX
        integral = {i for _, indices in groups for i in indices
                    if _leaf_dtype(leaves[i]).kind not in "fc"}
        wrt = [i for _, indices in groups for i in indices if i not in integral]
        if not integral and all(type(leaves[i]) is np.ndarray for i in wrt) and all(
                s == LEAF for s, _ in groups):  # arrays in, arrays out: nothing to rebuild
            groups = None
        return Gradients(start, many, groups, wrt, integral)

    def _compile(self, structure, leaves) -> Entry:
        with collector_paused():  # tracing, autodiff and passes allocate as much as codegen
            return self._compile_entry(structure, leaves)

    def _compile_entry(self, structure, leaves) -> Entry:
        trace, traced, unpack = self._trace(structure, leaves)
        stages = Stages(traced, self._passes(unpack), self._recipe(unpack))
        entry = Entry(compile_stages(stages, self.backend, self.deterministic), trace.guards,
                      unpack, stages, trace.captures)
        for observe in COMPILE_OBSERVERS:
            observe(self, entry)
        return entry

    def _passes(self, unpack) -> dict:
        """The stages after "traced", each made from the one before."""
        passes = {} if self.mode == "jit" else {
            "differentiated": lambda traced: self._transform(traced, unpack)}
        passes["optimized"] = lambda fn: verify(
            optimize(simplify_elementwise(optimize(fn))) if self.symbolic else optimize(fn))
        return passes

    def _recipe(self, unpack) -> str | None:
        """What the stages after "traced" depend on beyond the traced IR (with it, the key of
        the program); None where a subclass transforms otherwise and does not say."""
        if type(self)._transform is not Transformed._transform:
            return None
        wrt = getattr(unpack, "wrt", None), getattr(unpack, "tangents", None)
        return f"{self.mode} wrt={wrt} symbolic={self.symbolic}"

    def ir(self, *args, stage="optimized", **kwargs):
        """The IR that a call with these arguments runs ("optimized"), or an earlier stage:
        "traced" (the forward trace) or "differentiated" (before optimization)."""
        self(*args, **kwargs)
        stages = self.cache.last.stages
        if stage not in stages:
            raise ValueError(f"stage {stage!r} is not one of {', '.join(stages)}")
        return stages[stage]

    def lower(self, *args, **kwargs):
        """Each stage of what a call with these arguments compiles to (gradjit.dump.Lowered):
        traced, differentiated and optimized IR, fused kernels, LLVM IR, PTX, formulas."""
        from gradjit.dump import lower  # the dump tool sits above the tracer
        return lower(self, *args, **kwargs)

    def _transform(self, traced, unpack):
        """The IR pass of a transforming mode: forward for jvp, reverse for the others."""
        if self.mode == "jvp":
            return forward(traced, unpack.wrt, unpack.tangents)
        return differentiate(traced, unpack.wrt)

    def _inline(self, structure, leaves):
        """Called on traced values: trace afresh and replay the raw IR into the caller's trace
        (its guards included), so outer transformations see every op."""
        trace, fn, unpack = self._trace(structure, leaves)
        if self.mode != "jit":
            fn = self._transform(fn, unpack)
        outer = current_trace()
        # a Python number is an input of the trace's dtype (i64 for an int), not a weak scalar
        # that an op would lift to its other operand's dtype (a gather's index to f64)
        inputs = [L.unwrap(x) if L.is_traced(x) else L.to_array(x) for x in leaves] + \
            [x for _, x in trace.captured]
        outs = replay(fn, inputs, outer)
        if outer is not None:
            outer.guards.extend(trace.guards)
            outer.captures.extend(trace.captures)
        return unpack(outs, leaves)


def _as_static(value) -> Static:
    return value if isinstance(value, Static) else Static(static_value(value))


def _jvp_outputs(out, structure, leaves):
    """jvp's function is called as (primals, tangents): the float primal leaves are
    differentiated along the tangent leaves that mirror them; the call returns
    (primals_out, tangents_out) in one structure (zeros for outputs that are constants)."""
    results, primals = tree_outputs(out)
    _, tangents = tree_outputs(out, zero_constants=True)
    n = len(leaves) // 2
    wrt = [i for i in range(n) if _leaf_dtype(leaves[i]).kind in "fc"]
    return results, JvpOutputs(primals, tangents, wrt, [n + i for i in wrt])


def _leaf_dtype(x):
    inner = L.unwrap(x)
    return inner.value.dtype if isinstance(inner, Traced) else L.to_array(x).dtype


def _layout(args) -> tuple | None:
    """The lean path's cache key: shapes, dtypes and strides (which, for arrays registered
    as C-contiguous, say that any array matching them is too); None unless every argument is
    a numpy array. One array's is built without the outer tuple: a third of the call's
    overhead went to building keys. (No key of one array equals one of three: its middle
    item is a dtype, theirs a tuple.)"""
    if len(args) == 1:
        a = args[0]
        return (a.shape, a.dtype, a.strides) if type(a) is np.ndarray else None
    layout = []
    for a in args:
        if type(a) is not np.ndarray:
            return None
        layout.append((a.shape, a.dtype, a.strides))
    return tuple(layout)


def _writable(leaf) -> bool:
    """An argument whose writes the caller sees in numpy: an array (an outer traced one
    when inlined)."""
    return isinstance(leaf, (np.ndarray, Traced))


def _check_detached(out, name):
    """A result on the eager tape was computed from a Tensor that requires grad and is not
    an argument (arguments join the tape through the call's node): its gradient would be
    silently lost."""
    leaves = []
    flatten(out, leaves)
    if any(L.is_tensor(x) and x._edge is not None for x in leaves):
        raise TypeError(f"{name}: a result depends on a Tensor that requires grad and is not "
                        "an argument (read from a closure or a global?), so its gradient "
                        "would be lost; pass it as an argument, or use gradjit.compile, which "
                        "finds the parameters a function reaches")


def _check_unchanged(trace, leaves, inputs, params, names, name):
    """A Tensor argument updated in place (x.add_(1), x[0] = 1): the program returns new
    values and writes none back, so the caller's Tensor would silently keep its old value."""
    for leaf, stand_in, param, arg in zip(leaves, inputs, params, names):
        if L.is_tensor(leaf) and L.unwrap(stand_in).ir is not param:
            updated = L.unwrap(stand_in).ir
            site = next((op.site for op in trace.builder.ops if op.out is updated), None)
            where = f"\n  at {site}: {source_line(site)}" if site else ""
            raise TraceError(f"{name}: argument {arg} is updated in place, which a traced "
                             "function cannot do (its program returns new values and leaves "
                             "its arguments as they are, so the update would be lost); update "
                             f"a copy (x = x.clone()) and return it{where}")


def _plain_positional(structure, leaves) -> bool:
    """Whether the call was f(*arrays): C-contiguous arrays in machine byte order (which the
    program reads as they are), no keywords, nothing nested."""
    return structure[1][1] == (dict, (), ()) and \
        structure[1][0] == (tuple, (LEAF,) * len(leaves)) and \
        all(type(a) is np.ndarray and a.flags.c_contiguous and a.dtype.isnative for a in leaves)


def _run(program, arrays, buffers):
    """Run a compiled program; `buffers` (or None) receive its last results."""
    if buffers is None:
        return program(*arrays)
    types = getattr(program, "result_types", None)
    if types is None:
        raise TypeError("into() needs a compiled backend ('cpu'), not the interpreter")
    if len(buffers) > len(types):
        raise TypeError(f"into(): out holds {len(buffers)} arrays, the call has {len(types)} "
                        "results")
    fresh = [np.empty(shape, dtype) for shape, dtype in types[:len(types) - len(buffers)]]
    return program(*arrays, out=fresh + buffers)


def _run_traced(entry, arrays, buffers):
    """Run a new trace on the arguments it was traced with. Its guards hold there unless the
    compiled math decided a comparison near its threshold an ulp apart from numpy while
    tracing; then this call runs the traced IR in the interpreter, which decides as the trace
    did (GuardFailed must not reach the caller)."""
    try:
        return _run(entry.program, arrays, buffers)
    except GuardFailed:
        outs = interpret(entry.stages.get("differentiated", entry.stages["traced"]), *arrays)
    if buffers:
        for buffer, value in zip(buffers, outs[len(outs) - len(buffers):]):
            np.copyto(buffer, value)
        outs[len(outs) - len(buffers):] = buffers
    return outs


def replay(fn, inputs, trace):
    """Bind each op of `fn` on `inputs` (traced values or arrays) in the current trace, each
    op keeping the source line it was traced at."""
    from gradjit.ir.primitive import bind
    env = dict(zip(fn.params, inputs))
    caller_site = trace.site if trace is not None else None
    try:
        for op in fn.ops:
            if trace is not None:
                trace.site = op.site or caller_site
            if trace is not None and not op.inputs and op.prim.kind != "source":
                out = trace.bind(op.prim, (), op.params)  # a draw: drawn at each run
            else:
                out = bind(op.prim, *[env[v] for v in op.inputs], **op.params)
            if op.out is not None:
                env[op.out] = out
    finally:
        if trace is not None:
            trace.site = caller_site
    return [env[r] for r in fn.results]


def _leaf_names(fn, structure) -> list[str]:
    """Parameter names for the IR: argument names, with keys and positions of nested leaves."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    arg_names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    rest = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), "arg")
    names = []

    def walk(s, prefix):
        if s == LEAF:
            names.append(re.sub(r"\W+", "_", prefix))
        elif s[0] is dict:
            for key, child in zip(s[1], s[2]):
                walk(child, f"{prefix}_{key}")
        elif s[0] != "static":
            for i, child in enumerate(s[1]):
                walk(child, f"{prefix}_{i}")

    for n, s in enumerate(structure[1][0][1]):
        walk(s, arg_names[n] if n < len(arg_names) else f"{rest}{n - len(arg_names)}")
    for key, child in zip(structure[1][1][1], structure[1][1][2]):
        walk(child, key)
    return names


def _count(structure) -> int:
    if structure == LEAF:
        return 1
    if structure[0] == "static":
        return 0
    return sum(_count(s) for s in structure[-1])


def _check_differentiable(structure, arg_leaves, n, holomorphic=False, allow_int=False):
    if _count(structure) + _nones(structure) != _flat_count(structure):
        raise TypeError(f"argument {n} holds a value that is not an array (e.g. a string): "
                        "gradients are taken with respect to arrays and numbers only")
    for x in arg_leaves:
        dtype = _leaf_dtype(x)
        if holomorphic and dtype.kind != "c":
            raise TypeError(f"grad with holomorphic=True requires inputs with complex dtype, "
                            f"but got {dtype.name}.")
        if dtype.kind not in "fc" and not (allow_int and dtype.kind in "biu"):
            raise TypeError(f"grad: argument {n} has dtype {dtype} ({type(x).__name__}); "
                            "gradients are defined for float and complex inputs only (pass "
                            "2.0 rather than 2, cast with .astype(float), or pass "
                            "allow_int=True for float0 zeros)")


def _nones(structure) -> int:
    """The None leaves, which JAX's pytrees hold as empty nodes: their gradient is None."""
    if structure == LEAF:
        return 0
    if structure[0] == "static":
        return structure[1] is None
    return sum(_nones(s) for s in structure[-1])


def _flat_count(structure) -> int:
    """Leaves plus static values: what _count would be if every leaf were an array."""
    if structure == LEAF or structure[0] == "static":
        return 1
    return sum(_flat_count(s) for s in structure[-1])


def _scalar_output(value, name, complex_output=False):
    """The value to differentiate: a float scalar. A size-1 array counts as its one element
    (as PyTorch's backward and HIPS autograd take it), and a float that depends on no input
    (a constant function) has a zero gradient."""
    inner = L.unwrap(value)
    if isinstance(inner, (float, complex)) and not _converted(current_trace()):
        inner = np.asarray(inner)[()]
    if isinstance(inner, Traced) or hasattr(inner, "shape") and hasattr(inner, "dtype"):
        shape, dtype = tuple(inner.shape), str(inner.dtype)
        if "complex" in dtype and not complex_output and math.prod(shape) == 1:
            raise TypeError(f"grad of {name}: the function returns a complex scalar ({dtype}); "
                            "grad needs a real one, or holomorphic=True for the complex "
                            "derivative of a holomorphic function (holomorphic_grad), or vjp "
                            "for other functions with complex outputs")
        if math.prod(shape) != 1 or not ("float" in dtype or "complex" in dtype):
            raise TypeError(f"grad of {name}: the function must return a float scalar, not an "
                            f"array of shape {shape} and dtype {dtype} (reduce it, e.g. "
                            ".sum(), or use jit to get the array)")
        return ops.reshape(inner, ()) if shape else inner
    kind = type(value).__name__
    hint = (" (float()/int()/item() cut it off from the inputs: return the array)"
            if isinstance(value, (int, float)) else "")
    raise TypeError(f"grad of {name}: the function must return a float scalar array, not a "
                    f"{kind}{hint}")


def _converted(trace) -> bool:
    """Whether the function turned a traced value into a Python number: a float it returns
    then most likely came from it, cut off from the inputs."""
    return any(g.what.startswith("item()") for g in trace.guards)
