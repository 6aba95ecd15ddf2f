"""nn.DataParallel on a machine without GPUs calls the wrapped module, as PyTorch's does."""
import pytest
import torch

import gradjit


def test_data_parallel_repr_names_and_outputs_match_torch():
    out = []
    for lib in (torch, gradjit):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.ReLU(), lib.nn.Linear(3, 2))
        wrapped = lib.nn.DataParallel(net)
        x = lib.arange(8.0).reshape(2, 4)
        y = wrapped(x)
        y.sum().backward()
        out.append((repr(wrapped), repr(y), [n for n, _ in wrapped.named_parameters()],
                    wrapped.module is net, list(wrapped.state_dict()),
                    net[0].weight.grad.numpy()))
    assert out[0][:5] == out[1][:5]
    assert out[1][5] == pytest.approx(out[0][5])
