"""torch.quasirandom.SobolEngine against PyTorch 2.13: unscrambled and seeded scrambled points
equal torch's bit for bit (draw, draw_base2, fast_forward, reset), scrambled points are
stratified as Sobol' points are, and the errors and repr."""
import numpy as np
import pytest
import scipy.stats
import torch

import gradjit
from tests.torch_reference import same_error


def _engines(dimension, **options):
    return (gradjit.quasirandom.SobolEngine(dimension, **options),
            torch.quasirandom.SobolEngine(dimension, **options))


def _same(ours, theirs):
    assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == theirs.shape
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("dimension", [1, 2, 5, 40, 1111])
@pytest.mark.parametrize("dtype", [None, "float64"])
def test_unscrambled_points_equal_torchs(dimension, dtype):
    ours, theirs = _engines(dimension)
    for n in (1, 7, 24):
        _same(ours.draw(n, dtype=dtype and getattr(gradjit, dtype)),
              theirs.draw(n, dtype=dtype and getattr(torch, dtype)))


@pytest.mark.parametrize("seed", [0, 11])
def test_seeded_scrambled_points_equal_torchs(seed):
    ours, theirs = _engines(6, scramble=True, seed=seed)
    for step in (lambda e, L: e.draw(5), lambda e, L: e.draw(11, dtype=L.float64),
                 lambda e, L: e.fast_forward(9).draw(3), lambda e, L: e.reset().draw(4),
                 lambda e, L: e.reset().draw_base2(3)):
        _same(step(ours, gradjit), step(theirs, torch))


def test_scramble_without_seed_draws_on_the_default_generator():
    gradjit.manual_seed(3)
    torch.manual_seed(3)
    ours, theirs = _engines(4, scramble=True)
    _same(ours.draw(16), theirs.draw(16))
    _same(gradjit.rand(3), torch.rand(3))  # the scramble took the same draws


def test_scrambled_points_are_stratified_and_uniform():
    points = gradjit.quasirandom.SobolEngine(3, scramble=True, seed=2).draw_base2(10,
                                                                                 dtype=gradjit.float64)
    values = points.numpy()
    for column in values.T:  # one point in each of the 1024 intervals [k/1024, (k+1)/1024)
        assert sorted(np.floor(column * 1024).astype(int)) == list(range(1024))
        assert scipy.stats.kstest(column, "uniform").pvalue > 0.01


def test_out_argument():
    ours, theirs = _engines(3)
    out_ours, out_theirs = gradjit.empty(1), torch.empty(1)
    ours.draw(4, out=out_ours)
    theirs.draw(4, out=out_theirs)
    _same(out_ours, out_theirs)


@pytest.mark.parametrize("options", [{}, {"scramble": True}, {"scramble": True, "seed": 4}])
def test_repr(options):
    ours, theirs = _engines(3, **options)
    assert repr(ours) == repr(theirs)


def test_errors_match_torch():
    same_error(lambda: gradjit.quasirandom.SobolEngine(0),
               lambda: torch.quasirandom.SobolEngine(0))
    same_error(lambda: gradjit.quasirandom.SobolEngine(21202),
               lambda: torch.quasirandom.SobolEngine(21202))
    ours, theirs = _engines(2)
    ours.draw(3)
    theirs.draw(3)
    same_error(lambda: ours.draw_base2(2), lambda: theirs.draw_base2(2))


def test_without_scipy_the_missing_table_is_named(monkeypatch):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "scipy" else real(name, *a))
    with pytest.raises(ModuleNotFoundError, match="pip install scipy"):
        gradjit.quasirandom.SobolEngine(3)
