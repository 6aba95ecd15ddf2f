"""Tutorial 001 (autograd, printed with print()): every code block, `import gradjit as torch`."""
from tests.tensor.notebook import Notebook, skeleton


def test_autograd_tutorial():
    nb = Notebook()
    nb.run("import torch")
    cell = nb.run("x = torch.ones(2, 2, requires_grad=True)\nprint(x)")
    assert cell.printed == "tensor([[1., 1.],\n        [1., 1.]], requires_grad=True)\n"
    cell = nb.run("y = x + 2\nprint(y)")
    assert cell.printed == "tensor([[3., 3.],\n        [3., 3.]], grad_fn=<AddBackward0>)\n"
    assert nb.run("print(y.grad_fn)").printed.startswith("<AddBackward0 object at 0x")
    cell = nb.run("z = y * y * 3\nout = z.mean()\nprint(z, out)")
    assert cell.printed == ("tensor([[27., 27.],\n        [27., 27.]], grad_fn=<MulBackward0>) "
                            "tensor(27., grad_fn=<MeanBackward0>)\n")
    cell = nb.run("""
        a = torch.randn(2, 2)
        a = ((a * 3) / (a - 1))
        print(a.requires_grad)
        a.requires_grad_(True)
        print(a.requires_grad)
        b = (a * a).sum()
        print(b.grad_fn)
    """)
    lines = cell.printed.splitlines()
    assert lines[:2] == ["False", "True"] and lines[2].startswith("<SumBackward0 object at 0x")
    nb.run("out.backward()")
    assert nb.run("print(x.grad)").printed == ("tensor([[4.5000, 4.5000],\n"
                                                "        [4.5000, 4.5000]])\n")
    cell = nb.run("""
        x = torch.randn(3, requires_grad=True)
        y = x * 2
        while y.data.norm() < 1000:
            y = y * 2
        print(y)
    """)
    assert skeleton(cell.printed) == skeleton("tensor([-278.6740, 935.4016, 439.6572], "
                                              "grad_fn=<MulBackward0>)\n")
    scale = float((nb["y"] / nb["x"])[0])
    nb.run("v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)\ny.backward(v)")
    assert nb["x"].grad.allclose(nb["v"] * scale)
    if scale == 4096:
        assert nb.run("print(x.grad)").printed == "tensor([4.0960e+02, 4.0960e+03, 4.0960e-01])\n"
    cell = nb.run("""
        print(x.requires_grad)
        print((x ** 2).requires_grad)
        with torch.no_grad():
            print((x ** 2).requires_grad)
    """)
    assert cell.printed == "True\nTrue\nFalse\n"
