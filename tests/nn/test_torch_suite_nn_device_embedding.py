"""Embedding and EmbeddingBag as test_nn.py's device tests use them on the CPU (padding_idx,
max_norm, scale_grad_by_freq, per-sample weights, offsets): values, gradients and errors
compared with torch."""

import numpy as np
import pytest

from tests.nn.helpers import same_outcome
from tests.nn.test_torch_suite_nn_functional import F, draw, with_grads

IDX = [[0, 2, 4, 5], [4, 3, 0, 9]]


def indices(t, values=IDX):
    return t.tensor(values)


def embedding_grads(t, idx=IDX, **options):
    return with_grads(t, lambda w: F(t).embedding(indices(t, idx), w, **options), draw(t, 10, 3))


def max_norm(t, idx, norm_type=2.0):
    """max_norm renormalizes the looked-up rows of the weight in place."""
    weight = draw(t, 10, 3) * 2
    out = F(t).embedding(indices(t, idx), weight, max_norm=1.0, norm_type=norm_type)
    return out, weight


def max_norm_grads(t):
    weight = (draw(t, 10, 3) * 2).requires_grad_()
    idx = indices(t, [2, 8, 8, 6])
    out = F(t).embedding(idx, weight, max_norm=1.0)
    (out * draw(t, 4, 3, seed=3)).sum().backward()
    return out, weight.grad


def module(t, *args, **kwargs):
    t.manual_seed(0)
    m = t.nn.Embedding(*args, **kwargs)
    return repr(m), m.padding_idx, m.weight[m.padding_idx] if m.padding_idx is not None else 0


def pretrained(t, cls, **options):
    m = getattr(t.nn, cls).from_pretrained(draw(t, 5, 3), **options)
    idx = t.tensor([[0, 1, 3]])
    out = m(idx)
    out.sum().backward() if out.requires_grad else None
    return repr(m), out, m.weight.requires_grad, m.weight.grad


def bag(t, idx, offsets=None, **options):
    weight = draw(t, 10, 3)
    offsets = None if offsets is None else t.tensor(offsets)
    return with_grads(t, lambda w: F(t).embedding_bag(t.tensor(idx), w, offsets, **options), weight)


def bag_weighted(t, idx, offsets, mode="sum", **options):
    weight, psw = draw(t, 10, 3), draw(t, len(np.ravel(idx)), seed=4).reshape(np.shape(idx))
    offsets = None if offsets is None else t.tensor(offsets)
    return with_grads(
        t,
        lambda w, s: F(t).embedding_bag(
            t.tensor(idx), w, offsets, mode=mode, per_sample_weights=s, **options
        ),
        weight,
        psw,
    )


def bag_module(t, *args, **kwargs):
    t.manual_seed(0)
    m = t.nn.EmbeddingBag(*args, **kwargs)
    out = m(t.tensor([1, 2, 4, 5, 4, 3]), t.tensor([0, 3]))
    return repr(m), tuple(out.shape), str(out.dtype)


def low_precision(t, dtype, mode):
    weight = draw(t, 10, 3).to(getattr(t, dtype))
    idx, offsets = t.tensor([1, 2, 4, 5, 4, 3, 2, 9]), t.tensor([0, 3, 6])
    return with_grads(t, lambda w: F(t).embedding_bag(idx, w, offsets, mode=mode), weight)


def offsets_with_2d_input(t):
    """The message names the offsets' class, the library's own."""
    try:
        F(t).embedding_bag(t.tensor([[1, 2], [4, 5]]), draw(t, 10, 3), t.tensor([0, 2]))
    except ValueError as error:
        return str(error).replace(t.__name__, "lib")


SCENARIOS = {
    "embedding_repeated_indices": lambda t: embedding_grads(t, [[1, 1, 3, 1], [3, 0, 0, 9]]),
    **{
        f"embedding_padding_idx_{p}": (lambda t, p=p: embedding_grads(t, padding_idx=p))
        for p in (0, 4, -1, -6)
    },
    "embedding_padding_idx_out_of_range": lambda t: embedding_grads(t, padding_idx=10),
    "embedding_padding_idx_below_range": lambda t: embedding_grads(t, padding_idx=-11),
    "embedding_scale_grad_by_freq": lambda t: embedding_grads(
        t, [[1, 1, 3, 1], [3, 0, 0, 9]], scale_grad_by_freq=True
    ),
    "embedding_scale_grad_by_freq_padding": lambda t: embedding_grads(
        t, [[1, 1, 3, 1], [3, 0, 0, 9]], scale_grad_by_freq=True, padding_idx=1
    ),
    "embedding_max_norm": lambda t: max_norm(t, [[2, 8, 8, 6], [0, 8, 1, 2]]),
    "embedding_max_norm_unsorted_repeating": lambda t: max_norm(t, [9, 1, 1, 9, 4, 1]),
    "embedding_max_norm_p1": lambda t: max_norm(t, [3, 1, 7], norm_type=1.0),
    "embedding_max_norm_backward": max_norm_grads,
    "embedding_scalar_weight": lambda t: F(t).embedding(t.tensor([2, 3]), t.tensor(1.0)),
    "embedding_index_out_of_range": lambda t: F(t).embedding(t.tensor([2, 10]), draw(t, 10, 3)),
    "embedding_float_indices": lambda t: F(t).embedding(t.tensor([2.0]), draw(t, 10, 3)),
    "embedding_int32_indices": lambda t: (
        embedding_grads(t) and F(t).embedding(t.tensor([2, 7], dtype=t.int32), draw(t, 10, 3))
    ),
    "embedding_empty_indices": lambda t: embedding_grads(t, [[], []]),
    "embedding_scalar_index": lambda t: F(t).embedding(t.tensor(3), draw(t, 10, 3)),
    "Embedding_repr": lambda t: module(t, 10, 3),
    "Embedding_repr_options": lambda t: module(
        t, 10, 3, padding_idx=-2, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True
    ),
    "Embedding_repr_sparse": lambda t: module(t, 10, 3, sparse=True)[0],
    "Embedding_padding_idx_too_large": lambda t: module(t, 10, 3, padding_idx=10),
    "Embedding_padding_idx_too_small": lambda t: module(t, 10, 3, padding_idx=-11),
    "Embedding_weight_shape": lambda t: t.nn.Embedding(10, 3, _weight=t.ones(3, 10)),
    "Embedding_from_pretrained": lambda t: pretrained(t, "Embedding"),
    "Embedding_from_pretrained_unfrozen": lambda t: pretrained(t, "Embedding", freeze=False),
    "Embedding_from_pretrained_padding_idx": lambda t: pretrained(
        t, "Embedding", freeze=False, padding_idx=1
    ),
    "Embedding_from_pretrained_1d": lambda t: t.nn.Embedding.from_pretrained(t.ones(5)),
    "EmbeddingBag_from_pretrained": lambda t: pretrained(t, "EmbeddingBag", mode="max"),
    **{
        f"embedding_bag_{mode}_offsets": (
            lambda t, mode=mode: bag(t, [1, 2, 4, 5, 4, 3, 2, 9], [0, 3, 3, 6], mode=mode)
        )
        for mode in ("sum", "mean", "max")
    },
    **{
        f"embedding_bag_{mode}_2d": (lambda t, mode=mode: bag(t, [[1, 2, 4], [4, 3, 2]], mode=mode))
        for mode in ("sum", "mean", "max")
    },
    **{
        f"embedding_bag_{mode}_last_offset": (
            lambda t, mode=mode: bag(
                t, [1, 2, 4, 5, 4, 3], [0, 2, 2, 6], mode=mode, include_last_offset=True
            )
        )
        for mode in ("sum", "mean", "max")
    },
    **{
        f"embedding_bag_{mode}_padding_idx_{d}d": (
            lambda t, mode=mode, d=d: bag(
                t,
                [1, 2, 2, 5, 2, 2] if d == 1 else [[1, 2, 2], [2, 2, 2]],
                [0, 3] if d == 1 else None,
                mode=mode,
                padding_idx=2,
            )
        )
        for mode in ("sum", "mean", "max")
        for d in (1, 2)
    },
    "embedding_bag_empty_input": lambda t: bag(t, [], [0, 0, 0], mode="mean"),
    "embedding_bag_empty_input_max": lambda t: bag(t, [], [0, 0], mode="max"),
    "embedding_bag_empty_2d": lambda t: bag(t, np.zeros((3, 0), dtype=np.int64), mode="sum"),
    "embedding_bag_max_norm": lambda t: bag(t, [1, 2, 1, 5], [0, 2], max_norm=0.5),
    "embedding_bag_scale_grad_by_freq": lambda t: bag(
        t, [1, 2, 1, 5, 1], [0, 2], scale_grad_by_freq=True
    ),
    "embedding_bag_scale_grad_by_freq_uneven": lambda t: bag(
        t, [5, 2, 1, 5, 1, 7], [0, 2], mode="sum", scale_grad_by_freq=True, padding_idx=7
    ),
    "embedding_bag_scale_grad_by_freq_max": lambda t: bag(
        t, [1, 2, 1, 5, 1], [0, 2], scale_grad_by_freq=True, mode="max"
    ),
    "embedding_bag_non_contiguous_weight": lambda t: F(t).embedding_bag(
        t.tensor([1, 2, 5]), draw(t, 3, 10).t(), t.tensor([0, 1])
    ),
    "embedding_bag_per_sample_weights_1d": lambda t: bag_weighted(t, [1, 2, 4, 5, 4, 3], [0, 2, 2]),
    "embedding_bag_per_sample_weights_2d": lambda t: bag_weighted(t, [[1, 2, 4], [5, 4, 3]], None),
    "embedding_bag_per_sample_weights_last_offset": lambda t: bag_weighted(
        t, [1, 2, 4, 5, 4, 3], [0, 2, 6], include_last_offset=True
    ),
    "embedding_bag_per_sample_weights_padding": lambda t: bag_weighted(
        t, [1, 2, 4, 5, 4, 3], [0, 2], padding_idx=4
    ),
    "embedding_bag_per_sample_weights_mean": lambda t: bag_weighted(
        t, [1, 2, 4, 5], [0, 2], mode="mean"
    ),
    "embedding_bag_per_sample_weights_max": lambda t: bag_weighted(
        t, [1, 2, 4, 5], [0, 2], mode="max"
    ),
    "embedding_bag_per_sample_weights_shape": lambda t: F(t).embedding_bag(
        t.tensor([1, 2, 4, 5]), draw(t, 10, 3), t.tensor([0, 2]), per_sample_weights=t.ones(3)
    ),
    "embedding_bag_per_sample_weights_shape_2d": lambda t: F(t).embedding_bag(
        t.tensor([[1, 2], [4, 5]]), draw(t, 10, 3), per_sample_weights=t.ones(4)
    ),
    "embedding_bag_per_sample_weights_dtype": lambda t: F(t).embedding_bag(
        t.tensor([1, 2, 4, 5]),
        draw(t, 10, 3),
        t.tensor([0, 2]),
        per_sample_weights=t.ones(4, dtype=t.float32),
    ),
    "embedding_bag_offsets_2d": lambda t: F(t).embedding_bag(
        t.tensor([1, 2, 4, 5]), draw(t, 10, 3), t.tensor([[0, 2]])
    ),
    "embedding_bag_offsets_with_2d_input": offsets_with_2d_input,
    "embedding_bag_offsets_missing": lambda t: F(t).embedding_bag(
        t.tensor([1, 2, 4, 5]), draw(t, 10, 3)
    ),
    "embedding_bag_offsets_first_not_zero": lambda t: bag(t, [1, 2, 4, 5], [1, 2]),
    "embedding_bag_offsets_past_input": lambda t: bag(t, [1, 2, 4, 5], [0, 5]),
    "embedding_bag_offsets_dtype_mismatch": lambda t: F(t).embedding_bag(
        t.tensor([1, 2, 4, 5]), draw(t, 10, 3), t.tensor([0, 2], dtype=t.int32)
    ),
    "embedding_bag_int32": lambda t: F(t).embedding_bag(
        t.tensor([1, 2, 4, 5], dtype=t.int32), draw(t, 10, 3), t.tensor([0, 2], dtype=t.int32)
    ),
    "embedding_bag_3d_input": lambda t: F(t).embedding_bag(t.zeros(1, 1, 2).long(), draw(t, 10, 3)),
    "embedding_bag_bad_mode": lambda t: bag(t, [1, 2, 4, 5], [0, 2], mode="min"),
    "embedding_bag_index_out_of_range": lambda t: bag(t, [1, 2, 4, 10], [0, 2]),
    "embedding_bag_negative_index": lambda t: bag(t, [1, 2, 4, -1], [0, 2]),
    "embedding_bag_padding_idx_out_of_range": lambda t: bag(t, [1, 2], [0], padding_idx=10),
    "embedding_bag_float_indices": lambda t: F(t).embedding_bag(
        t.tensor([1.0, 2.0]), draw(t, 10, 3), t.tensor([0])
    ),
    **{
        f"embedding_bag_{dtype}_{mode}": (lambda t, d=dtype, m=mode: low_precision(t, d, m))
        for dtype in ("float16", "bfloat16", "float32")
        for mode in ("sum", "mean", "max")
    },
    "EmbeddingBag_repr": lambda t: bag_module(t, 10, 3),
    "EmbeddingBag_repr_options": lambda t: bag_module(
        t, 10, 3, max_norm=1.0, mode="max", include_last_offset=True, padding_idx=0
    ),
    "EmbeddingBag_bad_mode": lambda t: bag_module(t, 10, 3, mode="min"),
    "EmbeddingBag_padding_idx_too_large": lambda t: bag_module(t, 10, 3, padding_idx=11),
    "embedding_max_norm_inf": lambda t: max_norm(t, [1, 3, 1], norm_type=float("inf")),
    **{
        f"embedding_bag_{mode}_bag_all_padding": (
            lambda t, mode=mode: bag(t, [2, 2, 1, 3], [0, 2], mode=mode, padding_idx=2)
        )
        for mode in ("sum", "mean", "max")
    },
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_embedding_matches_torch(name):
    tolerance = 1e-2 if "16" in name else 1e-6
    same_outcome(SCENARIOS[name], rtol=tolerance, atol=tolerance)
