"""relu, sign and a 0.5 power at nan, +-inf and -0.0 give what the library the user expects
gives: PyTorch 2.13 for Tensors (eager and compiled), numpy for traced numpy code."""
import numpy as np
import pytest
import torch

import gradjit
from tests.reliability.test_special_values import assert_same_special_values

VALUES = [np.nan, -np.inf, np.inf, -0.0, 0.0, -2.0, -1e-30, 1e-30, 0.25, 4.0]


def pair(dtype=torch.float32):
    return (torch.tensor(VALUES, dtype=dtype, requires_grad=True),
            gradjit.tensor(VALUES, dtype=getattr(gradjit, str(dtype).split(".")[1]),
                           requires_grad=True))


def same(got, want):
    assert_same_special_values(got.detach().numpy(), want.detach().numpy(), ulps=1)


@pytest.mark.parametrize("name,fn", [
    ("relu", lambda lib, x: lib.relu(x)),
    ("sign", lambda lib, x: lib.sign(x)),
    ("pow_half", lambda lib, x: x ** 0.5),
    ("torch_pow_half", lambda lib, x: lib.pow(x, 0.5)),
    ("sqrt", lambda lib, x: lib.sqrt(x)),
])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_eager_tensor_values_and_gradients_follow_torch(name, fn, dtype):
    want_x, got_x = pair(dtype)
    want, got = fn(torch, want_x), fn(gradjit, got_x)
    same(got, want)
    want.sum().backward()
    got.sum().backward()
    same(got_x.grad, want_x.grad)


@pytest.mark.parametrize("name", ["relu", "sign", "pow_half"])
def test_compiled_tensor_code_follows_torch(name):
    fns = {"relu": lambda x: x.relu() * 1.0, "sign": lambda x: x.sign() * 1.0,
           "pow_half": lambda x: x ** 0.5}
    want = fns[name](torch.tensor(VALUES))
    got = gradjit.jit(fns[name])(gradjit.tensor(VALUES))
    same(got, want)


def test_integer_tensor_to_half_power_is_a_float_square_root_as_torch():
    want = torch.tensor([4, 9, 0]) ** 0.5
    got = gradjit.tensor([4, 9, 0]) ** 0.5
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("fn", [lambda x: np.sign(x), lambda x: x ** 0.5,
                                lambda x: np.power(x, 0.5), lambda x: np.sqrt(x),
                                lambda x: np.power(x, np.float64(0.5))],
                         ids=["sign", "pow_operator", "power", "sqrt", "power_np_scalar"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_traced_numpy_follows_numpy(fn, dtype):
    x = np.array(VALUES, dtype)
    with np.errstate(all="ignore"):
        want = fn(x)
    got = np.asarray(gradjit.jit(fn)(x))
    assert_same_special_values(got, want, ulps=1)


def test_half_power_gradient_is_the_square_roots():
    x = np.array([0.25, 4.0, 9.0])
    got = gradjit.grad(lambda x: np.sum(x ** 0.5))(x)
    np.testing.assert_allclose(got, 0.5 / np.sqrt(x), rtol=1e-12)
