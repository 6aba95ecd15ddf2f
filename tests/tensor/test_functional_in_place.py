"""The torch namespace's in-place functions (torch.sin_(x), ...), randperm, and indexing with
a Python range, against PyTorch."""
import numpy as np
import pytest
import torch

import gradjit

ARGS = {"clamp_": (-0.5, 0.5), "clamp_max_": (0.2,), "clamp_min_": (0.1,), "clip_": (0.0, 0.3),
        "fill_": (2.5,), "xlogy_": (2.0,), "threshold_": (0.4, -1.0),
        "addmv_": lambda lib: (lib.ones(3, 2, dtype=lib.float64),
                               lib.tensor([0.5, 2.0], dtype=lib.float64)),
        "ldexp_": lambda lib: (lib.tensor([1, -2, 3]),),
        "index_put_": lambda lib: ((lib.tensor([2, 0, 2]),),
                                   lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64), True),
        "as_strided_": ((2,), (1,), 1), "resize_as_": lambda lib: (lib.zeros(2),),
        **{n: (0.5, False) for n in ("dropout_", "alpha_dropout_", "feature_dropout_",
                                     "feature_alpha_dropout_")}}
# Functions of a weight matrix: (x, args) per library.
MATRICES = {"embedding_renorm_": lambda lib: (
    lib.tensor([[0.1, 0.45], [0.8, 2.0]], dtype=lib.float64), (lib.tensor([1]), 1.0, 2.0))}
INTEGER = {"gcd_", "lcm_"}
NAMES = [n for n in dir(torch) if n.endswith("_") and not n.startswith("_") and
         hasattr(gradjit, n)]


def test_the_in_place_functions_tutorials_use_exist():
    for name in ("abs_", "sin_", "exp_", "sqrt_", "clamp_", "zero_", "fill_", "sigmoid_"):
        assert name in NAMES


@pytest.mark.parametrize("name", NAMES)
def test_writes_into_its_argument_like_pytorch(name):
    def run(lib):
        if name in INTEGER:
            x, args = lib.tensor([4, 6, 9]), (lib.tensor([6, 4, 3]),)
        elif name in MATRICES:
            x, args = MATRICES[name](lib)
        else:
            x, args = lib.tensor([0.1, 0.45, 0.8], dtype=lib.float64), ARGS.get(name, ())
            args = args(lib) if callable(args) else args
        out = getattr(lib, name)(x, *args)
        return out is x, x.numpy().copy()
    (same, ours), (their_same, theirs) = run(gradjit), run(torch)
    assert same == their_same
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_randperm_is_a_permutation_with_pytorch_dtypes():
    gradjit.manual_seed(0)
    p = gradjit.randperm(50)
    assert p.dtype == gradjit.int64 and sorted(p.tolist()) == list(range(50))
    assert p.tolist() != list(range(50))
    assert str(gradjit.randperm(3, dtype=gradjit.float32).dtype) == "torch.float32"
    assert gradjit.randperm(0).shape == torch.randperm(0).shape


def test_indexing_with_a_range_matches_pytorch():
    def run(lib):
        x = lib.arange(24.0).reshape(4, 6)
        return x[range(1, 3)], x[:, range(0, 6, 2)], x[range(3), range(3)]
    for a, t in zip(run(gradjit), run(torch)):
        np.testing.assert_array_equal(a.numpy(), t.numpy())
