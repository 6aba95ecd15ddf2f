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
