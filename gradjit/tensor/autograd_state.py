"""A Tensor's autograd state as PyTorch shows it: requires_grad, grad and its hooks,
grad_fn, leaves and retained gradients, detach and .data, the version counter, backward."""
from __future__ import annotations

import warnings
import weakref

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.tensor import dtypes, graph, traced_views
from gradjit.tensor.grad_mode import _inference, is_grad_enabled
from gradjit.tensor.graph import AccumulateGrad, Record, Version


class AutogradStateMixin:
    """The autograd attributes of TensorBase, which holds the state they read."""

    @property
    def requires_grad(self) -> bool:
        # (a view's history follows its base's in-place writes: _grad_edge brings it along)
        return graph.has_gradient(self._grad_edge() if self._base is not None else self._edge)

    @requires_grad.setter
    def requires_grad(self, flag):
        if isinstance(self._edge, Record):
            message = "you can only change requires_grad flags of leaf variables."
            if not flag:
                message += (" If you want to use a computed variable in a subgraph that doesn't "
                            "require differentiation use var_no_grad = var.detach().")
            raise RuntimeError(message)
        if flag and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        if flag and self._inference and not _inference.enabled:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        if self._edge is not None and self._edge.tangent_only:  # a dual's leaf: keep it
            self._edge.tangent_only = not flag
        elif bool(flag) != (self._edge is not None):
            self._edge = AccumulateGrad(self) if flag else None

    @requires_grad.deleter
    def requires_grad(self):
        raise RuntimeError("requires_grad must be a bool")

    def register_hook(self, hook):
        """Call hook(grad) with the gradient of this tensor each time it is computed; a tensor
        it returns replaces that gradient (for a leaf, before it is added into .grad)."""
        edge = self._grad_edge()
        if edge is None:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        return graph.add_hook(edge, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call hook(tensor) each time backward has added into this leaf's .grad (to step an
        optimizer during backward, for one)."""
        edge = self._grad_edge()
        if edge is None:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if not self.is_leaf:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        if edge.post_hooks is None:
            edge.post_hooks = {}
        handle = graph.RemovableHandle(edge.post_hooks)
        edge.post_hooks[handle.id] = hook
        return handle

    _grad_dtype = False  # False: the tensor's own dtype; None: whatever dtype arrives

    @property
    def grad_dtype(self):
        """The dtype backward casts this leaf's incoming gradients to (None: any)."""
        if not self.is_leaf:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        return self.dtype if self._grad_dtype is False else self._grad_dtype

    @grad_dtype.setter
    def grad_dtype(self, dtype):
        if not self.is_leaf:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if dtype is not None and not isinstance(dtype, dtypes.dtype):
            raise RuntimeError(f"grad_dtype must be a torch.dtype or None, but got "
                               f"{type(dtype).__name__}")
        self._grad_dtype = dtype

    def requires_grad_(self, requires_grad=True):
        if requires_grad and not isinstance(self._edge, Record) and \
                not (self.dtype.is_floating_point or self.dtype.is_complex):
            # PyTorch's method words it so; the attribute's setter names complex dtypes too
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if not (requires_grad and isinstance(self._edge, Record)):  # already requires it
            self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        return not (isinstance(self._edge, Record) and graph.has_gradient(self._edge))

    @property
    def grad_fn(self):
        edge = self._grad_edge()
        return edge.node if isinstance(edge, Record) and graph.has_gradient(edge) else None

    @property
    def grad(self):
        if not self.is_leaf and not self._retains_grad:
            warnings.warn("The .grad attribute of a Tensor that is not a leaf Tensor is being "
                          "accessed. Its .grad attribute won't be populated during "
                          "autograd.backward(). If you indeed want the .grad field to be "
                          "populated for a non-leaf Tensor, use .retain_grad() on the non-leaf "
                          "Tensor. If you access the non-leaf Tensor by mistake, make sure you "
                          "access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/"
                          "30531 for more information. (Triggered internally at /__w/pytorch/"
                          "pytorch/build/aten/src/ATen/core/TensorBody.h:493.)", UserWarning,
                          stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            self._check_assigned_grad(value)
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    def _check_assigned_grad(self, value):
        if not isinstance(value, AutogradStateMixin):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                            f"type {type(value).__name__}")
        if value is self:
            raise RuntimeError("can't assign Variable as its own grad")
        want = self.grad_dtype if self.is_leaf else self.dtype
        if want is not None and value.dtype is not want:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype "
                f"'{dtypes.CPP_NAMES[value.dtype.legacy]}' to a tensor with grad_dtype "
                f"'{want.legacy}'. The gradient must match the tensor's grad_dtype (defaults to "
                "the tensor's dtype). You can set the tensor's grad_dtype attribute with a "
                "specific dtype, or None to allow any dtype. Set grad_dtype with caution. "
                "Diverging the dtypes of a tensor and its gradient may break downstream systems "
                "that assume they match.")
        if tuple(value.shape) != tuple(self.shape):
            raise RuntimeError(f"attempting to assign a gradient of size '{list(value.shape)}' "
                               f"to a tensor of size '{list(self.shape)}'. Please ensure that "
                               "the gradient and the tensor are the same size")

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self):
        if self.is_leaf:
            if self._edge is None:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        self._retains_grad = True
        self._grad_edge().retained = weakref.ref(self)

    def detach(self):
        """The same storage and version counter, without history."""
        t = type(self)._wrap(self._detached_value(), self._counter)
        t._device = self._device
        self._link_detached(t)
        return t

    def _is_view(self) -> bool:
        return self._base is not None

    def detach_(self):
        if self._base is not None and isinstance(self._edge, Record):
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._edge = None
        return self

    def as_subclass(self, cls):
        """A `cls` instance over the same storage that stays in the autograd graph: a view
        whose class is `cls` when there is a graph to stay in, else an alias without history
        (nn.Parameter is built this way, and so is no view of another tensor)."""
        t = self.view(self.shape) if self._edge is not None and is_grad_enabled() else \
            AutogradStateMixin.detach(self)  # not a subclass's override, which may call this
        t.__class__ = cls
        return t

    @property
    def data(self):
        """The same storage with its own version counter, so autograd does not see writes."""
        t = type(self)._wrap(self._detached_value())
        t._device = self._device
        self._link_detached(t)
        t._counter = Version()  # linked as a view, it keeps its own counter
        return t

    def _link_detached(self, t):
        """A traced detached tensor is a view (eager ones share the array itself), so writes
        through it reach this tensor, and this tensor's writes reach it."""
        if not isinstance(self._value, np.ndarray):
            traced_views.link(t, self, _same, detached=True)

    def _detached_value(self):
        """Eagerly the same storage; a traced value gets a stop_gradient, since the
        compiler's gradient flows through anything else."""
        value = self._value
        return value if isinstance(value, np.ndarray) else E.stop_gradient(value)

    @data.setter
    def data(self, other):
        if not isinstance(other, AutogradStateMixin):
            raise TypeError(f"Variable data has to be a tensor, but got {type(other).__name__}")
        self._value, self._device = other._value, other._device

    @data.deleter
    def data(self):
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")

    @property
    def _version(self) -> int:
        if self._inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._counter.value

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        from gradjit.autograd import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _same(array):
    return array
