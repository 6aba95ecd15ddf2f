"""The Tensor core: an inner value (a numpy array when eager, a traced value under tracing),
its storage bookkeeping (views, versions), autograd identity and primitive dispatch."""
from __future__ import annotations

import weakref

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.tensor.refusals import refuse_cast
from gradjit.tensor import memory_format as MF
from gradjit.ir.primitive import (bind, evaluate_plain, fresh_result, ir_type, is_python_scalar,
                                  scalar_template)
from gradjit.tensor import cuda_ops, dtypes, graph, hot_path, overlap, traced_views
from gradjit.tensor.autograd_state import AutogradStateMixin
from gradjit.tensor.conversions import ConversionMixin
from gradjit.tensor.grad_mode import _inference, _state, is_grad_enabled
from gradjit.tensor.graph import AccumulateGrad, Record, Version


class TensorBase(ConversionMixin, AutogradStateMixin):
    """Storage, autograd state and dispatch; the operations live in the mixins of Tensor."""

    __gradjit_priority__ = 5
    __gradjit_flavor__ = "torch"
    __array_priority__ = 1000  # numpy defers to our reflected operators

    _edge = None          # None, the AccumulateGrad of a leaf that requires grad, or a Record
    _base = None          # the tensor whose storage this view shares
    _view_fn = None       # numpy function from the base's array to this view's
    _view_version = 0     # the storage version when this view's history was last set
    _detached = False     # a traced view made by detach() or .data: no gradient from its base
    _saved = None         # (Saved, Record) for a value unpacked for backward
    _poison = None        # why a value computed from stale saved values must not be used
    _grad = None
    _retains_grad = False
    _no_grad_view = False  # a view made while grad mode was off
    _function_view = False  # ... by a custom Function's forward, which returned it
    _multi_output = None  # (node name, index) of a view among several a function returned
    _device = dtypes.CPU
    _made_in = None       # the trace a factory made this tensor in: local to it, so writable

    @classmethod
    def _wrap(cls, value, counter=None):
        t = object.__new__(cls)
        t._value = value
        t._counter = counter or Version()
        if _inference.enabled:  # made inside inference_mode: an inference tensor
            t._inference = True
        return t

    _inference = False

    def is_inference(self) -> bool:
        return self._inference

    # ---- dispatch: every primitive on tensors comes through here ----

    @classmethod
    def __gradjit_bind__(cls, prim, args, params):
        out = hot_path.bound(prim, args, params)
        if out is not None:
            return out
        inner, poison, placed = [], None, False
        for a in args:
            if isinstance(a, TensorBase):
                if a._saved is not None or a._poison is not None:
                    poison = poison or a._problem()
                if a._device is not dtypes.CPU:
                    placed = True
                inner.append(a._value)
            else:
                inner.append(a)
        device = _common_device(args) if placed else None
        # The hot path (None where it does not apply); a ufunc's result is a new array.
        out = evaluate_plain(prim, inner) if device is None and not params and \
            prim.kind == "elementwise" else None
        fresh = out is not None and fresh_result(prim)
        if out is None:
            # a meta tensor is computed as on the CPU: only its printing hides the values
            out = bind(prim, *inner, **params) if device is None or device.type != "cuda" else \
                cuda_ops.run(prim, inner, params)
            if out is None:
                return None
        if _state.stops_traced and not _state.enabled and out.dtype.kind in "fc":
            out = _stopped(out)
        result = cls._wrap(out)
        if poison is not None:
            result._poison = poison
        if device is not None:
            result._device = device
        if not fresh and isinstance(out, np.ndarray):
            result._link_view(prim, params, args)
        elif prim in traced_views.VIEWS and isinstance(args[0], TensorBase):
            traced_views.link(result, args[0], lambda array: prim.evaluate(array, **params))
        # Only floating and complex results carry gradients (PyTorch: integer outputs never
        # do). Traced values are taped too: gradjit.compile traces a step that calls backward().
        if prim.differentiable and _state.enabled and out.dtype.kind in "fc":
            edges = [a._grad_edge() if isinstance(a, TensorBase) else None for a in args]
            if edges.count(None) != len(edges):
                result._edge = graph.record(prim, params, _lifted(args, inner), edges, result)
        return result

    def _local_to_trace(self) -> bool:
        """Whether this tensor was made by a factory inside the trace running now, so no code
        outside it holds its data and a traced value may replace it."""
        if self._made_in is None:
            return False
        from gradjit.tracer.trace import current_trace  # the tracer sits above Tensors
        return self._made_in is current_trace()

    def _problem(self):
        if self._poison is not None:
            return self._poison
        saved, rec = self._saved
        return saved.problem(rec)

    def _link_view(self, prim, params, args):
        """A result that shares memory with an operand is a view of it (numpy evaluates
        reshape, transpose and slice as views): it shares the version counter and knows how
        to be cut from its base."""
        for a in args:
            if isinstance(a, TensorBase) and isinstance(a._value, np.ndarray) and \
                    overlap.same_memory(self._value, a._value):
                self._share(a, lambda array: prim.evaluate(array, **params))
                return

    def _share(self, a, cut):
        """Make this tensor a view of a's storage, cut from a's array by `cut`: it shares the
        version counter and is cut from the base again after the base changes in place."""
        parent = a._view_fn
        self._base = a._base if a._base is not None else a
        self._view_fn = cut if parent is None else lambda array: cut(parent(array))
        self._counter, self._view_version = a._counter, a._counter.value
        if not _state.enabled:
            self._no_grad_view = True
            if self._edge is None and a.requires_grad:
                # PyTorch's view requires grad as its base does, with no history to send it to
                self._edge = graph.AccumulateGrad(self)
                self._edge.sink = True

    def _grad_edge(self):
        """This tensor's autograd edge. A view whose base was modified in place since its
        history was set is cut from the base again, so its gradient reaches the new history."""
        base = self._base
        if base is not None and self._view_version != self._counter.value and \
                isinstance(base._edge, Record) and not self._detached:
            with graph.op("AsStridedBackward0", fresh=True) as scope, graph_enabled():
                fresh = self._cut_from(base)
                graph.declare_inputs(scope, (base,))
            self._edge, self._view_version = fresh._edge, self._counter.value
        return self._edge

    def _positions(self):
        """Where each element lies in the base: its index among the base's elements, or for a
        real view of a complex base (view_as_real, .real, .imag) among the base's parts,
        (real, imag) after (real, imag). The parts' positions are cut from a complex array of
        (2k, 2k + 1) pairs, which the views of complex storage take apart as they take the
        base's values."""
        base = self._base
        shape = base._value.shape
        if not base.dtype.is_complex:
            return self._view_fn(np.arange(base.numel(), dtype=np.int64).reshape(shape))
        parts = 2.0 * np.arange(base.numel())
        cut = self._view_fn((parts + 1j * (parts + 1)).reshape(shape))
        return (cut.real // 2 if cut.dtype.kind == "c" else cut).astype(np.int64)

    def _whole(self, base):
        """The base as the positions of this view count its elements: its (real, imag) parts
        along a last dimension for a real view of a complex base."""
        if not base.dtype.is_complex or self.dtype.is_complex:
            return base
        shape = tuple(base.shape) + (1,)
        return S.concatenate(S.reshape(E.real(base), shape=shape),
                             S.reshape(E.imag(base), shape=shape), axis=len(shape) - 1)

    def _cut_from(self, base):
        positions = self._positions()
        whole = self._whole(base)
        flat = S.reshape(whole, shape=(whole.numel(),))
        return S.reshape(S.gather(flat, positions.reshape(-1), axis=0), shape=positions.shape)

    # ---- in-place operations ----

    def _check_inplace(self, setitem=False):
        if self._inference and not _inference.enabled:
            raise RuntimeError(
                "Inplace update to inference tensor outside InferenceMode is not allowed.You "
                "can make a clone to get a normal tensor before doing inplace update.See "
                "https://github.com/pytorch/rfcs/pull/17 for more details.")
        if not is_grad_enabled():
            return
        if self._multi_output is not None and isinstance(self._edge, Record):
            name, index = self._multi_output
            raise RuntimeError(
                f"Output {index} of {name} is a view and is being modified inplace. This view "
                "is the output of a function that returns multiple views. Such functions do "
                "not allow the output views to be modified inplace. You should replace the "
                "inplace operation by an out-of-place one.")
        if self._no_grad_view and self._base.requires_grad and self._function_view:
            raise RuntimeError(
                "A view was created in no_grad mode and is being modified inplace with grad "
                "mode enabled. This view was created inside a custom Function (or because an "
                "input was returned as-is) and the autograd logic to handle view+inplace would "
                "override the custom backward associated with the custom Function, leading to "
                "incorrect gradients. This behavior is forbidden. You can fix this by cloning "
                "the output of the custom Function.")
        if self._no_grad_view and self._base.requires_grad:
            raise RuntimeError(
                "A view was created in no_grad mode and is being modified inplace with grad "
                "mode enabled. Given that this use case is ambiguous and error-prone, it is "
                "forbidden. You can clarify your code by moving both the view and the inplace "
                "either both inside the no_grad block (if you don't want the inplace to be "
                "tracked) or both outside (if you want the inplace to be tracked).")
        if isinstance(self._edge, AccumulateGrad):
            view = "a view of " if setitem else ""
            raise RuntimeError(f"{view}a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
        if self._base is not None and isinstance(self._base._edge, AccumulateGrad):
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")

    def _update(self, compute, name=None, write=True, setitem=False, may_overlap=False,
                operands=None):
        """Run an in-place operation: `compute()` gives the new value out of place (recorded
        as usual); it is written into this tensor's storage (or, for `write=False`, replaces
        its metadata, as t_() does) and this tensor's history moves to it. Only the writes
        whose PyTorch kernels do not check (`may_overlap`: the fills, index_put_; setitem
        checks its own) may go where elements share memory. `operands`: those of PyTorch's
        kernel, where compute's primitives take others (a fill's mask)."""
        if write and not setitem and not may_overlap and overlap.internal(self._value):
            raise RuntimeError(overlap.INTERNAL)
        context = graph.op(name)
        with context as scope:
            self._check_inplace(setitem)
            new = compute()
            if operands is not None and context.declares:
                graph.declare_inputs(scope, operands)
            if not isinstance(new, TensorBase):
                new = type(self)._wrap(new)
            source, target = new.dtype, self.dtype
            if write and not setitem and tuple(new.shape) != tuple(self.shape):
                raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the "
                                   f"broadcast shape {list(new.shape)}")
            if source is not target:
                if write:
                    refuse_cast(source, target)
                new = E.cast(new, dtype=target.ir.name)
        if write and tuple(new.shape) != tuple(self.shape):
            from gradjit.tensor.shape import broadcast_into  # shape.py builds on this module
            broadcast_into(tuple(self.shape), tuple(new.shape))
        self._commit(new, scope.records, write)
        return self

    def _commit(self, new, records, write):
        tracked = isinstance(new._edge, Record)
        if tracked:
            for rec in records:
                rec.protect(self._counter)
        if write and isinstance(self._value, np.ndarray) and isinstance(new._value, np.ndarray):
            np.copyto(self._value, new._value)
        elif write and isinstance(self._value, np.ndarray) and not _compiling() and \
                not self._local_to_trace():
            raise RuntimeError(
                "an in-place operation inside gradjit.grad/jit writes a traced value into a "
                "tensor holding data from outside the trace (a module buffer such as "
                "BatchNorm's running statistics, or a tensor made by a factory): the "
                "compiled program cannot update it. Compute it out of place (y = x + 1, "
                "torch.where, torch.cat), use model.eval() / track_running_stats=False for "
                "the compiled call, or gradjit.compile, which updates the state it reaches.")
        else:
            self._value = new._value
            if write:
                traced_views.sync(self)
        self._counter.value += 1
        self._view_version = self._counter.value
        if tracked:
            self._edge = new._edge
            if self._retains_grad:
                new._edge.retained = weakref.ref(self)
            if self._base is not None and write and not self._detached:
                self._rebase_base()
                self._view_version = -1  # its history is now cut from the new base

    def _rebase_base(self):
        """After an in-place write through this view, the base's history is its old history
        with this view's region replaced by the view's new history (PyTorch's CopySlices)."""
        base = self._base
        positions = self._positions().reshape(-1)
        with graph.op("CopySlices", fresh=True) as scope, graph_enabled():
            whole = self._whole(base)
            flat = S.reshape(whole, shape=(whole.numel(),))
            mask = np.zeros(whole.numel(), bool)
            mask[positions] = True
            placed = S.scatter_add(E.zeros_like(flat), positions,
                                   S.reshape(self, shape=(positions.size,)), axis=0)
            new = S.reshape(E.where(mask, placed, flat), shape=tuple(whole.shape))
            if whole is not base:  # the parts made complex again
                last = len(whole.shape) - 1
                new = E.complex_(*(S.reshape(S.slice_(new, start=(0,) * last + (k,),
                                                      stop=tuple(base.shape) + (k + 1,),
                                                      step=(1,) * (last + 1)),
                                             shape=tuple(base.shape)) for k in (0, 1)))
            # PyTorch's CopySlices: the base's edge, then the in-place operation's after self
            graph.declare_edges(scope, [base._edge, *self._edge.node._input_edges()[1:]])
        base._edge = new._edge

    # ---- metadata ----

    @property
    def ir_type(self):
        return ir_type(self._value)

    @property
    def shape(self) -> dtypes.Size:
        value = self._value
        return dtypes.Size(value.shape if isinstance(value, np.ndarray) else value.ir_type.shape)

    def size(self, dim=None):
        shape = self.shape
        if dim is None:
            return shape
        return shape[_check_sized_dim(dim, len(shape))]

    def dim(self) -> int:
        return len(self.shape)

    ndim = property(dim)

    def numel(self) -> int:
        return self.shape.numel()

    nelement = numel

    @property
    def dtype(self) -> dtypes.dtype:
        value = self._value
        if isinstance(value, np.ndarray):
            return dtypes.of_numpy(value.dtype)
        return dtypes.of_ir(value.ir_type.dtype)

    @property
    def device(self) -> dtypes.device:
        return self._device

    @property
    def is_cuda(self) -> bool:
        return self._device.type == "cuda"

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def element_size(self) -> int:
        return self.dtype.itemsize

    def is_contiguous(self, memory_format=MF.contiguous_format) -> bool:
        value = self._layout()
        if memory_format in (MF.contiguous_format, MF.preserve_format):
            return not isinstance(value, np.ndarray) or bool(value.flags.c_contiguous)
        strides = tuple(s // value.itemsize for s in value.strides) \
            if isinstance(value, np.ndarray) else ()
        return bool(strides) and MF.follows(value.shape, strides, memory_format)

    def _layout(self):
        """The numpy array whose strides are this tensor's: its own, or for a view of a traced
        tensor its positions in the base (cut as numpy cuts the eager view); None for a
        traced tensor of its own, which compiled code writes row-major."""
        if isinstance(self._value, np.ndarray):
            return self._value
        return self._positions() if self._base is not None else None

    def data_ptr(self) -> int:
        return self.numpy(force=True).__array_interface__["data"][0]


class graph_enabled:
    """Record even under no_grad (the history edits of in-place operations)."""

    def __enter__(self):
        self._previous, _state.enabled = _state.enabled, True

    def __exit__(self, *exc):
        _state.enabled = self._previous


def _lifted(args, inner):
    """Python numbers among the operands as the arrays the primitive saw, made when backward
    reads them (graph.Number)."""
    for a in args:
        if is_python_scalar(a):
            like = scalar_template(inner, args)
            return [graph.Number(a, like) if is_python_scalar(a) else a for a in args]
    return args


def _common_device(args):
    """The one device of the tensors among `args` (an error names two that differ)."""
    device = None
    for a in args:
        if isinstance(a, TensorBase):
            device = _same_device(device, a._device)
    return device


def _same_device(device, other):
    if device is not None and device != other:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least "
                           f"two devices, {device} and {other}!")
    return other


def _check_sized_dim(dim, rank):
    """dim as an index into a shape of `rank` dimensions (a 0-d tensor has none to name)."""
    if rank == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return _check_dim(dim, rank)


def _check_dim(dim, rank):
    bound = max(rank, 1)
    if not -bound <= dim < bound:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-bound}, "
                         f"{bound - 1}], but got {dim})")
    return dim % bound


def _stopped(out):
    """A traced value computed under no_grad inside torch.func's grad or vjp, cut from the
    gradient, as PyTorch's no_grad cuts it: from reverse mode only, forward-mode tangents
    still flow (imported late: the tracer sits above Tensors)."""
    from gradjit.tracer.trace import Traced
    return E.stop_reverse(out) if isinstance(out, Traced) else out


def _compiling() -> bool:
    """Whether gradjit.compile is tracing: it writes the state it reaches back after the call,
    so a traced value may replace a concrete one (imported late: compile sits above Tensors)."""
    from gradjit.compiler import is_compiling
    return is_compiling()
