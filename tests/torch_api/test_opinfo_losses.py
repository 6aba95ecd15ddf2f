"""Losses of torch.nn.functional against torch on the cases PyTorch's operator database
(op_db) samples: values, gradients and error types with messages."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import agree, same_error

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("call", [
    lambda t: t.nn.functional.huber_loss(t.ones(2), t.ones(2), delta=0.0),
    lambda t: t.nn.functional.huber_loss(t.ones(2), t.ones(2), delta=-1.0),
    lambda t: t.nn.functional.triplet_margin_loss(t.ones(2, 3), t.ones(2, 3), t.ones(2, 3),
                                                  margin=-1.0),
    lambda t: t.nn.functional.triplet_margin_loss(t.ones(2, 3), t.ones(2, 3), t.ones(2, 3),
                                                  margin=0),
    lambda t: t.nn.functional.triplet_margin_loss(t.ones(3), t.ones(2, 3), t.ones(2, 3)),
    lambda t: t.nn.functional.triplet_margin_loss(t.ones(2, 3), t.ones(2, 3), t.ones(3)),
])
def test_loss_errors(call):
    same_error(lambda: call(gradjit), lambda: call(torch))


def test_triplet_margin_loss_takes_the_legacy_reduction_flags():
    rng = np.random.default_rng(0)
    with pytest.warns(UserWarning):
        agree(lambda t, a, p, n: t.nn.functional.triplet_margin_loss(a, p, n, 1.0, 2, 1e-6,
                                                                     False, None, False),
              *rng.standard_normal((3, 4, 5)))


@pytest.mark.parametrize("name", ["multi_margin_loss", "multilabel_margin_loss"])
@pytest.mark.parametrize("x", [2.0, -1.0])
def test_margin_losses_of_a_zero_dim_input(name, x):
    def loss(t, input):
        return getattr(t.nn.functional, name)(input, t.tensor(0))
    agree(loss, np.array(x))


_MULTI = "multi_margin_loss"
_LABEL = "multilabel_margin_loss"


@pytest.mark.parametrize("loss, input, target, kwargs", [
    pytest.param(_MULTI, (5, 4), (5,), dict(reduction="abc"), id="multi-reduction"),
    pytest.param(_MULTI, (5, 0), (5,), {}, id="multi-no-classes"),
    pytest.param(_MULTI, (0,), (5,), {}, id="multi-empty"),
    pytest.param(_MULTI, (2, 3, 4), (2,), {}, id="multi-3d"),
    pytest.param(_MULTI, (5, 4), (5,), dict(p=3, reduction="abc"), id="multi-reduction-first"),
    pytest.param(_MULTI, (5, 4), (5, 4), {}, id="multi-target-size"),
    pytest.param(_MULTI, (5, 4), "float", {}, id="multi-float-target"),
    pytest.param(_MULTI, (5, 4), "int32", {}, id="multi-int-target"),
    pytest.param(_MULTI, (5, 4), (5,), dict(weight=(5,)), id="multi-weight-size"),
    pytest.param(_MULTI, (5, 4), (5,), dict(weight=(2, 2)), id="multi-weight-rank"),
    pytest.param(_MULTI, (), (2,), dict(weight=(2,)), id="multi-0d"),
    pytest.param(_LABEL, (5, 4), (5, 4), dict(reduction="abc"), id="label-reduction"),
    pytest.param(_LABEL, (5, 0), (5, 0), {}, id="label-no-classes"),
    pytest.param(_LABEL, (0,), (0,), {}, id="label-empty"),
    pytest.param(_LABEL, (5, 4), (4,), {}, id="label-target-row"),
    pytest.param(_LABEL, (5, 4), (), {}, id="label-target-0d"),
    pytest.param(_LABEL, (4,), (5,), {}, id="label-target-size"),
    pytest.param(_LABEL, (4,), (1, 4), {}, id="label-target-2d"),
    pytest.param(_LABEL, (), (2,), {}, id="label-0d"),
    pytest.param(_LABEL, (5, 4), "float", {}, id="label-float-target"),
    pytest.param(_LABEL, (5, 4), (4, 5), {}, id="label-target-transposed"),
])
def test_margin_losses_refuse_as_torch(loss, input, target, kwargs):
    """torch's checks in its order: the reduction, p and the weight's rank in Python, then the
    kernel's shapes, the weight's size and the target's dtype."""
    def call(t):
        x = t.zeros(input)
        if isinstance(target, str):
            y = t.zeros(x.shape[:1] if loss == _MULTI else x.shape, dtype=getattr(t, target))
        else:
            y = t.zeros(target, dtype=t.int64)
        extra = {k: t.ones(v) if k == "weight" else v for k, v in kwargs.items()}
        return getattr(t.nn.functional, loss)(x, y, **extra)
    same_error(lambda: call(gradjit), lambda: call(torch))


@pytest.mark.parametrize("loss, target", [(_MULTI, [2, 0, 1]),
                                          (_LABEL, [[2, -1, 0], [0, 1, -1], [1, 2, 0]])])
def test_margin_losses_take_the_legacy_reduction_flags(loss, target):
    x = np.random.default_rng(0).standard_normal((3, 3))
    with pytest.warns(UserWarning):
        agree(lambda t, a: getattr(t.nn.functional, loss)(
            a, t.tensor(target), **({"size_average": False} if loss == _LABEL else
                                    {"p": 2, "margin": 1.0, "weight": None,
                                     "size_average": False})), x)
