"""Convolutions (plain and transposed, batched or not) record PyTorch's node names, as d2l's
transposed-convolution chapter prints them; values and gradients still match."""
import pytest
import torch

import gradjit

CASES = {
    "conv2d": lambda F, x, w, b: F.conv2d(x, w, b, padding=1),
    "conv2d_unbatched": lambda F, x, w, b: F.conv2d(x[0], w, b),
    "conv1d": lambda F, x, w, b: F.conv1d(x[:, :, 0], w[:, :, 0], b, stride=2),
    "conv_transpose2d": lambda F, x, w, b: F.conv_transpose2d(x, w.transpose(0, 1), b,
                                                              stride=2, padding=1),
    "conv_transpose2d_unbatched": lambda F, x, w, b: F.conv_transpose2d(x[0],
                                                                        w.transpose(0, 1)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_convolution_node_name_values_and_gradients(name):
    torch.manual_seed(0)
    data = [torch.randn(2, 2, 5, 5), torch.randn(3, 2, 3, 3), torch.randn(3)]
    results = []
    for lib in (torch, gradjit):
        x, w, b = (lib.tensor(d.numpy(), requires_grad=True) for d in data)
        out = CASES[name](lib.nn.functional, x, w, b)
        (out * out).sum().backward()
        results.append((type(out.grad_fn).__name__, out.detach().numpy(),
                        x.grad.numpy(), w.grad.numpy()))
    assert results[0][0] == results[1][0]
    for expected, got in zip(results[0][1:], results[1][1:]):
        assert got == pytest.approx(expected, rel=1e-4, abs=1e-4)


def test_conv_transpose_module_repr_shows_convolution_backward():
    texts = []
    for lib in (torch, gradjit):
        tconv = lib.nn.ConvTranspose2d(1, 1, kernel_size=2, stride=2, bias=False)
        tconv.weight.data = lib.tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
        texts.append(repr(tconv(lib.tensor([[[[0.0, 1.0], [2.0, 3.0]]]]))))
    assert texts[0] == texts[1]
