"""expand is a view as in PyTorch 2.13: stride 0 along the expanded dimensions, the base's
writes show through it, and in-place operations on it are refused as overlapping."""
import pytest
import torch as real

import gradjit
from tests.torch_reference import same_error

EXPANSIONS = {
    "rows": lambda t: t.tensor([1.0, 2.0]).expand(3, 2),
    "columns": lambda t: t.tensor([[1.0], [2.0]]).expand(2, 3),
    "scalar": lambda t: t.tensor(1.0).expand(3),
    "same_shape": lambda t: t.tensor([1.0, 2.0]).expand(2),
    "minus_one": lambda t: t.ones(2, 1).expand(-1, 4),
    "transposed": lambda t: t.tensor([1.0, 2.0]).expand(2, 2).t(),
    "expand_as": lambda t: t.tensor([1.0, 2.0]).expand_as(t.zeros(3, 2)),
    "broadcast_to": lambda t: t.tensor([1.0, 2.0]).broadcast_to((3, 2)),
}


@pytest.mark.parametrize("name", sorted(EXPANSIONS))
def test_strides_and_contiguity_match_torch(name):
    ours, theirs = EXPANSIONS[name](gradjit), EXPANSIONS[name](real)
    assert ours.stride() == theirs.stride()
    assert ours.is_contiguous() == theirs.is_contiguous()
    assert ours.contiguous().stride() == theirs.contiguous().stride()
    assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("op", ["add_", "mul_", "copy_", "exp_"])
def test_in_place_on_an_expanded_tensor_is_refused(op):
    def write(t):
        e = t.tensor([1.0, 2.0]).expand(3, 2)
        getattr(e, op)(*{"add_": (1.0,), "mul_": (2.0,), "copy_": (t.ones(3, 2),)}.get(op, ()))
    same_error(lambda: write(gradjit), lambda: write(real))


@pytest.mark.parametrize("op", ["zero_", "fill_"])
def test_filling_an_expanded_tensor_fills_its_base(op):
    seen = []
    for t in (real, gradjit):
        base = t.tensor([1.0, 2.0])
        getattr(base.expand(3, 2), op)(*((3.0,) if op == "fill_" else ()))
        seen.append(base.tolist())
    assert seen[1] == seen[0]


def test_writes_to_the_base_show_through_the_expansion():
    seen = []
    for t in (real, gradjit):
        base = t.tensor([1.0, 2.0])
        e = base.expand(3, 2)
        base[0] = 5.0
        base.mul_(2)
        seen.append(e.tolist())
    assert seen[1] == seen[0]


def test_an_expansion_still_differentiates_like_torch():
    grads = []
    for t in (real, gradjit):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        (x.expand(3, 2) * t.arange(6.0).view(3, 2)).sum().backward()
        grads.append(x.grad.tolist())
    assert grads[1] == grads[0]
