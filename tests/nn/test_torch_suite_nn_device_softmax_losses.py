"""softmax, log_softmax and softmin, cross-entropy and nll_loss, and one_hot as test_nn.py's
device tests use them on the CPU: dims, dtype=, empty and large inputs, ignore_index, class
weights, label smoothing, probability targets and empty batches."""

import numpy as np
import pytest

from tests.nn.helpers import same_outcome
from tests.nn.test_torch_suite_nn_functional import F, draw, with_grads

SOFTMAXES = ("softmax", "log_softmax", "softmin")


def normalized(t, name, shape, dim, scale=1.0, **options):
    fn = getattr(F(t), name)
    return with_grads(t, lambda a: fn(a, dim, **options), draw(t, *shape) * scale)


def with_dtype(t, name, dtype):
    """dtype= casts before the reduction: a float32 input gives float64 results."""
    x = draw(t, 3, 5, dtype="float32")
    fn = getattr(F(t), name)
    return with_grads(t, lambda a: fn(a, 1, dtype=getattr(t, dtype)), x)


def module(t, cls, dim, shape=(2, 3, 4)):
    m = getattr(t.nn, cls)(dim)
    return repr(m), with_grads(t, m, draw(t, *shape))


def targets(t, values):
    return t.tensor(values)


def cross_entropy(t, shape=(4, 5), target=(1, 0, 4, 2), **options):
    """Cross entropy's value and input gradient; class-index targets, or a probability
    target when `target` is a shape."""
    x = draw(t, *shape)
    if isinstance(target, str):
        y = draw(t, *shape, seed=5).softmax(1)
    else:
        y = targets(t, target)
    if "weight" in options:
        options["weight"] = t.tensor(options["weight"], dtype=t.double)
    return with_grads(t, lambda a: F(t).cross_entropy(a, y, **options), x)


def nll(t, shape=(4, 5), target=(1, 0, 4, 2), **options):
    x = draw(t, *shape).log_softmax(1)
    if "weight" in options:
        options["weight"] = t.tensor(options["weight"], dtype=t.double)
    return with_grads(t, lambda a: F(t).nll_loss(a, targets(t, target), **options), x)


def module_loss(t, cls, **options):
    m = getattr(t.nn, cls)(**options)
    x = draw(t, 3, 4) if cls == "CrossEntropyLoss" else draw(t, 3, 4).log_softmax(1)
    return repr(m), with_grads(t, lambda a: m(a, t.tensor([0, 3, 1])), x)


REDUCTIONS = ("mean", "sum", "none")
SPATIAL = (2, 3, 2, 2)
SPATIAL_TARGET = [[[1, 0], [2, 2]], [[0, 1], [1, 2]]]

SOFTMAX = {
    **{
        f"{name}_{len(shape)}d_dim{dim}": (
            lambda t, name=name, shape=shape, dim=dim: normalized(t, name, shape, dim)
        )
        for name in SOFTMAXES
        for shape, dims in (((5,), (0, -1)), ((3, 4), (0, 1)), ((2, 3, 4, 5), (0, 1, 3, -2)))
        for dim in dims
    },
    **{f"{name}_scalar": (lambda t, name=name: normalized(t, name, (), 0)) for name in SOFTMAXES},
    **{
        f"{name}_empty_{'x'.join(map(str, shape))}_dim{dim}": (
            lambda t, name=name, shape=shape, dim=dim: normalized(t, name, shape, dim)
        )
        for name in SOFTMAXES
        for shape, dim in (((0, 4), 1), ((0, 4), 0), ((3, 0), 1), ((2, 0, 3), -1))
    },
    **{
        f"{name}_large_{scale:g}": (
            lambda t, name=name, scale=scale: normalized(t, name, (3, 5), 1, scale=scale)
        )
        for name in SOFTMAXES
        for scale in (1e3, 1e30, -1e30)
    },
    **{
        f"{name}_inf_{what}": (
            lambda t, name=name, v=values: with_grads(
                t, lambda a: getattr(F(t), name)(a, 1), t.tensor(v, dtype=t.double)
            )
        )
        for name in SOFTMAXES
        for what, values in (
            ("one", [[0.0, float("inf"), 1.0]]),
            ("minus_all", [[-float("inf")] * 3]),
            ("minus_some", [[-float("inf"), 2.0, -float("inf")]]),
            ("nan", [[float("nan"), 1.0, 2.0]]),
        )
    },
    **{
        f"{name}_dtype_{dtype}": (lambda t, name=name, dtype=dtype: with_dtype(t, name, dtype))
        for name in SOFTMAXES
        for dtype in ("float64", "float32", "float16", "bfloat16")
    },
    **{
        f"{name}_half_input": (lambda t, name=name: getattr(F(t), name)(draw(t, 3, 5).half(), 1))
        for name in SOFTMAXES
    },
    **{
        f"{name}_bfloat16_input_float_out": (
            lambda t, name=name: getattr(F(t), name)(draw(t, 3, 5).bfloat16(), 1, dtype=t.float)
        )
        for name in SOFTMAXES
    },
    **{
        f"{name}_dim_out_of_range": (lambda t, name=name: getattr(F(t), name)(draw(t, 3, 5), 2))
        for name in SOFTMAXES
    },
    **{
        f"{name}_integer_input": (
            lambda t, name=name: getattr(F(t), name)(t.arange(6).reshape(2, 3), 1)
        )
        for name in SOFTMAXES
    },
    **{
        f"{name}_integer_input_float_dtype": (
            lambda t, name=name: getattr(F(t), name)(t.arange(6).reshape(2, 3), 1, dtype=t.float64)
        )
        for name in SOFTMAXES
    },
    "softmax_tensor_method": lambda t: draw(t, 3, 4).softmax(-1, dtype=t.float32),
    "log_softmax_tensor_method": lambda t: draw(t, 3, 4).log_softmax(0),
    "softmax_torch_function": lambda t: t.softmax(draw(t, 3, 4), 1),
    "log_softmax_torch_function_dtype": lambda t: t.log_softmax(draw(t, 3, 4), 1, t.float32),
    "softmax_special": lambda t: t.special.softmax(draw(t, 3, 4), 0),
    "log_softmax_special": lambda t: t.special.log_softmax(draw(t, 3, 4), 0),
    **{
        f"{cls}_{dim}": (lambda t, cls=cls, dim=dim: module(t, cls, dim))
        for cls in ("Softmax", "LogSoftmax", "Softmin")
        for dim in (None, 0, -1)
    },
    "Softmax2d": lambda t: (
        module(t, "Softmax2d", None, (2, 3, 4, 5))
        if False
        else (
            repr(t.nn.Softmax2d()),
            with_grads(t, t.nn.Softmax2d(), draw(t, 2, 3, 4, 5)),
        )
    ),
    "Softmax2d_unbatched": lambda t: with_grads(t, t.nn.Softmax2d(), draw(t, 3, 4, 5)),
    "Softmax2d_2d": lambda t: t.nn.Softmax2d()(draw(t, 4, 5)),
    "softmax_implicit_dim_3d": lambda t: with_grads(
        t, lambda a: F(t).softmax(a, _stacklevel=5), draw(t, 2, 3, 4)
    ),
}

LOSSES = {
    **{f"cross_entropy_{r}": (lambda t, r=r: cross_entropy(t, reduction=r)) for r in REDUCTIONS},
    **{
        f"cross_entropy_ignore_index_{i}_{r}": (
            lambda t, i=i, r=r: cross_entropy(t, ignore_index=i, reduction=r)
        )
        for i in (0, 4, -100)
        for r in REDUCTIONS
    },
    "cross_entropy_all_ignored": lambda t: cross_entropy(t, target=(2, 2, 2, 2), ignore_index=2),
    "cross_entropy_all_ignored_sum": lambda t: cross_entropy(
        t, target=(2, 2, 2, 2), ignore_index=2, reduction="sum"
    ),
    **{
        f"cross_entropy_weight_{r}": (
            lambda t, r=r: cross_entropy(t, weight=[0.5, 1.0, 2.0, 0.1, 3.0], reduction=r)
        )
        for r in REDUCTIONS
    },
    "cross_entropy_weight_ignore_index": lambda t: cross_entropy(
        t, weight=[0.5, 1.0, 2.0, 0.1, 3.0], ignore_index=1
    ),
    **{
        f"cross_entropy_smoothing_{s}_{r}": (
            lambda t, s=s, r=r: cross_entropy(t, label_smoothing=s, reduction=r)
        )
        for s in (0.0, 0.1, 1.0)
        for r in REDUCTIONS
    },
    **{
        f"cross_entropy_smoothing_weight_{r}": (
            lambda t, r=r: cross_entropy(
                t, label_smoothing=0.2, weight=[0.5, 1.0, 2.0, 0.1, 3.0], reduction=r
            )
        )
        for r in REDUCTIONS
    },
    "cross_entropy_smoothing_ignore_index": lambda t: cross_entropy(
        t, label_smoothing=0.2, ignore_index=4
    ),
    "cross_entropy_smoothing_weight_ignore_index": lambda t: cross_entropy(
        t, label_smoothing=0.3, ignore_index=0, weight=[0.5, 1.0, 2.0, 0.1, 3.0]
    ),
    **{
        f"cross_entropy_probabilities_{r}": (
            lambda t, r=r: cross_entropy(t, target="probabilities", reduction=r)
        )
        for r in REDUCTIONS
    },
    "cross_entropy_probabilities_smoothing": lambda t: cross_entropy(
        t, target="probabilities", label_smoothing=0.25
    ),
    "cross_entropy_probabilities_weight": lambda t: cross_entropy(
        t, target="probabilities", weight=[0.5, 1.0, 2.0, 0.1, 3.0]
    ),
    "cross_entropy_probabilities_spatial": lambda t: cross_entropy(
        t, shape=SPATIAL, target="probabilities", label_smoothing=0.1
    ),
    "cross_entropy_probabilities_ignore_index": lambda t: cross_entropy(
        t, target="probabilities", ignore_index=1
    ),
    **{
        f"cross_entropy_spatial_{r}": (
            lambda t, r=r: cross_entropy(
                t, shape=SPATIAL, target=SPATIAL_TARGET, reduction=r, ignore_index=1
            )
        )
        for r in REDUCTIONS
    },
    "cross_entropy_spatial_smoothing_weight": lambda t: cross_entropy(
        t, shape=SPATIAL, target=SPATIAL_TARGET, label_smoothing=0.2, weight=[1.0, 2.0, 0.5]
    ),
    "cross_entropy_unbatched": lambda t: cross_entropy(t, shape=(5,), target=3),
    "cross_entropy_unbatched_smoothing": lambda t: cross_entropy(
        t, shape=(5,), target=3, label_smoothing=0.3
    ),
    **{
        f"cross_entropy_empty_batch_{r}": (
            lambda t, r=r: cross_entropy(t, shape=(0, 5), target=np.zeros(0, np.int64), reduction=r)
        )
        for r in REDUCTIONS
    },
    **{
        f"cross_entropy_empty_batch_smoothing_{r}": (
            lambda t, r=r: cross_entropy(
                t, shape=(0, 5), target=np.zeros(0, np.int64), reduction=r, label_smoothing=0.1
            )
        )
        for r in REDUCTIONS
    },
    "cross_entropy_empty_probabilities": lambda t: cross_entropy(
        t, shape=(0, 5), target="probabilities"
    ),
    "cross_entropy_target_out_of_range": lambda t: cross_entropy(t, target=(1, 0, 5, 2)),
    "cross_entropy_target_negative": lambda t: cross_entropy(t, target=(1, 0, -1, 2)),
    "cross_entropy_smoothing_out_of_range": lambda t: cross_entropy(t, label_smoothing=1.5),
    "cross_entropy_float_target_shape": lambda t: F(t).cross_entropy(draw(t, 4, 5), draw(t, 4, 4)),
    "cross_entropy_target_batch": lambda t: cross_entropy(t, target=(1, 0, 4)),
    "cross_entropy_weight_size": lambda t: cross_entropy(t, weight=[1.0, 2.0]),
    "cross_entropy_integer_probabilities": lambda t: F(t).cross_entropy(
        draw(t, 4, 5), t.ones(4, 5, dtype=t.int32)
    ),
    "cross_entropy_float32_input_double_probabilities": lambda t: F(t).cross_entropy(
        draw(t, 4, 5).float(), draw(t, 4, 5).softmax(1)
    ),
    "cross_entropy_large_logits": lambda t: (
        cross_entropy(t, shape=(2, 3), target=(0, 2))
        and (F(t).cross_entropy(t.tensor([[1e4, -1e4, 0.0]], dtype=t.double), t.tensor([1])))
    ),
    **{f"nll_loss_{r}": (lambda t, r=r: nll(t, reduction=r)) for r in REDUCTIONS},
    **{
        f"nll_loss_weight_ignore_{r}": (
            lambda t, r=r: nll(t, weight=[0.5, 1.0, 2.0, 0.1, 3.0], ignore_index=0, reduction=r)
        )
        for r in REDUCTIONS
    },
    "nll_loss_all_ignored": lambda t: nll(t, target=(3, 3, 3, 3), ignore_index=3),
    "nll_loss_all_weight_zero": lambda t: nll(t, target=(3, 3, 3, 3), weight=[1, 1, 1, 0, 1.0]),
    **{
        f"nll_loss_spatial_{r}": (
            lambda t, r=r: nll(t, shape=SPATIAL, target=SPATIAL_TARGET, reduction=r)
        )
        for r in REDUCTIONS
    },
    "nll_loss_5d": lambda t: nll(
        t, shape=(2, 3, 2, 1, 2), target=np.array(SPATIAL_TARGET)[:, :, None]
    ),
    **{
        f"nll_loss_empty_batch_{r}": (
            lambda t, r=r: nll(t, shape=(0, 5), target=np.zeros(0, np.int64), reduction=r)
        )
        for r in REDUCTIONS
    },
    "nll_loss_empty_spatial": lambda t: nll(
        t, shape=(2, 3, 0, 2), target=np.zeros((2, 0, 2), np.int64)
    ),
    "nll_loss_unbatched": lambda t: nll(t, shape=(5,), target=2),
    "nll_loss_target_out_of_range": lambda t: nll(t, target=(1, 0, 5, 2)),
    "nll_loss_spatial_target_out_of_range": lambda t: nll(
        t, shape=SPATIAL, target=[[[1, 0], [2, 3]], [[0, 1], [1, 2]]]
    ),
    "nll_loss_target_shape": lambda t: nll(t, target=[[1, 0], [4, 2]]),
    "nll_loss_spatial_target_shape": lambda t: nll(t, shape=SPATIAL, target=[[1, 0], [2, 2]]),
    "nll_loss_weight_size": lambda t: nll(t, weight=[1.0, 2.0]),
    "nll_loss_float_target": lambda t: F(t).nll_loss(draw(t, 2, 3), t.tensor([0.0, 1.0])),
    "nll_loss_int32_target": lambda t: F(t).nll_loss(
        draw(t, 2, 3), t.tensor([0, 1], dtype=t.int32)
    ),
    "nll_loss_3d_input_1d_target": lambda t: F(t).nll_loss(draw(t, 2, 3, 4), t.tensor([0, 1])),
    "nll_loss_byte_target": lambda t: F(t).nll_loss(
        draw(t, 3, 4).log_softmax(1), t.tensor([0, 3, 1], dtype=t.uint8)
    ),
    "nll_loss_ignore_index_out_of_bounds": lambda t: nll(
        t, target=(1, 255, 4, 255), ignore_index=255
    ),
    "nll_loss_spatial_ignore_index_out_of_bounds": lambda t: nll(
        t, shape=SPATIAL, target=[[[1, 255], [2, 2]], [[255, 1], [1, 2]]], ignore_index=255
    ),
    "cross_entropy_one_hot_probabilities": lambda t: (
        cross_entropy(t, target=(1, 0, 4, 2))[0]
        - F(t).cross_entropy(draw(t, 4, 5), F(t).one_hot(t.tensor([1, 0, 4, 2]), 5).double())
    ),
    "cross_entropy_probabilities_unbatched": lambda t: with_grads(
        t, lambda a: F(t).cross_entropy(a, draw(t, 5, seed=3).softmax(0)), draw(t, 5)
    ),
    "cross_entropy_smoothing_negative": lambda t: cross_entropy(t, label_smoothing=-0.1),
    "cross_entropy_probabilities_smoothing_negative": lambda t: cross_entropy(
        t, target="probabilities", label_smoothing=-0.5
    ),
    "cross_entropy_probabilities_smoothing_out_of_range": lambda t: cross_entropy(
        t, target="probabilities", label_smoothing=1.1
    ),
    "nll_loss_bad_reduction": lambda t: nll(t, reduction="average"),
    "CrossEntropyLoss": lambda t: module_loss(t, "CrossEntropyLoss"),
    "CrossEntropyLoss_options": lambda t: module_loss(
        t, "CrossEntropyLoss", ignore_index=1, reduction="sum", label_smoothing=0.1
    ),
    "NLLLoss": lambda t: module_loss(t, "NLLLoss", ignore_index=0),
}

ONE_HOT = {
    "one_hot": lambda t: F(t).one_hot(t.tensor([3, 4, 1, 0])),
    "one_hot_classes": lambda t: F(t).one_hot(t.tensor([[3, 4], [1, 0]]), 6),
    "one_hot_scalar": lambda t: F(t).one_hot(t.tensor(4), 5),
    "one_hot_empty": lambda t: F(t).one_hot(t.tensor([], dtype=t.long), 3),
    "one_hot_empty_infer": lambda t: F(t).one_hot(t.tensor([], dtype=t.long)),
    "one_hot_empty_zero_classes": lambda t: F(t).one_hot(t.tensor([], dtype=t.long), 0),
    "one_hot_too_few_classes": lambda t: F(t).one_hot(t.tensor([3, 4, 1, 0]), 3),
    "one_hot_negative": lambda t: F(t).one_hot(t.tensor([3, -1]), 5),
    "one_hot_negative_classes": lambda t: F(t).one_hot(t.tensor([3, 1]), -2),
    "one_hot_int32": lambda t: F(t).one_hot(t.tensor([3, 1], dtype=t.int32), 5),
    "one_hot_float": lambda t: F(t).one_hot(t.tensor([3.0, 1.0]), 5),
    "one_hot_torch_namespace": lambda t: t.nn.functional.one_hot(t.arange(0, 5) % 3, 4),
}

ALL = {**SOFTMAX, **LOSSES, **ONE_HOT}


@pytest.mark.parametrize("name", ALL)
def test_softmax_and_losses_match_torch(name):
    tolerance = 2e-2 if "bfloat16" in name else 2e-3 if "16" in name or "half" in name else 1e-6
    same_outcome(ALL[name], rtol=tolerance, atol=tolerance)
