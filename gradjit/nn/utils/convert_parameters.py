"""torch.nn.utils.convert_parameters: a module's parameters as one flat vector and back."""
from __future__ import annotations

import gradjit


def parameters_to_vector(parameters):
    return gradjit.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Fill the parameters, in order, from consecutive slices of vec."""
    if not gradjit.is_tensor(vec):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[offset:offset + n].view_as(p).data
        offset += n
