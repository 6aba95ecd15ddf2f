"""Tensor methods from PyTorch's index (frac, sgn, fix, ldexp, isposinf, logical_xor, the
comparison aliases, in-place comparisons, torch.selu/hardshrink/...) printed the same as
PyTorch's, grad_fn and gradients included."""
import math

import pytest

import gradjit

torch = pytest.importorskip("torch")

DATA = [-1.5, 0.0, 2.7, -0.25, math.nan, math.inf, -math.inf]


def both(fn):
    """The printed results (and gradients) of fn(lib, x) for gradjit and torch."""
    out = []
    for lib in (gradjit, torch):
        x = lib.tensor(DATA, requires_grad=True)
        y = fn(lib, x)
        text = repr(y)
        if getattr(y, "grad_fn", None) is not None:
            (g,) = lib.autograd.grad(y.sum(), x, allow_unused=True)
            text += repr(g)
        out.append(text)
    return out


@pytest.mark.parametrize("call", [
    lambda lib, x: x.frac(), lambda lib, x: x.sgn(), lambda lib, x: x.fix(),
    lambda lib, x: x.positive(), lambda lib, x: x.isposinf(), lambda lib, x: x.isneginf(),
    lambda lib, x: x.isreal(), lambda lib, x: x.ldexp(lib.tensor([1, 2, 3, 4, 1, 1, 0])),
    lambda lib, x: lib.ldexp(lib.tensor([1, 2]), lib.tensor([3, -1])),
    lambda lib, x: x.logical_xor(lib.tensor([1, 0, 0, 1, 0, 1, 0])),
    lambda lib, x: x.greater(0), lambda lib, x: x.less_equal(0),
    lambda lib, x: x.not_equal(0), lambda lib, x: lib.frac(x), lambda lib, x: lib.sgn(x),
    lambda lib, x: x.detach().clone().eq_(0), lambda lib, x: x.detach().clone().gt_(0),
    lambda lib, x: x.detach().clone().logical_xor_(lib.tensor(1.0)),
    lambda lib, x: (x * 1).frac_(), lambda lib, x: (x * 1).multiply_(2),
    lambda lib, x: x.hardshrink(1.0), lambda lib, x: lib.hardshrink(x, 2.0),
    lambda lib, x: lib.selu(x), lambda lib, x: lib.celu(x, 0.5), lambda lib, x: lib.rrelu(x),
    lambda lib, x: lib.threshold(x, 0.1, 5.0), lambda lib, x: lib.selu_(x * 1),
    lambda lib, x: lib.threshold_(x * 1, 0.0, -1.0),
    lambda lib, x: x.prelu(lib.tensor([0.25])),
    lambda lib, x: (x.is_signed(), x.is_complex(), x.ndimension(), x.nbytes, x.itemsize),
])
def test_method_prints_as_torch(call):
    mine, theirs = both(call)
    assert mine == theirs
