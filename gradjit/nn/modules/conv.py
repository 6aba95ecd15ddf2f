"""Conv1d/2d/3d and their transposes over nn.functional's im2col compositions."""
from __future__ import annotations

import gradjit
from gradjit.nn import functional as F
from gradjit.nn.modules.linear import _bias_bound_init
from gradjit.nn.modules.module import Functional, Module
from gradjit.nn.parameter import Parameter

# A set, printed in the order Python gives it, as PyTorch prints its own in this message.
_PADDING_STRINGS = {"same", "valid"}
_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _tuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


class _ConvNd(Module):
    _dims, _conv = 0, None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__()
        n = self._dims
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str) and padding not in _PADDING_STRINGS:
            raise ValueError(f"Invalid padding string '{padding}', should be one of "
                             f"{_PADDING_STRINGS}")
        if padding == "same" and _tuple(stride, n) != (1,) * n:
            raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {set(_PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = _tuple(kernel_size, n), _tuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        self.dilation, self.padding_mode = _tuple(dilation, n), padding_mode
        self._reversed_padding_repeated_twice = self._pad_widths()
        like = dict(dtype=dtype, device=device)
        self.weight = Parameter(gradjit.empty(*self._weight_channels(in_channels, out_channels,
                                                                   groups),
                                              *self.kernel_size, **like))
        self.bias = Parameter(gradjit.empty(out_channels, **like)) if bias else None
        self.reset_parameters()

    def _weight_channels(self, in_channels, out_channels, groups):
        return out_channels, in_channels // groups

    def reset_parameters(self):
        _bias_bound_init(self.weight, self.bias)

    def _pad_widths(self):
        """F.pad's widths for a padding_mode other than zeros, last dim first (for 'same', the
        extra element on the right, as PyTorch's); PyTorch's attribute of the same name."""
        if self.padding == "valid":
            sides = [(0, 0)] * len(self.kernel_size)
        elif self.padding == "same":
            totals = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
            sides = [(t // 2, t - t // 2) for t in totals]
        else:
            sides = [(p, p) for p in self.padding]
        return [w for pair in reversed(sides) for w in pair]

    def _padded(self, input):
        """input and the padding left for the convolution: a non-zero padding_mode pads first
        with F.pad."""
        if self.padding_mode == "zeros":
            return input, self.padding
        return F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), 0

    def forward(self, input):
        input, padding = self._padded(input)
        return self._conv(input, self.weight, self.bias, self.stride, padding, self.dilation,
                          self.groups)

    def extra_repr(self):
        n = self._dims
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if self.padding != (0,) * n:
            text += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            text += f", dilation={self.dilation}"
        if getattr(self, "output_padding", (0,) * n) != (0,) * n:
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        return text + ("" if self.padding_mode == "zeros" else
                       f", padding_mode={self.padding_mode}")


class Conv1d(_ConvNd):
    _dims, _conv = 1, Functional("conv1d")


class Conv2d(_ConvNd):
    _dims, _conv = 2, Functional("conv2d")


class Conv3d(_ConvNd):
    _dims, _conv = 3, Functional("conv3d")


class _ConvTransposeNd(_ConvNd):
    """The weight is (in_channels, out_channels // groups, *kernel), as PyTorch lays it out."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        self.output_padding = _tuple(output_padding, self._dims)
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def _weight_channels(self, in_channels, out_channels, groups):
        return in_channels, out_channels // groups

    def forward(self, input, output_size=None):
        return self._conv(input, self.weight, self.bias, self.stride, self.padding,
                          self._output_padding(input, output_size), self.groups, self.dilation)

    def _output_padding(self, input, output_size):
        """output_padding, or what makes the output `output_size` (its last dims)."""
        if output_size is None:
            return self.output_padding
        n = self._dims
        outer = input.dim() - n
        if len(output_size) not in (n, n + outer):
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must "
                             f"have {n} or {n + outer} elements (got {len(output_size)})")
        wanted = tuple(output_size)[-n:]
        least = [(length - 1) * s - 2 * p + d * (k - 1) + 1 for length, s, p, d, k in zip(
            input.shape[-n:], self.stride, self.padding, self.dilation, self.kernel_size)]
        extra = tuple(w - m for w, m in zip(wanted, least))
        if any(not 0 <= e < s for e, s in zip(extra, self.stride)):
            # printed as PyTorch prints them: the request as given, the input's dims after 2
            asked = output_size if len(output_size) == n else output_size[-n:]
            raise ValueError(f"requested an output size of {asked}, but valid sizes range from "
                             f"{least} to {[m + s - 1 for m, s in zip(least, self.stride)]} "
                             f"(for an input of {input.shape[2:]})")
        return extra


class ConvTranspose1d(_ConvTransposeNd):
    _dims, _conv = 1, Functional("conv_transpose1d")


class ConvTranspose2d(_ConvTransposeNd):
    _dims, _conv = 2, Functional("conv_transpose2d")


class ConvTranspose3d(_ConvTransposeNd):
    _dims, _conv = 3, Functional("conv_transpose3d")
