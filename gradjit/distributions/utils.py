"""torch.distributions.utils: the helpers user code imports (broadcasting parameters, probs and
logits conversions, clamping, triangular packing)."""
from __future__ import annotations

import gradjit
from gradjit.distributions.distribution import broadcast_all, lazy_property  # noqa: F401
from gradjit.distributions.pushforward import EULER as euler_constant  # noqa: F401
from gradjit.distributions.relaxed import _clamp_probs as clamp_probs  # noqa: F401
from gradjit.distributions.transforms.base import _sum_rightmost  # noqa: F401
from gradjit.distributions.transforms.structured import _tril_to_vec, _vec_to_tril


def logits_to_probs(logits, is_binary=False):
    return gradjit.sigmoid(logits) if is_binary else gradjit.softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary=False):
    clamped = clamp_probs(probs)
    return gradjit.log(clamped) - gradjit.log1p(-clamped) if is_binary else gradjit.log(clamped)


def tril_matrix_to_vec(mat, diag=0):
    return _tril_to_vec(mat, diag)


def vec_to_tril_matrix(vec, diag=0):
    return _vec_to_tril(vec, diag)

