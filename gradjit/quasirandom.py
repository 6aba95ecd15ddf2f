"""torch.quasirandom.SobolEngine: Sobol' points in Gray-code order from Joe and Kuo's direction
numbers, optionally scrambled (a random linear matrix scramble and digital shift)."""
from __future__ import annotations

import numpy as np

__all__ = ["SobolEngine"]

_MAXBIT = 30


def _direction_numbers(dimension) -> np.ndarray:
    """v[d, j] = m_j << (MAXBIT - 1 - j), the m_j of dimension d from its primitive polynomial
    and initial values by Bratley and Fox's recurrence. The polynomials and initial values are
    Joe and Kuo's (new-joe-kuo-6.21201), read from the copy scipy ships."""
    from importlib import resources
    from importlib.util import find_spec
    if find_spec("scipy") is None:  # the table is data scipy ships; gradjit does not copy it
        raise ModuleNotFoundError("SobolEngine reads Joe and Kuo's direction numbers from "
                                  "scipy: pip install scipy (or gradjit[test])")
    with resources.files("scipy.stats").joinpath("_sobol_direction_numbers.npz").open("rb") as f:
        table = np.load(f)
        poly, initial = table["poly"][:dimension], table["vinit"][:dimension]
    degree = np.array([int(p).bit_length() - 1 for p in poly])
    m = np.zeros((dimension, _MAXBIT), np.int64)
    m[degree == 0] = 1  # the first dimension: every m_j is 1
    for j in range(_MAXBIT):
        given = j < degree
        if j < initial.shape[1]:
            m[given, j] = initial[given, j]
        rows = np.nonzero(~given & (degree > 0))[0]
        s = degree[rows]
        value = m[rows, j - s] ^ (m[rows, j - s] << s)
        for k in range(1, max(degree.max(), 1)):
            # a_k, the coefficient of x^(s-k), adds m_(j-k) << k (numpy wraps j - k < 0 into
            # rows where k >= s, which the mask drops)
            uses = (k < s) & ((poly[rows] >> np.maximum(s - k, 0)) & 1 == 1)
            value ^= np.where(uses, m[rows, j - k] << k, 0)
        m[rows, j] = value
    return m << (_MAXBIT - 1 - np.arange(_MAXBIT))


def _scrambled(v, lower) -> np.ndarray:
    """Each direction number's bits (most significant first) multiplied mod 2 by a unit
    lower-triangular matrix: bit MAXBIT - 1 - p of the result is the parity of row p's bits
    against the number's."""
    rows = (lower << (_MAXBIT - 1 - np.arange(_MAXBIT))).sum(-1)  # (dimension, p)
    out = np.zeros_like(v)
    for p in range(_MAXBIT):
        out |= _parity(v & rows[:, p, None]) << (_MAXBIT - 1 - p)
    return out


def _parity(x) -> np.ndarray:
    for shift in (16, 8, 4, 2, 1):
        x = x ^ (x >> shift)
    return x & 1


class SobolEngine:
    """Draws from a Sobol' sequence of `dimension` coordinates in [0, 1). scramble=True draws
    its scramble from a torch.Generator seeded with `seed` (the default generator when None)."""

    MAXBIT = _MAXBIT
    MAXDIM = 21201

    def __init__(self, dimension, scramble=False, seed=None):
        from gradjit.tensor import dtypes
        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError("Supported range of dimensionality for SobolEngine is "
                             f"[1, {self.MAXDIM}]")
        self.seed, self.scramble, self.dimension = seed, scramble, dimension
        self._directions = _direction_numbers(dimension)
        self._shift = np.zeros(dimension, np.int64)
        if scramble:
            self._scramble()
        # PyTorch divides the first point in the default dtype when the engine is made
        default = dtypes.get_default_dtype().ir.numpy
        self._first_point = (self._shift.astype(default) / default.type(2 ** _MAXBIT))
        self.num_generated = 0

    def _scramble(self):
        from gradjit.tensor.random import Generator, randint
        generator = None
        if self.seed is not None:
            generator = Generator()
            generator.manual_seed(self.seed)
        bits = randint(2, (self.dimension, _MAXBIT), generator=generator).numpy()
        self._shift = bits @ (1 << np.arange(_MAXBIT))
        lower = randint(2, (self.dimension, _MAXBIT, _MAXBIT), generator=generator).numpy()
        # the diagonal is 1 whatever was drawn there, so the scramble is invertible
        unit = np.tril(lower, -1) | np.eye(_MAXBIT, dtype=lower.dtype)
        self._directions = _scrambled(self._directions, unit)

    def _points(self, start, n) -> np.ndarray:
        """Points start .. start + n - 1 as integers: the shift XOR the direction numbers of
        the set bits of each index's Gray code."""
        index = np.arange(start, start + n, dtype=np.int64)
        gray = index ^ (index >> 1)
        out = np.broadcast_to(self._shift, (n, self.dimension)).copy()
        for j in range(_MAXBIT):
            out ^= np.where(((gray >> j) & 1 == 1)[:, None], self._directions[:, j], 0)
        return out

    def draw(self, n=1, out=None, dtype=None):
        from gradjit.tensor import dtypes
        from gradjit.tensor.factories import from_numpy
        target = (dtypes.to_dtype(dtype) if dtype is not None else
                  dtypes.get_default_dtype()).ir.numpy
        values = self._points(self.num_generated, n).astype(target) * target.type(
            2.0 ** -_MAXBIT)
        if self.num_generated == 0 and n:
            values[0] = self._first_point.astype(target)
        self.num_generated += n
        result = from_numpy(values)
        if out is not None:
            out.resize_as_(result).copy_(result)
            return out
        return result

    def draw_base2(self, m, out=None, dtype=None):
        n = 2 ** m
        total_n = self.num_generated + n
        if total_n & (total_n - 1):
            raise ValueError("The balance properties of Sobol' points require n to be a power "
                             f"of 2. {self.num_generated} points have been previously "
                             f"generated, then: n={self.num_generated}+2**{m}={total_n}. If "
                             "you still want to do this, please use 'SobolEngine.draw()' "
                             "instead.")
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self):
        self.num_generated = 0
        return self

    def fast_forward(self, n):
        self.num_generated += n
        return self

    def __repr__(self):
        shown = [f"dimension={self.dimension}"]
        if self.scramble:
            shown.append("scramble=True")
        if self.seed is not None:
            shown.append(f"seed={self.seed}")
        return f"{type(self).__name__}({', '.join(shown)})"
