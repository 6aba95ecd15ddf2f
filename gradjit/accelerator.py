"""torch.accelerator: gradjit's tensors live on the CPU (GPU code runs through compiled
functions, see gradjit.cuda), so no accelerator device is reported."""
from __future__ import annotations


def is_available() -> bool:
    return False


def current_accelerator(check_available=False):
    return None


def device_count() -> int:
    return 0
