"""embedding and embedding_bag of torch.nn.functional against torch on the cases PyTorch's
operator database (op_db) samples: values, gradients and error types with messages."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("weight, indices", [
    (np.float32(1), np.array([[0, 1], [1, 0]])),
    (np.ones((1, 1, 1), np.float32), np.array([[0, 1], [1, 0]])),
    (np.ones((3, 2), np.float32), np.array([1.0])),
])
def test_embedding_errors(weight, indices):
    same_error(lambda: gradjit.nn.functional.embedding(gradjit.tensor(indices),
                                                       gradjit.tensor(weight)),
               lambda: torch.nn.functional.embedding(torch.tensor(indices), torch.tensor(weight)))


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_embedding_of_int32_and_int64_indices(dtype):
    weight = np.random.default_rng(0).standard_normal((5, 3))
    indices = np.array([[4, 0], [2, 2]], dtype)
    grads = []
    for lib in (torch, gradjit):
        w = lib.tensor(weight, requires_grad=True)
        out = lib.nn.functional.embedding(lib.tensor(indices), w, padding_idx=2)
        (out * lib.tensor(np.linspace(0.5, 1.5, 12).reshape(2, 2, 3))).sum().backward()
        grads.append((out.detach().numpy(), w.grad.numpy()))
    for t, g in zip(*grads):
        np.testing.assert_allclose(g, t)
