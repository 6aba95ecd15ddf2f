"""torch.nn.utils: gradient clipping, parameters as one vector, and (loaded on first use)
parametrizations, pruning, fusion, functional calls and the recurrent-batch helpers."""
from gradjit.nn.utils.clip_grad import (clip_grad_norm, clip_grad_norm_,  # noqa: F401
                                        clip_grad_value_, clip_grads_with_norm_, get_total_norm)
from gradjit.nn.utils.convert_parameters import (parameters_to_vector,  # noqa: F401
                                                 vector_to_parameters)
from gradjit.nn.utils.init import skip_init  # noqa: F401

# name -> (module, its name there): loaded on first use, keeping `import gradjit` light
_ON_USE = {"parametrize": ("parametrize", None), "parametrizations": ("parametrizations", None),
           "prune": ("prune", None),
           "weight_norm": ("parametrizations", "old_weight_norm"),
           "remove_weight_norm": ("parametrizations", "remove_weight_norm"),
           "spectral_norm": ("parametrizations", "old_spectral_norm"),
           "remove_spectral_norm": ("parametrizations", "remove_spectral_norm"),
           "rnn": ("rnn", None), "stateless": ("stateless", None), "fusion": ("fusion", None),
           **{name: ("fusion", name) for name in ("fuse_conv_bn_eval", "fuse_conv_bn_weights",
                                                  "fuse_linear_bn_eval",
                                                  "fuse_linear_bn_weights")}}


def __getattr__(name):
    if name not in _ON_USE:
        raise AttributeError(f"module 'gradjit.nn.utils' has no attribute {name!r}")
    import importlib
    module, attribute = _ON_USE[name]
    loaded = importlib.import_module(f"gradjit.nn.utils.{module}")
    return loaded if attribute is None else getattr(loaded, attribute)
