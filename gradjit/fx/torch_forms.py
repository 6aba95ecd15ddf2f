"""How PyTorch's tracer sees nn.functional: the arguments its Python functions pass on (some
positional, the rest by keyword with their defaults filled in) and the functions it prints
under torch._C._nn; the namespace the generated code calls them through."""
from __future__ import annotations

import inspect
import types

# nn.functional's calls as PyTorch records them: (arguments kept positional, then the
# parameters passed by keyword, in order)
FUNCTIONAL_FORMS = {
    "adaptive_avg_pool2d": (2, ()), "adaptive_avg_pool3d": (2, ()), "adaptive_max_pool1d": (2,
    ('return_indices',)), "adaptive_max_pool1d_with_indices": (2, ('return_indices',)),
    "adaptive_max_pool2d": (2, ('return_indices',)), "adaptive_max_pool2d_with_indices": (2,
    ('return_indices',)), "adaptive_max_pool3d": (2, ('return_indices',)),
    "adaptive_max_pool3d_with_indices": (2, ('return_indices',)), "affine_grid": (2,
    ('align_corners',)), "alpha_dropout": (1, ('p', 'training', 'inplace')), "batch_norm": (3,
    ('weight', 'bias', 'training', 'momentum', 'eps')), "binary_cross_entropy": (2, ('weight',
    'size_average', 'reduce', 'reduction')), "binary_cross_entropy_with_logits": (2, ('weight',
    'size_average', 'reduce', 'reduction', 'pos_weight')), "celu": (1, ('alpha', 'inplace')),
    "cosine_embedding_loss": (3, ('margin', 'size_average', 'reduce', 'reduction')),
    "cross_entropy": (2, ('weight', 'size_average', 'ignore_index', 'reduce', 'reduction',
    'label_smoothing')), "ctc_loss": (4, ('blank', 'reduction', 'zero_infinity')), "dropout":
    (1, ('p', 'training', 'inplace')), "dropout1d": (1, ('p', 'training', 'inplace')),
    "dropout2d": (1, ('p', 'training', 'inplace')), "dropout3d": (1, ('p', 'training',
    'inplace')), "elu": (1, ('alpha', 'inplace')), "embedding": (2, ('padding_idx', 'max_norm',
    'norm_type', 'scale_grad_by_freq', 'sparse')), "embedding_bag": (2, ('offsets', 'max_norm',
    'norm_type', 'scale_grad_by_freq', 'mode', 'sparse', 'per_sample_weights',
    'include_last_offset', 'padding_idx')), "feature_alpha_dropout": (1, ('p', 'training',
    'inplace')), "fold": (3, ('dilation', 'padding', 'stride')), "fractional_max_pool2d": (2,
    ('output_size', 'output_ratio', 'return_indices', '_random_samples')),
    "fractional_max_pool2d_with_indices": (2, ('output_size', 'output_ratio', 'return_indices',
    '_random_samples')), "fractional_max_pool3d": (2, ('output_size', 'output_ratio',
    'return_indices', '_random_samples')), "fractional_max_pool3d_with_indices": (2,
    ('output_size', 'output_ratio', 'return_indices', '_random_samples')), "gaussian_nll_loss":
    (3, ('full', 'eps', 'reduction')), "glu": (1, ('dim',)), "grid_sample": (2, ('mode',
    'padding_mode', 'align_corners')), "group_norm": (2, ('weight', 'bias', 'eps')),
    "gumbel_softmax": (1, ('tau', 'hard', 'eps', 'dim')), "hardsigmoid": (1, ('inplace',)),
    "hardswish": (1, ('inplace',)), "hardtanh": (1, ('min_val', 'max_val', 'inplace')),
    "hinge_embedding_loss": (2, ('margin', 'size_average', 'reduce', 'reduction')),
    "huber_loss": (2, ('reduction', 'delta', 'weight')), "instance_norm": (1, ('running_mean',
    'running_var', 'weight', 'bias', 'use_input_stats', 'momentum', 'eps')), "interpolate": (1,
    ('size', 'scale_factor', 'mode', 'align_corners', 'recompute_scale_factor', 'antialias')),
    "kl_div": (2, ('size_average', 'reduce', 'reduction', 'log_target')), "l1_loss": (2,
    ('size_average', 'reduce', 'reduction')), "layer_norm": (2, ('weight', 'bias', 'eps')),
    "leaky_relu": (1, ('negative_slope', 'inplace')), "linear_cross_entropy": (3,
    ('linear_bias', 'weight', 'reduction', 'ignore_index', 'label_smoothing', 'options')),
    "local_response_norm": (2, ('alpha', 'beta', 'k')), "log_softmax": (1, ('dim',
    '_stacklevel', 'dtype')), "lp_pool1d": (3, ('stride', 'ceil_mode')), "lp_pool2d": (3,
    ('stride', 'ceil_mode')), "lp_pool3d": (3, ('stride', 'ceil_mode')), "margin_ranking_loss":
    (3, ('margin', 'size_average', 'reduce', 'reduction')), "max_pool1d": (2, ('stride',
    'padding', 'dilation', 'ceil_mode', 'return_indices')), "max_pool1d_with_indices": (2,
    ('stride', 'padding', 'dilation', 'ceil_mode', 'return_indices')), "max_pool2d": (2,
    ('stride', 'padding', 'dilation', 'ceil_mode', 'return_indices')),
    "max_pool2d_with_indices": (2, ('stride', 'padding', 'dilation', 'ceil_mode',
    'return_indices')), "max_pool3d": (2, ('stride', 'padding', 'dilation', 'ceil_mode',
    'return_indices')), "max_pool3d_with_indices": (2, ('stride', 'padding', 'dilation',
    'ceil_mode', 'return_indices')), "max_unpool1d": (3, ('stride', 'padding', 'output_size')),
    "max_unpool2d": (3, ('stride', 'padding', 'output_size')), "max_unpool3d": (3, ('stride',
    'padding', 'output_size')), "mish": (1, ('inplace',)), "mse_loss": (2, ('size_average',
    'reduce', 'reduction', 'weight')), "multi_head_attention_forward": (13, ('training',
    'key_padding_mask', 'need_weights', 'attn_mask', 'is_causal', 'use_separate_proj_weight',
    'q_proj_weight', 'k_proj_weight', 'v_proj_weight', 'static_k', 'static_v',
    'average_attn_weights')), "multi_margin_loss": (2, ('p', 'margin', 'weight',
    'size_average', 'reduce', 'reduction')), "multilabel_margin_loss": (2, ('size_average',
    'reduce', 'reduction')), "multilabel_soft_margin_loss": (2, ('weight', 'size_average',
    'reduce', 'reduction')), "nll_loss": (2, ('weight', 'size_average', 'ignore_index',
    'reduce', 'reduction')), "normalize": (1, ('p', 'dim', 'eps', 'out')), "pad": (2, ('mode',
    'value')), "poisson_nll_loss": (2, ('log_input', 'full', 'size_average', 'eps', 'reduce',
    'reduction')), "relu": (1, ('inplace',)), "relu6": (1, ('inplace',)), "rms_norm": (2,
    ('weight', 'eps')), "rrelu": (1, ('lower', 'upper', 'training', 'inplace')), "selu": (1,
    ('inplace',)), "silu": (1, ('inplace',)), "smooth_l1_loss": (2, ('size_average', 'reduce',
    'reduction', 'beta')), "soft_margin_loss": (2, ('size_average', 'reduce', 'reduction')),
    "softmax": (1, ('dim', '_stacklevel', 'dtype')), "softmin": (1, ('dim', '_stacklevel',
    'dtype')), "softsign": (1, ()), "tanhshrink": (1, ()), "threshold": (3, ('inplace',)),
    "triplet_margin_loss": (3, ('margin', 'p', 'eps', 'swap', 'size_average', 'reduce',
    'reduction')), "triplet_margin_with_distance_loss": (3, ('distance_function', 'margin',
    'swap', 'reduction')), "unfold": (2, ('dilation', 'padding', 'stride'))
}
# nn.functional's functions PyTorch implements in torch._C._nn (under these names)
C_NN = {
    "avg_pool2d": "avg_pool2d", "avg_pool3d": "avg_pool3d", "elu_": "elu_", "gelu": "gelu",
    "hardtanh_": "hardtanh_", "leaky_relu_": "leaky_relu_", "linear": "linear", "logsigmoid":
    "log_sigmoid", "one_hot": "one_hot", "scaled_dot_product_attention":
    "scaled_dot_product_attention", "softplus": "softplus", "softshrink": "softshrink"
}
def as_recorded(name, fn, args, kwargs):
    """(args, kwargs) of the call F.name(*args, **kwargs) as PyTorch's trace records it."""
    form = FUNCTIONAL_FORMS.get(name)
    if form is None:
        return args, kwargs
    positional, keywords = form
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except TypeError:
        return args, kwargs
    bound.apply_defaults()
    values = bound.arguments
    names = list(values)
    return tuple(values[n] for n in names[:positional]), {k: values[k] for k in keywords
                                                           if k in values}


class _CNN:
    """torch._C._nn: nn.functional's functions under PyTorch's C names, looked up when called
    (a GraphModule traced again calls the tracer's recording wrappers)."""

    _PYTHON_NAMES = {c_name: name for name, c_name in C_NN.items()}

    def __getattr__(self, c_name):
        from gradjit.nn import functional
        return getattr(functional, self._PYTHON_NAMES.get(c_name, c_name))


class TorchNamespace(types.ModuleType):
    """gradjit under the name `torch` in generated code, with torch._C._nn's functions and
    torch.ops.aten's."""

    def __init__(self):
        super().__init__("torch")
        from gradjit.export.aten import ops
        self.ops = ops
        self._C = types.SimpleNamespace(_nn=_CNN())

    def __getattr__(self, name):
        import gradjit
        return getattr(gradjit, name)
