"""torch.utils: `data` (datasets, samplers, DataLoader), `checkpoint` (recompute in
backward instead of keeping), `dlpack` (tensors shared with other libraries), `hooks` (the
handle hooks are registered with) and `_pytree` (nested containers flattened to leaves)."""
from gradjit.utils import _pytree, checkpoint, data, dlpack, hooks  # noqa: F401
