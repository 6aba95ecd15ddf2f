"""Eager gradients against central finite differences in float64: every differentiable
primitive through the tape, the composite tensor operations, and higher orders."""
import numpy as np
import pytest

import gradjit as torch
from gradjit.ir import PRIMITIVES
from gradjit.ir.primitive import evaluate
from tests.ir.test_table import GRADIENT_CASES, PHASE_DEPENDENT, _operand

rng = np.random.default_rng(3)
EPS = 1e-6


def numeric_gradient(f, x: np.ndarray) -> np.ndarray:
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = EPS
        grad[i] = (f(x + step) - f(x - step)) / (2 * EPS)
    return grad


def test_every_differentiable_primitive_is_checked():
    differentiable = {n for n, p in PRIMITIVES.items() if p.differentiable}
    assert differentiable <= set(GRADIENT_CASES)


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_primitive_gradient_through_the_tape(name):
    if name in PHASE_DEPENDENT:
        pytest.skip("checked on phase-independent functions in tests/complex/test_eig.py")
    prim = PRIMITIVES[name]
    specs, params = GRADIENT_CASES[name]
    arrays = [_operand(s) for s in specs]
    inputs = [torch.from_numpy(a.copy()).requires_grad_(a.dtype.kind in "fc") for a in arrays]
    out = prim(*inputs, **params)
    weights = _operand(("complex" if out.dtype.is_complex else "real", tuple(out.shape)))
    (out * torch.from_numpy(weights)).sum().real.backward()
    assert out.grad_fn is not None
    for i, (array, t) in enumerate(zip(arrays, inputs)):
        if array.dtype.kind not in "fc":
            assert t.grad is None
            continue

        def loss(value, i=i):
            args = list(arrays)
            args[i] = value
            return float(np.real((evaluate(prim, args, params) * weights).sum()))
        # PyTorch's gradient of a real loss: d/dx + i d/dy for a complex operand
        numeric = numeric_gradient(loss, array)
        if array.dtype.kind == "c":
            numeric = numeric + 1j * numeric_gradient(lambda v: loss(v * 1j), array / 1j)
        np.testing.assert_allclose(t.grad.numpy(), numeric, rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name} operand {i}")


def _index_put(x):
    y = x * 1
    y[0, 1:] = x[1, :3] ** 2
    y[x.detach() > 0.5] = 0.0
    return y


def _view_inplace(x):
    y = x * 1
    y[1:].mul_(y[:2].exp())
    return y


COMPOSITES = {
    "mean": lambda x: x.mean(1),
    "norm": lambda x: x.norm(),
    "norm_dim": lambda x: x.norm(dim=0, keepdim=True),
    "norm_p1": lambda x: x.norm(p=1),
    "softmax": lambda x: x.softmax(1),
    "log_softmax": lambda x: x.log_softmax(0),
    "logsumexp": lambda x: x.logsumexp(1),
    "var": lambda x: x.var(0),
    "std": lambda x: x.std(),
    "max_dim": lambda x: x.max(1).values,
    "min": lambda x: x.min(),
    "clamp": lambda x: x.clamp(-0.3, 0.4),
    "relu": lambda x: x.relu(),
    "sigmoid_tanh": lambda x: (x.sigmoid() * x.tanh()).sum(0),
    "matmul": lambda x: x @ x.T,
    "dot": lambda x: torch.dot(x[0], x[1]),
    "getitem": lambda x: x[x.detach() > 0].sum() * x[[1, 0], 1:],
    "index_put": _index_put,
    "view_inplace": _view_inplace,
    "broadcast": lambda x: x[:, :1] * x[:1] - x[1],
    "cat_stack": lambda x: torch.cat([torch.stack([x, x * 2]), x[None] ** 2]).sum(0),
    "where": lambda x: torch.where(x > 0, x ** 2, -x),
    "division": lambda x: 1 / (x.abs() + 1) + x / 3,
    "pow_tensor": lambda x: (x.abs() + 0.5) ** x,
    "t_": lambda x: (x * 1).t_() @ x,
}


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_composite_gradient(name):
    f = COMPOSITES[name]
    array = rng.uniform(-1, 1, (3, 4))
    x = torch.tensor(array, requires_grad=True)
    out = f(x)
    weights = torch.from_numpy(rng.standard_normal(tuple(out.shape)))
    (out * weights).sum().backward()

    def loss(value):
        with torch.no_grad():
            return float((f(torch.tensor(value)) * weights).sum())
    np.testing.assert_allclose(x.grad.numpy(), numeric_gradient(loss, array), rtol=1e-5,
                               atol=1e-6)


HIGHER = {
    "exp": (lambda x: x.exp(), False),
    "tanh": (lambda x: x.tanh(), False),
    "sin_mul": (lambda x: x.sin() * x, False),
    "sigmoid": (lambda x: x.sigmoid(), False),
    "log_div": (lambda x: (x + 2).log() / (x + 3), False),
    "pow": (lambda x: (x + 2) ** 3, False),
    "matmul": (lambda x: (x @ x.T).sum(0), False),
    "softmax": (lambda x: x.softmax(1), False),
    "norm": (lambda x: x.norm(dim=1), True),
}


def _gradient(f, x, weights, create_graph):
    (g,) = torch.autograd.grad((f(x) * weights).sum(), x, create_graph=create_graph)
    return g


@pytest.mark.parametrize("name", sorted(HIGHER))
def test_hessian_vector_product(name):
    """d/de grad(x + e v) by differences of first-order gradients equals double backward."""
    f, _ = HIGHER[name]
    array = rng.uniform(-1, 1, (2, 3))
    direction = rng.standard_normal((2, 3))
    weights = torch.from_numpy(rng.standard_normal(tuple(f(torch.tensor(array)).shape)))
    x = torch.tensor(array, requires_grad=True)
    g = _gradient(f, x, weights, create_graph=True)
    assert g.requires_grad
    (hv,) = torch.autograd.grad((g * torch.from_numpy(direction)).sum(), x)

    def first(value):
        return _gradient(f, torch.tensor(value, requires_grad=True), weights, False).numpy()
    numeric = (first(array + EPS * direction) - first(array - EPS * direction)) / (2 * EPS)
    np.testing.assert_allclose(hv.numpy(), numeric, rtol=1e-5, atol=1e-6)


def test_third_derivative_of_sin():
    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    y = x.sin().sum()
    (d1,) = torch.autograd.grad(y, x, create_graph=True)
    (d2,) = torch.autograd.grad(d1.sum(), x, create_graph=True)
    d2.sum().backward()
    np.testing.assert_allclose(d1.detach().numpy(), np.cos(x.detach().numpy()))
    np.testing.assert_allclose(d2.detach().numpy(), -np.sin(x.detach().numpy()))
    np.testing.assert_allclose(x.grad.numpy(), -np.cos(x.detach().numpy()))


def test_backward_create_graph_accumulates_a_differentiable_grad():
    x = torch.tensor([1.5, -0.5], dtype=torch.float64, requires_grad=True)
    (x ** 3).sum().backward(create_graph=True)
    assert x.grad.requires_grad and x.grad.grad_fn is not None
    (second,) = torch.autograd.grad(x.grad.sum(), x)
    np.testing.assert_allclose(second.numpy(), 6 * x.detach().numpy())
