"""torch.amp: autocast regions that run listed ops in lower precision or float32, and the
GradScaler that keeps a scaled loss's gradients finite."""
from gradjit.amp.autocast_mode import (autocast, custom_bwd, custom_fwd,  # noqa: F401
                                       is_autocast_available)
from gradjit.amp.grad_scaler import GradScaler  # noqa: F401

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
