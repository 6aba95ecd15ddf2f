"""Eager tensors on device 'cuda': every check runs on the grid emulator (gradjit.cuda's
use_emulator) and, marked `gpu`, on a real GPU where one is present; results equal the CPU's."""
import numpy as np
import pytest

import gradjit
import gradjit as torch
from gradjit.ir import primitive
from gradjit.runtime import cuda_driver
from gradjit.runtime.emulator import Emulator
from gradjit.tensor import cuda_ops

from tests.tensor.notebook import Notebook

REAL_GPU = cuda_driver.device_count() > 0


@pytest.fixture(params=["cuda-emulator", pytest.param("cuda", marks=[
    pytest.mark.gpu, pytest.mark.skipif(not REAL_GPU, reason="no CUDA device")])])
def target(request, monkeypatch):
    """The target that device 'cuda' runs on in the test."""
    monkeypatch.delenv("GRADJIT_CUDA_EMULATOR", raising=False)
    if request.param == "cuda":
        yield "cuda"
        return
    with gradjit.cuda.use_emulator():
        yield "cuda-emulator"


def test_the_tutorial_cuda_cell_prints_what_pytorch_prints_on_a_gpu(target):
    nb = Notebook()
    nb.run("import torch\nimport numpy as np\na = np.ones(5)\nx = torch.from_numpy(a)\n"
           "np.add(a, 1, out=a)")
    cell = nb.run("""
        if torch.cuda.is_available():
            device = torch.device("cuda")          # a CUDA device object
            y = torch.ones_like(x, device=device)  # directly create a tensor on GPU
            x = x.to(device)                       # or just use strings ``.to("cuda")``
            z = x + y
            print(z)
            print(z.to("cpu", torch.double))       # ``.to`` can also change dtype together!
    """)
    assert gradjit.cuda.target() == target
    assert cell.printed == ("tensor([3., 3., 3., 3., 3.], device='cuda:0', dtype=torch.float64)\n"
                            "tensor([3., 3., 3., 3., 3.], dtype=torch.float64)\n")


def _operations(device):
    """A selection of tensor operations on `device`, returned on the CPU as numpy arrays."""
    g = torch.Generator().manual_seed(5)
    a, b = torch.randn(4, 3, generator=g), torch.randn(3, 5, generator=g, dtype=torch.float64)
    i = torch.tensor([[0, 2, 1], [-1, 0, 3]])
    a, b, i = a.to(device), b.to(device), i.to(device)
    results = [
        a + 1, 2.5 * a - a / 3, a @ b.float(), torch.exp(a), torch.tanh(a), torch.sigmoid(a),
        a.sum(), a.sum(dim=0), a.mean(dim=1, keepdim=True), a.max(), a.amin(dim=1),
        torch.softmax(a, dim=1), a[i[1]], a.T @ a, torch.cat([a, a * 2], dim=1),
        torch.where(a > 0, a, a ** 2), (a > 0).sum(), i * 3 + 1, i // 2, a.double() + b.sum(),
        torch.clamp(a, -0.5, 0.5), a.reshape(2, 6)[:, ::2], torch.stack([b, b]).sum(0),
    ]
    return [r.cpu().numpy() for r in results]


def test_operations_equal_the_cpu(target):
    on_cpu = _operations("cpu")
    for got, want in zip(_operations("cuda"), on_cpu, strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)


def _loss_and_grads(device):
    g = torch.Generator().manual_seed(7)
    w = torch.randn(6, 4, generator=g).to(device).requires_grad_()
    x = torch.randn(8, 6, generator=g).to(device)
    rows = torch.tensor([0, 3, 3, 5, 0, 1, 3]).to(device)
    hidden = torch.tanh(x @ w)
    loss = (hidden[rows] ** 2).sum() + hidden.softmax(dim=1).max()
    loss.backward()
    return loss, w


def test_backward_equals_the_cpu_and_stays_on_the_device(target):
    loss, w = _loss_and_grads("cuda")
    assert loss.device == torch.device("cuda:0") and w.grad.device == torch.device("cuda:0")
    cpu_loss, cpu_w = _loss_and_grads("cpu")
    np.testing.assert_allclose(loss.item(), cpu_loss.item(), rtol=1e-6)
    np.testing.assert_allclose(w.grad.cpu().numpy(), cpu_w.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_gradients_cross_device_moves(target):
    x = torch.tensor([1.0, -2.0, 3.0], device="cuda", requires_grad=True)
    y = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    (x.cpu() * y).sum().backward()  # the cotangent of x comes back to the device
    (y.cuda() * x).sum().backward()
    assert x.grad.device.type == "cuda" and y.grad.device.type == "cpu"
    assert x.grad.tolist() == [1.0, 2.0, 4.0] and y.grad.tolist() == [2.0, -4.0, 6.0]
    first, = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
    second, = torch.autograd.grad(first.sum(), x)
    assert first.device.type == second.device.type == "cuda"
    assert second.tolist() == [6.0, -12.0, 18.0]


def test_views_and_in_place_operations_share_device_storage(target):
    x = torch.zeros(2, 3, device="cuda")
    v = x.view(6)
    v[1] = 5.0
    x.add_(1).mul_(2)
    assert v.tolist() == [2.0, 12.0, 2.0, 2.0, 2.0, 2.0] and v.is_cuda and x._version == 3


def test_every_computation_runs_on_the_emulator_and_compiles_once(monkeypatch):
    with gradjit.cuda.use_emulator():
        a = torch.randn(5, 4, device="cuda", requires_grad=True)
        b = torch.randn(4, device="cuda")
        launches = []
        launch = Emulator.launch
        monkeypatch.setattr(Emulator, "launch", lambda *args: launches.append(args[2]) or
                            launch(*args))

        def no_numpy(evaluation):
            def evaluate(prim, *args_and_params):
                if prim.name not in cuda_ops.ON_HOST:  # (views change metadata alone)
                    raise AssertionError(f"{prim.name} was evaluated by numpy")
                return evaluation(prim, *args_and_params)
            return evaluate
        for name in ("evaluate_plain", "evaluate_general"):  # what bind and evaluate run
            monkeypatch.setattr(primitive, name, no_numpy(getattr(primitive, name)))
        ((a * b + 1).exp().sum() * 2.0).backward()
        count, a.grad = len(launches), None
        monkeypatch.setattr(cuda_ops, "_compile", lambda *args: pytest.fail("compiled again"))
        ((a * b + 3).exp().sum() * 7.0).backward()  # numbers are arguments, not constants
    assert a.grad.device.type == "cuda" and count >= 9 and len(launches) == 2 * count
    with pytest.raises(AssertionError, match="add was evaluated by numpy"):
        torch.ones(2, dtype=torch.int32) + 1  # (float32, int64 take the hot path, not `evaluate`)


def test_mixing_devices_is_an_error(target):
    message = ("Expected all tensors to be on the same device, but found at least two devices, "
               "cuda:0 and cpu!")
    with pytest.raises(RuntimeError, match=message):
        torch.ones(3, device="cuda") + torch.ones(3)
    with pytest.raises(RuntimeError, match="found at least two devices, cpu and cuda:0!"):
        torch.ones(3) * torch.ones(3).cuda()


def test_devices_behave_as_in_pytorch(target):
    assert str(torch.device("cuda")) == "cuda" and repr(torch.device("cuda:0")) == \
        "device(type='cuda', index=0)"
    x = torch.arange(4.0, device=torch.device("cuda"))
    assert x.device == torch.device("cuda:0") == torch.device("cuda", 0) and x.is_cuda
    assert x.cuda() is x and x.to("cuda:0") is x and x.cpu().device == torch.device("cpu")
    assert torch.zeros(2, device="cuda").device.type == "cuda"
    assert torch.tensor([1, 2], device="cuda:0").device.index == 0
    assert torch.randn(2, device="cuda").is_cuda and x.new_ones(2).is_cuda
    assert torch.ones_like(x).is_cuda and not torch.ones_like(x, device="cpu").is_cuda
    assert x.to("cpu", torch.float64).dtype is torch.float64 and x.tolist() == [0, 1, 2, 3]
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        x.numpy()


def test_without_a_gpu_cuda_is_refused(monkeypatch):
    monkeypatch.delenv("GRADJIT_CUDA_EMULATOR", raising=False)
    monkeypatch.setattr(cuda_driver, "driver", lambda: None)
    assert not gradjit.cuda.is_available() and gradjit.cuda.device_count() == 0
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        torch.ones(2).to("cuda")
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        torch.zeros(2, device="cuda")
    monkeypatch.setenv("GRADJIT_CUDA_EMULATOR", "1")
    assert gradjit.cuda.is_available() and gradjit.cuda.target() == "cuda-emulator"
    assert (torch.ones(2, device="cuda") * 3).tolist() == [3.0, 3.0]


def _scattering(w, rows, c):
    """Gathers whose gradients are scatter-adds with many repeated rows."""
    picked = np.tanh(w[rows]) * c
    return np.sum(picked) + np.sum(w[rows[::-1]] ** 2 * c)


def test_deterministic_gpu_gradients_equal_the_cpu_bitwise(target):
    rng = np.random.default_rng(0)
    w, rows, c = rng.normal(size=(50, 3)), rng.integers(0, 50, 3000), rng.normal(size=(3000, 3))
    want = gradjit.grad(_scattering)(w, rows, c)
    f = gradjit.grad(_scattering, backend=target, deterministic=True)
    first = f(w, rows, c)
    assert np.array_equal(f(w, rows, c), first)
    if target == "cuda-emulator":  # the same code; a GPU's JIT may fuse a multiply-add
        assert np.array_equal(first, want)
    np.testing.assert_allclose(first, want, rtol=1e-12)
    launches = [str(s) for s in f.cache.last.program.steps if "launch" in str(s)]
    assert sum("<<<1, 1>>>" in s for s in launches) == 2  # each scatter-add in one thread
    atomic = gradjit.grad(_scattering, backend=target)
    atomic(w, rows, c)
    assert not any("<<<1, 1>>>" in str(s) for s in atomic.cache.last.program.steps)
