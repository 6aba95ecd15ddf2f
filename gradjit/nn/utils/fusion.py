"""torch.nn.utils.fusion: an eval-mode convolution or linear layer followed by batch norm,
folded into one layer with rescaled weights and a shifted bias."""
from __future__ import annotations

import copy

import gradjit
from gradjit.nn.parameter import Parameter


def _check_eval(layer, bn):
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")


def _check_stats(bn):
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def _fold(weight, bias, bn_rm, bn_rv, bn_eps, bn_w, bn_b, scale_shape):
    """weight scaled per output feature by bn_w / sqrt(var + eps), the bias moved the same way,
    each kept in its own dtype (a missing bias takes the weight's)."""
    bias_dtype = weight.dtype if bias is None else bias.dtype
    bias = gradjit.zeros_like(bn_rm) if bias is None else bias
    bn_w = gradjit.ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = gradjit.zeros_like(bn_rm) if bn_b is None else bn_b
    scale = bn_w * gradjit.rsqrt(bn_rv + bn_eps)
    fused_w = (weight * scale.reshape(scale_shape)).to(weight.dtype)
    fused_b = ((bias - bn_rm) * scale + bn_b).to(bias_dtype)
    return Parameter(fused_w, weight.requires_grad), Parameter(fused_b, bias.requires_grad)


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """A transposed convolution's output channels are its weight's dimension 1."""
    spatial = [1] * (conv_w.dim() - 2)
    shape = [1, -1, *spatial] if transpose else [-1, 1, *spatial]
    return _fold(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, shape)


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    return _fold(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, [-1, 1])


def fuse_conv_bn_eval(conv, bn, transpose=False):
    _check_eval(conv, bn)
    _check_stats(bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        transpose)
    return fused


def fuse_linear_bn_eval(linear, bn):
    _check_eval(linear, bn)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(f"To fuse, linear.out_features == bn.num_features or "
                             f"bn.num_features == 1, got linear.out_features="
                             f"{linear.out_features} and bn.num_features={bn.num_features}")
    _check_stats(bn)
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused
