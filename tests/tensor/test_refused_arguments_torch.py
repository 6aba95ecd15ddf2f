"""Arguments torch refuses beyond types: bool subtraction, float indices, many-element
conversions to Python numbers, float bounds of an integer clamp_, grad() of no inputs, saved
tensors modified in place; the same error type and words as torch."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error


def _b(lib):
    return lib.tensor([True, False])


def _modified_after_clone(lib):
    """x is saved by pow as an input; mul_ gives it a new grad_fn, which torch names."""
    x = lib.ones(2, requires_grad=True).clone()
    y = x.pow(2)
    x.mul_(3)
    y.sum().backward()


def _modified_output(lib):
    y = lib.ones(2, requires_grad=True).tanh()
    y.zero_()
    y.sum().backward()


def _modified_detached_leaf(lib):
    x = lib.ones(2, requires_grad=True)
    y = x ** 2
    x.detach().add_(1)
    y.sum().backward()


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
    "int.clamp_(float)": lambda lib: lib.tensor([1, 2]).clamp_(0.5),
    "int.clamp_min_(float)": lambda lib: lib.tensor([1, 2]).clamp_min_(0.5),
    "int.clamp_(max=float)": lambda lib: lib.tensor([1, 2]).clamp_(max=0.5),
    "grad-no-inputs": lambda lib: lib.autograd.grad(lib.ones(1, requires_grad=True).sum(), []),
    "modified-after-clone": _modified_after_clone,
    "modified-output": _modified_output,
    "modified-detached-leaf": _modified_detached_leaf,
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
