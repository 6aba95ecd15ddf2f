"""Tutorial 004 (autograd notes): every cell, `import gradjit as torch`."""
from tests.tensor.notebook import Notebook, skeleton


def test_autograd_notes():
    nb = Notebook()
    cell = nb.run("import torch\nx = torch.ones(2,2, requires_grad=True)\nprint(x)")
    assert cell.printed == "tensor([[1., 1.],\n        [1., 1.]], requires_grad=True)\n"
    three = "tensor([[3., 3.],\n        [3., 3.]], grad_fn=<{}>)\n"
    assert nb.run("y = x + 2\nprint(y)").printed == three.format("AddBackward0")
    assert nb.run("print(y.grad_fn)").printed.startswith("<AddBackward0 object at 0x")
    # The tutorial ran an old PyTorch that printed <TBackward>; PyTorch 2.x names the in-place
    # transpose t_() TBackward1, and so do we.
    cell = nb.run("print(y)\nprint(y.t_())")
    assert cell.printed == three.format("AddBackward0") + three.format("TBackward1")
    cell = nb.run("z = y * y * 3\nout = z.mean()\nprint(z, out)")
    assert cell.printed == ("tensor([[27., 27.],\n        [27., 27.]], grad_fn=<MulBackward0>) "
                            "tensor(27., grad_fn=<MeanBackward0>)\n")
    cell = nb.run("""
        a = torch.randn(2,2)
        a = ((a * 3) / (a - 1))
        print(a.requires_grad)
        a.requires_grad_(True)
        print(a.requires_grad)
        b = (a * a).sum()
        print(b)
        print(b.grad_fn)
    """)
    lines = cell.printed.splitlines()
    assert lines[:2] == ["False", "True"]
    assert skeleton(lines[2]) == skeleton("tensor(4.1259, grad_fn=<SumBackward0>)")
    assert lines[3].startswith("<SumBackward0 object at 0x")
    nb.run("out.backward()")
    assert nb.run("print(x.grad)").printed == ("tensor([[4.5000, 4.5000],\n"
                                                "        [4.5000, 4.5000]])\n")
    cell = nb.run("""
        x = torch.randn(3, requires_grad=True)
        y = x * 2
        while y.data.norm() < 1000:
            print(y.data.norm(), y)
            y = y * 2

        print(y)
    """)
    lines = cell.printed.splitlines()
    for line in lines[:-1]:
        assert skeleton(line) == skeleton("tensor(2.5964) tensor([ 2.4776, -0.6099, -0.4804], "
                                          "grad_fn=<MulBackward0>)")
    assert skeleton(lines[-1]) == skeleton("tensor([1268.5554, -312.2461, -245.9610], "
                                           "grad_fn=<MulBackward0>)")
    scale = float((nb["y"] / nb["x"])[0])
    assert scale == 2 ** len(lines)
    nb.run("v = torch.tensor([0.1, 1.0, 0.001], dtype=torch.float)\ny.backward(v)")
    assert nb["x"].grad.allclose(nb["v"] * scale)
    if scale == 1024:
        assert nb.run("print(x.grad)").printed == "tensor([ 102.4000, 1024.0000,    1.0240])\n"
    cell = nb.run("""
        print(x.requires_grad)
        print((x**2).requires_grad)

        with torch.no_grad():
            print((x**2).requires_grad)
    """)
    assert cell.printed == "True\nTrue\nFalse\n"
    cell = nb.run("""
        print(x.requires_grad)
        y = x.detach()
        print(y.requires_grad)
        print(x.eq(y).all())
    """)
    assert cell.printed == "True\nFalse\ntensor(True)\n"


def test_printed_jacobian_vector_product_at_scale_1024():
    """The tutorial's printed x.grad, for the scale its random start reached."""
    import gradjit as torch
    x = torch.tensor([0.3, -0.2, 0.1], requires_grad=True)
    y = x * 1024
    y.backward(torch.tensor([0.1, 1.0, 0.001], dtype=torch.float))
    assert repr(x.grad) == "tensor([ 102.4000, 1024.0000,    1.0240])"
