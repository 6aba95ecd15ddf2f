"""np.einsum's dtype=, out=, casting= and order= on traced values and eager Tensors: operands
and result cast as numpy casts them, out written in place; numpy's errors."""
import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import check_eager, check_grad, check_values
from tests.torch_reference import message

rng = np.random.default_rng(6)
A = rng.standard_normal((2, 3))
I32 = rng.integers(-4, 5, (2, 3)).astype(np.int32)


def _into_out(a, i):
    out = a[:, 0] * 0.0
    returned = np.einsum("ij,ij->i", a, i, out=out)
    return out * 2.0 + returned  # out was written and returned


def _into_float32_out(a, i):
    out = np.astype(a[:, 0] * 0.0, np.float32)
    np.einsum("ij->i", a, out=out, casting="unsafe")
    return out


CASES = {
    "dtype-same-kind": lambda a, i: np.einsum("ij->i", a, dtype=np.float32, casting="same_kind"),
    "dtype-mixed": lambda a, i: np.einsum("ij,ij->i", i, a, dtype=np.float32,
                                          casting="same_kind"),
    "dtype-safe-widening": lambda a, i: np.einsum("ij,kj->ik", i, i, dtype=np.float64),
    "dtype-interleaved": lambda a, i: np.einsum(i, [0, 1], a, [0, 1], [0], dtype=np.float64),
    "dtype-unsafe-int": lambda a, i: np.einsum("ij->j", a * 3, dtype=np.int64,
                                               casting="unsafe"),
    "order": lambda a, i: np.einsum("ij->ji", a, order="F"),
    "out": _into_out,
    "out-float32": _into_float32_out,
}


@pytest.mark.parametrize("name", CASES)
def test_einsum_options_values(name):
    check_values(CASES[name], A, I32, backends=("cpu",), rtol=1e-6)
    check_eager(CASES[name], A, I32, rtol=1e-6)


@pytest.mark.parametrize("name", ["dtype-interleaved", "order", "out"])
def test_einsum_options_gradients(name):
    check_grad(lambda a: CASES[name](a, I32), A, backends=("cpu",))


@pytest.mark.parametrize("call, error", [
    (lambda a: np.einsum("ij->i", a, dtype=np.float32), TypeError),
    (lambda a: np.einsum("ij->i", a, dtype=np.int32, casting="same_kind"), TypeError),
    (lambda a: np.einsum("ij->i", a, out=np.astype(a[0, :2] * 0, np.float32)), TypeError),
    (lambda a: np.einsum("ij->i", a, out=a[0] * 1.0), ValueError),
    (lambda a: np.einsum("ij->i", a, order="X"), ValueError),
    (lambda a: np.einsum("ij->i", a, casting="x"), ValueError),
], ids=["dtype-safe", "dtype-same-kind", "out-safe", "out-shape", "order", "casting"])
def test_einsum_option_errors_as_numpy(call, error):
    with pytest.raises(error) as want:
        call(A)
    with pytest.raises(error) as got:
        gradjit.jit(call)(A)
    assert message(got.value) == str(want.value)


def test_einsum_into_a_numpy_array_is_refused():
    out = np.zeros(2)  # made outside the function: numpy's own array
    with pytest.raises(TypeError, match="numpy array"):
        gradjit.jit(lambda a: np.einsum("ij->i", a, out=out))(A)
