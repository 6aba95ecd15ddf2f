"""One traced value for both namespaces: a function written with numpy, with gradjit's
PyTorch-style functions or with Tensor methods gives the same values and gradients on numpy
and on Tensor arguments, and results keep the arguments' type."""
import numpy as np
import pytest

import gradjit

X = np.random.default_rng(5).uniform(0.2, 1.5, (3, 4))


def with_numpy(x):
    return np.sum(np.sin(x) * np.exp(x), axis=1).mean() + np.max(x) * 2.0


def with_gradjit(x):
    return gradjit.sum(gradjit.sin(x) * gradjit.exp(x), dim=1).mean() + gradjit.max(x) * 2.0


def with_methods(x):
    t = gradjit.as_tensor(x)
    return (t.sin() * t.exp()).sum(dim=1).mean() + t.max() * 2.0


def mixed(x):
    rows = gradjit.sum(np.sin(x) * gradjit.exp(x), dim=1)
    return np.mean(rows) + 2.0 * gradjit.max(x)


FUNCTIONS = [with_numpy, with_gradjit, mixed]
REFERENCE_VALUE = with_numpy(X)
REFERENCE_GRAD = np.cos(X) * np.exp(X) / 3 + np.sin(X) * np.exp(X) / 3 + 2.0 * (X == X.max())


@pytest.mark.parametrize("fn", FUNCTIONS + [with_methods], ids=lambda f: f.__name__)
def test_numpy_arguments_give_numpy_results(fn):
    value, grad = gradjit.value_and_grad(fn)(X)
    assert isinstance(grad, np.ndarray) and grad.dtype == np.float64
    assert not isinstance(value, gradjit.Tensor)
    np.testing.assert_allclose(float(value), REFERENCE_VALUE, rtol=1e-12)
    np.testing.assert_allclose(grad, REFERENCE_GRAD, rtol=1e-12)


@pytest.mark.parametrize("fn", FUNCTIONS + [with_methods], ids=lambda f: f.__name__)
def test_tensor_arguments_give_tensor_results(fn):
    t = gradjit.tensor(X)
    value, grad = gradjit.value_and_grad(fn)(t)
    assert isinstance(value, gradjit.Tensor) and isinstance(grad, gradjit.Tensor)
    np.testing.assert_allclose(value.item(), REFERENCE_VALUE, rtol=1e-12)
    np.testing.assert_allclose(grad.numpy(), REFERENCE_GRAD, rtol=1e-12)


@pytest.mark.parametrize("fn", FUNCTIONS + [with_methods], ids=lambda f: f.__name__)
def test_eager_tensors_agree_with_the_compiled_gradient(fn):
    t = gradjit.tensor(X, requires_grad=True)
    out = fn(t)
    assert isinstance(out, gradjit.Tensor)
    out.backward()
    np.testing.assert_allclose(out.item(), REFERENCE_VALUE, rtol=1e-12)
    np.testing.assert_allclose(t.grad.numpy(), REFERENCE_GRAD, rtol=1e-12)


def test_scalars_on_either_side_behave_alike():
    for s in (2.0, 3, np.float64(2.5), np.float32(0.5), np.int64(4)):
        left = gradjit.jit(lambda x: x * s)(X)
        right = gradjit.jit(lambda x: s * x)(X)
        np.testing.assert_array_equal(left, right)
        np.testing.assert_allclose(left, X * s)
        t = gradjit.tensor(X)
        assert isinstance(s * t, gradjit.Tensor) and isinstance(t * s, gradjit.Tensor)
        np.testing.assert_array_equal((s * t).numpy(), (t * s).numpy())


def test_numpy_keywords_and_pytorch_keywords_where_each_owns_the_name():
    got = gradjit.jit(lambda x: (np.sum(x, axis=1, keepdims=True),
                                 gradjit.sum(x, dim=1, keepdim=True)))(X)
    np.testing.assert_allclose(got[0], X.sum(1, keepdims=True))
    np.testing.assert_allclose(got[1], X.sum(1, keepdims=True))


def test_numpy_functions_on_eager_tensors_keep_autograd():
    t = gradjit.tensor(X, requires_grad=True)
    y = np.sum(np.tanh(t), axis=0)
    assert isinstance(y, gradjit.Tensor) and y.requires_grad
    y.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), 1 - np.tanh(X) ** 2, rtol=1e-12)


def test_unknown_numpy_functions_run_on_eager_tensors_as_on_their_arrays():
    t = gradjit.tensor(X)
    np.testing.assert_allclose(np.fft.rfft(t), np.fft.rfft(X))


@pytest.mark.parametrize("call", [
    lambda t, m: m.sum(t, axis=1, keepdims=True), lambda t, m: t.mean(axis=0),
    lambda t, m: m.std(t, axis=1), lambda t, m: m.amax(t, axis=1, keepdims=True),
    lambda t, m: m.cat([t, t], axis=1), lambda t, m: m.stack([t, t], axis=-1),
    lambda t, m: m.logsumexp(t, axis=0), lambda t, m: t.unsqueeze(axis=1),
])
def test_pytorch_takes_numpy_keyword_names_as_torch_does(call):
    torch = pytest.importorskip("torch")
    want = call(torch.tensor(X), torch)
    got = call(gradjit.tensor(X), gradjit)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def pytorch_style_everywhere(x):
    positive = gradjit.where(x > 0, x, 0.0).sum() + gradjit.clamp(x, min=0).sum()
    products = gradjit.matmul(x, x).sum() + gradjit.mm(x, x).sum()
    joined = gradjit.cat([x, x], dim=0).sum() + gradjit.stack([x, x]).sum()
    return positive + products + joined + gradjit.relu(x).sum()


def test_gradjit_functions_take_traced_numpy_values_in_every_argument():
    x = X[:, :3]
    value, grad = gradjit.value_and_grad(pytorch_style_everywhere)(x)
    t = gradjit.tensor(x, requires_grad=True)
    eager = pytorch_style_everywhere(t)
    eager.backward()
    assert isinstance(grad, np.ndarray)
    np.testing.assert_allclose(float(value), eager.item(), rtol=1e-12)
    np.testing.assert_allclose(grad, t.grad.numpy(), rtol=1e-12)


SPD = np.array([[2.5, 0.4, 0.3], [0.4, 2.0, 0.2], [0.3, 0.2, 1.5]])
ACROSS_AREAS = {
    "cumsum": lambda x: np.cumsum(x, axis=0), "prod": lambda x: np.prod(x, axis=1),
    "sort": lambda x: np.sort(x, axis=0), "median": lambda x: np.median(x),
    "quantile": lambda x: np.quantile(x, 0.3), "einsum": lambda x: np.einsum("ij,jk->ik", x, x),
    "inv": np.linalg.inv, "det": np.linalg.det, "eigh": lambda x: np.linalg.eigh(x)[0],
    "svd": lambda x: np.linalg.svd(x)[1], "nuclear-norm": lambda x: np.linalg.norm(x, "nuc"),
    "arcsin": lambda x: np.arcsin(x / 3), "hypot": lambda x: np.hypot(x, 1.0),
    "tril": np.tril, "pad": lambda x: np.pad(x, 1, mode="reflect"),
    "kron": lambda x: np.kron(x, x), "var": lambda x: np.var(x, ddof=1),
    "take_along_axis": lambda x: np.take_along_axis(x, np.argsort(x, axis=1), axis=1),
    "tensordot": lambda x: np.tensordot(x, x, 1), "vstack": lambda x: np.vstack([x, x]),
    "mod": lambda x: np.mod(x, 0.7), "solve": lambda x: np.linalg.solve(x, np.ones(3)),
    "cholesky": np.linalg.cholesky, "logaddexp": lambda x: np.logaddexp(x, x.T),
    "average": lambda x: np.average(x, axis=0, weights=[1, 2, 3]),
    "percentile": lambda x: np.percentile(x, 40, axis=1), "sinc": np.sinc,
}


@pytest.mark.parametrize("name", ACROSS_AREAS)
def test_numpy_functions_of_every_area_agree_on_numpy_traced_and_eager_tensors(name):
    def loss(x):
        return np.sum(ACROSS_AREAS[name](x))
    value, grad = gradjit.value_and_grad(loss)(SPD)
    np.testing.assert_allclose(float(value), loss(SPD), rtol=1e-10)
    tensor_value, tensor_grad = gradjit.value_and_grad(loss)(gradjit.tensor(SPD))
    assert isinstance(tensor_grad, gradjit.Tensor)
    np.testing.assert_allclose(tensor_grad.numpy(), grad, rtol=1e-8, atol=1e-12)
    t = gradjit.tensor(SPD, requires_grad=True)
    eager = loss(t)
    eager.backward()
    np.testing.assert_allclose(eager.item(), float(value), rtol=1e-10)
    np.testing.assert_allclose(t.grad.numpy(), grad, rtol=1e-8, atol=1e-12)
