"""Tensor's short casts (t.float(), t.long(), ...) with memory_format, against torch."""
import numpy as np
import pytest

import gradjit

torch = pytest.importorskip("torch")

CASTS = ("bool", "byte", "char", "double", "float", "half", "int", "long", "cdouble", "cfloat",
         "bfloat16")


@pytest.mark.parametrize("name", CASTS)
@pytest.mark.parametrize("shape, fmt", [((2, 3), "contiguous_format"),
                                        ((2, 3, 2, 3), "channels_last"),
                                        ((2, 3), "preserve_format")])
def test_cast_takes_memory_format(name, shape, fmt):
    data = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) - 7.5
    got = getattr(gradjit.tensor(data), name)(memory_format=getattr(gradjit, fmt))
    want = getattr(torch.tensor(data), name)(memory_format=getattr(torch, fmt))
    assert str(got.dtype) == str(want.dtype)
    assert tuple(got.stride()) == tuple(want.stride())
    np.testing.assert_array_equal(got.float().numpy() if name == "bfloat16" else got.numpy(),
                                  want.float().numpy() if name == "bfloat16" else want.numpy())
