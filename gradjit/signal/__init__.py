"""torch.signal: window functions (`windows`)."""
from gradjit.signal import windows  # noqa: F401
