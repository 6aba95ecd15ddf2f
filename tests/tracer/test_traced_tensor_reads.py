"""What eager-style code reads off a Tensor whose value is being traced: tolist gives traced
numbers, torch.tensor copies without history, printing names the traced type, and reading
memory (numpy, data_ptr) raises the tracer's error naming the line."""
import numpy as np
import pytest

import gradjit

T = gradjit.tensor([1.0, 2.0, 3.0])


def test_tolist_gives_traced_numbers_that_keep_gradients():
    grad = gradjit.grad(lambda t: sum(v * v for v in t.tolist()))(T)
    np.testing.assert_allclose(grad.numpy(), 2 * T.numpy())


def test_torch_tensor_of_a_traced_tensor_is_a_copy_without_history():
    grad = gradjit.grad(
        lambda t: gradjit.tensor(t, dtype=gradjit.float64).pow(2).sum() + t.sum())(T)
    np.testing.assert_array_equal(grad.numpy(), np.ones(3))  # torch.tensor(t) is detached
    got = gradjit.jit(lambda t: gradjit.tensor([t[0], t[2]]) * 2)(T)
    np.testing.assert_array_equal(got.numpy(), [2.0, 6.0])


def test_printing_names_the_traced_type(capsys):
    gradjit.jit(lambda t: (print(t), t * 1)[1])(T)
    assert "tensor(<traced f32[3]>, dtype=torch.float32)" in capsys.readouterr().out


@pytest.mark.parametrize("read", [lambda t: t.numpy(), lambda t: t.data_ptr()])
def test_reading_memory_raises_naming_the_line(read):
    with pytest.raises(TypeError, match="was converted to a numpy array at .*test_traced_tensor"):
        gradjit.jit(read)(T)
