"""Python lists as indices and as tensor data, read as PyTorch reads them: floats in a list
index truncated to long, a short list holding sequences taken as a tuple (with PyTorch's
warning), and PyTorch's errors for data it cannot infer a dtype of."""
import warnings

import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

INDICES = {
    "float": [1.0],
    "floats": [1.0, 0.0],
    "truncated": [1, 1.5, -1.7],
    "bool-and-float": [True, 1.0],
    "bools": [True, False],
    "tuple-of-floats": ([0.0], [1.0]),
    "slice-and-floats": (slice(None), [2.9, 0.1]),
}
AS_TUPLE = {
    "nested-float": [[1.0]],
    "nested-int": [[1, 0], [0, 1]],
    "ragged": [[1.0], [0, 1]],
    "slice": [slice(None), 1],
    "none": [None, 1],
}


def _both(index):
    data = np.arange(6.0).reshape(2, 3)
    t, g = torch.tensor(data, requires_grad=True), gradjit.tensor(data, requires_grad=True)
    return t, g, t[index], g[index]


@pytest.mark.parametrize("name", sorted(INDICES))
def test_list_indices_read_as_pytorch(name):
    t, g, want, got = _both(INDICES[name])
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    weights = np.random.default_rng(0).uniform(size=tuple(want.shape))
    (want * torch.tensor(weights)).sum().backward()
    (got * gradjit.tensor(weights)).sum().backward()
    np.testing.assert_array_equal(g.grad.numpy(), t.grad.numpy())


@pytest.mark.parametrize("name", sorted(AS_TUPLE))
def test_a_list_holding_sequences_is_a_tuple_with_pytorchs_warning(name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, _, want, got = _both(AS_TUPLE[name])
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    messages = [str(w.message) for w in caught if w.category is UserWarning]
    assert len(messages) == 2
    assert messages[0].startswith(messages[1])  # PyTorch's adds where it was triggered
    assert caught[1].filename == __file__


def test_float_list_assignment():
    t, g = torch.zeros(4), gradjit.zeros(4)
    t[[1.0, 3.5]] = 2.0
    g[[1.0, 3.5]] = 2.0
    np.testing.assert_array_equal(g.numpy(), t.numpy())


@pytest.mark.parametrize("data", [{1, 2}, {1: 2}, {}, set(), frozenset([1]), [{1}], None,
                                  [None], object(), "abc", [1, "a"], b"x"],
                         ids=repr)
def test_tensor_of_data_without_a_dtype_raises_pytorchs_error(data):
    same_error(lambda: gradjit.tensor(data), lambda: torch.tensor(data))


def test_an_ops_argument_without_a_dtype_is_a_type_error():
    with pytest.raises(TypeError):
        torch.add(torch.ones(2), None)
    with pytest.raises(TypeError, match="Could not infer dtype of NoneType"):
        gradjit.add(gradjit.ones(2), None)
