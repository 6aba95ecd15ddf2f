"""Tensor basics: factories, dtypes and promotion, Size and device, storage shared by views
and numpy, in-place identity, out=, shape errors."""
import numpy as np
import pytest

import gradjit as torch


def test_factories_and_default_dtypes():
    assert torch.tensor([1, 2]).dtype is torch.int64
    assert torch.tensor([1.0, 2]).dtype is torch.float32 is torch.float
    assert torch.tensor([True]).dtype is torch.bool
    assert torch.tensor(np.array([1.5])).dtype is torch.float64 is torch.double
    assert torch.zeros(2, 3).dtype is torch.float32 and torch.zeros((2, 3)).shape == (2, 3)
    assert torch.ones(2, dtype=torch.long).tolist() == [1, 1]
    assert torch.full((2,), 7).dtype is torch.int64 and torch.full((2,), 0.5).dtype is torch.float
    assert torch.arange(5).tolist() == [0, 1, 2, 3, 4] and torch.arange(5).dtype is torch.int64
    assert torch.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert torch.arange(4.0).dtype is torch.float32
    assert torch.eye(2, 3).tolist() == [[1, 0, 0], [0, 1, 0]]
    assert torch.empty(2, 2).shape == (2, 2)
    x = torch.tensor([[1.0, 2.0]], dtype=torch.float64)
    assert torch.zeros_like(x).dtype is torch.float64 and torch.ones_like(x).shape == (1, 2)
    assert x.new_zeros(3).dtype is torch.float64 and x.new_ones(2, 2).tolist() == [[1, 1], [1, 1]]
    assert x.new_full((2,), 4).tolist() == [4.0, 4.0] and x.new_tensor([1]).dtype is torch.float64
    assert torch.randn_like(x, dtype=torch.float).dtype is torch.float32
    assert torch.Tensor(2, 3).shape == (2, 3) and torch.Tensor([1, 2]).dtype is torch.float32


def test_random_numbers_follow_the_seed():
    torch.manual_seed(3)
    a, b = torch.rand(4), torch.randn(2, 2)
    torch.manual_seed(3)
    assert torch.rand(4).equal(a) and torch.randn(2, 2).equal(b)
    assert bool(((a >= 0) & (a < 1)).all()) and a.dtype is torch.float32
    assert torch.randint(0, 3, (10,)).dtype is torch.int64


def test_size_device_and_metadata():
    x = torch.zeros(2, 3, 4)
    assert isinstance(x.shape, tuple) and repr(x.shape) == "torch.Size([2, 3, 4])"
    assert x.size() == (2, 3, 4) and x.size(-1) == 4 and x.dim() == 3 and x.numel() == 24
    assert x.shape[1:] == torch.Size([3, 4]) and repr(x.shape[1:]) == "torch.Size([3, 4])"
    assert repr(torch.device("cpu")) == "device(type='cpu')" and str(x.device) == "cpu"
    assert str(torch.device("cuda:1")) == "cuda:1" and torch.device("cuda", 0).index == 0
    assert repr(torch.float64) == "torch.float64" and torch.float32.is_floating_point
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.size(3)


def test_promotion_follows_pytorch():
    i, f = torch.tensor([1, 2]), torch.tensor([1.0, 2.0])
    assert (i + 1).dtype is torch.int64 and (i + 1.5).dtype is torch.float32
    assert (i / 2).dtype is torch.float32 and (i * f).dtype is torch.float32
    assert (f + torch.tensor(1.0, dtype=torch.float64)).dtype is torch.float32  # 0-d is weak
    assert (f + torch.tensor([1.0], dtype=torch.float64)).dtype is torch.float64
    assert (torch.tensor([True]) + 1).dtype is torch.int64
    assert (i.int() + i.int()).dtype is torch.int32 and (i > 1).dtype is torch.bool


def test_views_share_storage_and_versions():
    x = torch.arange(12.0)
    v = x.view(3, 4)
    t = v.T
    s = v[1:, ::2]
    v[0, 0] = 100.0
    assert x[0].item() == 100.0 and t[0, 0].item() == 100.0
    s.mul_(0)
    assert x.tolist()[4:8] == [0.0, 5.0, 0.0, 7.0]
    assert x._version == v._version == s._version == 2
    for view in (x.reshape(2, 6), x.unsqueeze(0), v.transpose(0, 1), v.permute(1, 0), v.t(),
                 v[None].squeeze(0), x[2:5]):
        assert np.shares_memory(view.numpy(), x.numpy())
    assert not np.shares_memory(v.t().reshape(12).numpy(), x.numpy())
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        v.t().view(12)


def test_numpy_bridge_shares_memory():
    a = np.ones(3)
    t = torch.from_numpy(a)
    a[0] = 5
    assert t[0].item() == 5.0 and t.dtype is torch.float64
    b = t.numpy()
    t.add_(1)
    assert b.tolist() == [6.0, 2.0, 2.0]
    with pytest.raises(TypeError, match="can't convert np.ndarray of type"):
        torch.from_numpy(np.ones(2, np.longdouble))
    with pytest.raises(RuntimeError, match=r"Use tensor.detach\(\).numpy\(\)"):
        torch.ones(2, requires_grad=True).numpy()


def test_inplace_identity_out_and_casting():
    x = torch.zeros(2, 2)
    before = id(x)
    x += 1
    x *= 3
    x.sub_(1).div_(2)
    assert id(x) == before and x.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    out = torch.empty(2, 2)
    assert torch.add(x, 1, out=out) is out and out.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    resized = torch.empty(0)
    torch.mul(x, 2, out=resized)
    assert resized.shape == (2, 2)
    ints = torch.arange(3)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type Long"):
        ints += 0.5
    ints[0] = 9.7  # assignment truncates, as in PyTorch
    assert ints.tolist() == [9, 1, 2]
    y = torch.ones(2, 3)
    y.t_()
    assert y.shape == (3, 2) and y.copy_(torch.arange(2)).tolist() == [[0, 1]] * 3
    assert y.zero_().sum().item() == 0 and y.fill_(2).sum().item() == 12


def test_indexing_and_assignment():
    x = torch.arange(12).reshape(3, 4)
    assert x[1].tolist() == [4, 5, 6, 7] and x[:, -1].tolist() == [3, 7, 11]
    assert x[x > 8].tolist() == [9, 10, 11] and x[[0, 2], 1].tolist() == [1, 9]
    assert x[torch.tensor([2, 0])].shape == (2, 4) and x[..., None].shape == (3, 4, 1)
    x[0] = torch.tensor([9, 9, 9, 9])
    x[1:, 1:3] = 0
    x[x == 11] = -1
    assert x.tolist() == [[9, 9, 9, 9], [4, 0, 0, 7], [8, 0, 0, -1]]
    with pytest.raises(IndexError):
        x[3]


def test_conversions_and_python_values():
    x = torch.tensor([[1.5, -2.0]])
    assert x.tolist() == [[1.5, -2.0]] and x.sum().item() == -0.5
    assert float(x[0, 0]) == 1.5 and int(x[0, 1]) == -2 and bool(x[0, 0] > 0)
    assert x.long().tolist() == [[1, -2]] and x.to(torch.float64).dtype is torch.float64
    assert x.to(torch.float32) is x and x.float() is x and x.type() == "torch.FloatTensor"
    assert x.to("cpu", torch.double).dtype is torch.float64 and len(x) == 1
    assert [row.tolist() for row in x] == [[1.5, -2.0]] and f"{x.sum():.2f}" == "-0.50"
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        x.item()
    with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
        bool(x)


def test_math_functions():
    x = torch.tensor([[-1.0, 0.5], [2.0, 4.0]])
    assert torch.abs(x).tolist() == [[1.0, 0.5], [2.0, 4.0]]
    assert torch.relu(x).tolist() == [[0.0, 0.5], [2.0, 4.0]]
    assert torch.clamp(x, -0.5, 1).tolist() == [[-0.5, 0.5], [1.0, 1.0]]
    assert torch.where(x > 0, x, torch.zeros(2, 2)).tolist() == [[0.0, 0.5], [2.0, 4.0]]
    assert x.max().item() == 4.0 and x.min(1).indices.tolist() == [0, 0]
    assert x.sum(0).tolist() == [1.0, 4.5] and x.mean().item() == 1.375
    assert torch.mm(x, torch.eye(2)).equal(x) and torch.dot(x[0], x[1]).item() == 0.0
    assert torch.cat((x, x), 1).shape == (2, 4) and torch.stack((x, x)).shape == (2, 2, 2)
    assert torch.pow(x, 2).tolist() == [[1.0, 0.25], [4.0, 16.0]]
    assert torch.sqrt(torch.tensor([4.0])).item() == 2.0 and (x ** 0).sum().item() == 4
    assert x.eq(x).all().item() is True and (x > 3).any().item() is True
    np.testing.assert_allclose(x.norm().item(), np.sqrt(21.25), rtol=1e-6)
    np.testing.assert_allclose(torch.tanh(x).numpy(), np.tanh(x.numpy()), rtol=1e-6)
    np.testing.assert_allclose(torch.sigmoid(x).numpy(), 1 / (1 + np.exp(-x.numpy())),
                               rtol=1e-6)


def test_shape_errors_name_both_shapes():
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of "
                                           r"tensor b \(4\) at non-singleton dimension 1"):
        torch.ones(2, 3) + torch.ones(4)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied "
                                           r"\(3x4 and 3x4\)"):
        torch.mm(torch.ones(3, 4), torch.ones(3, 4))
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype"):
        torch.ones(2, 2) @ torch.ones(2, 2, dtype=torch.long)
    with pytest.raises(RuntimeError, match=r"Sizes of tensors must match except in dimension 0. "
                                           r"Expected size 3 but got size 4 for tensor number 1"):
        torch.cat([torch.ones(2, 3), torch.ones(2, 4)])


def test_cuda_is_unavailable_without_a_driver():
    from gradjit import cuda
    if cuda.is_available():
        pytest.skip("a GPU is present")
    assert cuda.device_count() == 0
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        torch.ones(2).to("cuda")
