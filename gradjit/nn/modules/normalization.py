"""LayerNorm, BatchNorm1d/2d/3d and SyncBatchNorm: learnable affine parameters, and
BatchNorm's running statistics as buffers."""
from __future__ import annotations

import numbers

import gradjit
from gradjit.nn import functional as F
from gradjit.nn import init
from gradjit.nn.functional.normalization import CrossMapLRN2d as cross_map_lrn2d
from gradjit.nn.modules.module import Module
from gradjit.nn.parameter import Parameter
from gradjit.warn import warn_at_caller


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.has_bias = elementwise_affine and bias
        shape = dict(dtype=dtype, device=device)
        self.weight = Parameter(gradjit.ones(self.normalized_shape, **shape)) \
            if elementwise_affine else None
        self.bias = Parameter(gradjit.zeros(self.normalized_shape, **shape)) \
            if elementwise_affine and bias else None

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.has_bias}")


class _BatchNorm(Module):
    """Batch normalization over every dim but the channels (dim 1); subclasses name the input
    ranks they take."""

    ranks: tuple = ()
    expected = ""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.has_bias = affine and bias
        like = dict(dtype=dtype, device=device)
        self.weight = Parameter(gradjit.ones(num_features, **like)) if affine else None
        self.bias = Parameter(gradjit.zeros(num_features, **like)) if affine and bias else None
        if track_running_stats:
            self.register_buffer("running_mean", gradjit.zeros(num_features, **like))
            self.register_buffer("running_var", gradjit.ones(num_features, **like))
            self.register_buffer("num_batches_tracked", gradjit.tensor(0, device=device))
        else:
            self.running_mean = self.running_var = self.num_batches_tracked = None

    _version = 2  # the version that added num_batches_tracked

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, *args):
        key = prefix + "num_batches_tracked"
        if local_metadata.get("version", 0) < 2 and self.track_running_stats and \
                key not in state_dict:  # an older checkpoint keeps the current count
            state_dict[key] = self.num_batches_tracked
        super()._load_from_state_dict(state_dict, prefix, local_metadata, *args)

    def reset_running_stats(self):
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            init.zeros_(self.num_batches_tracked)

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    counts_first = False  # whether a call that fails still counts its batch

    def _check_input_dim(self, input):
        if input.dim() not in self.ranks:
            raise ValueError(f"expected {self.expected} input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        counting = self.training and self.track_running_stats
        if counting and self.momentum is None:  # a cumulative average over the batches seen
            factor = 1.0 / (float(self.num_batches_tracked) + 1)
        if counting and self.counts_first:
            self._count_batch()
        # Batch statistics in training, or in eval when there are no running ones.
        use_batch = self.training or self.running_mean is None
        track = not self.training or self.track_running_stats
        out = F.batch_norm(input, self.running_mean if track else None,
                           self.running_var if track else None, self.weight, self.bias,
                           use_batch, factor, self.eps)
        if counting and not self.counts_first:
            self._count_batch()
        return out

    def _count_batch(self):
        with gradjit.no_grad():
            self.num_batches_tracked.add_(1)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.has_bias}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    ranks, expected = (2, 3), "2D or 3D"


class BatchNorm2d(_BatchNorm):
    ranks, expected = (4,), "4D"


class BatchNorm3d(_BatchNorm):
    ranks, expected = (5,), "5D"


class SyncBatchNorm(_BatchNorm):
    """BatchNorm whose statistics span the processes of a group. gradjit runs no process
    groups, so it normalizes as PyTorch does in one process: over the local batch."""

    counts_first = True

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None, *,
                 bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """module with every BatchNorm*d in its tree replaced by a SyncBatchNorm that holds
        the same parameters and buffers (the objects themselves)."""
        converted = module
        if isinstance(module, _BatchNorm) and not isinstance(module, _InstanceNorm):
            converted = SyncBatchNorm(module.num_features, module.eps, module.momentum,
                                      module.affine, module.track_running_stats, process_group,
                                      bias=module.bias is not None)
            if module.affine:
                converted.weight, converted.bias = module.weight, module.bias
            converted.running_mean, converted.running_var = module.running_mean, \
                module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
            if hasattr(module, "qconfig"):
                converted.qconfig = module.qconfig
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, \
            eps, affine
        self.has_bias = affine and bias
        like = dict(dtype=dtype, device=device)
        self.weight = Parameter(gradjit.ones(num_channels, **like)) if affine else None
        self.bias = Parameter(gradjit.zeros(num_channels, **like)) if self.has_bias else None

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.has_bias}")


class _InstanceNorm(_BatchNorm):
    """Each (sample, channel) normalized over its positions; unbatched input allowed."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self.ranks[0]
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.shape[feature_dim]}.")
            warn_at_caller(f"input's size at dim={feature_dim} does not match num_features. You "
                           "can silence this warning by not passing in num_features, which is "
                           "not used because affine=False")
        unbatched = input.dim() == self.ranks[0]
        use_stats = self.training or not self.track_running_stats
        out = F.instance_norm(input.unsqueeze(0) if unbatched else input, self.running_mean,
                              self.running_var, self.weight, self.bias, use_stats,
                              self.momentum or 0.0, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    ranks, expected = (2, 3), "2D or 3D"


class InstanceNorm2d(_InstanceNorm):
    ranks, expected = (3, 4), "3D or 4D"


class InstanceNorm3d(_InstanceNorm):
    ranks, expected = (4, 5), "4D or 5D"


class LocalResponseNorm(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CrossMapLRN2d(LocalResponseNorm):
    """LocalResponseNorm as Lua Torch's SpatialCrossMapLRN computes it, over 4-d input."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__(size, alpha, beta, k)

    def forward(self, input):
        return cross_map_lrn2d.apply(input, self.size, self.alpha, self.beta, self.k)


class RMSNorm(Module):
    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape, self.eps = tuple(normalized_shape), eps
        self.elementwise_affine = elementwise_affine
        self.weight = Parameter(gradjit.ones(self.normalized_shape, dtype=dtype,
                                             device=device)) if elementwise_affine else None

    def forward(self, input):
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")
