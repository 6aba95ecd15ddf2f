"""torch.utils: `data` (datasets, samplers, DataLoader)."""
from gradjit.utils import data  # noqa: F401
