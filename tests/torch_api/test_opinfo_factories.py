"""Factories against torch where the operator database found them apart: arange into integer
dtypes from float bounds, arange's refused ranges, arange into out=."""
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


@pytest.mark.parametrize("dtype", ["int64", "int32", "float32", "float64"])
@pytest.mark.parametrize("args", [(4.3, -3, 50), (4.3, 0, 50), (-2.0, 0, 1), (0, 1.2, 2),
                                  (0.7, 3.4, 6), (-1.5, 2.5, 7), (3, 3, 0)])
@pytest.mark.parametrize("name", ["linspace", "logspace"])
def test_spaced_values(name, args, dtype):
    def call(t):
        bounds = [t.tensor(a) if isinstance(a, float) and dtype == "float64" else a
                  for a in args[:2]]
        base = (2.0,) if name == "logspace" else ()
        return getattr(t, name)(*bounds, args[2], *base, dtype=getattr(t, dtype))
    got, want = call(gradjit), call(torch)
    assert str(got.dtype) == str(want.dtype)
    tolerance = {"float32": 1e-6, "float64": 1e-13}.get(dtype, 0)  # kernels' roundings differ
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("name", ["linspace", "logspace"])
@pytest.mark.parametrize("call", [
    lambda t, f: f(0, 3, -1), lambda t, f: f(t.ones(2), 1, 3), lambda t, f: f(0, t.ones(2, 2), 3)])
def test_spaced_refusals(name, call):
    same_error(lambda: call(gradjit, getattr(gradjit, name)),
               lambda: call(torch, getattr(torch, name)))


def test_spaced_steps_must_be_an_int():
    for lib in (gradjit, torch):
        with pytest.raises(TypeError):
            lib.linspace(0, 3, 1.0)


@pytest.mark.parametrize("call", [
    lambda t: t.eye(-1), lambda t: t.eye(3, -2), lambda t: t.eye(0, -3),
    lambda t: t.empty_permuted((2,), (3,)), lambda t: t.empty_permuted((2, 3), (0, 0)),
    lambda t: t.empty_permuted((2, 3), (0, -1)), lambda t: t.empty(3).exponential_(0),
    lambda t: t.empty(3).exponential_(-1.5)])
def test_factory_refusals(call):
    same_error(lambda: call(gradjit), lambda: call(torch))


def test_hsplit_of_a_string_refused():
    for lib in (gradjit, torch):
        with pytest.raises(TypeError):
            lib.hsplit(lib.ones(3, 3), "abc")


@pytest.mark.parametrize("args, out_dtype", [((0, 5, 1), "float32"), ((5,), "int32"),
                                             ((0, 64, 0.5), "float64"), ((0, 5, 1.5), "int64"),
                                             ((1.0, 2.0, 0.25), "float32")])
def test_arange_into_out_takes_its_dtype(args, out_dtype):
    results = []
    for lib in (torch, gradjit):
        out = lib.empty(0, dtype=getattr(lib, out_dtype))
        result = lib.arange(*args, out=out)
        assert result is out
        results.append((str(out.dtype).rpartition(".")[2], out.numpy()))
    assert results[1][0] == results[0][0]
    np.testing.assert_array_equal(results[1][1], results[0][1])


@pytest.mark.parametrize("args, kwargs", [((0, 64, 0.5), dict(out="int64")),
                                          ((0, 5, 1), dict(out="float32", dtype="int64"))])
def test_arange_into_out_refuses_as_torch(args, kwargs):
    def call(lib):
        options = {k: lib.empty(0, dtype=getattr(lib, v)) if k == "out" else getattr(lib, v)
                   for k, v in kwargs.items()}
        return lib.arange(*args, **options)
    same_error(lambda: call(gradjit), lambda: call(torch))
