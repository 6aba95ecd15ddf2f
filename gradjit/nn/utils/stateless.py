"""torch.nn.utils.stateless: the deprecated spelling of torch.func.functional_call."""
from __future__ import annotations

import warnings

import gradjit.func


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return gradjit.func.functional_call(module, parameters_and_buffers, args, kwargs,
                                        tie_weights=tie_weights, strict=strict)
