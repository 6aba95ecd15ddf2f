"""Tutorial 003 (d2l automatic differentiation): every cell, `import gradjit as torch`."""
import pytest

from tests.tensor.notebook import Notebook


@pytest.fixture(scope="module")
def nb():
    return Notebook()


def test_simple_example(nb):
    assert nb.run("import torch\nx = torch.arange(4.0)\nx").shown == "tensor([0., 1., 2., 3.])"
    assert nb.run("x.requires_grad_(True)\nx.grad").value is None
    assert nb.run("y = 2*torch.dot(x,x)\ny").shown == "tensor(28., grad_fn=<MulBackward0>)"
    assert nb.run("y.backward()\nx.grad").shown == "tensor([ 0.,  4.,  8., 12.])"
    assert nb.run("x.grad == 4*x").shown == "tensor([True, True, True, True])"
    cell = nb.run("x.grad.zero_()\ny = x.sum()\ny.backward()\nx.grad")
    assert cell.shown == "tensor([1., 1., 1., 1.])"


def test_non_scalar_and_detach(nb):
    cell = nb.run("x.grad.zero_()\ny = x*x\ny.sum().backward()\nx.grad")
    assert cell.shown == "tensor([0., 2., 4., 6.])"
    cell = nb.run("x.grad.zero_()\ny = x*x\nu = y.detach()\nz = u*x\nz.sum().backward()\n"
                  "x.grad == u")
    assert cell.shown == "tensor([True, True, True, True])"
    cell = nb.run("x.grad.zero_()\ny.sum().backward()\nx.grad ==2*x")
    assert cell.shown == "tensor([True, True, True, True])"


def test_control_flow(nb):
    nb.run("""
        def f(a):
            b = a*2
            while b.norm() < 1000:
                b = b*2
            if b.sum()>0:
                c = b
            else:
                c = 100*b
            return c
    """)
    nb.run("a = torch.randn(size=(),requires_grad=True)\nd = f(a)\nd.backward()")
    assert nb.run("a.grad == d/a").shown == "tensor(True)"
