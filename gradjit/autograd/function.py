"""torch.autograd.Function: a user's forward and backward as one node of the eager tape, named
after the class (`MyReLUBackward`); its backward is the node's vector-Jacobian product."""
from __future__ import annotations

import inspect

import functools
import warnings
import weakref

import numpy as np

from gradjit.tensor import graph
from gradjit.tensor.saved import FREED, Saved
from gradjit.tensor.shape import cat as gradjit_cat
from gradjit.tensor.base import TensorBase
from gradjit.tensor.factories import is_traced
from gradjit.tensor.grad_mode import is_grad_enabled, no_grad


class FunctionCtx:
    """The `ctx` that forward fills in and backward reads."""

    def __init__(self, needs_input_grad):
        self.needs_input_grad = needs_input_grad
        self._materialize_grads = True
        self._saved = ()
        self._originals = ()  # the saved tensors themselves, where no pack hook took them
        self._non_differentiable = set()
        self._dirty = ()
        self._record = None  # the tape record of the Function's node, once recorded

    def save_for_backward(self, *tensors):
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, TensorBase):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{i} is of type {type(t).__name__}")
        self._saved, self._originals = _saving(tensors)

    _for_forward = None

    def save_for_forward(self, *tensors):
        """Tensors that jvp reads back as ctx.saved_tensors."""
        self._for_forward = _saving(tensors)

    def _read_forward_saves(self):
        """Make saved_tensors give save_for_forward's tensors (for jvp); returns the state to
        restore."""
        state = self._saved, self._originals
        if self._for_forward is not None:
            self._saved, self._originals = self._for_forward
        return state

    @property
    def saved_tensors(self) -> tuple:
        if self._record is not None and self._record.freed and self._saved:
            raise RuntimeError(FREED)
        out = []
        for saved, original in zip(self._saved, self._originals):
            if saved is None:
                out.append(None)
                continue
            problem = saved.problem(self._record)
            if problem is not None:
                raise RuntimeError(problem)
            if original is None:
                original = saved.cls._wrap(saved.current(), saved.counter)
                original._edge, original._device = saved.edge, saved.device
            out.append(original)
        return tuple(out)

    @property
    def saved_variables(self) -> tuple:
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning,
                      stacklevel=2)
        return self.saved_tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable.update(id(t) for t in tensors)

    def set_materialize_grads(self, value: bool):
        self._materialize_grads = bool(value)

    def mark_dirty(self, *tensors):
        """Inputs that forward modified in place: returned as outputs, they are those same
        tensor objects, whose history moves to this Function's node."""
        self._dirty = tensors


def _saving(tensors):
    """(Saved per tensor, the tensor itself where no pack hook took it): saved as the tape
    saves operands, so under saved_tensors_hooks backward reads what the unpack hook gives."""
    saved = tuple(None if t is None else Saved(t) for t in tensors)
    return saved, tuple(t if s is not None and s.packed is None else None
                        for t, s in zip(tensors, saved))


def once_differentiable(backward):
    """A backward written with operations that are not to be differentiated again: it runs
    with gradient recording off, and where its gradients would be differentiated (a
    cotangent requires grad) its results carry an `Error` grad_fn that says so when reached.
    As in PyTorch, that node's inputs are leaves made of the results themselves."""
    @functools.wraps(backward)
    def wrapper(ctx, *grad_outputs):
        with no_grad():
            result = backward(ctx, *grad_outputs)
        if not (is_grad_enabled() and any(isinstance(g, TensorBase) and g.requires_grad
                                          for g in grad_outputs)):
            return result
        results = result if isinstance(result, tuple) else (result,)
        leaves = [r.detach().requires_grad_() if _differentiable(r) else None for r in results]
        node = Error()
        node._inputs = tuple(None if t is None else weakref.ref(t._edge) for t in leaves)
        marked = [graph.refuse_gradient(r, node, "trying to differentiate twice a function "
                                        "that was marked with @once_differentiable",
                                        [t for t in leaves if t is not None])
                  if _differentiable(r) else r for r in results]
        return tuple(marked) if isinstance(result, tuple) else marked[0]
    return wrapper


def _differentiable(x) -> bool:
    return isinstance(x, TensorBase) and x.dtype.is_floating_point


class Error(graph.Node):
    """The grad_fn of once_differentiable's results, named as PyTorch's C++ node."""

    def name(self) -> str:
        return "torch::autograd::Error"


class _Backward:
    """Stands where a primitive stands in a tape record: the engine calls `vjp` with the
    cotangent of the output, or with the cotangents of several outputs packed into one flat
    vector (see _Pick), and the user's backward runs once with them in their positions."""

    differentiable = True

    def __init__(self, cls, ctx, outputs, differentiable, inputs, pushed):
        self.cls, self.ctx, self.outputs, self.inputs = cls, ctx, outputs, inputs
        self.pushed = pushed  # its outputs' tangents came from its jvp
        self.differentiable = differentiable  # positions of the outputs that get gradients
        self.name = f"{cls.__name__}Backward"
        self.received = set()  # positions whose cotangent reached the packed vector
        self.record = None  # the tape record this rule stands in

    def vjp(self, g, out, *operands):
        from gradjit.autograd import forward_ad
        if self.pushed and forward_ad.pushing_tangents():
            self.received = set()
            return [None] * len(operands)
        grads = [None] * len(self.outputs)
        if len(self.differentiable) == 1:
            grads[self.differentiable[0]] = g
        else:
            offset = 0
            for i in self.differentiable:
                o = self.outputs[i]
                if i in self.received:
                    grads[i] = g[offset:offset + o.numel()].reshape(tuple(o.shape)).to(o.dtype)
                offset += o.numel()
            self.received = set()
        if self.ctx._materialize_grads:
            grads = [gi if gi is not None else o.new_zeros(tuple(o.shape)) if
                     isinstance(o, TensorBase) else None for gi, o in zip(grads, self.outputs)]
        result = _user_backward(self.cls)(self.ctx, *grads)
        result = result if isinstance(result, tuple) else (result,)
        if len(result) > len(self.inputs) and all(r is None for r in result[len(self.inputs):]):
            result = result[:len(self.inputs)]  # trailing Nones are allowed, as in PyTorch
        if len(result) != len(self.inputs):
            raise RuntimeError(f"function {self.name} returned an incorrect number of "
                               f"gradients (expected {len(self.inputs)}, got {len(result)})")
        for i, (gi, x) in enumerate(zip(result, self.inputs)):
            if gi is not None and not isinstance(x, TensorBase):
                raise RuntimeError(f"function {self.name} returned a gradient different than "
                                   f"None at position {i + 1}, but the corresponding forward "
                                   "input was not a Variable")
        return [_checked(self.name, i, gi, x) for i, (gi, x) in
                enumerate(zip(result, self.inputs)) if isinstance(x, TensorBase)]


def _user_backward(cls):
    """The Function's backward, or its vjp (PyTorch's other name for it), not both."""
    backward, vjp = cls.backward, cls.vjp
    if backward is not Function.backward and vjp is not Function.vjp:
        raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not "
                           "allowed. You should only implement one of them.")
    return vjp if vjp is not Function.vjp else backward


class _Pick:
    """The record of one of several outputs: its cotangent goes into its segment of the packed
    vector, so the engine's sum of the segments is every output's cotangent at once."""

    differentiable = True

    def __init__(self, rule, position):
        self.rule, self.position = rule, position

    def vjp(self, g, out, packed):
        self.rule.received.add(self.position)
        pieces = [g.reshape(-1).to(packed.dtype) if i == self.position else
                  packed.new_zeros((self.rule.outputs[i].numel(),))
                  for i in self.rule.differentiable]
        return [gradjit_cat(pieces)]


def _checked(name, index, grad, input):
    """A returned gradient for a tensor input: None where none is needed, summed down to the
    input's shape where it is a broadcast of it (as PyTorch accepts), else an error; in the
    input's dtype."""
    if grad is None or input._edge is None:
        return None
    if not isinstance(grad, TensorBase):
        grad = input.new_tensor(grad)
    shape, got = tuple(input.shape), tuple(grad.shape)
    if got != shape:
        lead = len(got) - len(shape)
        if lead < 0 or any(s != 1 and s != g for s, g in zip(shape, got[lead:])):
            raise RuntimeError(f"Function {name} returned an invalid gradient at index {index} - "
                               f"got {list(got)} but expected shape compatible with {list(shape)}")
        dims = [*range(lead),
                *(lead + i for i, s in enumerate(shape) if s == 1 and got[lead + i] != 1)]
        grad = grad.sum(dim=dims, keepdim=True).reshape(shape) if dims else grad
    # in the input's dtype, as PyTorch casts it (a custom_fwd may have cast the input)
    return grad if grad.dtype is input.dtype else grad.to(input.dtype)


class Function:
    """Subclass with staticmethods forward(ctx, *args) (or forward(*args) plus
    setup_context(ctx, inputs, output)) and backward(ctx, *grad_outputs), and for forward
    mode jvp(ctx, *tangents); call `apply`."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    @staticmethod
    def vjp(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    setup_context = None

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method. (Example: https://pytorch.org/docs/stable/"
                           "autograd.html#torch.autograd.Function)")

    @classmethod
    def apply(cls, *args, **kwargs):
        if cls.setup_context is not None:  # its `inputs` hold forward's defaults too, as torch's
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        if any(is_traced(a) or isinstance(a, TensorBase) and
               not isinstance(a._value, np.ndarray) for a in args):
            from gradjit.autograd.traced import traced_apply  # above the tracer: loaded late
            return traced_apply(cls, args, kwargs)
        ctx = FunctionCtx(tuple(isinstance(a, TensorBase) and a._edge is not None for a in args))
        with no_grad():
            if cls.setup_context is None:
                output = cls.forward(ctx, *args, **kwargs)
            else:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
        pushed = _pushed_forward(cls, ctx, args, output)
        if pushed is None:
            return _recorded(cls, ctx, args, output, False)
        from gradjit.autograd import forward_ad
        if cls.backward is Function.backward:  # forward mode only: the outputs are new leaves
            output = tuple(o.detach() for o in output) if isinstance(output, tuple) else \
                output.detach()
        else:
            output = _recorded(cls, ctx, args, output, True)
        if not isinstance(output, tuple):
            return forward_ad.carry(output, pushed)
        return tuple(forward_ad.carry(o, t) for o, t in zip(output, pushed))


def _recorded(cls, ctx, args, output, pushed):
    """The outputs of a Function's forward, recorded as one node whose backward is the user's
    (where `pushed`, its jvp gave their tangents: forward mode does not go through it)."""
    outputs = list(output) if isinstance(output, tuple) else [output]
    dirty = _dirty(ctx, outputs)
    differentiable = [id(o) not in ctx._non_differentiable for o in outputs]
    outputs = [o if id(o) in dirty else _fresh(o, args) for o in outputs]
    several = sum(isinstance(o, TensorBase) for o in outputs) > 1
    chosen = [i for i, o in enumerate(outputs) if isinstance(o, TensorBase) and
              differentiable[i] and o.dtype.is_floating_point]
    recording = is_grad_enabled() and any(ctx.needs_input_grad) and chosen
    for i, o in enumerate(outputs):
        if isinstance(o, TensorBase) and id(o) not in dirty:
            o.output_nr = i if several else 0
            if o._base is not None and recording:  # made in forward: the node's view now
                o._no_grad_view = False
                o._multi_output = (cls.__name__, i) if several else None
            elif o._base is not None:  # a view made under no_grad, by the Function
                o._function_view = True
    if not recording:
        return tuple(outputs) if isinstance(output, tuple) else outputs[0]
    _check_dirty(dirty.values(), len(outputs))
    edges = [a._grad_edge() if isinstance(a, TensorBase) else None for a in args]
    tensor_args = [a for a in args if isinstance(a, TensorBase)]
    node = graph.Node.named(f"{cls.__name__}Backward", "torch.autograd.function")
    rule = _Backward(cls, ctx, outputs, chosen, args, pushed)
    inputs = [e for e, a in zip(edges, args) if isinstance(a, TensorBase)]
    if len(chosen) == 1:
        o = outputs[chosen[0]]
        o._edge = rule.record = graph.Record(rule, {}, tensor_args, inputs, o, node)
    else:
        dtype = max((outputs[i].dtype for i in chosen), key=lambda d: d.itemsize)
        packed = outputs[chosen[0]].new_zeros((sum(outputs[i].numel() for i in chosen),),
                                              dtype=dtype)
        whole = rule.record = graph.Record(rule, {}, tensor_args, inputs, packed, node)
        for i in chosen:
            o = outputs[i]
            o._edge = graph.Record(_Pick(rule, i), {}, [packed], [whole], o, node)
    ctx._record = rule.record
    for t in dirty.values():
        if t._base is not None and not t._detached:  # the base's history takes the view's
            t._rebase_base()
            t._view_version = -1
    return tuple(outputs) if isinstance(output, tuple) else outputs[0]


def _dirty(ctx, outputs) -> dict:
    """The inputs marked dirty, by id, each returned as an output and its version bumped (its
    storage changed in place)."""
    dirty = {id(t): t for t in ctx._dirty}
    returned = {id(o) for o in outputs}
    if any(key not in returned for key in dirty):
        raise RuntimeError("Some elements marked as dirty during the forward method were not "
                           "returned as output. The inputs that are modified inplace must all "
                           "be outputs of the Function.")
    for t in dirty.values():
        t._counter.value += 1
    return dirty


def _check_dirty(dirty, count):
    for t in dirty:
        if isinstance(t._edge, graph.AccumulateGrad):
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                               "operation.")
        if t._base is not None and isinstance(t._base._edge, graph.AccumulateGrad):
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")
        if t._base is not None and t._base.requires_grad and count > 1:
            raise RuntimeError(
                "If your Function modifies inplace an input that is a view of another Tensor, "
                "your Function cannot return more than one Tensor. This is not supported by the "
                "current autograd engine. You should either make sure the input is not a view "
                "(using .clone() for example) or make your Function only return one Tensor "
                "(potentially splitting it into two Functions: one doing the inplace that "
                "returns a single Tensor and a second one that does the other operations). You "
                "can ask on the forum https://discuss.pytorch.org/ if you need help to do this "
                "change.")


def _pushed_forward(cls, ctx, args, output):
    """The tangents of the outputs by the Function's jvp from those of its inputs in the
    current dual level (ctx.saved_tensors reads save_for_forward's tensors there); None when
    no input carries one."""
    from gradjit.autograd import forward_ad
    tangents = [forward_ad.unpack_dual(a).tangent if isinstance(a, TensorBase) else None
                for a in args]
    if all(t is None for t in tangents):
        return None
    tangents = [a.new_zeros(a.shape) if t is None and isinstance(a, TensorBase) else t
                for a, t in zip(args, tangents)]
    state = ctx._read_forward_saves()
    try:
        return cls.jvp(ctx, *tangents)
    finally:
        ctx._saved, ctx._originals = state


def _fresh(output, args):
    """An output that is one of the inputs becomes a new tensor over the same storage, so the
    input keeps its own history."""
    if any(output is a for a in args):
        return output.detach()
    return output
