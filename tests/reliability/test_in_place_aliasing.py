"""In-place writes whose input shares memory with the written tensor, checked against
PyTorch: a partly overlapping input (x.add_(x.t()), x[1:] = x[:-1]) is refused, as are the
indexed writes' inputs that overlap at all; the same elements in the same layout, and copies
(flip, clone), are read as they are."""
import numpy as np
import pytest

import gradjit

torch = pytest.importorskip("torch")

INDEX = [0, 1, 2]


def _square(t):
    return t.arange(9.0).reshape(3, 3)


def _set(x, index, value):
    x[index] = value
    return x


WRITES = {
    "x.add_(x.t())": lambda t, x: x.add_(x.t()),
    "x += x.t()": lambda t, x: x.__iadd__(x.t()),
    "x.lerp_(ones, x.t())": lambda t, x: x.lerp_(t.ones(3, 3), x.t()),
    "x.clamp_(max=x.t())": lambda t, x: x.clamp_(max=x.t()),
    "x.eq_(x.t())": lambda t, x: x.eq_(x.t()),
    "x.addr_(x[0], x[1])": lambda t, x: x.addr_(x[0], x[1]),
    "x.copy_(x.t())": lambda t, x: x.copy_(x.t()),
    "x[1:].add_(x[:-1])": lambda t, x: x.view(-1)[1:].add_(x.view(-1)[:-1]),
    "x[1:] = x[:-1]": lambda t, x: _set(x.view(-1), slice(1, None), x.view(-1)[:-1]),
    "x[index] = x": lambda t, x: _set(x, t.tensor(INDEX), x),
    "x.index_add_(0, index, x)": lambda t, x: x.index_add_(0, t.tensor(INDEX), x),
    "x.index_copy_(0, index, x.t())": lambda t, x: x.index_copy_(0, t.tensor(INDEX), x.t()),
    "x.scatter_add_(0, index, x)": lambda t, x: x.scatter_add_(
        0, t.tensor([INDEX] * 3), x),
    "x.index_put_((index,), x)": lambda t, x: x.index_put_((t.tensor(INDEX),), x),
    "x.put_(index, x[0])": lambda t, x: x.put_(t.tensor(INDEX), x[0]),
}

READS = {
    "x.add_(x)": lambda t, x: x.add_(x),
    "x.mul_(x.view(3, 3))": lambda t, x: x.mul_(x.view(3, 3)),
    "x.add_(x.flip(0))": lambda t, x: x.add_(x.flip(0)),
    "x.add_(x.t().clone())": lambda t, x: x.add_(x.t().clone()),
    "x.eq_(x)": lambda t, x: x.eq_(x),
    "x[:3] = x[3:6]": lambda t, x: _set(x.view(-1), slice(0, 3), x.view(-1)[3:6]),
    "x.addmm_(x.t(), eye)": lambda t, x: x.addmm_(x.t().clone(), t.eye(3)),
}


@pytest.mark.parametrize("name", WRITES)
def test_overlapping_inputs_of_in_place_writes_are_refused(name):
    """They were read as numpy reads them (buffered), a result PyTorch does not give."""
    write = WRITES[name]
    with pytest.raises(RuntimeError) as theirs:
        write(torch, _square(torch))
    with pytest.raises(RuntimeError) as mine:
        write(gradjit, _square(gradjit))
    assert str(mine.value) == str(theirs.value)


@pytest.mark.parametrize("name", READS)
def test_inputs_pytorch_allows_give_its_result(name):
    write = READS[name]
    got, want = write(gradjit, _square(gradjit)), write(torch, _square(torch))
    assert np.array_equal(got.numpy(), want.numpy())
