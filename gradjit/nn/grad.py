"""torch.nn.grad: the gradients of conv1d, conv2d and conv3d with respect to their input and
their weight, by autograd through nn.functional's convolutions (linear in each, so zeros stand
for the operand differentiated)."""
from __future__ import annotations

import gradjit
from gradjit.nn import functional as F


def _gradient(conv, input, weight, grad_output, options, wrt):
    """The cotangent grad_output pulled back through conv(input, weight) to `wrt`, itself
    differentiable where the other operands require grad."""
    with gradjit.enable_grad():
        out = conv(input, weight, None, *options)
    for i, (want, got) in enumerate(zip(out.shape, grad_output.shape)):
        if want != got or out.dim() != grad_output.dim():
            raise RuntimeError(f"Expected a tensor of dimension {out.dim()} and tensor.size[{i}] "
                               f"== {want} but got: dimension {grad_output.dim()} and "
                               f"tensor.size[{i}] = {got}")
    again = any(t.requires_grad for t in (input, weight, grad_output) if t is not wrt)
    return gradjit.autograd.grad(out, wrt, grad_output, create_graph=again)[0]


def _input_gradient(conv):
    def conv_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
        x = gradjit.zeros(tuple(input_size), dtype=grad_output.dtype, requires_grad=True)
        return _gradient(conv, x, weight, grad_output, (stride, padding, dilation, groups), x)
    conv_input.__name__ = f"{conv.__name__}_input"
    return conv_input


def _weight_gradient(conv):
    def conv_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
        w = gradjit.zeros(tuple(weight_size), dtype=grad_output.dtype, requires_grad=True)
        return _gradient(conv, input, w, grad_output, (stride, padding, dilation, groups), w)
    conv_weight.__name__ = f"{conv.__name__}_weight"
    return conv_weight


conv1d_input, conv1d_weight = _input_gradient(F.conv1d), _weight_gradient(F.conv1d)
conv2d_input, conv2d_weight = _input_gradient(F.conv2d), _weight_gradient(F.conv2d)
conv3d_input, conv3d_weight = _input_gradient(F.conv3d), _weight_gradient(F.conv3d)
