"""torch.utils: `data` (datasets, samplers, DataLoader), `checkpoint` (recompute in
backward instead of keeping), `dlpack` (tensors shared with other libraries) and `_pytree`
(nested containers flattened to leaves)."""
from gradjit.utils import _pytree, checkpoint, data, dlpack  # noqa: F401
