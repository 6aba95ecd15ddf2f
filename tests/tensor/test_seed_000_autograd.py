"""Tutorial 000 (autograd basics): every cell, with `import gradjit as torch`."""
import pytest

from tests.tensor.notebook import Notebook, skeleton


@pytest.fixture(scope="module")
def nb():
    return Notebook()


def test_tensor_cells(nb):
    nb.run("import torch")
    nb.run("x = torch.ones(2, 2 , requires_grad=True)")
    assert nb.run("x").shown == "tensor([[1., 1.],\n        [1., 1.]], requires_grad=True)"
    nb.run("y  = x + 2")
    assert nb.run("y").shown == "tensor([[3., 3.],\n        [3., 3.]], grad_fn=<AddBackward0>)"
    assert nb.run("y.grad_fn").shown.startswith("<AddBackward0 object at 0x")
    nb.run("z = y * y * 3")
    nb.run("out = z.mean()")
    z, out = nb.run("z, out ").value
    assert repr(z) == "tensor([[27., 27.],\n        [27., 27.]], grad_fn=<MulBackward0>)"
    assert repr(out) == "tensor(27., grad_fn=<MeanBackward0>)"


def test_requires_grad_cells(nb):
    nb.run("a = torch.rand(2, 2 )")
    nb.run("a = ((a*3)/(a-1))")
    assert nb.run("a.requires_grad").value is False
    shown = nb.run("a.requires_grad_(True)").shown  # random values: the layout must match
    assert skeleton(shown) == skeleton("tensor([[-3.6407e+02, -2.6150e+01],\n"
                                       "        [-2.8240e-01, -1.3064e+01]], "
                                       "requires_grad=True)")
    assert nb.run("a.requires_grad").value is True
    nb.run("b = (a*a).sum()")
    assert nb.run("b.grad_fn").shown.startswith("<SumBackward0 object at 0x")


def test_gradient_cells(nb):
    nb.run("out.backward()")
    assert nb.run("x.grad").shown == "tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])"
    nb.run("xx = torch.rand(3, requires_grad=True)")
    nb.run("yy = xx * 2 ")
    assert skeleton(nb.run("yy.data").shown) == skeleton("tensor([1.1649, 1.6380, 1.5737])")
    norm = nb.run("yy.data.norm()")
    assert skeleton(norm.shown) == "tensor(#)"
    assert abs(norm.value.item() - float((nb["yy"].data ** 2).sum().sqrt())) < 1e-5
    nb.run("while yy.data.norm() < 1000:\n    yy = yy*2")
    yy = nb.run("yy").value
    assert repr(yy).endswith("grad_fn=<MulBackward0>)") and yy.shape == (3,)
    factor = (yy / nb["xx"]).detach()
    assert float(yy.data.norm()) >= 1000 and float(factor[0]) == float(factor[1])
    nb.run("v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)")
    nb.run("yy.backward(v)")
    grad = nb.run("xx.grad").value
    scale = float(factor[0])  # 1024 in the tutorial's run; depends on the random start
    expected = nb.run("torch.tensor([0.1, 1.0, 0.0001])").value * scale
    assert grad.allclose(expected)
    if scale == 1024:
        assert repr(grad) == "tensor([1.0240e+02, 1.0240e+03, 1.0240e-01])"


def test_no_grad_cells(nb):
    assert skeleton(nb.run("xx").shown) == skeleton("tensor([0.5825, 0.8190, 0.7868], "
                                                    "requires_grad=True)")
    assert nb.run("xx.requires_grad").value is True
    assert nb.run("(xx**2).requires_grad").value is True
    assert nb.run("with torch.no_grad():\n    print((xx**2).requires_grad)").printed == "False\n"
