"""Factories and random draws given arguments PyTorch refuses: an empty range of integers, a
negative standard deviation, a negative size, more bytes than int64 counts, a fill value that
is not a number. They drew from a wrong range (randint(3, 3) gave 3s), ignored the sign, made
an empty tensor, or raised numpy's ValueError."""
import numpy as np
import pytest

import gradjit

torch = pytest.importorskip("torch")

REFUSED = {
    "randint(3, 3, (2,))": lambda t: t.randint(3, 3, (2,)),
    "randint(0, (2,))": lambda t: t.randint(0, (2,)),
    "randint(-1, (2,))": lambda t: t.randint(-1, (2,)),
    "randint(5, (2, -1))": lambda t: t.randint(5, (2, -1)),
    "randint_like(x, 5, 2)": lambda t: t.randint_like(t.zeros(2), 5, 2),
    "normal(0., -0.5, (3,))": lambda t: t.normal(0.0, -0.5, (3,)),
    "normal(zeros, -1.)": lambda t: t.normal(t.zeros(2), -1.0),
    "normal(zeros, -ones)": lambda t: t.normal(t.zeros(2), -t.ones(2)),
    "normal(0., -ones)": lambda t: t.normal(0.0, -t.ones(2)),
    "rand(-1)": lambda t: t.rand(-1),
    "randn(2, -1)": lambda t: t.randn(2, -1),
    "ones(2**31, 2**31)": lambda t: t.ones(2**31, 2**31),
    "empty(2**61, 4)": lambda t: t.empty(2**61, 4),
    "full((2**62,), 1.)": lambda t: t.full((2**62,), 1.0),
    "rand(2**62)": lambda t: t.rand(2**62),
    "full((2,), None)": lambda t: t.full((2,), None),
    "full((2,), 'a')": lambda t: t.full((2,), "a"),
    "full((2,), [1])": lambda t: t.full((2,), [1]),
    "full((2,), ones(2))": lambda t: t.full((2,), t.ones(2)),
    "full((2,), ones(1))": lambda t: t.full((2,), t.ones(1)),
}


@pytest.mark.parametrize("name", REFUSED)
def test_refused_as_pytorch_refuses_it(name):
    make = REFUSED[name]
    with pytest.raises(Exception) as theirs:
        make(torch)
    with pytest.raises(type(theirs.value)) as mine:
        make(gradjit)
    assert str(mine.value) == str(theirs.value)


@pytest.mark.parametrize("value", [3, True, 2.5])
@pytest.mark.parametrize("as_tensor", [False, True])
def test_full_of_a_number_or_a_0d_tensor(value, as_tensor):
    mine = gradjit.full((2,), gradjit.tensor(value) if as_tensor else value)
    theirs = torch.full((2,), torch.tensor(value) if as_tensor else value)
    assert mine.tolist() == theirs.tolist() and str(mine.dtype) == str(theirs.dtype)


@pytest.mark.parametrize("size", [True, (True, 2), 3.0, [2, 3.0], [2, np.bool_(False)]])
def test_sizes_that_are_not_integers_are_refused(size):
    """zeros(True) made one element and view([2, 3.0]) truncated the float, where PyTorch
    refuses both."""
    with pytest.raises(TypeError):
        torch.zeros(size)
    with pytest.raises(TypeError):
        gradjit.zeros(size)


@pytest.mark.parametrize("make", [lambda t: t.tensor(3), lambda t: np.int64(3),
                                  lambda t: (2, t.tensor(3)), lambda t: [np.int32(2), 3],
                                  lambda t: [2, True]])
def test_integer_scalars_are_sizes(make):
    """A 0-d integer tensor or a numpy integer as the one size was iterated (TypeError); a
    bool after the first size is PyTorch's 1."""
    size = make(gradjit)
    got = gradjit.zeros(size) if not isinstance(size, tuple) else gradjit.zeros(*size)
    size = make(torch)
    want = torch.zeros(size) if not isinstance(size, tuple) else torch.zeros(*size)
    assert tuple(got.shape) == tuple(want.shape)
