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
