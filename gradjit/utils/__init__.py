"""torch.utils: `data` (datasets, samplers, DataLoader) and `checkpoint` (recompute in
backward instead of keeping)."""
from gradjit.utils import checkpoint, data  # noqa: F401
