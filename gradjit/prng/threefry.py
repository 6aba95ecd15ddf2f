"""JAX's default random number generator, threefry2x32 in its partitionable form: keys (two
uint32 words), split, fold_in and random bits, as numpy uint32 arithmetic that gradjit traces."""
from __future__ import annotations

import math

import numpy as np

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA  # Skein's key-schedule constant
_U32 = np.uint32


def _rotate_left(x, distance: int):
    return (x << _U32(distance)) | (x >> _U32(32 - distance))


def threefry2x32(k1, k2, x1, x2):
    """The Threefry-2x32 block cipher (20 rounds) of the counter pair (x1, x2) under the key
    (k1, k2), elementwise over broadcast arrays of uint32."""
    with np.errstate(over="ignore"):  # uint32 sums wrap, as the cipher means them to
        schedule = (k1, k2, k1 ^ k2 ^ _U32(_PARITY))
        x1, x2 = x1 + schedule[0], x2 + schedule[1]
        for block in range(5):
            for distance in _ROTATIONS[block % 2]:
                x1 = x1 + x2
                x2 = x1 ^ _rotate_left(x2, distance)
            x1 = x1 + schedule[(block + 1) % 3]
            x2 = x2 + schedule[(block + 2) % 3] + _U32(block + 1)
    return x1, x2


def seed_words(seed):
    """A key from an integer seed: its bits as the words (high, low), a Python int taken as
    64 bits, a seed of 32 bits or fewer padded with a zero high word (as JAX shifts it)."""
    if isinstance(seed, int):
        return np.array([(seed >> 32) & 0xFFFFFFFF, seed & 0xFFFFFFFF], _U32)
    seed = seed if hasattr(seed, "astype") else np.asarray(seed)
    low = seed.astype(_U32)
    if seed.dtype.itemsize < 8:
        return np.stack([np.zeros_like(low), low])
    return np.stack([(seed.astype(np.int64) >> 32).astype(_U32), low])


def _counters(shape):
    """The row-major index of every element of `shape`, as its (high, low) uint32 words."""
    index = np.arange(math.prod(shape), dtype=np.uint64).reshape(shape)
    return (index >> np.uint64(32)).astype(_U32), index.astype(_U32)


def _hash_counters(key, shape):
    return threefry2x32(key[..., 0], key[..., 1], *_counters(shape))


def split(key, shape):
    """Keys of `shape` from one key: the cipher of each key's index (JAX's foldlike split)."""
    high, low = _hash_counters(key, shape)
    return np.stack([high, low], axis=-1)


def fold_in(key, data):
    """A key from a key and a 32-bit integer: the cipher of the counter (0, data)."""
    data = np.asarray(data).astype(_U32)
    high, low = threefry2x32(key[..., 0], key[..., 1], np.zeros_like(data), data)
    return np.stack([high, low], axis=-1)


def random_bits(key, bit_width: int, shape):
    """Uniform random unsigned integers of `bit_width` bits: the two cipher words of each
    element's index, xored (8, 16, 32 bits) or joined (64 bits)."""
    high, low = _hash_counters(key, tuple(shape))
    if bit_width == 64:
        return (high.astype(np.uint64) << np.uint64(32)) | low.astype(np.uint64)
    return (high ^ low).astype(np.dtype(f"uint{bit_width}"))
