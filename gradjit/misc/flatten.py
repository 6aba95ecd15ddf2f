"""autograd.misc.flatten: a nest of tuples, lists and dicts (sorted keys) holding arrays and
numbers as one flat vector, and the function giving the nest back; both trace, so a loss
may flatten its traced parameters."""
from __future__ import annotations

import numpy as np


def _walk(value, leaves):
    """value's structure, its leaves appended to `leaves` (exact tuples, lists and dicts
    only, as autograd's: a namedtuple is a leaf)."""
    kind = type(value)
    if kind in (tuple, list):
        return kind, [_walk(v, leaves) for v in value]
    if kind is dict:
        keys = sorted(value)
        return dict, keys, [_walk(value[k], leaves) for k in keys]
    leaves.append(value)
    return np.shape(value)


def _build(structure, pieces):
    if not isinstance(structure, tuple) or not structure or not isinstance(structure[0], type):
        return next(pieces)(structure)
    if structure[0] is dict:
        return {k: _build(s, pieces) for k, s in zip(structure[1], structure[2])}
    return structure[0](_build(s, pieces) for s in structure[1])


def flatten(value):
    """(flat vector, unflatten): unflatten(vector) rebuilds value's nest, each leaf reshaped
    from its run of the vector (mixed dtypes are not kept)."""
    leaves: list = []
    structure = _walk(value, leaves)
    flat = np.concatenate([np.ravel(leaf) for leaf in leaves]) if leaves else np.array([])
    sizes = [int(np.size(leaf)) for leaf in leaves]

    def unflatten(vector):
        ends = np.cumsum([0] + sizes)
        pieces = iter([lambda shape, a=a, b=b: np.reshape(vector[a:b], shape)
                       for a, b in zip(ends[:-1], ends[1:])])
        return _build(structure, pieces)
    return flat, unflatten


def flatten_func(func, example):
    """func of a nest like `example` as a function of its flat vector (returning a flat
    vector), with the unflatten function and example's vector."""
    flat_example, unflatten = flatten(example)

    def flat_func(flat, *args):
        return flatten(func(unflatten(flat), *args))[0]
    return flat_func, unflatten, flat_example
