"""torch.backends: the flags tutorials read and set. gradjit has no MPS, cuDNN or TF32
arithmetic, so they report unavailable and settings are recorded only."""
from __future__ import annotations

from types import SimpleNamespace

mps = SimpleNamespace(is_available=lambda: False, is_built=lambda: False)
cudnn = SimpleNamespace(is_available=lambda: False, enabled=True, benchmark=False,
                        deterministic=False, allow_tf32=True)
cuda = SimpleNamespace(is_built=lambda: False,
                       matmul=SimpleNamespace(allow_tf32=False,
                                              allow_fp16_reduced_precision_reduction=True))
mkldnn = SimpleNamespace(is_available=lambda: False, enabled=True)
