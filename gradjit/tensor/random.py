"""Random tensors from PyTorch's CPU generator: a 32-bit Mersenne Twister seeded as PyTorch
seeds it, with PyTorch's transforms from its words to uniform, normal and integer values, so
`manual_seed(n)` followed by rand/randn/randint/randperm/normal gives PyTorch's numbers."""
from __future__ import annotations

import math

import numpy as np

from gradjit.tensor import dtypes
from gradjit.tensor.factories import _leaf, _like, _numpy_dtype, _sizes
from gradjit.tensor.shape import _shape_args

_DEFAULT_SEED = 67280421310721


class Generator:
    """The source of random tensors; `manual_seed` makes runs reproducible."""

    def __init__(self, device="cpu"):
        self.device = dtypes.device(device)
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        self._seed = int(seed) % 2 ** 64
        self._bits = np.random.MT19937()
        self._bits._legacy_seeding(self._seed & 0xFFFFFFFF)  # PyTorch keeps the low 32 bits
        # bernoulli and multinomial draw from the same stream through numpy's algorithms,
        # so their values (unlike the others') differ from PyTorch's
        self._numpy = np.random.Generator(self._bits)
        self._cached_normal = None
        return self

    def initial_seed(self):
        return self._seed

    def _words(self, n) -> np.ndarray:
        return self._bits.random_raw(n).astype(np.uint64)

    def _words64(self, n) -> np.ndarray:
        w = self._words(2 * n)
        return (w[0::2] << np.uint64(32)) | w[1::2]

    def uniform(self, n, dtype) -> np.ndarray:
        """[0, 1) from the low 24 (float) or 53 (double) bits of one 32- or 64-bit word."""
        if dtype == np.float64:
            return (self._words64(n) & np.uint64(2 ** 53 - 1)).astype(np.float64) * 2.0 ** -53
        return ((self._words(n) & np.uint64(0xFFFFFF)).astype(np.float64) *
                2.0 ** -24).astype(dtype)

    def normal(self, n, dtype) -> np.ndarray:
        """Standard normals: Box-Muller over blocks of 16 uniforms (the last block redrawn
        when n is not a multiple of 16); fewer than 16 come one at a time in double, each pair
        leaving its second value for the next call."""
        if n < 16:
            return np.array([self._one_normal() for _ in range(n)]).astype(dtype)
        data = self.uniform(n, dtype)
        whole = n // 16 * 16
        data[:whole] = _box_muller(data[:whole])
        if n % 16:
            data[n - 16:] = _box_muller(self.uniform(16, dtype))
        return data

    def _one_normal(self) -> float:
        if self._cached_normal is not None:
            value, self._cached_normal = self._cached_normal, None
            return value
        u1, u2 = self.uniform(2, np.float64)
        radius = math.sqrt(-2 * math.log1p(-u2))
        theta = 2 * math.pi * u1
        self._cached_normal = radius * math.sin(theta)
        return radius * math.cos(theta)

    def integers(self, low, high, n) -> np.ndarray:
        span = high - low
        words = self._words64(n) if span >= 2 ** 32 else self._words(n)
        return (words % np.uint64(span)).astype(np.int64) + low


def _box_muller(uniforms):
    blocks = uniforms.reshape(-1, 2, 8).astype(np.float64)
    radius = np.sqrt(-2 * np.log(1 - blocks[:, 0]))
    theta = 2 * np.pi * blocks[:, 1]
    out = np.stack([radius * np.cos(theta), radius * np.sin(theta)], axis=1)
    return out.reshape(-1).astype(uniforms.dtype)


default_generator = Generator()


def manual_seed(seed):
    return default_generator.manual_seed(seed)


def initial_seed():
    return default_generator.initial_seed()


def _float_dtype(dtype):
    chosen = dtypes.to_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    if not chosen.is_floating_point:
        raise RuntimeError(f"expected a floating point dtype for random values, got {chosen}")
    return chosen.ir.numpy


def rand(*shape, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    shape = _sizes(shape, size)
    array = (generator or default_generator).uniform(math.prod(shape), _float_dtype(dtype))
    return _leaf(array.reshape(shape), device, requires_grad)


def randn(*shape, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    shape = _sizes(shape, size)
    array = (generator or default_generator).normal(math.prod(shape), _float_dtype(dtype))
    return _leaf(array.reshape(shape), device, requires_grad)


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad=False):
    if size is None and isinstance(high, (tuple, list)):  # randint(high, size)
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    shape = _shape_args((size,)) if size is not None else ()
    array = (generator or default_generator).integers(low, high, math.prod(shape))
    return _leaf(array.reshape(shape).astype(_numpy_dtype(dtype, np.int64)), device,
                 requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of 0 .. n-1: PyTorch's swaps, position i with i + word % (n - i)."""
    n = int(n)
    words = (generator or default_generator)._words(max(n - 1, 0))
    order = np.arange(n)
    for i, w in enumerate(words.tolist()):
        j = i + w % (n - i)
        order[i], order[j] = order[j], order[i]
    return _leaf(order.astype(_numpy_dtype(dtype, np.int64)), device, requires_grad)


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False):
    """Samples of N(mean, std**2): elementwise for tensor arguments, `size` for numbers;
    standard normals scaled and shifted, as PyTorch draws them."""
    gen = generator or default_generator
    if not (hasattr(mean, "_edge") or hasattr(std, "_edge")):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got "
                            "(float, float), but expected a Tensor mean or std, or a size")
        shape = _sizes((size,) if isinstance(size, int) else size)
        kind = _float_dtype(dtype)
        noise = gen.normal(math.prod(shape), kind).reshape(shape)
        return _leaf((noise * kind.type(std) + kind.type(mean)).astype(kind), device,
                     requires_grad)
    m = np.asarray(mean._value if hasattr(mean, "_edge") else mean)
    s = np.asarray(std._value if hasattr(std, "_edge") else std)
    shape = np.broadcast_shapes(m.shape, s.shape)
    kind = next(t.dtype for t in (mean, std) if hasattr(t, "_edge")).ir.numpy
    noise = gen.normal(math.prod(shape), kind).reshape(shape)
    return _leaf((noise * s.astype(kind) + m.astype(kind)).astype(kind), None, requires_grad)


def bernoulli(input, p=None, *, generator=None):
    """1 with probability `input` (or `p`) elementwise, else 0, in input's dtype."""
    rng = (generator or default_generator)._numpy
    probs = input._value if p is None else np.full(input._value.shape, p)
    if np.any((probs < 0) | (probs > 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    return _leaf((rng.random(probs.shape) < probs).astype(input._value.dtype))


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Indices drawn from each row of non-negative weights (one row for a vector)."""
    rng = (generator or default_generator)._numpy
    weights = np.asarray(input._value, dtype=np.float64)
    rows = weights.reshape(-1, weights.shape[-1])
    if np.any(rows < 0) or np.any(~np.isfinite(rows)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if np.any(rows.sum(-1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement and num_samples > rows.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    drawn = np.stack([rng.choice(rows.shape[-1], num_samples, replace=replacement,
                                 p=row / row.sum()) for row in rows])
    return _leaf(drawn.reshape(weights.shape[:-1] + (num_samples,)).astype(np.int64))


rand_like, randn_like = _like(rand), _like(randn)
