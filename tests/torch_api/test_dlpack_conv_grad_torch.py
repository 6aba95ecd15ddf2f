"""torch.from_dlpack / to_dlpack / Tensor.__dlpack__ and torch.nn.grad's conv gradients against
PyTorch 2.13: memory shared with numpy arrays and torch tensors both ways, capsules consumed
once, the refusals; conv{1,2,3}d_input and _weight values, second derivatives and errors."""
import numpy as np
import pytest
import torch
import torch.nn.grad

import gradjit
from tests.torch_reference import same_error

ARRAYS = [np.arange(6.0).reshape(2, 3), np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2],
          np.array([1.5, -2.0], np.float16), np.array([True, False]), np.arange(5, dtype=np.int32),
          np.array([1 + 2j, 3j], np.complex64), np.array(2.5)]


@pytest.mark.parametrize("array", ARRAYS, ids=lambda a: f"{a.dtype}{a.shape}")
def test_from_dlpack_of_numpy_as_torch_sharing_memory(array):
    array = array.copy() if array.base is None else array
    g, t = gradjit.from_dlpack(array), torch.from_dlpack(array)
    assert repr(g) == repr(t)
    g.view(-1)[0] = 1 if array.dtype.kind in "iub" else 7.0 if array.dtype.kind == "f" else 7j
    assert array.reshape(-1)[0] == g.reshape(-1)[0].item() == t.reshape(-1)[0].item()


def test_from_dlpack_of_a_torch_tensor_and_a_capsule():
    theirs = torch.arange(4.0)
    ours = gradjit.from_dlpack(theirs)
    ours.add_(1)
    assert theirs.tolist() == ours.tolist() == [1.0, 2.0, 3.0, 4.0]
    from_capsule = gradjit.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(theirs))
    assert repr(from_capsule) == repr(theirs)
    from_capsule[0] = -9.0  # a capsule's memory is written to, as torch writes it
    assert theirs.tolist() == ours.tolist() == [-9.0, 2.0, 3.0, 4.0]


def test_torch_reads_gradjit_tensors_in_place():
    ours = gradjit.arange(4.0)
    theirs = torch.from_dlpack(ours)
    theirs[1] = -5.0
    assert ours.tolist() == [0.0, -5.0, 2.0, 3.0]
    capsule = gradjit.to_dlpack(ours)
    assert repr(torch.from_dlpack(capsule)) == repr(theirs)
    assert tuple(map(int, ours.__dlpack_device__())) == \
        tuple(map(int, theirs.__dlpack_device__())) == (1, 0)
    assert repr(ours.__dlpack_device__()[0]) == repr(theirs.__dlpack_device__()[0])


def test_copy_true_shares_nothing():
    array = np.arange(3.0)
    g, t = gradjit.from_dlpack(array, copy=True), torch.from_dlpack(array, copy=True)
    g[0], t[0] = 9.0, 9.0
    assert array[0] == 0.0 and g.tolist() == t.tolist()


@pytest.mark.parametrize("call", [
    lambda L: L.from_dlpack(3),
    lambda L: L.from_dlpack([1, 2]),
    lambda L: L.ones(2, requires_grad=True).__dlpack__(),
    lambda L: L.from_dlpack(L.ones(2, requires_grad=True)),
    lambda L: L.ones(2, dtype=L.chalf).numpy(),
])
def test_dlpack_errors_as_torch(call):
    same_error(lambda: call(gradjit), lambda: call(torch))


def test_a_capsule_is_consumed_once_as_torch():
    def twice(L):
        capsule = L.to_dlpack(L.arange(3.0))
        L.from_dlpack(capsule)
        return lambda: L.from_dlpack(capsule)
    same_error(twice(gradjit), twice(torch))


CONVS = [(1, (2, 3, 9), (4, 3, 3), dict()),
         (1, (2, 4, 10), (6, 2, 3), dict(stride=2, padding=1, dilation=2, groups=2)),
         (2, (2, 3, 8, 7), (4, 3, 3, 2), dict(stride=(2, 1), padding=1)),
         (2, (1, 4, 9, 9), (4, 2, 3, 3), dict(groups=2, dilation=2, stride=2)),
         (3, (1, 2, 5, 6, 5), (3, 2, 2, 3, 2), dict(stride=2, padding=(1, 0, 1)))]


def _conv_case(n, input_shape, weight_shape, options):
    rng = np.random.default_rng(n)
    x, w = rng.standard_normal(input_shape), rng.standard_normal(weight_shape)
    out = getattr(torch.nn.functional, f"conv{n}d")(torch.tensor(x), torch.tensor(w), **options)
    return x, w, rng.standard_normal(tuple(out.shape))


@pytest.mark.parametrize("n,input_shape,weight_shape,options", CONVS)
def test_conv_gradients_equal_torchs(n, input_shape, weight_shape, options):
    x, w, go = _conv_case(n, input_shape, weight_shape, options)

    def both(L):
        grad = L.nn.grad
        w_t = L.tensor(w, requires_grad=True)
        g_in = getattr(grad, f"conv{n}d_input")(input_shape, w_t, L.tensor(go), **options)
        g_w = getattr(grad, f"conv{n}d_weight")(L.tensor(x), weight_shape, L.tensor(go),
                                                **options)
        (g_in * L.tensor(x)).sum().backward()  # the input gradient is linear in the weight
        return g_in, g_w, w_t.grad
    for ours, theirs in zip(both(gradjit), both(torch)):
        assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)


def test_conv_input_gradient_of_a_size_that_disagrees_as_torch():
    x, w, go = _conv_case(*CONVS[2])

    def call(L):
        return L.nn.grad.conv2d_input((2, 3, 7, 7), L.tensor(w), L.tensor(go), stride=(2, 1),
                                      padding=1)
    # 7 and 8 rows give the same output rows under stride 2: torch accepts both
    np.testing.assert_allclose(call(gradjit).numpy(), call(torch).numpy(), atol=1e-12)
    same_error(lambda: gradjit.nn.grad.conv2d_input((2, 3, 8, 8), gradjit.tensor(w),
                                                    gradjit.tensor(go), padding=1),
               lambda: torch.nn.grad.conv2d_input((2, 3, 8, 8), torch.tensor(w),
                                                  torch.tensor(go), padding=1))


def test_from_dlpack_reads_onto_the_cpu_only():
    with pytest.raises(RuntimeError, match="gradjit reads DLPack tensors on the CPU, not on cuda"):
        gradjit.from_dlpack(np.arange(3.0), device="cuda")
    assert gradjit.from_dlpack(np.arange(3.0), device="cpu").tolist() == [0.0, 1.0, 2.0]
