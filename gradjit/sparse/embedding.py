"""Row lookups whose table gradient is a sparse COO tensor, as F.embedding and
F.embedding_bag give it with sparse=True: one entry per index looked up, uncoalesced."""
from __future__ import annotations

import numpy as np

from gradjit.sparse import storage as K
from gradjit.sparse.autograd import recorded, wrap
from gradjit.tensor.grad_mode import no_grad


def rows(weight, indices, padding_idx=None, name="IndexBackward0", scaled=False):
    """weight[indices]; the gradient reaching weight holds a row per index other than
    padding_idx. `scaled`: scale_grad_by_freq was asked for, which PyTorch refuses here."""
    from gradjit.sparse.tensor import make
    with no_grad():
        out = weight[indices]
    flat = indices.detach()._concrete().reshape(-1).astype(np.int64)
    keep = flat != padding_idx if padding_idx is not None else np.ones(flat.size, bool)
    width = weight.shape[1]

    def backward(g):
        if scaled:
            raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with "
                               "sparse gradients")
        values = g.detach()._concrete().reshape(-1, width)[keep]
        return (make(K.Coo(flat[keep].reshape(1, -1), np.ascontiguousarray(values),
                           tuple(weight.shape))),)
    return recorded(name, wrap(out._value), (weight,), backward)
