"""complex32 (torch.chalf) against PyTorch 2.13: construction and casts rounding each part to
float16, printing, element size, view_as_real, the CPU operations torch supports on it, and
its "not implemented for 'ComplexHalf'" refusals of the rest."""
import numpy as np
import pytest
import torch

import gradjit
from gradjit.tensor import complex_half
from tests.torch_reference import same_error

pytestmark = [pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental"),
              pytest.mark.filterwarnings("ignore:Casting complex values to real")]

VALUES = [1 + 2j, 3.14159 - 1e-5j, 70000 + 1j, -0.1 + 0.3j, 1e-8 - 65504j, 0j]


def both(fn):
    return [fn(lib) for lib in (gradjit, torch)]


def _chalf(L):
    return L.tensor([[1 + 1j, 2 - 1j], [0.5j, 3 + 0j]], dtype=L.chalf)


SAME_REPR = [
    lambda L: L.tensor(VALUES).chalf(),
    lambda L: L.tensor(VALUES, dtype=L.complex32),
    lambda L: L.tensor(VALUES).to(L.chalf),
    lambda L: L.tensor([1.5, 2.0, 1e-3]).to(L.chalf),
    lambda L: L.tensor(VALUES).chalf().to(L.complex64),
    lambda L: L.tensor(VALUES).chalf().cdouble(),
    lambda L: L.tensor(VALUES).chalf().half(),
    lambda L: L.tensor(VALUES).chalf().float(),
    lambda L: L.tensor([2j, 0j, 1 + 0j]).chalf().bool(),
    lambda L: L.tensor(VALUES).chalf().real,
    lambda L: L.tensor(VALUES).chalf().imag,
    lambda L: L.view_as_real(L.tensor(VALUES).chalf()),
    lambda L: L.view_as_complex(L.tensor([[1.5, -2.0], [0.1, 3.0]], dtype=L.half)),
    lambda L: L.complex(L.ones(2, dtype=L.half), L.tensor([0.1, 2.0], dtype=L.half)),
    lambda L: L.ones(2, dtype=L.half) * 1j,
    lambda L: L.ones(2, dtype=L.half) + _chalf(L)[0],
    lambda L: L.ones(2, dtype=L.float32) + _chalf(L)[0],
    lambda L: L.zeros(2, 3, dtype=L.chalf),
    lambda L: L.full((2,), 1j, dtype=L.chalf),
    lambda L: L.zeros_like(_chalf(L)),
    lambda L: _chalf(L) + _chalf(L),
    lambda L: _chalf(L) - 1,
    lambda L: -_chalf(L),
    lambda L: _chalf(L).abs(),
    lambda L: _chalf(L).conj(),
    lambda L: _chalf(L).sgn(),
    lambda L: _chalf(L) == _chalf(L).conj(),
    lambda L: _chalf(L).isfinite(),
    lambda L: _chalf(L).t().contiguous(),
    lambda L: _chalf(L).flip(0),
    lambda L: L.cat([_chalf(L), _chalf(L)]),
    lambda L: _chalf(L)[1],
    lambda L: _chalf(L).sum(dtype=L.cfloat),
    lambda L: _chalf(L).tolist(),
    lambda L: _chalf(L)[0, 0].item(),
    lambda L: (L.chalf, L.complex32, L.chalf.itemsize, L.chalf.is_complex),
    lambda L: (L.chalf.to_real(), L.float16.to_complex()),
    lambda L: (_chalf(L).element_size(), _chalf(L).dtype, _chalf(L).is_complex()),
]


@pytest.mark.parametrize("case", SAME_REPR)
def test_complex32_as_torch(case):
    g, t = both(case)
    assert repr(g) == repr(t)


def test_complex32_draws_equal_torchs():
    def draws(L):
        L.manual_seed(0)
        return L.randn(5, dtype=L.chalf), L.rand(3, dtype=L.chalf)
    assert repr(draws(gradjit)) == repr(draws(torch))


@pytest.mark.parametrize("op", [
    lambda L, x, y: x * y, lambda L, x, y: x + y, lambda L, x, y: x.sub(y, alpha=0.7),
    lambda L, x, y: x * (1.001 + 0.333j), lambda L, x, y: x + 0.1, lambda L, x, y: x.abs(),
    lambda L, x, y: x.sgn(), lambda L, x, y: L.addcmul(x, y, y, value=0.3),
    lambda L, x, y: L.where(x.real > 0, x, y), lambda L, x, y: x.conj() * 2,
])
def test_complex32_arithmetic_rounds_as_torch(op):
    """torch's complex32 kernels compute each result in complex64 (a Python number rounded to
    complex32 first) and round it once: equal bit for bit on many random values."""
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(2000) + 1j * rng.standard_normal(2000) for _ in range(2))
    g, t = both(lambda L: op(L, L.tensor(a).chalf(), L.tensor(b).chalf()))
    assert str(g.dtype) == str(t.dtype)
    widen = "cfloat" if g.is_complex() else "float"
    np.testing.assert_array_equal(getattr(g, widen)().numpy(), getattr(t, widen)().numpy())


def test_complex32_gradient_through_real():
    def grad(L):
        x = L.tensor(VALUES[:3], dtype=L.chalf, requires_grad=True)
        (x.real * 2).sum().backward()
        return x.grad
    g, t = both(grad)
    assert str(g.dtype) == str(t.dtype) == "torch.complex32"
    np.testing.assert_array_equal(g.cfloat().numpy(), t.cfloat().numpy())


REFUSED = [
    lambda L: _chalf(L).exp(), lambda L: L.exp(_chalf(L)), lambda L: _chalf(L).exp_(),
    lambda L: _chalf(L).sqrt(), lambda L: _chalf(L).sin(), lambda L: _chalf(L).log(),
    lambda L: _chalf(L).tanh(), lambda L: _chalf(L).sigmoid(), lambda L: _chalf(L).angle(),
    lambda L: _chalf(L).reciprocal(), lambda L: _chalf(L).exp2(),
    lambda L: _chalf(L).sum(), lambda L: _chalf(L).sum(0), lambda L: _chalf(L).mean(),
    lambda L: _chalf(L).prod(), lambda L: _chalf(L).cumsum(0), lambda L: _chalf(L).cumprod(0),
    lambda L: _chalf(L) / _chalf(L), lambda L: _chalf(L) / 2, lambda L: 2 / _chalf(L),
    lambda L: _chalf(L).div_(_chalf(L)), lambda L: _chalf(L) ** 2, lambda L: 2 ** _chalf(L),
    lambda L: _chalf(L).square(), lambda L: _chalf(L) @ _chalf(L),
    lambda L: _chalf(L).mm(_chalf(L)), lambda L: _chalf(L)[0].dot(_chalf(L)[0]),
    lambda L: _chalf(L).trace(), lambda L: _chalf(L).fliplr(), lambda L: _chalf(L).equal(
        _chalf(L)), lambda L: _chalf(L).logical_not(), lambda L: _chalf(L).logsumexp(0),
    lambda L: _chalf(L).nan_to_num(), lambda L: _chalf(L).max(), lambda L: _chalf(L) < 1,
]


@pytest.mark.parametrize("case", REFUSED)
def test_complex32_refusals_as_torch(case):
    same_error(lambda: case(gradjit), lambda: case(torch))


def _args(L, name):
    y = _chalf(L)
    return {"pow": (2,), "__pow__": (2,), "__rpow__": (2,), "div": (y,), "true_divide": (y,),
            "__truediv__": (y,), "__rtruediv__": (2,), "atan2": (y,), "xlogy": (y,),
            "logical_and": (y,), "take": (L.tensor([0]),), "cumsum": (0,), "cumprod": (0,),
            "logsumexp": (0,), "sum_to_size": ((1, 2),), "dot": (y[0],), "vdot": (y[0],),
            "equal": (y,), "lerp": (y, 0.5), "addcdiv": (y, y), "matmul": (y,), "mm": (y,),
            "inner": (y,), "__matmul__": (y,), "gather": (0, L.tensor([[0]]))}.get(name, ())


@pytest.mark.parametrize("name", sorted(complex_half.KERNELS))
def test_every_refused_method_is_refused_by_torch(name):
    """Each entry of the table is a method torch refuses on complex32, naming that kernel."""
    x, y = _chalf(gradjit), _chalf(torch)
    if name in ("dot", "vdot"):
        x, y = x[0], y[0]
    same_error(lambda: getattr(x, name)(*_args(gradjit, name)),
               lambda: getattr(y, name)(*_args(torch, name)))
