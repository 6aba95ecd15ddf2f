"""jax.random's keys: legacy uint32 arrays of shape (..., 2) (PRNGKey) and typed key arrays
(key), which hold those words and flatten to them, so both pass through jit, grad and vmap."""
from __future__ import annotations

import numpy as np

from gradjit.prng import threefry
from gradjit.tree_util import register_pytree_node

IMPL = "threefry2x32"


class KeyDType:
    """The element type of typed keys, printed as JAX prints it."""

    name = "key<fry>"

    def __repr__(self):
        return self.name

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, KeyDType) or other == self.name

    def __hash__(self):
        return hash(self.name)


class KeyArray:
    """An array of typed keys: `data` holds each key's two uint32 words on a last axis."""

    __slots__ = ("data",)
    dtype = KeyDType()

    def __init__(self, data):
        self.data = data

    shape = property(lambda self: tuple(np.shape(self.data)[:-1]))
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape)))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __getitem__(self, index):
        index = index if isinstance(index, tuple) else (index,)
        return KeyArray(self.data[(*index, slice(None))])

    def __eq__(self, other):
        return np.all(self.data == other.data, axis=-1)

    def __repr__(self):
        return f"Array({self.shape}, dtype={self.dtype}) overlaying:\n{self.data}"


register_pytree_node(KeyArray, lambda keys: ((keys.data,), None),
                     lambda _, children: KeyArray(children[0]))


def key_words(key, name: str, batched: bool = False):
    """The uint32 words of a key (typed or legacy) and whether it was typed; a sampler takes
    one key (`batched=False`), as JAX's, which batch over keys with vmap."""
    typed = isinstance(key, KeyArray)
    data = key.data if typed else key
    dtype = getattr(data, "dtype", None)
    if dtype != np.uint32 or np.shape(data)[-1:] != (2,):
        raise TypeError(f"{name} takes a key from jax.random.key or PRNGKey (uint32 words of "
                        f"shape (..., 2)), not an array of {dtype} and shape {np.shape(data)}")
    if not batched and np.ndim(data) > 1:
        raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                         f"{np.shape(data)[:-1]} != (). Use jax.vmap for batching.")
    return data, typed


def _as_kind(data, typed: bool):
    return KeyArray(data) if typed else data


def PRNGKey(seed, *, impl=None):  # noqa: N802
    """A legacy key: uint32 words (high, low) of the 64-bit integer seed."""
    return threefry.seed_words(_scalar_seed(seed, "PRNGKey"))


def key(seed, *, impl=None, dtype=None):
    """A typed key (shape ()) from an integer seed."""
    return KeyArray(threefry.seed_words(_scalar_seed(seed, "key")))


def _scalar_seed(seed, name):
    if isinstance(seed, KeyArray):
        raise TypeError(f"{name} accepts a scalar seed, but was given a PRNG key.")
    if np.ndim(seed):
        raise TypeError(f"{name} accepts a scalar seed, but was given an array of shape "
                        f"{np.shape(seed)} != (). Use jax.vmap for batching")
    return seed


def split(key, num=2):
    """`num` new keys (an int or a shape) from one key, of the key's kind."""
    data, typed = key_words(key, "split")
    shape = tuple(num) if isinstance(num, (tuple, list)) else (int(num),)
    return _as_kind(threefry.split(data, shape), typed)


def fold_in(key, data):
    """A new key from a key and a 32-bit integer."""
    words, typed = key_words(key, "fold_in")
    if np.ndim(data):
        raise TypeError("fold_in accepts a scalar, but was given an array of "
                        f"shape {np.shape(data)} != (). Use jax.vmap for batching.")
    return _as_kind(threefry.fold_in(words, data), typed)


def key_data(keys):
    """The uint32 words of keys, on a last axis of 2."""
    return key_words(keys, "key_data", batched=True)[0]


def wrap_key_data(key_bits_array, *, impl=None, dtype=None):
    """Typed keys holding the given uint32 words (last axis 2)."""
    return KeyArray(key_words(key_bits_array, "wrap_key_data", batched=True)[0])


def key_dtype(impl_spec=None):
    """The element type of typed keys (threefry2x32's whatever impl is named)."""
    return KeyArray.dtype


def key_impl(keys):
    key_words(keys, "key_impl", batched=True)
    return IMPL


def clone(key):
    return key
