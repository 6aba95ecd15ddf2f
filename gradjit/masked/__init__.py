"""torch.masked: reductions and normalizations that skip masked-out elements, and
MaskedTensor, a tensor whose elements each are present or masked out."""
from gradjit.masked.ops import (amax, amin, argmax, argmin, cumprod, cumsum,  # noqa: F401
                                log_softmax, logaddexp, logsumexp, mean, median, norm,
                                normalize, prod, softmax, softmin, std, sum, var)
from gradjit.masked import ops as _ops  # noqa: F401  (torch's examples call masked._ops.sum)
from gradjit.masked.maskedtensor import (MaskedTensor, as_masked_tensor,  # noqa: F401
                                         is_masked_tensor, masked_tensor)
