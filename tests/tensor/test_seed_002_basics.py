"""Tutorial 002 (data operations and autograd): every cell, `import gradjit as torch`."""
import numpy as np
import pytest

from tests.tensor.notebook import Notebook, skeleton

X_PRINTED = ("tensor([[ 0,  1,  2,  3],\n"
             "        [ 4,  5,  6,  7],\n"
             "        [ 8,  9, 10, 11]])")
SUM_PRINTED = ("tensor([[ 2,  2,  6,  6],\n"
               "        [ 5,  7,  9, 11],\n"
               "        [12, 12, 12, 12]])")
ALL_TRUE = ("tensor([[True, True, True, True],\n"
            "        [True, True, True, True],\n"
            "        [True, True, True, True]])")


@pytest.fixture(scope="module")
def nb():
    return Notebook()


def test_creation(nb):
    assert isinstance(nb.run("import torch\ntorch.__version__").value, str)
    cell = nb.run("x = torch.arange(12)\nprint(type(x))\nx")
    assert cell.printed == "<class 'gradjit.Tensor'>\n"  # the tutorial's torch.Tensor
    assert cell.shown == "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11])"
    assert nb.run("x.shape").shown == "torch.Size([12])"
    assert nb.run("x.size()").shown == "torch.Size([12])"
    cell = nb.run("X = x.reshape((-1, 4))\nprint(X.shape)\nX")
    assert cell.printed == "torch.Size([3, 4])\n" and cell.shown == X_PRINTED
    assert nb.run("torch.zeros((2, 3, 4))").shown == (
        "tensor([[[0., 0., 0., 0.],\n         [0., 0., 0., 0.],\n         [0., 0., 0., 0.]],\n\n"
        "        [[0., 0., 0., 0.],\n         [0., 0., 0., 0.],\n         [0., 0., 0., 0.]]])")
    assert nb.run("torch.ones((3, 4))").shown == (
        "tensor([[1., 1., 1., 1.],\n        [1., 1., 1., 1.],\n        [1., 1., 1., 1.]])")
    empty = nb.run("torch.empty(5, 3)").value
    assert empty.shape == (5, 3) and empty.dtype is nb["torch"].float32
    cell = nb.run("print(torch.zeros(2, 3).dtype)\n"
                  "tensor_zeros_int = torch.zeros(2, 3, dtype=torch.long)\n"
                  "print(tensor_zeros_int.dtype)")
    assert cell.printed == "torch.float32\ntorch.int64\n"


def test_random_and_data(nb):
    assert skeleton(nb.run("torch.randn(3,4)").shown) == skeleton(
        "tensor([[-0.7534, -1.2917, -0.1485, -0.9819],\n"
        "        [-0.7884, -0.0641, -1.5173, -1.4442],\n"
        "        [-1.8179,  0.0217, -0.1954, -0.6445]])")
    uniform = nb.run("torch.rand(5, 3)").value
    assert uniform.shape == (5, 3) and bool(((uniform >= 0) & (uniform < 1)).all())
    assert nb.run("Y = torch.tensor([[2, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])\nY").shown == (
        "tensor([[2, 1, 4, 3],\n        [1, 2, 3, 4],\n        [4, 3, 2, 1]])")
    cell = nb.run("""
        x = torch.tensor([5.5, 3], dtype=torch.double)
        print(x.dtype)
        x = x.new_ones(5, 3)      # new_* methods take in sizes
        print(x)
        x = torch.randn_like(x, dtype=torch.float)    # override dtype!
        print(x)
    """)
    lines = cell.printed.split("\n", 6)
    assert lines[0] == "torch.float64"
    assert "\n".join(lines[1:6]) == (
        "tensor([[1., 1., 1.],\n        [1., 1., 1.],\n        [1., 1., 1.],\n"
        "        [1., 1., 1.],\n        [1., 1., 1.]], dtype=torch.float64)")
    assert nb["x"].dtype is nb["torch"].float32 and nb["x"].shape == (5, 3)


def test_arithmetic(nb):
    assert nb.run("X + Y").shown == SUM_PRINTED
    assert nb.run("torch.add(X, Y)").shown == SUM_PRINTED
    assert nb.run("torch.add(X, Y, alpha = 1)").shown == SUM_PRINTED
    cell = nb.run("Z = torch.empty(3, 4)\ntorch.add(X, Y, out=Z)\nZ")
    assert cell.shown == ("tensor([[ 2.,  2.,  6.,  6.],\n        [ 5.,  7.,  9., 11.],\n"
                          "        [12., 12., 12., 12.]])")
    assert nb.run("Z.add_(X)\nZ").shown == ("tensor([[ 2.,  3.,  8.,  9.],\n"
                                            "        [ 9., 12., 15., 18.],\n"
                                            "        [20., 21., 22., 23.]])")
    assert nb.run("X - Y == torch.sub(X, Y)").shown == ALL_TRUE
    assert nb.run("X * Y == torch.mul(X, Y)").shown == ALL_TRUE
    assert nb.run("X / Y == torch.div(X, Y)").shown == ALL_TRUE
    assert nb.run("torch.mm(X, Y.T)").shown == ("tensor([[ 18,  20,  10],\n"
                                                "        [ 58,  60,  50],\n"
                                                "        [ 98, 100,  90]])")
    cell = nb.run("a =torch.randn(2, 3)\nprint(a)\nb =torch.pow(a, 2)\nprint(b)")
    assert nb["b"].allclose(nb["a"] * nb["a"])
    assert skeleton(cell.printed) == skeleton("tensor([[-0.6457, -0.7714, -0.0353],\n"
                                              "        [-0.0553, -0.0271, -0.1796]])\n"
                                              "tensor([[0.4169, 0.5950, 0.0012],\n"
                                              "        [0.0031, 0.0007, 0.0323]])\n")


def test_cat_compare_view_reduce(nb):
    assert nb.run("torch.cat((X, X))").shown == (
        "tensor([[ 0,  1,  2,  3],\n        [ 4,  5,  6,  7],\n        [ 8,  9, 10, 11],\n"
        "        [ 0,  1,  2,  3],\n        [ 4,  5,  6,  7],\n        [ 8,  9, 10, 11]])")
    assert nb.run("torch.cat((X, Y), dim=1)").shown == (
        "tensor([[ 0,  1,  2,  3,  2,  1,  4,  3],\n"
        "        [ 4,  5,  6,  7,  1,  2,  3,  4],\n"
        "        [ 8,  9, 10, 11,  4,  3,  2,  1]])")
    assert nb.run("X == Y").shown == ("tensor([[False,  True, False,  True],\n"
                                      "        [False, False, False, False],\n"
                                      "        [False, False, False, False]])")
    cell = nb.run("x = torch.randn(4, 4)\ny = x.view(16)\nz = x.view(-1, 8)\n"
                  "print(x.size(), y.size(), z.size())")
    assert cell.printed == "torch.Size([4, 4]) torch.Size([16]) torch.Size([2, 8])\n"
    assert nb.run("X.sum()").shown == "tensor(66)"
    assert nb.run("X.sum().item()").value == 66
    assert nb.run("Z.norm()").shown == "tensor(52.7826)"
    assert nb.run("Z.norm().item()").value == 52.78257369995117
    cell = nb.run("a =torch.randn(2,3)\nprint(a)\nb =torch.clamp(a, -0.5, 0.5)\nprint(b)")
    a, b = nb["a"], nb["b"]
    assert bool((b == a.clamp(min=-0.5).clamp(max=0.5)).all()) and float(b.abs().max()) <= 0.5
    assert len(cell.printed.splitlines()) == 4


def test_broadcasting(nb):
    A, B = nb.run("A = torch.arange(3).reshape((3, 1))\nB = torch.arange(2).reshape((1, 2))\n"
                  "A, B").value
    assert repr(A) == "tensor([[0],\n        [1],\n        [2]])"
    assert repr(B) == "tensor([[0, 1]])"
    cell = nb.run("A = torch.arange(48).reshape((8, 1, 6, 1))\n"
                  "B = torch.arange(35).reshape((7, 1, 5))\n(A + B).size()")
    assert cell.shown == "torch.Size([8, 7, 6, 5])"


def test_indexing_and_memory(nb):
    assert nb.run("X[1:3]").shown == ("tensor([[ 4,  5,  6,  7],\n"
                                      "        [ 8,  9, 10, 11]])")
    assert nb.run("X[1, 2] = 9\nX").shown == ("tensor([[ 0,  1,  2,  3],\n"
                                              "        [ 4,  5,  9,  7],\n"
                                              "        [ 8,  9, 10, 11]])")
    assert nb.run("X[1:2, :] = 12\nX").shown == ("tensor([[ 0,  1,  2,  3],\n"
                                                 "        [12, 12, 12, 12],\n"
                                                 "        [ 8,  9, 10, 11]])")
    assert nb.run("before = id(Y)\nY = Y + X\nid(Y) == before").value is False
    assert nb.run("Z = torch.zeros_like(Y)\nbefore = id(Z)\nZ[:] = X + Y\n"
                  "id(Z) == before").value is True
    assert nb.run("torch.add(X, Y, out=Z)\nid(Z) == before").value is True
    assert nb.run("Z = torch.add(X, Y)\nid(Z) == before").value is False
    assert nb.run("before = id(X)\nX += Y\nid(X) == before").value is True


def test_numpy_bridge(nb):
    cell = nb.run("a = torch.ones(5)\nprint(a, type(a))\nb = a.numpy()\nprint(b, type(b))")
    assert cell.printed == ("tensor([1., 1., 1., 1., 1.]) <class 'gradjit.Tensor'>\n"
                            "[1. 1. 1. 1. 1.] <class 'numpy.ndarray'>\n")
    cell = nb.run("a.add_(1)\nprint(a)\nprint(b)")
    assert cell.printed == "tensor([2., 2., 2., 2., 2.])\n[2. 2. 2. 2. 2.]\n"
    cell = nb.run("import numpy as np\n\na = np.ones(5)\nb = torch.from_numpy(a)\n"
                  "np.add(a, 1, out=a)\nprint(a)\nprint(b) ")
    assert cell.printed == "[2. 2. 2. 2. 2.]\ntensor([2., 2., 2., 2., 2.], dtype=torch.float64)\n"


def test_cuda_cells(nb):
    from gradjit import cuda
    assert nb.run("print(torch.cuda.is_available())").printed == f"{cuda.is_available()}\n"
    cell = nb.run("""
        if torch.cuda.is_available():
            device = torch.device("cuda")          # a CUDA device object
            y = torch.ones_like(x, device=device)  # directly create a tensor on GPU
            x = x.to(device)                       # or just use strings ``.to("cuda")``
            z = x + y
            print(z)
            print(z.to("cpu", torch.double))       # ``.to`` can also change dtype together!
    """)
    if cuda.is_available():
        assert "device='cuda:0'" in cell.printed and "dtype=torch.float64" in cell.printed


def test_autograd_basics(nb):
    assert nb.run("x = torch.arange(4, dtype=torch.float).reshape((4, 1))\nx").shown == (
        "tensor([[0.],\n        [1.],\n        [2.],\n        [3.]])")
    assert nb.run("x.requires_grad = True \nx").shown == (
        "tensor([[0.],\n        [1.],\n        [2.],\n        [3.]], requires_grad=True)")
    assert nb.run("y = 2 * torch.mm(x.T, x)\ny").shown == "tensor([[28.]], grad_fn=<MulBackward0>)"
    nb.run("y.backward(retain_graph=True)")
    assert nb.run("x.grad").shown == ("tensor([[ 0.],\n        [ 4.],\n        [ 8.],\n"
                                      "        [12.]])")
    cell = nb.run("""
        torch.manual_seed(10)

        w = torch.tensor([1.], requires_grad=True)
        x = torch.tensor([2.], requires_grad=True)

        a = torch.add(w, x)
        b = torch.add(w, 1)
        y = torch.mul(a, b)

        y.backward(retain_graph=True)
        print(w.grad)
    """)
    assert cell.printed == "tensor([5.])\n"
    cell = nb.run("x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)\ny = 2 * x\n"
                  "z = y.view(2, 2)\nprint(z)")
    assert cell.printed == "tensor([[2., 4.],\n        [6., 8.]], grad_fn=<ViewBackward0>)\n"
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        nb.run("z.backward()")
    cell = nb.run("v = torch.tensor([[1.0, 0.1], [0.01, 0.001]], dtype=torch.float)\n"
                  "z.backward(v, retain_graph=True)\nprint(x.grad)")
    assert cell.printed == "tensor([2.0000, 0.2000, 0.0200, 0.0020])\n"


def test_train_and_eval_modes(nb):
    cell = nb.run("""
        x = torch.tensor(1.0, requires_grad=True)
        y1 = x ** 2

        # Way 1
        with torch.no_grad():
            y2 = x ** 3

        y3 = y1 + y2

        print(x.requires_grad)
        print(y1, y1.requires_grad) # True
        print(y2, y2.requires_grad) # False
        print(y3, y3.requires_grad) # True
    """)
    assert cell.printed == ("True\ntensor(1., grad_fn=<PowBackward0>) True\ntensor(1.) False\n"
                            "tensor(2., grad_fn=<AddBackward0>) True\n")
    assert nb.run("y3.backward()\nprint(x.grad)").printed == "tensor(2.)\n"
    cell = nb.run("""
        x = torch.ones(1,requires_grad=True)

        print(x.data)
        print(x.data.requires_grad)

        y = 2 * x
        x.data *= 100

        y.backward()
        print(x)
        print(x.grad)
    """)
    assert cell.printed == ("tensor([1.])\nFalse\ntensor([100.], requires_grad=True)\n"
                            "tensor([2.])\n")


def test_control_flow(nb):
    nb.run("""
        def f(a):
            b = a * 2
            while b.norm().item() < 1000:
                b = b * 2
            if b.sum().item() > 0:
                c = b
            else:
                c = 100 * b
            return c
    """)
    nb.run("a = torch.randn(1, requires_grad=True)\nc = f(a)\nc.backward()")
    assert nb.run("a.grad == c / a").shown == "tensor([True])"
    np.testing.assert_allclose(nb["a"].grad.numpy(), (nb["c"] / nb["a"]).detach().numpy())
