"""Matrix products of bool tensors, which PyTorch's CPU kernels are not built for: they
multiplied as numpy does (a logical or of ands) where PyTorch raises NotImplementedError
naming its kernel. Integer products stay allowed."""
import pytest

import gradjit

torch = pytest.importorskip("torch")


def _bools(t):
    return t.tensor([[True, False], [True, True]])


PRODUCTS = {
    "m @ m": lambda t, b: b @ b,
    "v @ v": lambda t, b: b[0] @ b[0],
    "m @ v": lambda t, b: b @ b[0],
    "v @ m": lambda t, b: b[0] @ b,
    "batch @ batch": lambda t, b: b[None] @ b[None],
    "batch @ m": lambda t, b: b.expand(3, 2, 2) @ b,
    "mm": lambda t, b: t.mm(b, b),
    "mv": lambda t, b: t.mv(b, b[0]),
    "dot": lambda t, b: t.dot(b[0], b[0]),
    "bmm": lambda t, b: t.bmm(b[None], b[None]),
    "addmm": lambda t, b: t.addmm(b, b, b),
    "addmv": lambda t, b: t.addmv(b[0], b, b[0]),
    "addbmm": lambda t, b: t.addbmm(b, b[None], b[None]),
    "baddbmm": lambda t, b: t.baddbmm(b[None], b[None], b[None]),
    "linear": lambda t, b: t.nn.functional.linear(b, b),
    "einsum": lambda t, b: t.einsum("ij,jk->ik", b, b),
}


@pytest.mark.parametrize("name", PRODUCTS)
def test_bool_products_are_refused_as_pytorch_refuses_them(name):
    product = PRODUCTS[name]
    with pytest.raises(NotImplementedError) as theirs:
        product(torch, _bools(torch))
    with pytest.raises(NotImplementedError) as mine:
        product(gradjit, _bools(gradjit))
    assert str(mine.value) == str(theirs.value)


@pytest.mark.parametrize("name", ["m @ m", "v @ v", "m @ v", "batch @ m", "addmm"])
def test_integer_products_are_pytorchs(name):
    product = PRODUCTS[name]
    got = product(gradjit, _bools(gradjit).long() + 2)
    want = product(torch, _bools(torch).long() + 2)
    assert got.tolist() == want.tolist() and str(got.dtype) == str(want.dtype)
