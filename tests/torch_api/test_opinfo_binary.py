"""Binary elementwise functions against torch where the operator database found them apart:
Python numbers refused where torch takes only Tensors, isclose's tolerance checks."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error, weighted_gradients

torch = pytest.importorskip("torch")

TENSOR_ONLY = ("atan2", "fmax", "fmin", "ldexp", "logaddexp", "logical_and", "logical_or",
               "logical_xor", "lcm", "gcd", "hypot", "igamma", "igammac", "clamp_max",
               "clamp_min", "maximum", "nextafter", "eq", "fmod", "copysign")


@pytest.mark.parametrize("name", TENSOR_ONLY)
@pytest.mark.parametrize("left, right", [("t", 2), (2, "t"), (2, 3)])
def test_number_refused_where_torch_takes_tensors(name, left, right):
    def call(lib):
        t = lib.tensor([1, 2, 3])
        args = [t if a == "t" else a for a in (left, right)]
        return lambda: getattr(lib, name)(*args)
    t_call = call(torch)
    try:
        want = t_call()
    except TypeError:
        same_error(call(gradjit), t_call)
        return
    np.testing.assert_array_equal(call(gradjit)().numpy(), want.numpy())


@pytest.mark.parametrize("name", ("add", "sub", "mul", "div", "remainder", "xlogy",
                                  "bitwise_and"))
def test_number_taken_where_torch_takes_it(name):
    got = getattr(gradjit, name)(2, gradjit.tensor([1, 2, 3]))
    want = getattr(torch, name)(2, torch.tensor([1, 2, 3]))
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_allclose(got.numpy(), want.numpy())


@pytest.mark.parametrize("keyword", ("rtol", "atol"))
@pytest.mark.parametrize("name", ("isclose", "allclose"))
def test_negative_tolerance_refused(name, keyword):
    same_error(lambda: getattr(gradjit, name)(gradjit.ones(2), gradjit.ones(2), **{keyword: -0.4}),
               lambda: getattr(torch, name)(torch.ones(2), torch.ones(2), **{keyword: -0.4}))


@pytest.mark.parametrize("name", ("add", "sub", "mul", "div", "subtract", "multiply", "divide",
                                  "true_divide", "floor_divide", "remainder"))
@pytest.mark.parametrize("left, right", [(2, 3), (2.5, 1), (True, False), (2, -3.5)])
def test_two_numbers_as_torch_wraps_them(name, left, right):
    t_call = lambda: getattr(torch, name)(left, right)  # noqa: E731
    g_call = lambda: getattr(gradjit, name)(left, right)  # noqa: E731
    try:
        want = t_call()
    except (TypeError, RuntimeError):
        same_error(g_call, t_call)
        return
    got = g_call()
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("x, values, dtype", [
    ([-8, 0, 3], [6, 6, 6], "int64"), ([True, False], [True, True], "bool"),
    ([1, 0, 255], [7], "uint8"), ([-1.0, 0.0, float("nan"), 2.0], [0.5], "float32"),
    ([-0.0, 0.0, -3.0], [2.5, -1.0, 4.0], "float64")])
def test_heaviside_keeps_the_dtype(x, values, dtype):
    got = gradjit.heaviside(gradjit.tensor(x, dtype=getattr(gradjit, dtype)),
                            gradjit.tensor(values, dtype=getattr(gradjit, dtype)))
    want = torch.heaviside(torch.tensor(x, dtype=getattr(torch, dtype)),
                           torch.tensor(values, dtype=getattr(torch, dtype)))
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_heaviside_of_two_dtypes_refused():
    same_error(lambda: gradjit.heaviside(gradjit.tensor([1, 0]), gradjit.tensor([2.0, 3.0])),
               lambda: torch.heaviside(torch.tensor([1, 0]), torch.tensor([2.0, 3.0])))


@pytest.mark.parametrize("mode", ["trunc", "floor"])
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((3,), ())])
def test_rounded_division_has_a_zero_gradient(mode, shapes):
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s) * 4 for s in shapes]
    call = lambda t, x, y: t.div(x, y, rounding_mode=mode)  # noqa: E731
    got, got_grads = weighted_gradients(gradjit, call, arrays, np.float32)
    want, want_grads = weighted_gradients(torch, call, arrays, np.float32)
    assert got.requires_grad and str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    for g, w in zip(got_grads, want_grads):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
