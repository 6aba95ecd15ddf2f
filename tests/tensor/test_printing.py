"""Printing follows PyTorch's formatter (expected strings are PyTorch 2.13's output)."""
import math

import pytest

import gradjit as torch

CASES = [
    (lambda: torch.tensor([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])"),
    (lambda: torch.tensor([1e10, 1]), "tensor([1.0000e+10, 1.0000e+00])"),
    (lambda: torch.tensor([math.nan, 1.5, math.inf]), "tensor([   nan, 1.5000,    inf])"),
    (lambda: torch.tensor([100.0, 1e5]), "tensor([   100., 100000.])"),
    (lambda: torch.tensor(3.0), "tensor(3.)"),
    (lambda: torch.tensor([-0.0, 2]), "tensor([-0., 2.])"),
    (lambda: torch.tensor([]), "tensor([])"),
    (lambda: torch.zeros(0, 3), "tensor([], size=(0, 3))"),
    (lambda: torch.tensor([], dtype=torch.long), "tensor([], dtype=torch.int64)"),
    (lambda: torch.ones(2, dtype=torch.int32), "tensor([1, 1], dtype=torch.int32)"),
    (lambda: torch.tensor([True, False]), "tensor([ True, False])"),
    (lambda: torch.tensor([[1, -200], [3, 4]]), "tensor([[   1, -200],\n        [   3,    4]])"),
    (lambda: torch.tensor(2.5, dtype=torch.float64), "tensor(2.5000, dtype=torch.float64)"),
    (lambda: torch.arange(2000.0),
     "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
     "        1.9990e+03])"),
    (lambda: torch.arange(1200).reshape(30, 40),
     "tensor([[   0,    1,    2,  ...,   37,   38,   39],\n"
     "        [  40,   41,   42,  ...,   77,   78,   79],\n"
     "        [  80,   81,   82,  ...,  117,  118,  119],\n"
     "        ...,\n"
     "        [1080, 1081, 1082,  ..., 1117, 1118, 1119],\n"
     "        [1120, 1121, 1122,  ..., 1157, 1158, 1159],\n"
     "        [1160, 1161, 1162,  ..., 1197, 1198, 1199]])"),
    (lambda: torch.ones(2, 30),
     "tensor([[1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1.,\n"
     "         1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1.],\n"
     "        [1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1.,\n"
     "         1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1.]])"),
    (lambda: torch.ones(2, 2, requires_grad=True) + 2,
     "tensor([[3., 3.],\n        [3., 3.]], grad_fn=<AddBackward0>)"),
    (lambda: torch.tensor([0.1, 1.0, 0.0001]) * 1024,
     "tensor([1.0240e+02, 1.0240e+03, 1.0240e-01])"),
]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_printed_like_pytorch(index):
    make, expected = CASES[index]
    assert repr(make()) == expected and str(make()) == expected


def test_print_options():
    try:
        torch.set_printoptions(precision=2)
        assert repr(torch.tensor([1.23456])) == "tensor([1.23])"
        torch.set_printoptions(sci_mode=True)
        assert repr(torch.tensor([1.5])) == "tensor([1.50e+00])"
    finally:
        torch.set_printoptions(profile="default")
    assert repr(torch.tensor([1.23456])) == "tensor([1.2346])"
