"""torch.nn.utils.init.skip_init: a module built without spending its initializers' draws."""
from __future__ import annotations

import inspect

import gradjit


def skip_init(module_cls, *args, **kwargs):
    """module_cls(*args, **kwargs) with the random generator left where it was, so later draws
    match PyTorch's, whose skip_init builds on the meta device; parameter values are
    unspecified, as there."""
    from gradjit.nn.modules.module import Module
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    state = gradjit.get_rng_state()
    try:
        return module_cls(*args, **kwargs)
    finally:
        gradjit.set_rng_state(state)
