"""Factories against torch where the operator database found them apart: arange into integer
dtypes from float bounds, arange's refused ranges."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8"])
@pytest.mark.parametrize("bounds", [(-0.9, 2.1, 2.0), (0.0, -8.000001, -4.0), (0.5, 5.7, 1.5),
                                    (1, 10, 3), (10.2, 1, -3), (0.1, 0.9, 1.3)])
def test_integer_arange_from_float_bounds(bounds, dtype):
    if dtype == "uint8" and min(bounds[:2]) < 0:
        pytest.skip("negative values wrap differently in each library's cast")
    got = gradjit.arange(*bounds, dtype=getattr(gradjit, dtype))
    want = torch.arange(*bounds, dtype=getattr(torch, dtype))
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("args, kwargs", [
    ((0, 10, -1), {}), ((10, 0, 1), {}), ((0, float("inf")), {}), ((float("-inf"), 1, 2), {}),
    ((0, float("nan")), {}), ((0, 3, 0), {}), ((0.0, 3.0, 0.5), {"dtype": "int64"}),
    ((0.1, 0.9, 0.3), {"dtype": "int64"})])
def test_arange_refusals(args, kwargs):
    def call(t):
        return lambda: t.arange(*args, **{k: getattr(t, v) for k, v in kwargs.items()})
    same_error(call(gradjit), call(torch))
