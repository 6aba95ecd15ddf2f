"""kl_divergence(p, q) by the pair of distribution types, with PyTorch's closed forms (the
tables of kl_same and kl_cross), and register_kl to add a pair."""
from __future__ import annotations

# PyTorch's name for the Bregman-divergence form, which its tests import
from gradjit.distributions.exp_family import kl_exponential_family as _kl_expfamily_expfamily  # noqa: F401
from gradjit.distributions.kl_cross import CROSS_FAMILY
from gradjit.distributions.kl_same import SAME_FAMILY

_KL: dict = {**SAME_FAMILY, **CROSS_FAMILY}


def register_kl(type_p, type_q):
    """Decorator: the function computes KL(p || q) for p of type_p and q of type_q."""
    def register(fn):
        _KL[(type_p, type_q)] = fn
        return fn
    return register


def kl_divergence(p, q):
    """KL(p || q), batched over the distributions' batch shape; the pair registered for the
    most specific types of p (then of q) is used."""
    for kind_p in type(p).__mro__:
        for kind_q in type(q).__mro__:
            if (kind_p, kind_q) in _KL:
                return _KL[(kind_p, kind_q)](p, q)
    raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} "
                              f"and q type {type(q).__name__}")
