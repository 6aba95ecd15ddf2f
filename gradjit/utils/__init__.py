"""torch.utils: `data` (datasets, samplers, DataLoader), `checkpoint` (recompute in
backward instead of keeping) and `dlpack` (tensors shared with other libraries)."""
from gradjit.utils import checkpoint, data, dlpack  # noqa: F401
