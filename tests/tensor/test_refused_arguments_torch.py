"""Arguments torch refuses beyond types: bool subtraction, float indices, many-element
conversions to Python numbers; the same error type and words as torch."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error


def _b(lib):
    return lib.tensor([True, False])


CALLS = {
    "bool-minus-bool": lambda lib: _b(lib) - _b(lib),
    "bool.sub(bool)": lambda lib: _b(lib).sub(_b(lib)),
    "torch.sub(bool,bool)": lambda lib: lib.sub(_b(lib), _b(lib)),
    "bool.sub_(bool)": lambda lib: _b(lib).sub_(_b(lib)),
    "bool-minus-1": lambda lib: _b(lib) - 1,
    "1-minus-bool": lambda lib: 1 - _b(lib),
    "float-minus-True": lambda lib: lib.ones(2) - True,
    "float.sub(bool,alpha)": lambda lib: lib.ones(2).sub(_b(lib), alpha=2),
    "rsub(bool,1)": lambda lib: lib.rsub(_b(lib), 1),
    "index-float": lambda lib: lib.ones(2)[1.0],
    "index-tuple-float": lambda lib: lib.ones(2, 2)[0, 1.0],
    "index-None-float": lambda lib: lib.ones(2, 2)[None, 1.5],
    "setitem-float": lambda lib: lib.ones(2).__setitem__(1.0, 3),
    "index-float-tensor": lambda lib: lib.ones(2)[lib.tensor([1.0])],
    "float(many)": lambda lib: float(lib.ones(2)),
    "int(many)": lambda lib: int(lib.ones(2)),
    "int(empty)": lambda lib: int(lib.ones(0)),
}


@pytest.mark.parametrize("name", CALLS)
def test_refused_as_torch_does(name):
    same_error(lambda: CALLS[name](gradjit), lambda: CALLS[name](torch))


def test_what_torch_takes_still_works():
    for lib in (gradjit, torch):
        a = lib.tensor([1.0, 2.0, 3.0])
        assert float(a[1]) == 2.0 and int(a[2]) == 3
        np.testing.assert_array_equal((a - 1).numpy(), [0, 1, 2])
        np.testing.assert_array_equal(a[lib.tensor([0, 2])].numpy(), [1, 3])
        np.testing.assert_array_equal(a[lib.tensor([True, False, True])].numpy(), [1, 3])
        np.testing.assert_array_equal((_b(lib) ^ _b(lib)).numpy(), [False, False])
