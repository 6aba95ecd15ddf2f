"""torch.func.vmap (in_dims/out_dims pytrees, chunk_size, nesting, per-sample gradients, its
argument errors) and functional_call (tied weights, buffers, strict), against torch.func."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error
from tests.transforms.test_torch_suite_func import same

torch = pytest.importorskip("torch")
rng = np.random.default_rng(0)
X, Y, Z = rng.standard_normal((4, 3)), rng.standard_normal((4, 3)), rng.standard_normal((3, 4))
X4, P, Q = rng.standard_normal((2, 3, 5, 7)), rng.random((5, 2, 3)), rng.random((3, 5, 2))


def t(L, a):
    return L.tensor(a)


def _loss(w, x):
    return (w @ x).tanh().sum()


SCENARIOS = {
    "unary": lambda L: L.func.vmap(L.sin)(t(L, X)),
    "binary": lambda L: L.func.vmap(L.mul)(t(L, X), t(L, Y)),
    "in-dims-none": lambda L: L.func.vmap(L.mul, in_dims=(0, None))(t(L, X), t(L, Y[0])),
    "in-dims-1": lambda L: L.func.vmap(L.mul, in_dims=(1, 0))(t(L, Z), t(L, X)),
    "in-dims-negative": lambda L: L.func.vmap(lambda x: x.sum(), in_dims=-1)(t(L, Z)),
    "out-dims-1": lambda L: L.func.vmap(lambda x: x * 2, out_dims=1)(t(L, X)),
    "out-dims-negative": lambda L: L.func.vmap(lambda x: x * 2, out_dims=-1)(t(L, X)),
    "out-dims-tuple": lambda L: L.func.vmap(lambda x: (x, x.sum()), out_dims=(1, 0))(t(L, X)),
    "out-dims-none": lambda L: L.func.vmap(lambda x: (x.sin(), L.ones(2)), out_dims=(0, None))(
        t(L, X)),
    "in-dims-dict": lambda L: L.func.vmap(lambda d: d["a"] * d["b"],
                                          in_dims=({"a": 0, "b": None},))(
        {"a": t(L, X), "b": t(L, Y[0])}),
    "in-dims-list": lambda L: L.func.vmap(lambda p: p[0] + p[1], in_dims=([0, 1],))(
        [t(L, X), t(L, Z)]),
    "dict-output": lambda L: L.func.vmap(lambda x: {"s": x.sum(), "m": x.max()})(t(L, X)),
    "nested": lambda L: L.func.vmap(L.func.vmap(lambda x, y: x * y))(t(L, X), t(L, Y)),
    "nested-outer-product": lambda L: L.func.vmap(L.func.vmap(L.dot, in_dims=(None, 0)),
                                                  in_dims=(0, None))(t(L, X), t(L, Y)),
    "chunk-size": lambda L: L.func.vmap(lambda x: x.cumsum(0), chunk_size=3)(t(L, X)),
    "chunk-size-1": lambda L: L.func.vmap(lambda x, y: x @ y, in_dims=(0, None), chunk_size=1)(
        t(L, X), t(L, Z)),
    "per-sample-grads": lambda L: L.func.vmap(L.func.grad(_loss), in_dims=(None, 0))(
        t(L, Z.T), t(L, Y)),
    "per-sample-grads-argnums": lambda L: L.func.vmap(L.func.grad(_loss, argnums=(0, 1)),
                                                      in_dims=(None, 0))(t(L, Z.T), t(L, Y)),
    "keyword-unmapped": lambda L: L.func.vmap(lambda x, scale: x * scale)(t(L, X),
                                                                          scale=t(L, Y[0])),
    "keyword-float": lambda L: L.func.vmap(lambda x, scale=1.0: x * scale)(t(L, X), scale=2.0),
    "python-int-argument": lambda L: L.func.vmap(lambda x, n: x.sum(n), in_dims=(0, None))(
        t(L, X), 0),
    "scalar-output": lambda L: L.func.vmap(lambda x: x.sum())(t(L, X)),
    "inplace-on-copy": lambda L: L.func.vmap(lambda x: x.clone().mul_(2).add_(1))(t(L, X)),
    "jacrev-per-row": lambda L: L.func.vmap(L.func.jacrev(L.sin))(t(L, X)),
    "jacfwd-per-row": lambda L: L.func.vmap(L.func.jacfwd(lambda x: x * x.sum()))(t(L, X)),
    "constant-output": lambda L: L.func.vmap(lambda x: L.tensor(3.14))(L.ones(3)),
    "inner-over-other-axis": lambda L: L.func.vmap(lambda x: L.func.vmap(lambda y: x * y)(
        t(L, Z.T)))(t(L, X)),
    "inner-noop": lambda L: L.func.vmap(lambda x: L.func.vmap(lambda y: x)(t(L, Z[0])))(
        t(L, X[0])),
    "out-dims-one-of-one": lambda L: L.func.vmap(lambda x: x.cos(), out_dims=(1,))(t(L, X)),
    "out-dims-none-string": lambda L: L.func.vmap(lambda x: (x, "hello world"),
                                                  out_dims=(0, None))(t(L, X)),
    "out-dims-none-unmapped": lambda L: L.func.vmap(lambda x: L.arange(3), out_dims=None)(
        t(L, X)),
    "unmapped-output-stacked": lambda L: L.func.vmap(lambda x: L.arange(3))(t(L, X)),
    "pytree-output": lambda L: L.func.vmap(
        lambda x: (x.sin(), (x.sin(), x), [x, (x, x.cos())]))(t(L, X)),
    "nested-out-dims": lambda L: L.func.vmap(lambda y: L.func.vmap(lambda x: x, out_dims=-1)(y),
                                             out_dims=-1)(t(L, X4)),
    "nested-in-dims": lambda L: L.func.vmap(L.func.vmap(L.func.vmap(L.mul), (1, 0)), (1, 2))(
        t(L, P), t(L, Q)),
    "in-dims-2-out-dims-1": lambda L: L.func.vmap(lambda x: x * 2, in_dims=2, out_dims=1)(
        t(L, X4[..., 0])),
    "python-number-unmapped": lambda L: L.func.vmap(L.mul, (0, None))(t(L, X), 2),
    "diag-embed-nested": lambda L: L.func.vmap(L.func.vmap(L.diag_embed))(t(L, X4[..., 0, :5])),
    "tuple-input-dims": lambda L: L.func.vmap(lambda z: z[0] + z[1], in_dims=((0, 1),))(
        (t(L, X), t(L, Z))),
    "hessian-per-row": lambda L: L.func.vmap(L.func.hessian(lambda x: x.sin().sum()))(t(L, X)),
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_vmap_as_torch(name):
    same(SCENARIOS[name](gradjit), SCENARIOS[name](torch))


ERRORS = {
    "sizes": lambda L: L.func.vmap(L.mul)(t(L, X), t(L, Z)),
    "in-dims-none": lambda L: L.func.vmap(L.sin, in_dims=None)(t(L, X)),
    "in-dims-list": lambda L: L.func.vmap(L.mul, in_dims=[0, 0])(t(L, X), t(L, Y)),
    "in-dims-length": lambda L: L.func.vmap(L.mul, in_dims=(0,))(t(L, X), t(L, Y)),
    "in-dims-range": lambda L: L.func.vmap(L.sin, in_dims=2)(t(L, X)),
    "in-dims-string": lambda L: L.func.vmap(L.sin, in_dims="a")(t(L, X)),
    "in-dims-entry": lambda L: L.func.vmap(L.mul, in_dims=(0, 1.0))(t(L, X), t(L, Y)),
    "all-unmapped": lambda L: L.func.vmap(L.mul, in_dims=(None, None))(t(L, X), t(L, Y)),
    "out-dims-range": lambda L: L.func.vmap(L.sin, out_dims=3)(t(L, X)),
    "out-dims-length": lambda L: L.func.vmap(lambda x: (x, x), out_dims=(0, 0, 0))(t(L, X)),
    "no-inputs": lambda L: L.func.vmap(lambda: 1)(),
    "python-float-mapped": lambda L: L.func.vmap(lambda x: x)(3.0),
    "nontensor-output": lambda L: L.func.vmap(lambda x: 3)(t(L, X)),
    "none-output": lambda L: L.func.vmap(lambda x: (x, None))(t(L, X)),
    "none-input": lambda L: L.func.vmap(lambda x, y: x)(t(L, X), None),
    "chunk-size": lambda L: L.func.vmap(L.sin, chunk_size=0)(t(L, X)),
    "only-numbers": lambda L: L.func.vmap(lambda x: L.ones(3), (None,))(1),
    "out-dims-mapped-none": lambda L: L.func.vmap(lambda x: x, out_dims=None)(t(L, X)),
    "out-dims-string": lambda L: L.func.vmap(lambda x: x, out_dims="lol")(t(L, X)),
    "out-dims-string-entry": lambda L: L.func.vmap(lambda x: x, out_dims=("lol",))(t(L, X)),
    "out-dims-too-many": lambda L: L.func.vmap(lambda x: x, out_dims=(0, 0))(t(L, X)),
    "out-dims-too-few": lambda L: L.func.vmap(lambda x: (x, x), out_dims=(0,))(t(L, X)),
    "out-dims-negative-range": lambda L: L.func.vmap(lambda x: x, out_dims=-3)(t(L, X)),
    "in-dims-list-for-tuple": lambda L: L.func.vmap(lambda z: z[0], in_dims=([0, 0],))(
        (t(L, X), t(L, X))),
    "in-dims-dict-keys": lambda L: L.func.vmap(lambda z: z["x"], in_dims=({"x": 0, "z": 0},))(
        {"x": t(L, X), "y": t(L, X)}),
    "randomness": lambda L: L.func.vmap(L.sin, randomness="x")(t(L, X)),
    "random-draw": lambda L: L.func.vmap(lambda x: x + L.rand(3))(t(L, X)),
    "random-draw-in-grad": lambda L: L.func.vmap(L.func.grad(
        lambda x: (x * L.randn(3, dtype=L.float64)).sum()))(t(L, X)),
    "random-draw-jacfwd": lambda L: L.func.jacfwd(lambda x: x * L.rand(3, dtype=L.float64))(
        t(L, X[0])),
}


@pytest.mark.parametrize("name", ERRORS)
def test_vmap_errors_as_torch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


class _Tied:
    """A net whose two Linear layers share one weight, with a buffer, built with lib."""

    @staticmethod
    def build(L):
        class Net(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.a, self.b = L.nn.Linear(3, 3), L.nn.Linear(3, 3)
                self.b.weight = self.a.weight
                self.register_buffer("shift", L.ones(3))

            def forward(self, x, scale=1.0):
                return self.b(self.a(x) + self.shift) * scale
        L.manual_seed(0)
        return Net()


def f32(L, a):
    return L.tensor(a, dtype=L.float32)


def _call(L, replace, **options):
    net = _Tied.build(L)
    return L.func.functional_call(net, replace(L), (f32(L, X),), **options)


def _grad_through(L):
    net = _Tied.build(L)
    return L.func.grad(lambda p: L.func.functional_call(net, p, (f32(L, X),)).pow(2).sum())(
        {"a.weight": f32(L, Z[:, :3]), "b.bias": f32(L, X[3])})


CALLS = {
    "tied-one-name": lambda L: _call(L, lambda L: {"a.weight": f32(L, Z[:, :3])}),
    "tied-off": lambda L: _call(L, lambda L: {"a.weight": f32(L, Z[:, :3])}, tie_weights=False),
    "tied-strict": lambda L: _call(L, lambda L: {
        "a.weight": f32(L, Z[:, :3]), "a.bias": f32(L, X[0]), "b.bias": f32(L, X[1]),
        "shift": f32(L, X[2])}, strict=True),
    "buffer": lambda L: _call(L, lambda L: {"shift": f32(L, X[0])}),
    "two-dicts": lambda L: _call(L, lambda L: ({"a.bias": f32(L, X[1])}, {"shift": f32(L, X[2])})),
    "kwargs": lambda L: L.func.functional_call(_Tied.build(L), {}, (f32(L, X),),
                                               {"scale": 2.0}),
    "grad-through": _grad_through,
}


@pytest.mark.parametrize("name", CALLS)
def test_functional_call_as_torch(name):
    same(CALLS[name](gradjit), CALLS[name](torch))


CALL_ERRORS = {
    "strict-missing": lambda L: _call(L, lambda L: {"a.bias": f32(L, X[0])}, strict=True),
    "tied-twice": lambda L: _call(L, lambda L: {"a.weight": f32(L, Z[:, :3]),
                                                "b.weight": f32(L, Z[:, 1:])}),
    "repeated": lambda L: _call(L, lambda L: ({"shift": f32(L, X[1])}, {"shift": f32(L, X[2])})),
}


@pytest.mark.parametrize("name", CALL_ERRORS)
def test_functional_call_errors_as_torch(name):
    same_error(lambda: CALL_ERRORS[name](gradjit), lambda: CALL_ERRORS[name](torch))
