"""What running torch's own docstring examples against gradjit turned up, checked against
torch: scalar-first functions, round(decimals=), repeat_interleave of counts, complex dist and
assert_close, take_along_dim without dim, inner with a 0-dim operand."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")


def _same(g, t):
    assert str(g.dtype) == str(t.dtype)
    assert tuple(g.shape) == tuple(t.shape)
    np.testing.assert_allclose(g.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "remainder", "floor_divide",
                                  "float_power", "xlogy", "bitwise_and", "bitwise_xor"])
@pytest.mark.parametrize("dtype", ["uint8", "int64", "float16", "float64"])
@pytest.mark.parametrize("number", [2, 2.5])
def test_number_first_operand(name, dtype, number):
    data = np.array([3, 2, 1])

    def call(t):
        return getattr(t, name)(number, t.tensor(data, dtype=getattr(t, dtype)))
    try:
        want = call(torch)
    except Exception:  # noqa: BLE001 - the same refusal is what gradjit must give
        same_error(lambda: call(gradjit), lambda: call(torch))
        return
    _same(call(gradjit), want)


def test_special_xlogy_number_first():
    _same(gradjit.special.xlogy(2, gradjit.tensor([3.0, 2.0, 1.0])),
          torch.special.xlogy(2, torch.tensor([3.0, 2.0, 1.0])))


@pytest.mark.parametrize("decimals", [-2, 0, 2, 3])
def test_round_decimals_values_and_gradient(decimals):
    data = np.array([1234.5678, 0.1234567, 2.5, -0.125, -17.35], np.float32)
    out = {}
    for t in (gradjit, torch):
        x = t.tensor(data, requires_grad=True)
        y = t.round(x, decimals=decimals)
        y.sum().backward()
        out[t] = y, x.grad
    _same(out[gradjit][0], out[torch][0])
    _same(out[gradjit][1], out[torch][1])
    if decimals:
        assert out[gradjit][0].grad_fn.name() == out[torch][0].grad_fn.name()


def test_round_decimals_refuses_integers():
    same_error(lambda: gradjit.tensor([15]).round(decimals=-1),
               lambda: torch.tensor([15]).round(decimals=-1))


@pytest.mark.parametrize("counts", [[1, 2, 3], [0, 2, 1, 0]])
def test_repeat_interleave_of_counts(counts):
    _same(gradjit.repeat_interleave(gradjit.tensor(counts)),
          torch.repeat_interleave(torch.tensor(counts)))


@pytest.mark.parametrize("bad", [[[1, 2]], 3, [2.0, 1.0]])
def test_repeat_interleave_of_counts_errors(bad):
    same_error(lambda: gradjit.repeat_interleave(gradjit.tensor(bad)),
               lambda: torch.repeat_interleave(torch.tensor(bad)))


@pytest.mark.parametrize("p", [1, 2, float("inf")])
def test_dist_of_complex_tensors_and_gradient(p):
    a, b = np.array([1 + 2j, 3j, -1]), np.array([1j, 2, 0.5 - 1j])
    out = {}
    for t in (gradjit, torch):
        x = t.tensor(a.astype(np.complex64), requires_grad=True)
        d = t.dist(x, t.tensor(b.astype(np.complex64)), p=p)
        d.backward()
        out[t] = d, x.grad
    _same(out[gradjit][0], out[torch][0])
    _same(out[gradjit][1], out[torch][1])


def test_take_along_dim_without_dim_flattens_both():
    data, index = [[10, 30, 20], [60, 40, 50]], [[0, 5], [1, 2]]
    for make_index in (lambda t: t.argmax(t.tensor(data)), lambda t: t.tensor(index)):
        _same(gradjit.take_along_dim(gradjit.tensor(data), make_index(gradjit)),
              torch.take_along_dim(torch.tensor(data), make_index(torch)))


def test_inner_with_a_zero_dim_operand_promotes():
    data = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    for args in ((data, 2), (2, data)):
        _same(gradjit.inner(*(gradjit.tensor(a) for a in args)),
              torch.inner(*(torch.tensor(a) for a in args)))
    same_error(lambda: gradjit.inner(gradjit.ones(3), gradjit.ones(3, dtype=gradjit.long)),
               lambda: torch.inner(torch.ones(3), torch.ones(3, dtype=torch.long)))


def _failure(t, actual, expected):
    try:
        t.testing.assert_close(actual, expected)
    except AssertionError as error:
        return str(error)
    return None


@pytest.mark.parametrize("pair", [
    ([1 + 1j, 2], [1 + 1.1j, 2]),                       # too far
    ([1 + 1j, 2], [1 + 1j + 1e-6, 2]),                  # within complex64's tolerance
    ([1 + 1j, float("nan")], [1 + 1j, float("nan")]),   # nan differs unless equal_nan
])
def test_assert_close_complex_tolerances(pair):
    got = _failure(gradjit, *(gradjit.tensor(np.array(v, np.complex64)) for v in pair))
    want = _failure(torch, *(torch.tensor(np.array(v, np.complex64)) for v in pair))
    assert (got is None) == (want is None)
    if want is not None:
        assert got.splitlines()[:3] == want.splitlines()[:3]


def test_assert_close_fft2_against_two_ffts():
    torch.manual_seed(0)
    x = gradjit.tensor(torch.randn(10, 10).numpy())
    gradjit.testing.assert_close(gradjit.fft.fft2(x),
                                 gradjit.fft.fft(gradjit.fft.fft(x, dim=0), dim=1))


@pytest.mark.parametrize("dim", [0, 1, -2])
def test_unique_along_a_dim(dim):
    data = [[1, 2], [3, 4], [1, 2], [0, 9]]
    got = gradjit.unique(gradjit.tensor(data), dim=dim, return_inverse=True, return_counts=True)
    want = torch.unique(torch.tensor(data), dim=dim, return_inverse=True, return_counts=True)
    for g, t in zip(got, want):
        _same(g, t)


def test_unique_along_a_dim_of_empty_slices():
    got = gradjit.unique(gradjit.zeros(0, 3), dim=0, return_counts=True)
    for g, t in zip(got, torch.unique(torch.zeros(0, 3), dim=0, return_counts=True)):
        _same(g, t)
    same_error(lambda: gradjit.unique(gradjit.zeros(2, 0), dim=0),
               lambda: torch.unique(torch.zeros(2, 0), dim=0))


@pytest.mark.parametrize("sublists", [
    lambda A, B: (A, [..., 0, 1], B, [..., 1, 2], [..., 0, 2]),
    lambda A, B: (A, [0, 1, 2], B, [0, 2, 27]),         # implicit output, in number order
    lambda A, B: (A, [2, 0, 1]),
])
def test_einsum_sublist_format(sublists):
    torch.manual_seed(0)
    a, b = torch.randn(3, 2, 5), torch.randn(3, 5, 4)
    _same(gradjit.einsum(*sublists(gradjit.tensor(a.numpy()), gradjit.tensor(b.numpy()))),
          torch.einsum(*sublists(a, b)))


@pytest.mark.parametrize("source, target", [("float32", "int32"), ("float32", "float16"),
                                            ("float32", "float64"), ("float32", "uint8"),
                                            ("float32", "bfloat16"), ("bfloat16", "int16"),
                                            ("int16", "bfloat16"), ("uint8", "bool")])
def test_view_as_another_dtype_reads_the_bytes(source, target):
    data = np.array([[1.5, -2, 3, 4], [0.1, 0.2, 0.3, 0.4]])
    if source in ("int16", "uint8"):
        data = np.array([[16320, 0, 1, 2]])

    def view(t):
        return t.tensor(data).to(getattr(t, source)).view(getattr(t, target))
    got, want = view(gradjit), view(torch)
    assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
    assert repr(got) == repr(want)


def test_view_as_another_dtype_shares_memory_and_drops_history():
    a = gradjit.zeros(4, requires_grad=True)
    b = a.detach().view(gradjit.int32)
    b[0] = 1
    assert a[0].item() == torch.zeros(4).view(torch.int32).fill_(1).view(torch.float32)[0].item()
    assert not a.view(gradjit.int32).requires_grad


@pytest.mark.parametrize("make", [lambda t: t.randn(3).view(t.float64),
                                  lambda t: t.randn(3, 2).t().view(t.float16),
                                  lambda t: t.tensor(1.0).view(t.int16)])
def test_view_as_another_dtype_errors(make):
    same_error(lambda: make(gradjit), lambda: make(torch))


def test_masked_scatter_broadcasts_self_with_the_mask():
    mask = [[0, 0, 0, 1, 1], [1, 1, 0, 1, 1]]
    out = {}
    for t in (gradjit, torch):
        x = t.zeros(5, requires_grad=True)
        source = t.arange(10.0).reshape(2, 5).requires_grad_()
        y = x.masked_scatter(t.tensor(mask, dtype=t.bool), source)
        (y * t.arange(1.0, 11.0).reshape(2, 5)).sum().backward()
        out[t] = y, x.grad, source.grad
    for g, w in zip(out[gradjit], out[torch]):
        _same(g, w)


def test_masked_scatter_in_place_broadcasts_only_the_mask():
    def scatter(t, rows):
        x = t.zeros(rows, 5)
        return x.masked_scatter_(t.tensor([[0, 0, 0, 1, 1], [1, 1, 0, 1, 1]], dtype=t.bool)[0],
                                 t.arange(10.0))
    _same(scatter(gradjit, 2), scatter(torch, 2))
    with pytest.raises(RuntimeError):
        gradjit.zeros(5).masked_scatter_(gradjit.ones(2, 5, dtype=gradjit.bool),
                                         gradjit.arange(10.0))


@pytest.mark.parametrize("p", ["fro", "nuc", float("inf"), -float("inf"), 1, -1, None, -2])
def test_linalg_cond_every_order(p):
    data = np.array([[1.0, 2.0], [3.0, 4.5]], np.float32)
    got = gradjit.linalg.cond(gradjit.tensor(data, requires_grad=True), p)
    want = torch.linalg.cond(torch.tensor(data, requires_grad=True), p)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5)
    assert got.grad_fn.name() == want.grad_fn.name()


@pytest.mark.parametrize("args", [((2, 3), "fro"), ((2, 2), 3)])
def test_linalg_cond_errors(args):
    shape, p = args
    same_error(lambda: gradjit.linalg.cond(gradjit.ones(*shape), p),
               lambda: torch.linalg.cond(torch.ones(*shape), p))


@pytest.mark.parametrize("make", [
    lambda t: np.float64(0.5), lambda t: np.int32(3), lambda t: np.float16(2),
    lambda t: [np.int32(1), 2], lambda t: [np.float16(1), 2], lambda t: [np.float16(1), 2.5],
    lambda t: [np.float32(1), 1j], lambda t: [np.uint8(3), True],
    lambda t: [[np.int8(1)], [np.int16(3)]], lambda t: [np.int64(2 ** 62) + 1, 1],
    lambda t: [t.tensor(1.0, dtype=t.float64), 2.0], lambda t: [t.tensor(2, dtype=t.int32), 3],
])
@pytest.mark.parametrize("factory", ["tensor", "asarray", "as_tensor"])
def test_numpy_scalars_and_tensors_in_data_keep_their_dtypes(make, factory):
    got, want = getattr(gradjit, factory)(make(gradjit)), getattr(torch, factory)(make(torch))
    assert repr(got) == repr(want)


@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_poisson_distribution_of_integer_rates_refuses_to_sample(dtype):
    def sample(t):
        return t.distributions.Poisson(t.tensor([4], dtype=getattr(t, dtype))).sample()
    same_error(lambda: sample(gradjit), lambda: sample(torch))


def test_post_accumulate_grad_hook_steps_the_leaf_in_place():
    out = {}
    for t in (gradjit, torch):
        v = t.tensor([0.0, 0.0, 0.0], requires_grad=True)
        v.register_post_accumulate_grad_hook(lambda p: p.add_(p.grad, alpha=-0.01))
        v.backward(t.tensor([1.0, 2.0, 3.0]))
        out[t] = v
    _same(out[gradjit], out[torch])


def test_inference_tensors_have_no_version_counter():
    def version(t):
        with t.inference_mode():
            y = t.ones(2)
        return y._version
    same_error(lambda: version(gradjit), lambda: version(torch))
    assert gradjit.ones(2)._version == torch.ones(2)._version


@pytest.mark.parametrize("make", [
    lambda t: t.hash_tensor(t.tensor([[1.5, 2.0], [3.0, 4.0]])),
    lambda t: t.hash_tensor(t.tensor([[1.5, 2.0], [3.0, 4.0]]), 1),
    lambda t: t.tensor([[1.5, 2.0], [3.0, 4.0]]).hash_tensor([0, 1], keepdim=True),
    lambda t: t.hash_tensor(t.tensor([1.5, 2.0]).half()),
    lambda t: t.hash_tensor(t.tensor([True, False])),
    lambda t: t.hash_tensor(t.tensor([3, 5], dtype=t.uint8)),
    lambda t: t.hash_tensor(t.tensor([-1.5, float("nan"), -0.0])),
    lambda t: t.hash_tensor(t.zeros(2, 0), 0),
])
def test_hash_tensor(make):
    got, want = make(gradjit), make(torch)
    assert repr(got) == repr(want)


@pytest.mark.parametrize("make", [
    lambda t: t.hash_tensor(t.tensor([1 + 1j])),
    lambda t: t.hash_tensor(t.tensor([5], dtype=t.uint64)),
    lambda t: t.hash_tensor(t.ones(2), mode=1),
    lambda t: t.hash_tensor(t.zeros(0)),
    lambda t: t.hash_tensor(t.zeros(0, 2), 0),
])
def test_hash_tensor_errors(make):
    same_error(lambda: make(gradjit), lambda: make(torch))


def test_grad_dtype_casts_the_accumulated_gradient():
    out = {}
    for t in (gradjit, torch):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        default = x.grad_dtype
        x.grad_dtype = t.float16
        (x * 2).sum().backward()
        out[t] = str(default), repr(x.grad), str(x.grad_dtype)
        x.grad_dtype = None
        out[t] += (x.grad_dtype,)
    assert out[gradjit] == out[torch]


@pytest.mark.parametrize("action", ["read", "write", "wrong type"])
def test_grad_dtype_errors(action):
    def act(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        if action == "read":
            return (x * 2).grad_dtype
        if action == "write":
            (x * 2).grad_dtype = t.float16
        x.grad_dtype = "float16"
    same_error(lambda: act(gradjit), lambda: act(torch))
