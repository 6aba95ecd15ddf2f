"""torch.func's grad, grad_and_value, vjp, jvp, jacrev, jacfwd and hessian, scenario by scenario
against torch.func itself: values, the structure of results (tuples, dicts, aux) and errors."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")
rng = np.random.default_rng(5)
A, B, M = rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal((2, 3))


def same(ours, theirs):
    """Equal pytree structure (tuple, list, dict keys), tensor shapes, dtypes and values."""
    if isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), (ours, theirs)
        for a, b in zip(ours, theirs):
            same(a, b)
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs), (ours, theirs)
        for key in theirs:
            same(ours[key], theirs[key])
    elif isinstance(theirs, torch.Tensor):
        assert isinstance(ours, gradjit.Tensor), ours
        assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)
        tol = 1e-5 if theirs.dtype == torch.float32 else 1e-9
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol,
                                   atol=tol)
    else:
        assert ours == theirs


def t(L, a):
    return L.tensor(a)


def _sum_sin(x):
    return x.sin().sum()


def _inplace(x):
    y = x.clone()
    y.mul_(x)
    y.add_(1.0)
    return y.sum()


def _view_inplace(x):
    y = x.clone()
    y[1:].mul_(3.0)
    return (y * x).sum()


GRADS = {
    "primitive-scalar": lambda L: L.func.grad(L.sin)(L.tensor(0.5)),
    "composite": lambda L: L.func.grad(_sum_sin)(t(L, A)),
    "argnums-int": lambda L: L.func.grad(lambda x, y: (x * y).sum(), argnums=1)(t(L, A), t(L, B)),
    "argnums-negative": lambda L: L.func.grad(lambda x, y: (x * y.exp()).sum(), argnums=-1)(
        t(L, A), t(L, B)),
    "argnums-tuple": lambda L: L.func.grad(lambda x, y: (x * y.cos()).sum(), argnums=(0, 1))(
        t(L, A), t(L, B)),
    "argnums-single-tuple": lambda L: L.func.grad(lambda x, y: (x * y).sum(), argnums=(1,))(
        t(L, A), t(L, B)),
    "has-aux-tensor": lambda L: L.func.grad(lambda x: (x.sin().sum(), x.cos()), has_aux=True)(
        t(L, A)),
    "has-aux-pytree": lambda L: L.func.grad(
        lambda x: (x.sum(), {"a": x * 2, "b": [x.exp(), (x[0],)]}), has_aux=True)(t(L, A)),
    "dict-input": lambda L: L.func.grad(lambda d: (d["a"] * d["b"].tanh()).sum())(
        {"a": t(L, A), "b": t(L, B)}),
    "tuple-input": lambda L: L.func.grad(lambda p: (p[0] ** 2 * p[1]).sum())((t(L, A), t(L, B))),
    "list-input": lambda L: L.func.grad(lambda p: (p[0] ** 2 * p[1]).sum())([t(L, A), t(L, B)]),
    "nested": lambda L: L.func.grad(L.func.grad(lambda x: x.sin() * x ** 3))(L.tensor(0.7)),
    "nested-third": lambda L: L.func.grad(L.func.grad(L.func.grad(L.exp)))(L.tensor(0.3)),
    "inplace": lambda L: L.func.grad(_inplace)(t(L, A)),
    "view-inplace": lambda L: L.func.grad(_view_inplace)(t(L, A)),
    "view": lambda L: L.func.grad(lambda x: (x.view(6)[::2] * x.t().reshape(6)[:3]).sum())(
        t(L, M)),
    "closure": lambda L: L.func.grad(lambda x: (x * L.tensor(B)).sum())(t(L, A)),
    "matrix": lambda L: L.func.grad(lambda w: (w @ L.tensor(A)).pow(2).sum())(t(L, M)),
    "unused-input": lambda L: L.func.grad(lambda x, y: x.sum(), argnums=1)(t(L, A), t(L, B)),
    "value": lambda L: L.func.grad_and_value(lambda x: x.exp().sum())(t(L, A)),
    "value-aux": lambda L: L.func.grad_and_value(lambda x: (x.exp().sum(), x + 1),
                                                 has_aux=True)(t(L, A)),
    "value-argnums": lambda L: L.func.grad_and_value(lambda x, y: (x * y).sum(), argnums=(0, 1))(
        t(L, A), t(L, B)),
    "cross-entropy-integer-target": lambda L: L.func.grad(L.nn.functional.cross_entropy)(
        t(L, M), L.tensor([2, 0])),
    "flatten": lambda L: L.func.grad(lambda x: L.flatten(x).sum())(t(L, M)),
    "view-then-inplace": lambda L: L.func.grad(lambda x: (lambda y: (y.view([]).sin_(), y)[1])(
        x.clone()))(L.tensor(0.3)),
    "inplace-on-view-base": lambda L: L.func.grad(lambda x: (lambda y: (y[0], y.sin_())[0])(
        x.clone()))(t(L, A)),
    "unrelated-output": lambda L: L.func.grad(lambda x: L.tensor(2.0))(L.tensor(1.0)),
    "kwargs": lambda L: L.func.grad(lambda x, scale: (x * scale).sum())(t(L, A), scale=t(L, B)),
    "python-scalar-arg": lambda L: L.func.grad(lambda x, k: (x * k).sum())(t(L, A), 3.0),
    "float32": lambda L: L.func.grad(_sum_sin)(L.tensor(A, dtype=L.float32)),
}


@pytest.mark.parametrize("name", GRADS)
def test_grad_as_torch(name):
    same(GRADS[name](gradjit), GRADS[name](torch))


def _vjp(L, fn, primals, cotangents, **kw):
    out = L.func.vjp(fn, *primals, **kw)
    return out[:1] + (out[1](*cotangents),) + out[2:]


VJPS = {
    "single": lambda L: _vjp(L, L.sin, (t(L, A),), (t(L, B),)),
    "two-inputs": lambda L: _vjp(L, lambda x, y: x * y.exp(), (t(L, A), t(L, B)), (t(L, A),)),
    "tuple-output": lambda L: _vjp(L, lambda x: (x.sin(), x.sum()), (t(L, A),),
                                   ((t(L, B), L.tensor(2.0)),)),
    "dict-output": lambda L: _vjp(L, lambda x: {"s": x.sin(), "c": x.cos()}, (t(L, A),),
                                  ({"s": t(L, B), "c": t(L, A)},)),
    "dict-input": lambda L: _vjp(L, lambda d: d["a"] * d["b"], ({"a": t(L, A), "b": t(L, B)},),
                                 (t(L, A),)),
    "has-aux": lambda L: _vjp(L, lambda x: (x.sin(), {"aux": x.cos()}), (t(L, A),), (t(L, B),),
                              has_aux=True),
    "matrix": lambda L: _vjp(L, lambda w, x: w @ x, (t(L, M), t(L, A)), (L.ones(2),)),
}


@pytest.mark.parametrize("name", VJPS)
def test_vjp_as_torch(name):
    same(VJPS[name](gradjit), VJPS[name](torch))


JVPS = {
    "single": lambda L: L.func.jvp(L.sin, (t(L, A),), (t(L, B),)),
    "two-inputs": lambda L: L.func.jvp(lambda x, y: x * y.exp(), (t(L, A), t(L, B)),
                                       (t(L, B), t(L, A))),
    "tuple-output": lambda L: L.func.jvp(lambda x: (x.sin(), x.sum()), (t(L, A),), (t(L, B),)),
    "dict-output": lambda L: L.func.jvp(lambda x: {"s": x.sin(), "c": x.cos()}, (t(L, A),),
                                        (t(L, B),)),
    "has-aux": lambda L: L.func.jvp(lambda x: (x.exp(), x * 2), (t(L, A),), (t(L, B),),
                                    has_aux=True),
    "unrelated-output": lambda L: L.func.jvp(lambda x: t(L, B), (t(L, A),), (t(L, A),)),
    "unrelated-input": lambda L: L.func.jvp(lambda x, y: x, (t(L, A), t(L, B)), (t(L, B), t(L, A))),
    "pytree-primals": lambda L: L.func.jvp(lambda x, y: x[0] + 2 * x[1] + 3 * y,
                                           ((t(L, A), t(L, B)), t(L, A)),
                                           ((t(L, B), t(L, B)), t(L, A))),
    "scalar": lambda L: L.func.jvp(lambda x: x ** 3, (L.tensor(2.0),), (L.tensor(1.0),)),
    "nested-in-grad": lambda L: L.func.grad(lambda x: L.func.jvp(
        lambda y: (y.sin() * y).sum(), (x,), (L.ones(3, dtype=L.float64),))[1])(t(L, A)),
    "tangent-dtype": lambda L: L.func.jvp(L.sin, (t(L, A),), (L.ones(3),)),
}


@pytest.mark.parametrize("name", JVPS)
def test_jvp_as_torch(name):
    same(JVPS[name](gradjit), JVPS[name](torch))


def _two(x, y):
    return x.sin() * y.sum()


JACOBIANS = {
    "basic": lambda L, J: J(L.sin)(t(L, A)),
    "matrix-input": lambda L, J: J(lambda w: w @ L.tensor(A))(t(L, M)),
    "argnums-1": lambda L, J: J(_two, argnums=1)(t(L, A), t(L, B)),
    "argnums-tuple": lambda L, J: J(_two, argnums=(0, 1))(t(L, A), t(L, B)),
    "has-aux": lambda L, J: J(lambda x: (x.exp(), x.sum()), has_aux=True)(t(L, A)),
    "tuple-output": lambda L, J: J(lambda x: (x.sin(), x.sum()))(t(L, A)),
    "dict-output": lambda L, J: J(lambda x: {"s": x.sin(), "m": x[:2] * 2})(t(L, A)),
    "dict-input": lambda L, J: J(lambda d: d["a"] * d["b"])({"a": t(L, A), "b": t(L, B)}),
    "scalar-output": lambda L, J: J(lambda x: x.pow(2).sum())(t(L, A)),
    "python-number-argument": lambda L, J: J(lambda x, k: x * k)(t(L, A), 3),
    "default-argument": lambda L, J: J(lambda x, y, z=3.0: x * y * z)(t(L, A), t(L, B)),
    "unrelated-outputs": lambda L, J: J(lambda x, y: (x, y, x, y), argnums=(0, 1))(
        t(L, A), t(L, B[:2])),
    "zero-dim-input": lambda L, J: J(lambda x: L.stack([x, x, x]))(L.tensor(0.3)),
    "multi-output-matmul": lambda L, J: J(lambda x, y: ((x * x) @ y, x @ (x.sum(1) * y),
                                                       y.sum()), argnums=(0, 1))(
        t(L, M), t(L, M.T)),
    "scalar-input": lambda L, J: J(lambda x: x * L.tensor(A))(L.tensor(2.0)),
    "nested": lambda L, J: J(J(lambda x: x.sin() * x.sum()))(t(L, A)),
}


@pytest.mark.parametrize("which", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("name", JACOBIANS)
def test_jacobians_as_torch(name, which):
    same(JACOBIANS[name](gradjit, getattr(gradjit.func, which)),
         JACOBIANS[name](torch, getattr(torch.func, which)))


@pytest.mark.parametrize("chunk_size", [1, 2, 5])
def test_jacrev_chunk_size_as_torch(chunk_size):
    def run(L):
        return L.func.jacrev(_two, argnums=(0, 1), chunk_size=chunk_size)(t(L, A), t(L, B))
    same(run(gradjit), run(torch))


@pytest.mark.parametrize("argnums", [0, (0, 1)])
def test_hessian_as_torch(argnums):
    def run(L):
        return L.func.hessian(lambda x, y: (x.sin() * y.exp()).sum() * x.sum(),
                              argnums=argnums)(t(L, A), t(L, B))
    same(run(gradjit), run(torch))


ERRORS = {
    "grad-nonscalar": lambda L: L.func.grad(L.sin)(t(L, A)),
    "grad-nontensor-output": lambda L: L.func.grad(lambda x: 1.0)(t(L, A)),
    "grad-argnums-range": lambda L: L.func.grad(_sum_sin, argnums=1)(t(L, A)),
    "grad-argnums-empty": lambda L: L.func.grad(_sum_sin, argnums=())(t(L, A)),
    "grad-argnums-float": lambda L: L.func.grad(_sum_sin, argnums=0.0)(t(L, A)),
    "grad-argnums-list": lambda L: L.func.grad(_sum_sin, argnums=[0])(t(L, A)),
    "grad-argnums-entry": lambda L: L.func.grad(_two, argnums=(0, "1"))(t(L, A), t(L, B)),
    "grad-argnums-repeated": lambda L: L.func.grad(
        lambda x, y: x.sum(), argnums=(0, -2))(t(L, A), t(L, B)),
    "grad-python-float": lambda L: L.func.grad(lambda x: x * 2)(3.0),
    "grad-integer-tensor": lambda L: L.func.grad(lambda x: x.sum())(L.arange(3)),
    "grad-aux-not-pair": lambda L: L.func.grad(_sum_sin, has_aux=True)(t(L, A)),
    "grad-aux-triple": lambda L: L.func.grad(lambda x: (x.sum(), x, x), has_aux=True)(t(L, A)),
    "grad-aux-python-int": lambda L: L.func.grad(lambda x: (x.sum(), [x, 3]), has_aux=True)(
        t(L, A)),
    "grad-no-arguments": lambda L: L.func.grad(lambda: 1.0)(),
    "value-nonscalar": lambda L: L.func.grad_and_value(L.sin)(t(L, A)),
    "vjp-cotangent-structure": lambda L: L.func.vjp(lambda x: (x, x), t(L, A))[1](t(L, A)),
    "vjp-cotangent-dict": lambda L: L.func.vjp(lambda x: {"a": x}, t(L, A))[1]({"b": t(L, A)}),
    "vjp-cotangent-shape": lambda L: L.func.vjp(L.sin, t(L, A))[1](t(L, A[:2])),
    "vjp-nontensor-output": lambda L: L.func.vjp(lambda x: 3.0, t(L, A)),
    "vjp-no-output": lambda L: L.func.vjp(lambda x: (), t(L, A)),
    "vjp-none-output": lambda L: L.func.vjp(lambda x: None, t(L, A)),
    "vjp-none-in-output": lambda L: L.func.vjp(lambda x: (x, None), t(L, A)),
    "jvp-none-primal": lambda L: L.func.jvp(lambda x, y: x, (t(L, A), None), (t(L, A), None)),
    "grad-aux-none": lambda L: L.func.grad(lambda x: (x.sum(), None), has_aux=True)(t(L, A)),
    "vjp-integer-output": lambda L: L.func.vjp(lambda x: x.long(), t(L, A)),
    "vjp-nontensor-input": lambda L: L.func.vjp(lambda x: x, 3.0),
    "vjp-aux-not-pair": lambda L: L.func.vjp(L.sin, t(L, A), has_aux=True),
    "jvp-primals-not-tuple": lambda L: L.func.jvp(L.sin, t(L, A), (t(L, A),)),
    "jvp-primals-list": lambda L: L.func.jvp(L.sin, [t(L, A)], [t(L, A)]),
    "jvp-tangents-not-tuple": lambda L: L.func.jvp(L.sin, (t(L, A),), t(L, A)),
    "jvp-lengths": lambda L: L.func.jvp(L.sin, (t(L, A),), (t(L, A), t(L, A))),
    "jvp-empty": lambda L: L.func.jvp(L.sin, (), ()),
    "jvp-tangent-shape": lambda L: L.func.jvp(L.sin, (t(L, A),), (t(L, A[:2]),)),
    "jvp-nontensor-output": lambda L: L.func.jvp(lambda x: 3.0, (t(L, A),), (t(L, A),)),
    "jvp-nontensor-primal": lambda L: L.func.jvp(lambda x: x, (3.0,), (1.0,)),
    "jvp-aux-not-pair": lambda L: L.func.jvp(L.sin, (t(L, A),), (t(L, A),), has_aux=True),
    "jacrev-nontensor-output": lambda L: L.func.jacrev(lambda x: 3.0)(t(L, A)),
    "jacrev-argnums-range": lambda L: L.func.jacrev(L.sin, argnums=2)(t(L, A)),
    "jacrev-aux-not-pair": lambda L: L.func.jacrev(L.sin, has_aux=True)(t(L, A)),
    "jacrev-chunk-size": lambda L: L.func.jacrev(L.sin, chunk_size=0)(t(L, A)),
    "jacrev-integer": lambda L: L.func.jacrev(L.sin)(L.arange(3)),
    "jacfwd-nontensor-output": lambda L: L.func.jacfwd(lambda x: 3.0)(t(L, A)),
    "jacfwd-argnums-empty": lambda L: L.func.jacfwd(L.sin, argnums=())(t(L, A)),
    "jacfwd-randomness": lambda L: L.func.jacfwd(L.sin, randomness="x")(t(L, A)),
    "jacfwd-integer": lambda L: L.func.jacfwd(L.sin)(L.arange(3)),
    "jacrev-complex-input": lambda L: L.func.jacrev(lambda x: x.conj(), argnums=1)(
        t(L, A), L.tensor([1 + 1j])),
    "jacfwd-complex-input": lambda L: L.func.jacfwd(lambda x: x.conj())(L.tensor([1 + 1j])),
    "jacrev-complex-output": lambda L: L.func.jacrev(lambda x: (x, x * 0.5j))(t(L, A)),
    "jacfwd-complex-output": lambda L: L.func.jacfwd(lambda x: (x * 0.5j, x))(t(L, A)),
    "jvp-strict": lambda L: L.func.jvp(lambda x: (x, L.ones(2)), (t(L, A),), (t(L, A),),
                                       strict=True),
    "hessian-nonscalar-argnums": lambda L: L.func.hessian(_two, argnums=5)(t(L, A), t(L, B)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_as_torch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


@pytest.mark.parametrize("name", ["vmap", "grad", "grad_and_value", "jacrev", "jacfwd",
                                  "hessian"])
def test_transformed_functions_are_named_as_torch_names_them(name):
    def f(x):
        return x
    ours, theirs = getattr(gradjit.func, name)(f), getattr(torch.func, name)(f)
    assert ours.__name__ == theirs.__name__
    assert (getattr(ours, "__wrapped__", None) is f) == (getattr(theirs, "__wrapped__", None) is f)
