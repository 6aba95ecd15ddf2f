"""torch.poisson and torch.binomial: counts drawn elementwise by numpy's samplers from a stream
seeded by gradjit's generator (so manual_seed makes them reproducible; the numbers are not
PyTorch's, the laws are). Neither has a gradient: poisson's rates get zeros."""
from __future__ import annotations

import numpy as np

from gradjit import ops
from gradjit.tensor.arith import apply
from gradjit.tensor.factories import tensor
from gradjit.tensor.random import default_generator


def _stream(generator):
    """A numpy generator seeded by four 64-bit words of `generator`'s stream."""
    return np.random.default_rng((generator or default_generator)._words64(4))


def _counts(values, like):
    """`values` in like's dtype, joined to like's history with a zero gradient."""
    drawn = tensor(np.asarray(values).astype(like.dtype.ir.numpy))  # a 0-d draw is a number
    if like._edge is None:
        return drawn
    return ops.where(np.ones(tuple(like.shape), bool), drawn, like)


def poisson(input, generator=None):
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"poisson_cpu" not implemented for '
                                  f"'{input.dtype.legacy}'")
    rates = input.detach().numpy().astype(np.float64)
    if (rates < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    draws = _stream(generator).poisson(rates)
    return apply("PoissonBackward0", lambda x: _counts(draws, x), input)


def binomial(count, prob, generator=None):
    for name, t in (("count", count), ("prob", prob)):
        if not t.dtype.is_floating_point:
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: "
                             f"{t.dtype.legacy}")
    n, p = np.broadcast_arrays(count.detach().numpy(), prob.detach().numpy())
    draws = _stream(generator).binomial(n.astype(np.int64), np.clip(p, 0, 1))
    return apply("NotImplemented", lambda c, q: _counts(draws, q), count, prob)


__all__ = ["binomial", "poisson"]
