"""torch.cpu: the CPU device module (always there, one device) and its deprecated amp forms."""
from gradjit.cpu import amp  # noqa: F401


def is_available() -> bool:
    return True


def device_count() -> int:
    return 1
