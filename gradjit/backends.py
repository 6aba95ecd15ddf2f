"""torch.backends: the flags tutorials read and set. gradjit has no MPS, cuDNN or TF32
arithmetic, so they report unavailable and settings are recorded only."""
from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType, SimpleNamespace


def _flags(name, **attrs) -> ModuleType:
    """torch.backends.<name> as a module, so that `import torch.backends.cudnn as cudnn` (dcgan,
    imagenet) finds it."""
    module = ModuleType(f"{__name__}.{name}")
    vars(module).update(attrs)
    sys.modules[module.__name__] = module
    return module


mps = _flags("mps", is_available=lambda: False, is_built=lambda: False)
cudnn = _flags("cudnn", is_available=lambda: False, enabled=True, benchmark=False,
               deterministic=False, allow_tf32=True)
cuda = _flags("cuda", is_built=lambda: False,
              matmul=SimpleNamespace(allow_tf32=False,
                                     allow_fp16_reduced_precision_reduction=True))
mkldnn = _flags("mkldnn", is_available=lambda: False, enabled=True)


def _opt_einsum():
    """The opt_einsum package, or None where it is not installed."""
    return importlib.import_module("opt_einsum") if _has_opt_einsum() else None


def _has_opt_einsum() -> bool:
    return importlib.util.find_spec("opt_einsum") is not None


# einsum of three operands or more contracts in the order opt_einsum's `strategy` finds,
# where it is installed and enabled (else left to right), as torch.einsum does
opt_einsum = _flags("opt_einsum", is_available=_has_opt_einsum, get_opt_einsum=_opt_einsum,
                    enabled=True, strategy="auto")
