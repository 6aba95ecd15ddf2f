"""Transposed convolutions and padding layers against torch.nn with copied weights: values,
gradients of inputs and parameters, reprs, output_size, and errors; the DCGAN generator of
PyTorch's tutorial end to end."""
import pytest

import gradjit
from gradjit import nn
from tests.nn.helpers import check, check_module, copy_weights, randn, same_error, torch

TRANSPOSED = [
    ("ConvTranspose2d", (4, 3, 3), dict(stride=2, padding=1, output_padding=1), (2, 4, 5, 6)),
    ("ConvTranspose2d", (6, 6, 4), dict(stride=2, padding=1, groups=3), (1, 6, 3, 3)),
    ("ConvTranspose2d", (3, 2, (3, 2)), dict(stride=(2, 3), padding=(2, 0), dilation=(2, 1),
                                            bias=False), (2, 3, 4, 4)),
    ("ConvTranspose1d", (5, 2, 3), dict(stride=3, padding=2, output_padding=2), (3, 5, 7)),
    ("ConvTranspose1d", (2, 4, 5), dict(), (2, 6)),
]


@pytest.mark.parametrize("name, args, options, shape", TRANSPOSED,
                         ids=[f"{t[0]}-{i}" for i, t in enumerate(TRANSPOSED)])
def test_transposed_convolution_matches_torch(name, args, options, shape):
    gm, tm = getattr(nn, name)(*args, **options), getattr(torch.nn, name)(*args, **options)
    assert repr(gm) == repr(tm)
    assert [(n, tuple(p.shape)) for n, p in gm.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    check_module(gm, tm, randn(*shape), rtol=1e-4, atol=1e-5)


def test_torch_level_forms_match_torch():
    x, w = randn(1, 2, 3, 3), randn(2, 1, 2, 2)
    check(lambda a: gradjit.conv_transpose2d(a, gradjit.tensor(w), stride=2),
          lambda a: torch.conv_transpose2d(a, torch.tensor(w), stride=2), x)
    check(lambda a: gradjit.conv_transpose1d(a, gradjit.tensor(w[..., 0]), padding=1),
          lambda a: torch.conv_transpose1d(a, torch.tensor(w[..., 0]), padding=1), x[..., 0])


def test_output_size_picks_the_output_padding():
    gm, tm = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1), \
        torch.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    x = randn(1, 3, 4, 4)
    copy_weights(gm, tm)
    out, _ = check(lambda t: gm(t, output_size=[8, 8]), lambda t: tm(t, output_size=[8, 8]), x)
    assert tuple(out.shape) == (1, 2, 8, 8)
    with pytest.raises(ValueError, match="requested an output size of"):
        gm(gradjit.tensor(x), output_size=[12, 12])


def test_dcgan_generator_matches_torch():
    def generator(lib):
        N = lib.nn
        return N.Sequential(
            N.ConvTranspose2d(16, 32, 4, 1, 0, bias=False), N.BatchNorm2d(32), N.ReLU(True),
            N.ConvTranspose2d(32, 16, 4, 2, 1, bias=False), N.BatchNorm2d(16), N.ReLU(True),
            N.ConvTranspose2d(16, 3, 4, 2, 1, bias=False), N.Tanh())
    torch.manual_seed(0)
    check_module(generator(gradjit), generator(torch), randn(2, 16, 1, 1), rtol=1e-4,
                 atol=1e-5)


PADDINGS = [("ZeroPad2d", (2,), 4), ("ZeroPad1d", ((1, 2),), 3),
            ("ConstantPad2d", (1, 3.5), 4), ("ConstantPad1d", ((1, 0), 2.0), 3),
            ("ReflectionPad2d", ((1, 1, 2, 0),), 4), ("ReflectionPad1d", (3,), 3),
            ("ReplicationPad2d", ((0, 1, 2, 3),), 4), ("ReplicationPad1d", (2,), 3),
            ("CircularPad2d", (1,), 4), ("CircularPad1d", ((2, 1),), 3)]


@pytest.mark.parametrize("name, args, rank", PADDINGS, ids=[p[0] for p in PADDINGS])
def test_padding_layers_match_torch(name, args, rank):
    gm, tm = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(gm) == repr(tm)
    check(gm, tm, randn(*(2, 3, 4, 5)[:rank]))


ERRORS = {
    "output-padding": lambda L: L.nn.functional.conv_transpose2d(
        L.ones(1, 2, 3, 3), L.ones(2, 2, 3, 3), stride=2, output_padding=2),
    "output-padding-1d": lambda L: L.nn.functional.conv_transpose1d(
        L.ones(1, 2, 3), L.ones(2, 2, 3), stride=2, output_padding=2),
    "channels": lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 3, 3, 3),
                                                           L.ones(2, 2, 3, 3)),
    "too-small": lambda L: L.nn.functional.conv_transpose2d(
        L.ones(1, 2, 3, 3), L.ones(2, 2, 3, 3), L.ones(2), padding=4),
    "kernel-larger": lambda L: L.nn.functional.conv2d(L.ones(1, 2, 3, 3), L.ones(1, 2, 4, 4)),
    "reflect-too-wide": lambda L: L.nn.ReflectionPad1d(3)(L.ones(1, 1, 3)),
    "reflect-too-wide-2d": lambda L: L.nn.functional.pad(L.ones(1, 2, 3, 3), (1, 3, 0, 0),
                                                         mode="reflect"),
    "circular-twice": lambda L: L.nn.CircularPad1d((5, 1))(L.ones(1, 1, 3)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


@pytest.mark.parametrize("name, args", [
    ("MaxPool1d", (3,)), ("MaxPool1d", (3, 2, 1, 1, False, True)), ("AvgPool1d", (2,)),
    ("AvgPool1d", (3, 1, 1, False, False))])
def test_one_dimensional_pooling_layers_match_torch(name, args):
    gm, tm = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(gm) == repr(tm)
    check(gm, tm, randn(2, 3, 8))
