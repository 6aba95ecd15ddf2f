"""Convolutions of torch.nn.functional against torch on the error inputs PyTorch's operator
database (op_db) holds: the same error types with the same messages, in its order of checks."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")

CASES = [  # n, input (dtype, shape), weight shape, bias (dtype, shape), keywords
    (1, ("int64", (1, 1, 4)), (1, 1, 2), ("float64", 1), {}),
    (1, ("float64", (1, 1, 4)), (1, 1, 2), ("complex128", 1), {}),
    (1, ("float64", (1, 1, 4)), (1, 2, 2), ("float64", 1), dict(stride=(-1,))),
    (1, ("float64", (1, 1, 4)), (1, 2, 2), ("float64", 1), dict(padding=(-1,))),
    (1, ("float64", (1, 1, 4)), (1, 1, 2), ("float64", 1), dict(dilation=(-1,))),
    (1, ("float64", (1, 1, 4)), (1, 2), ("float64", 1), {}),
    (1, ("float64", (2, 2, 4)), (2, 2, 2), ("float64", 2), dict(groups=3)),
    (1, ("float64", (2, 2, 4)), (2, 2, 2), ("float64", 2), dict(padding="same", groups=0)),
    (1, ("float64", (1, 2, 4)), (3, 1, 2), ("float64", 3), dict(groups=2)),
    (1, ("float64", (1, 2, 4)), (1, 2, 2), ("float64", 1), dict(stride=(1, 1))),
    (2, ("float64", (1, 1, 4, 3)), (1, 2, 2), ("float64", 1), {}),
    (1, ("float64", (4,)), (1, 2), ("float64", 1), {}),
    (1, ("int64", (4,)), (1, 1, 2), ("float64", 1), {}),
    (3, ("float64", (1, 1, 3, 4, 5)), (1, 1, 4, 3), ("float64", 1), dict(padding="same")),
    (3, ("float64", (9, 9, 9, 1, 9)), (9, 3, 1, 1, 1), ("float64", 9),
     dict(stride=2, padding="same", groups=3)),
]


@pytest.mark.parametrize("n, input, weight, bias, kwargs", CASES)
def test_convolution_errors(n, input, weight, bias, kwargs):
    x = np.ones(input[1], input[0])
    w, b = np.ones(weight, x.dtype), np.ones(bias[1], bias[0])

    def call(t):
        return getattr(t.nn.functional, f"conv{n}d")(t.tensor(x), t.tensor(w), t.tensor(b),
                                                     **kwargs)
    same_error(lambda: call(gradjit), lambda: call(torch))
