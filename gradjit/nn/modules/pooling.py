"""Max, average, power-average and fractional max pooling and max unpooling layers over
nn.functional, for 1 to 3 spatial dims."""
from __future__ import annotations

from gradjit.nn import functional as F
from gradjit.nn.modules.module import Functional, Module


def _tuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


class _MaxPoolNd(Module):
    pool = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, kernel_size if stride is None else stride
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return type(self).pool(input, self.kernel_size, self.stride, self.padding,
                               self.dilation, self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    pool = Functional("max_pool1d")


class MaxPool2d(_MaxPoolNd):
    pool = Functional("max_pool2d")


class MaxPool3d(_MaxPoolNd):
    pool = Functional("max_pool3d")


class _AvgPoolNd(Module):
    pool = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, kernel_size if stride is None else stride
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return type(self).pool(input, self.kernel_size, self.stride, self.padding,
                               self.ceil_mode, self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """Its sizes are kept as 1-tuples, as PyTorch keeps (and prints) them."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__(_tuple(kernel_size, 1), _tuple(kernel_size if stride is None else
                                                        stride, 1),
                         _tuple(padding, 1), ceil_mode, count_include_pad)

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(_AvgPoolNd):
    pool = Functional("avg_pool2d")


class AvgPool3d(_AvgPoolNd):
    pool = Functional("avg_pool3d")


class _LPPoolNd(Module):
    pool = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, input):
        return type(self).pool(input, float(self.norm_type), self.kernel_size, self.stride,
                               self.ceil_mode)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    pool = Functional("lp_pool1d")


class LPPool2d(_LPPoolNd):
    pool = Functional("lp_pool2d")


class LPPool3d(_LPPoolNd):
    pool = Functional("lp_pool3d")


class _MaxUnpoolNd(Module):
    """Sizes kept as n-tuples, as PyTorch keeps (and prints) them."""

    dims, unpool = 0, None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _tuple(kernel_size, self.dims)
        self.stride = _tuple(kernel_size if stride is None else stride, self.dims)
        self.padding = _tuple(padding, self.dims)

    def forward(self, input, indices, output_size=None):
        return type(self).unpool(input, indices, self.kernel_size, self.stride, self.padding,
                                 output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    dims, unpool = 1, F.max_unpool1d


class MaxUnpool2d(_MaxUnpoolNd):
    dims, unpool = 2, F.max_unpool2d


class MaxUnpool3d(_MaxUnpoolNd):
    dims, unpool = 3, F.max_unpool3d


class _FractionalMaxPoolNd(Module):
    """_random_samples, a buffer, fixes the windows (else each call draws them)."""

    dims = pool = None

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        n = self.dims
        self.kernel_size, self.return_indices = _tuple(kernel_size, n), return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = None if output_size is None else _tuple(output_size, n)
        self.output_ratio = None if output_ratio is None else _tuple(output_ratio, n)
        if output_size is None and output_ratio is None:
            raise ValueError(f"{type(self).__name__} requires specifying either an output "
                             f"size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return type(self).pool(input, self.kernel_size, self.output_size, self.output_ratio,
                               self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    dims, pool = 2, F.fractional_max_pool2d


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    dims, pool = 3, F.fractional_max_pool3d
