"""F.unfold / F.fold and their layers against torch: values, gradients, repr, errors."""
import pytest

import gradjit
from gradjit import nn
from gradjit.nn import functional as F
from tests.nn.helpers import check, check_module, randn, same_error, torch

OPTIONS = [
    {"kernel_size": 2}, {"kernel_size": (3, 2), "dilation": (1, 2), "padding": 1,
                         "stride": (2, 1)},
    {"kernel_size": 3, "stride": 2, "padding": 2}, {"kernel_size": (1, 3), "dilation": 2},
]


@pytest.mark.parametrize("kwargs", OPTIONS)
def test_unfold_and_fold_match_torch(kwargs):
    gm, tm = nn.Unfold(**kwargs), torch.nn.Unfold(**kwargs)
    assert repr(gm) == repr(tm)
    check_module(gm, tm, randn(2, 3, 7, 6))
    check_module(gm, tm, randn(3, 7, 6))
    cols = tm(torch.ones(1, 3, 7, 6)).shape
    gm, tm = nn.Fold((7, 6), **kwargs), torch.nn.Fold((7, 6), **kwargs)
    assert repr(gm) == repr(tm)
    check_module(gm, tm, randn(*cols))
    check_module(gm, tm, randn(*cols[1:]))


def test_fold_of_unfold_counts_overlaps():
    check(lambda x: F.fold(F.unfold(x, 3, padding=1), 5, 3, padding=1),
          lambda x: torch.nn.functional.fold(torch.nn.functional.unfold(x, 3, padding=1), 5, 3,
                                             padding=1), randn(1, 2, 5, 5))


def test_errors_match_torch():
    for shape, size in [((1, 5, 9), (4, 4)), ((1, 8, 10), (4, 4)), ((1, 2, 3, 4), (4, 4)),
                        ((1, 4, 1), (1, 1))]:
        same_error(lambda: F.fold(gradjit.ones(*shape), size, 2),
                   lambda: torch.nn.functional.fold(torch.ones(*shape), size, 2))
    same_error(lambda: F.unfold(gradjit.ones(1, 1, 2, 2), 3),
               lambda: torch.nn.functional.unfold(torch.ones(1, 1, 2, 2), 3))
