"""int8, int16, uint8, float16 and bfloat16 against PyTorch: construction, factories, casts,
printing, promotion (with tensors, 0-d tensors and Python numbers), wrapping integer
arithmetic, float16/bfloat16 math rounded from float32, reductions, autograd, finfo/iinfo,
numpy(), errors; and the clear refusal of the native compilers (the interpreter runs them)."""
import numpy as np
import pytest

import gradjit
from tests.nn.helpers import same_error

torch = pytest.importorskip("torch")

NARROW = ["int8", "int16", "uint8", "float16", "bfloat16"]
VALUES = [-3.7, -1.0, 0.0, 0.5, 2.25, 100.0, 1000.0]


def both(fn):
    return [repr(fn(lib)) for lib in (gradjit, torch)]


CASES = [
    lambda L: L.tensor([1.5, 2.25, -0.1], dtype=L.float16),
    lambda L: L.tensor([1, 2, 255], dtype=L.uint8),
    lambda L: L.tensor([[-128, 127]], dtype=L.int8),
    lambda L: L.tensor([-1], dtype=L.uint8),  # PyTorch wraps a negative into uint8
    lambda L: L.tensor([1.7, -2.5], dtype=L.int16),
    lambda L: L.tensor([70000.0, 1e-8], dtype=L.half),
    lambda L: L.arange(5, dtype=L.int8),
    lambda L: L.zeros(2, 3, dtype=L.float16),
    lambda L: L.ones(2, dtype=L.uint8) * 7,
    lambda L: L.full((2,), 3.3, dtype=L.half),
    lambda L: L.linspace(0, 1, 5, dtype=L.float16),
    lambda L: L.tensor(VALUES).half(),
    lambda L: L.tensor(VALUES).char(),
    lambda L: L.tensor(VALUES).byte(),
    lambda L: L.tensor(VALUES).short(),
    lambda L: L.tensor([1.7, 300.0, -200.0]).char(),  # through a wide integer, then wrapped
    lambda L: L.tensor(VALUES).to(L.float16).to(L.float32),
    lambda L: L.tensor(VALUES).type(L.int8),
    lambda L: [L.tensor([1], dtype=getattr(L, n)).type() for n in NARROW],
    lambda L: L.tensor([1, 2], dtype=L.int8) + L.tensor([1, 2], dtype=L.uint8),
    lambda L: L.tensor([200], dtype=L.uint8) + L.tensor([100], dtype=L.uint8),
    lambda L: L.tensor([100], dtype=L.int8) * 3,
    lambda L: L.tensor([1], dtype=L.uint8) - 2,
    lambda L: L.tensor([1], dtype=L.int8) + 1000,
    lambda L: L.tensor([-128], dtype=L.int8).neg(),
    lambda L: L.tensor([1], dtype=L.int8) + 1.5,
    lambda L: L.tensor([1], dtype=L.int16) + L.tensor(2, dtype=L.int64),
    lambda L: L.tensor([1], dtype=L.int16) + L.tensor([2], dtype=L.int32),
    lambda L: L.tensor([1.0], dtype=L.float16) + L.tensor(1.5, dtype=L.float64),
    lambda L: L.tensor([1.0], dtype=L.float16) + L.tensor([1.5], dtype=L.float64),
    lambda L: L.tensor([1.0], dtype=L.float16) * L.tensor([3], dtype=L.int64),
    lambda L: L.tensor([7], dtype=L.uint8) // 2,
    lambda L: L.tensor([7], dtype=L.int8) / 2,
    lambda L: L.tensor([5, 3], dtype=L.uint8) > L.tensor([4, 4], dtype=L.int8),
    lambda L: L.tensor([0.1, 0.2, 0.7], dtype=L.half) + L.tensor([0.2, 0.1, 0.7], dtype=L.half),
    lambda L: L.tensor(VALUES, dtype=L.half).exp(),
    lambda L: L.tensor(VALUES, dtype=L.half).sin(),
    lambda L: L.tensor(VALUES, dtype=L.half).sqrt(),
    lambda L: L.tensor(VALUES, dtype=L.half).sigmoid(),
    lambda L: L.tensor(VALUES, dtype=L.half) ** 2,
    lambda L: L.tensor(VALUES, dtype=L.half).sum(),
    lambda L: L.tensor(VALUES, dtype=L.half).mean(),
    lambda L: L.tensor(VALUES, dtype=L.half).max(),
    lambda L: L.tensor(VALUES, dtype=L.half).softmax(0),
    lambda L: L.tensor([[1, 2], [3, 4]], dtype=L.int8).sum(),
    lambda L: L.tensor([[1, 2], [3, 4]], dtype=L.uint8).sum(0),
    lambda L: L.tensor([100, 100], dtype=L.int8).cumsum(0),
    lambda L: L.tensor([[0.5, 1.5], [2.0, -1.0]], dtype=L.half).reshape(4).flip(0),
    lambda L: L.tensor([3, 1, 2], dtype=L.int8).sort(),
    lambda L: L.tensor([3, 1, 2], dtype=L.uint8).argmax(),
    lambda L: L.where(L.tensor([True, False]), L.tensor([1, 2], dtype=L.int8), 0),
    lambda L: L.cat([L.tensor([1], dtype=L.int8), L.tensor([2], dtype=L.int8)]),
    lambda L: L.tensor([5, 6], dtype=L.int8)[L.tensor([1, 0])],
    lambda L: (L.tensor([1.0, 2.0], dtype=L.half).element_size(),
               L.tensor([1], dtype=L.int16).element_size(), L.uint8.is_signed,
               L.int8.is_signed, L.float16.is_floating_point, L.uint8.itemsize,
               L.tensor([1.0], dtype=L.half).is_signed()),
    lambda L: (L.finfo(L.float16), L.finfo(L.half).eps, L.finfo(L.float16).bits, L.finfo()),
    lambda L: (L.iinfo(L.uint8), L.iinfo(L.int8).min, L.iinfo(L.int16).bits, L.iinfo(L.int32)),
    lambda L: L.tensor([1, 2], dtype=L.uint8).numpy().dtype,
    lambda L: L.tensor([1.5], dtype=L.half).numpy().dtype,
    lambda L: L.from_numpy(np.array([1, 2], np.int8)) + 1,
    lambda L: L.tensor([1, 2], dtype=L.short).dtype,
    lambda L: L.tensor([1.0, 2.3333, -0.1, 1e39, 3e38], dtype=L.bfloat16),
    lambda L: L.tensor(VALUES).bfloat16(),
    lambda L: L.tensor(VALUES).bfloat16().float(),
    lambda L: L.tensor(VALUES, dtype=L.bfloat16) + 1,
    lambda L: L.tensor(VALUES, dtype=L.bfloat16) * 2.7,
    lambda L: L.tensor(VALUES, dtype=L.bfloat16).exp(),
    lambda L: L.tensor(VALUES, dtype=L.bfloat16).sum(),
    lambda L: L.tensor(VALUES, dtype=L.bfloat16).mean(),
    lambda L: L.tensor([1.5], dtype=L.float16) + L.tensor([1.5], dtype=L.bfloat16),
    lambda L: L.tensor([1.5], dtype=L.bfloat16) + L.tensor([1], dtype=L.int64),
    lambda L: L.tensor([1.5], dtype=L.bfloat16) + L.tensor(1.5, dtype=L.float64),
    lambda L: L.tensor([1.5], dtype=L.bfloat16) + L.tensor([1.5], dtype=L.float32),
    lambda L: L.arange(4, dtype=L.bfloat16).reshape(2, 2).t().sum(0),
    lambda L: L.tensor([[1.0, 2.0]], dtype=L.bfloat16) @ L.tensor([[3.0], [4.1]],
                                                                   dtype=L.bfloat16),
    lambda L: L.zeros(3, dtype=L.bfloat16).element_size(),
    lambda L: (L.finfo(L.bfloat16), L.bfloat16.itemsize, L.bfloat16.is_floating_point),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_prints_as_torch(case):
    mine, theirs = both(CASES[case])
    assert mine == theirs


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_narrow_float_math_equals_torch(name):
    """Elementwise float16 results are the float32 result rounded once, as PyTorch computes:
    arithmetic bit for bit; a transcendental within one float16 ulp (PyTorch's vectorized
    float32 functions may differ from numpy's in the last float32 bit, which rounds apart
    at a float16 tie)."""
    x = np.random.default_rng(0).standard_normal(1000).astype(np.float32) * 4
    y = np.abs(x) + 0.5

    def run(lib, method, *data):
        args = [lib.tensor(d).to(getattr(lib, name)) for d in data]
        return getattr(args[0], method)(*args[1:]).float().numpy()
    for method in ("exp", "tanh", "sin", "log1p", "sigmoid", "neg", "abs"):
        data = y if method == "log1p" else x
        ours, theirs = run(gradjit, method, data), run(torch, method, data)
        assert np.mean(ours == theirs) > 0.99, method
        np.testing.assert_allclose(ours, theirs, rtol=2 ** -7 if name == "bfloat16" else 2 ** -10)
    for op in ("__add__", "__mul__", "__truediv__", "__sub__"):
        np.testing.assert_array_equal(run(gradjit, op, x, y), run(torch, op, x, y), err_msg=op)


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_autograd_matches_torch(name):
    grads = []
    for L in (gradjit, torch):
        x = L.tensor([0.1, -0.7, 2.5, 1.25], dtype=getattr(L, name), requires_grad=True)
        y = (x.exp() * x.sin() + x * x).sum()
        y.backward()
        grads.append((repr(y), repr(x.grad)))
    assert grads[0] == grads[1]


def test_bfloat16_storage_is_rounded_float32_and_has_no_numpy_type():
    x = gradjit.tensor([1 / 3, 1e-3, -7.77], dtype=gradjit.bfloat16)
    bits = x._concrete().view(np.uint32)
    assert not (bits & 0xFFFF).any()  # only bfloat16 values
    assert x.tolist() == torch.tensor([1 / 3, 1e-3, -7.77], dtype=torch.bfloat16).tolist()
    same_error(x.numpy, torch.ones(1, dtype=torch.bfloat16).numpy)
    view = x[1:]
    view.add_(1)  # a view shares the bfloat16 storage
    assert x.tolist()[1:] == view.tolist()


def test_errors_match_torch():
    same_error(lambda: gradjit.tensor([128], dtype=gradjit.int8),
               lambda: torch.tensor([128], dtype=torch.int8))
    same_error(lambda: gradjit.tensor([300.5], dtype=gradjit.uint8),
               lambda: torch.tensor([300.5], dtype=torch.uint8))
    same_error(lambda: gradjit.finfo(gradjit.int8), lambda: torch.finfo(torch.int8))
    same_error(lambda: gradjit.iinfo(gradjit.half), lambda: torch.iinfo(torch.half))
    same_error(lambda: gradjit.iinfo(gradjit.bool), lambda: torch.iinfo(torch.bool))


def test_native_backends_refuse_narrow_dtypes_and_the_interpreter_runs_them():
    with pytest.raises(TypeError, match="does not compile bfloat16 values"):
        gradjit.jit(lambda t: t * 2)(gradjit.tensor([1.0, 2.0], dtype=gradjit.bfloat16))
    x = gradjit.tensor([1.0, 2.0], dtype=gradjit.float16)
    assert repr(gradjit.jit(lambda t: t * 2 + 1)(x)) == repr(x * 2 + 1)  # numpy steps
    out = gradjit.jit(lambda t: t * 2 + 1, backend="interpreter")(x)
    assert repr(out) == repr(x * 2 + 1)
    g = gradjit.grad(lambda t: (t * t).sum(), backend="interpreter")(x)
    assert repr(g) == "tensor([2., 4.], dtype=torch.float16)"


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_seeded_rand_and_randn_equal_torch(name):
    """rand: float32 uniforms rounded to the narrow type, a 1 after rounding becoming 0;
    randn: float32 Box-Muller rounded once (numpy's float32 log/cos may differ from PyTorch's
    in the last float32 bit, which can round apart: one ulp of the narrow type, rarely)."""
    draws = []
    for L in (gradjit, torch):
        L.manual_seed(0)
        kind = getattr(L, name)
        draws.append(np.concatenate([L.rand(2000, dtype=kind).float().numpy(),
                                     L.randn(5, dtype=kind).float().numpy(),
                                     L.randn(300, dtype=kind).float().numpy()]))
    assert np.mean(draws[0] == draws[1]) > 0.999
    np.testing.assert_allclose(*draws, rtol=2 ** -7)
