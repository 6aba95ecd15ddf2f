"""Module forms of normalization, shuffle, distance and margin-loss functionals against
torch.nn with copied weights: reprs, values, and gradients of inputs and parameters."""
import numpy as np
import pytest

import gradjit
from gradjit import nn
from tests.nn.helpers import check_module, randn, same_error, torch

MODULES = [
    ("GroupNorm", (2, 4), [(3, 4, 5)]), ("GroupNorm", (1, 4, 1e-3, False), [(2, 4, 3, 3)]),
    ("GroupNorm", (2, 4), [(3, 4)]),
    ("InstanceNorm1d", (3,), [(2, 3, 6)]), ("InstanceNorm1d", (3,), [(3, 6)]),
    ("InstanceNorm2d", (3, 1e-5, 0.1, True, True), [(2, 3, 4, 4)]),
    ("RMSNorm", (5,), [(3, 5)]), ("RMSNorm", ((2, 5), 1e-4), [(3, 2, 5)]),
    ("PixelShuffle", (2,), [(1, 8, 3, 3)]), ("PixelUnshuffle", (2,), [(1, 2, 4, 6)]),
    ("ChannelShuffle", (2,), [(1, 4, 2, 2)]), ("CosineSimilarity", (), [(4, 5), (4, 5)]),
    ("PairwiseDistance", (1.0, 1e-6, True), [(4, 5), (4, 5)]),
    ("KLDivLoss", (None, None, "batchmean"), [(4, 5), (4, 5)]),
    ("MarginRankingLoss", (0.5,), [(6,), (6,), "sign"]),
    ("CosineEmbeddingLoss", (0.2,), [(4, 5), (4, 5), "sign"]),
    ("HingeEmbeddingLoss", (0.5,), [(6,), "sign"]),
    ("TripletMarginLoss", (1.0, 2.0), [(4, 5), (4, 5), (4, 5)]),
]


def _input(spec, seed):
    if spec == "sign":  # a target of +-1 per sample
        return np.where(randn(6, seed=seed) > 0, 1.0, -1.0).astype(np.float32)
    return randn(*spec, seed=seed)


@pytest.mark.parametrize("name, args, inputs", MODULES,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(MODULES)])
@pytest.mark.parametrize("training", [True, False])
def test_module_matches_torch(name, args, inputs, training):
    gm, tm = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(gm) == repr(tm)
    gm.train(training), tm.train(training)
    arrays = [_input(spec, seed) for seed, spec in enumerate(inputs)]
    if name == "CosineEmbeddingLoss":
        arrays[2] = arrays[2][:4]
    check_module(gm, tm, *arrays, rtol=1e-4, atol=1e-5)


def test_batchnorm_repr_shows_no_bias_without_affine():
    for make in (lambda L: L.nn.BatchNorm1d(3, affine=False),
                 lambda L: L.nn.LayerNorm(4, elementwise_affine=False),
                 lambda L: L.nn.GroupNorm(2, 4, bias=False),
                 lambda L: L.nn.InstanceNorm2d(3, affine=True, bias=False)):
        assert repr(make(gradjit)) == repr(make(torch))


def test_group_norm_channels_must_divide():
    same_error(lambda: nn.GroupNorm(3, 4), lambda: torch.nn.GroupNorm(3, 4))
    same_error(lambda: nn.InstanceNorm2d(3)(gradjit.ones(3, 3)),
               lambda: torch.nn.InstanceNorm2d(3)(torch.ones(3, 3)))


def _holders(lib):
    P = lib.nn.Parameter
    plist = lib.nn.ParameterList([P(lib.ones(2, 3)), P(lib.ones(3, dtype=lib.float64))])
    plist.append(lib.zeros(1))
    plist += [lib.ones(2)]
    pdict = lib.nn.ParameterDict({"b": P(lib.ones(2)), "a": lib.zeros(1)})
    pdict["c"] = lib.ones(3)
    pdict.update([("d", lib.ones(1))])
    model = lib.nn.Module()
    model.weights, model.named = plist, pdict
    return plist, pdict, model


def test_parameter_list_and_dict_match_torch():
    (gl, gd, gm), (tl, td, tm) = _holders(gradjit), _holders(torch)
    assert repr(gl) == repr(tl) and repr(gd) == repr(td) and repr(gm) == repr(tm)
    one = [lib.nn.ParameterList([lib.nn.Parameter(lib.ones(2))]) for lib in (gradjit, torch)]
    assert repr(one[0]) == repr(one[1])
    assert [n for n, _ in gm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert list(gd.keys()) == list(td.keys()) and len(gl) == len(tl) and "a" in gd
    assert type(gl[2]).__name__ == "Parameter" and gl[-1].requires_grad
    assert repr(gl[1:]) == repr(tl[1:])
    assert gd.pop("c").shape == (3,) and "c" not in gd
    (gl[0].sum() * 2 + gd["a"].sum()).backward()
    assert gl[0].grad.tolist() == [[2.0] * 3] * 2 and gd["a"].grad.tolist() == [1.0]
    assert gl.append("not a tensor")[-1] == tl.append("not a tensor")[-1]  # kept as it is
    same_error(lambda: gl[9], lambda: tl[9])
