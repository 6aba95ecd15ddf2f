"""gradjit.jvp / linearize: forward mode compiled once, against central differences and
torch.func.jvp, composed with grad and jit, on pytrees, in the arguments' types."""
import numpy as np
import pytest
import torch

import gradjit

rng = np.random.default_rng(3)


def _differences(f, primals, tangents, eps=1e-6):
    plus = f(*[p + eps * t for p, t in zip(primals, tangents)])
    minus = f(*[p - eps * t for p, t in zip(primals, tangents)])
    return (np.asarray(plus) - np.asarray(minus)) / (2 * eps)


def mlp(w1, w2, x):
    return np.tanh(np.tanh(x @ w1) @ w2).sum(axis=1) ** 2 / (1 + np.exp(-x[:, 0]))


CASES = {
    "elementwise": (lambda x, y: np.sin(x) * np.log1p(y * y) / (1.0 + np.abs(x)),
                    [(3, 4), (3, 4)]),
    "reductions": (lambda x: np.max(x, axis=0) * np.prod(x, axis=1).sum() + np.min(x),
                   [(3, 4)]),
    "matmul chain": (mlp, [(4, 5), (5, 3), (6, 4)]),
    "indexing": (lambda x: np.concatenate([x[::2, ::-1], x[np.array([2, 0, 0])] ** 2], axis=0),
                 [(4, 3)]),
    "linalg": (lambda a: np.linalg.solve(a @ a.T + 4 * np.eye(3), a) + np.linalg.det(a),
               [(3, 3)]),
    "control flow": (lambda x: np.exp(x) if x.sum() > 0 else np.cos(x) * x, [(5,)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_jvp_matches_central_differences(name):
    f, shapes = CASES[name]
    primals = [rng.standard_normal(s) for s in shapes]
    tangents = [rng.standard_normal(s) for s in shapes]
    out, tangent = gradjit.jvp(f, tuple(primals), tuple(tangents))
    np.testing.assert_allclose(out, f(*primals), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tangent, _differences(f, primals, tangents), rtol=1e-5,
                               atol=1e-6)


def test_jvp_matches_torch_func_and_is_traced_once():
    w1, w2, x = (rng.standard_normal(s) for s in [(4, 5), (5, 3), (6, 4)])
    vs = [rng.standard_normal(a.shape) for a in (w1, w2, x)]

    def torch_mlp(w1, w2, x):
        return torch.tanh(torch.tanh(x @ w1) @ w2).sum(1) ** 2 / (1 + torch.exp(-x[:, 0]))

    expected = torch.func.jvp(torch_mlp, tuple(map(torch.tensor, (w1, w2, x))),
                              tuple(map(torch.tensor, vs)))
    for _ in range(3):
        out, tangent = gradjit.jvp(mlp, (w1, w2, x), tuple(vs))
        np.testing.assert_allclose(out, expected[0].numpy(), rtol=1e-12)
        np.testing.assert_allclose(tangent, expected[1].numpy(), rtol=1e-10)
    definition = gradjit.tracer.transforms._definition(mlp)
    transformed = next(v for v in gradjit.tracer.transforms._cached[definition].values())
    assert transformed.cache_info()[0] == 1


def test_pytrees_and_types():
    def f(params, x):
        return {"y": params["w"] * x, "const": 3.0, "pair": (np.sum(params["b"] * x), x)}

    params = {"w": np.array([1.0, 2.0]), "b": np.array([0.5, -1.0])}
    x = np.array([3.0, 4.0])
    dparams = {"w": np.array([1.0, 0.0]), "b": np.array([0.0, 2.0])}
    out, tangent = gradjit.jvp(f, (params, x), (dparams, np.zeros(2)))
    assert out["const"] == 3.0 and tangent["const"] == 0.0
    np.testing.assert_allclose(tangent["y"], [3.0, 0.0])
    np.testing.assert_allclose(tangent["pair"][0], 8.0)
    np.testing.assert_allclose(tangent["pair"][1], [0.0, 0.0])
    t_out, t_tangent = gradjit.jvp(lambda t: t.sin() * 2, (gradjit.tensor(x),),
                                   (gradjit.tensor(x),))
    assert isinstance(t_tangent, gradjit.Tensor)
    np.testing.assert_allclose(t_tangent.numpy(), 2 * np.cos(x) * x)


def test_integer_primals_are_not_differentiated():
    out, tangent = gradjit.jvp(lambda x, n: x * n, (np.array([1.0, 2.0]), np.array([3, 4])),
                               (np.array([1.0, 1.0]), np.array([7, 7])))
    np.testing.assert_allclose(tangent, [3.0, 4.0])


def test_jvp_of_grad_is_a_hessian_vector_product():
    def f(x):
        return np.sum(np.sin(x[:-1] * x[1:])) + np.sum(x ** 3)

    x, v = rng.standard_normal(5), rng.standard_normal(5)
    _, hv = gradjit.jvp(gradjit.grad(f), (x,), (v,))
    xt = torch.tensor(x)
    expected = torch.autograd.functional.hvp(
        lambda x: torch.sum(torch.sin(x[:-1] * x[1:])) + torch.sum(x ** 3), xt, torch.tensor(v))[1]
    np.testing.assert_allclose(hv, expected.numpy(), rtol=1e-10)


def test_grad_and_jit_of_jvp():
    v = rng.standard_normal(4)

    def directional(x):
        return np.sum(gradjit.jvp(lambda z: np.exp(z) * z, (x,), (v,))[1])

    x = rng.standard_normal(4)
    np.testing.assert_allclose(gradjit.grad(directional)(x), v * np.exp(x) * (x + 2),
                               rtol=1e-12)
    out, tangent = gradjit.jit(lambda x: gradjit.jvp(np.tanh, (x,), (v,)))(x)
    np.testing.assert_allclose(tangent, v / np.cosh(x) ** 2, rtol=1e-12)


def test_linearize():
    x = rng.standard_normal(3)
    out, f_jvp = gradjit.linearize(lambda x: np.sin(x) * x, x)
    np.testing.assert_allclose(out, np.sin(x) * x)
    for _ in range(2):
        v = rng.standard_normal(3)
        np.testing.assert_allclose(f_jvp(v), v * (np.cos(x) * x + np.sin(x)), rtol=1e-12)


def test_interpreter_backend():
    x, v = rng.standard_normal(3), rng.standard_normal(3)
    _, tangent = gradjit.jvp(np.cos, (x,), (v,), backend="interpreter")
    np.testing.assert_allclose(tangent, -np.sin(x) * v, rtol=1e-12)


def test_jvp_argument_errors():
    x = np.ones(3)
    with pytest.raises(TypeError, match="must be tuples"):
        gradjit.jvp(np.sin, x, x)
    with pytest.raises(TypeError, match="same tree structure"):
        gradjit.jvp(np.sin, (x,), (x, x))
    with pytest.raises(TypeError, match="they must match"):
        gradjit.jvp(np.sin, (x,), (np.ones(4),))


def test_stop_gradient_blocks_tangents():
    x, v = rng.standard_normal(3), rng.standard_normal(3)
    _, tangent = gradjit.jvp(lambda x: x * gradjit.stop_gradient(x), (x,), (v,))
    np.testing.assert_allclose(tangent, v * x, rtol=1e-12)
