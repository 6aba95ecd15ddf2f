"""An axis out of range in traced numpy code raises numpy's AxisError, a ValueError and an
IndexError, with numpy's message; Tensors keep PyTorch's IndexError."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import message, same_error

X = np.ones((2, 3))
CALLS = {
    "sum": lambda a: np.sum(a, axis=5),
    "sum-tuple": lambda a: np.sum(a, axis=(0, -3)),
    "scalar": lambda a: np.sum(a[0, 0], axis=1),
    "expand-dims": lambda a: np.expand_dims(a, -4),
    "max": lambda a: np.max(a, axis=2),
    "flip": lambda a: np.flip(a, 4),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_traced_numpy_raises_numpys_axis_error(name):
    call = CALLS[name]
    with pytest.raises(np.exceptions.AxisError) as want:
        call(X)
    with pytest.raises(ValueError) as got:  # numpy's AxisError is a ValueError too
        gradjit.jit(call)(X)
    assert isinstance(got.value, (np.exceptions.AxisError, IndexError))
    assert message(got.value) == str(want.value)


@pytest.mark.parametrize("call", [lambda t, a: a.sum(5), lambda t, a: a.unsqueeze(-4),
                                  lambda t, a: t.tensordot(a, a, dims=([5], [0])),
                                  lambda t, a: t.flip(a, [4])])
def test_tensors_keep_pytorchs_index_error(call):
    same_error(lambda: call(gradjit, gradjit.ones(2, 3)), lambda: call(torch, torch.ones(2, 3)))
    with pytest.raises(IndexError) as info:
        call(gradjit, gradjit.ones(2, 3))
    assert not isinstance(info.value, ValueError)
