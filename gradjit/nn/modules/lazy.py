"""Lazy modules: parameters whose shapes the first input decides. A lazy module holds
UninitializedParameters until its first call, which gives them their shapes, draws their
initial values as the plain module's constructor would (so after manual_seed they equal
PyTorch's), and turns the module into that plain class (LazyLinear becomes Linear)."""
from __future__ import annotations

import gradjit
from gradjit import Tensor
from gradjit.nn.modules.conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d,
                                     ConvTranspose2d, ConvTranspose3d, _ConvNd,
                                     _ConvTransposeNd)
from gradjit.nn.modules.linear import Linear
from gradjit.nn.modules.normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d,
                                              InstanceNorm1d, InstanceNorm2d, InstanceNorm3d)
from gradjit.nn.parameter import Parameter

_NO_SHAPE = ("Can't access the shape of an uninitialized parameter or buffer. This error "
             "usually happens in `load_state_dict` when trying to load an uninitialized "
             "parameter into an initialized one. Call `forward` to initialize the parameters "
             "before accessing their attributes.")


class UninitializedTensorMixin:
    """A tensor with no shape yet: `materialize(shape)` gives it one (uninitialized values)
    and makes it the class it stands for."""

    cls_to_become: type = Tensor

    def materialize(self, shape, device=None, dtype=None):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        data = gradjit.empty(shape, dtype=dtype or self.dtype,
                             device=device or self.device)
        Tensor.data.fset(self, data)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(_NO_SHAPE)

    def size(self, dim=None):
        raise RuntimeError(_NO_SHAPE)

    def numel(self):
        raise RuntimeError(_NO_SHAPE)

    def dim(self):
        raise RuntimeError(_NO_SHAPE)

    def __repr__(self):
        return f"<{type(self).__name__}>"

    __str__ = __repr__


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return Parameter.__new__(cls, gradjit.empty(0, device=device, dtype=dtype),
                                 requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        return gradjit.empty(0, device=device, dtype=dtype).as_subclass(cls).requires_grad_(
            requires_grad)

    def __init__(self, requires_grad=False, device=None, dtype=None):
        pass


def is_uninitialized(value) -> bool:
    return isinstance(value, UninitializedTensorMixin)


def _infer_parameters(module, args):
    module.initialize_parameters(*args)
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._initialize_hook.remove()
    del module._initialize_hook
    module.__class__ = module.cls_to_become


class LazyModuleMixin:
    """Runs `initialize_parameters(*input)` before the first call, then becomes
    `cls_to_become`."""

    cls_to_become: type | None = None

    def _register_initializer(self):
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters)
        self._forward_pre_hooks.move_to_end(self._initialize_hook.id, last=False)

    def has_uninitialized_params(self) -> bool:
        tensors = list(self._parameters.values()) + list(self._buffers.values())
        return any(is_uninitialized(t) for t in tensors)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for "
                                  f"{type(self).__name__}")


class LazyLinear(LazyModuleMixin, Linear):
    """Linear whose in_features is the first input's last dim."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Linear.__init__(self, 0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        self._register_initializer()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with gradjit.no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvMixin(LazyModuleMixin):
    """Convolutions whose in_channels is the first input's channel dim."""

    def _lazy_init(self, out_channels, bias, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        self._register_initializer()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if not self.has_uninitialized_params():
            return
        batched = self._dims + 2
        if input.dim() not in (batched - 1, batched):
            raise RuntimeError(f"Expected {batched - 1}D (unbatched) or {batched}D (batched) "
                               f"input to {type(self).__name__}, but got input of size: "
                               f"{input.shape}")
        self.in_channels = input.shape[1] if input.dim() == batched else input.shape[0]
        if self.in_channels % self.groups:
            raise ValueError("in_channels must be divisible by groups")
        transposed = isinstance(self, _ConvTransposeNd)
        channels = (self.in_channels, self.out_channels // self.groups) if transposed else \
            (self.out_channels, self.in_channels // self.groups)
        with gradjit.no_grad():
            self.weight.materialize(channels + tuple(self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


class LazyConv1d(_LazyConvMixin, Conv1d):
    cls_to_become = Conv1d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        _ConvNd.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False,
                        padding_mode)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConv2d(_LazyConvMixin, Conv2d):
    cls_to_become = Conv2d
    __init__ = LazyConv1d.__init__


class LazyConv3d(_LazyConvMixin, Conv3d):
    cls_to_become = Conv3d
    __init__ = LazyConv1d.__init__


class LazyConvTranspose1d(_LazyConvMixin, ConvTranspose1d):
    cls_to_become = ConvTranspose1d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None):
        _ConvTransposeNd.__init__(self, 0, 0, kernel_size, stride, padding, output_padding,
                                 groups, False, dilation, padding_mode)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConvTranspose2d(_LazyConvMixin, ConvTranspose2d):
    cls_to_become = ConvTranspose2d
    __init__ = LazyConvTranspose1d.__init__


class LazyConvTranspose3d(_LazyConvMixin, ConvTranspose3d):
    cls_to_become = ConvTranspose3d
    __init__ = LazyConvTranspose1d.__init__


class _LazyNormMixin(LazyModuleMixin):
    """Batch and instance norms whose num_features is the first input's channel dim."""

    def _lazy_init(self, affine, track_running_stats, device, dtype):
        self.affine, self.track_running_stats = affine, track_running_stats
        self.has_bias = affine
        like = dict(device=device, dtype=dtype)
        if affine:
            self.weight = UninitializedParameter(**like)
            self.bias = UninitializedParameter(**like)
        if track_running_stats:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.__dict__.pop(name, None)  # the plain init's None attributes
            self.register_buffer("running_mean", UninitializedBuffer(**like))
            self.register_buffer("running_var", UninitializedBuffer(**like))
            self.register_buffer("num_batches_tracked", gradjit.tensor(0, device=device))
        self._register_initializer()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with gradjit.no_grad():
                for tensor in (self.weight, self.bias, self.running_mean, self.running_var):
                    if is_uninitialized(tensor):
                        tensor.materialize((self.num_features,))
                self.reset_parameters()


def _lazy_norm(plain):
    """Lazy forms of the norms, affine and tracking by default (instance norms too, as
    PyTorch's lazy ones)."""
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        plain.__init__(self, 0, eps, momentum, False, False)
        self._lazy_init(affine, track_running_stats, device, dtype)
    return type(f"Lazy{plain.__name__}", (_LazyNormMixin, plain),
                {"__init__": __init__, "cls_to_become": plain,
                 "__doc__": f"{plain.__name__} whose num_features the first input gives."})


LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d = map(_lazy_norm, (BatchNorm1d, BatchNorm2d,
                                                                   BatchNorm3d))
LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d = map(
    _lazy_norm, (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d))

__all__ = ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d",
           "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d", "LazyLinear",
           "LazyModuleMixin", "UninitializedBuffer",
           "UninitializedParameter"]
