"""softmax, log_softmax, logsumexp and the class-index losses on rows holding infinities or nan,
and means over no kept target, against PyTorch 2.13 (eager, fused and general, and compiled)
and, for the numpy-style names, against scipy."""
import math

import numpy as np
import pytest

import gradjit
import gradjit.scipy.special
from gradjit.tensor import fused, math_methods
from tests.torch_reference import weighted_gradients

torch = pytest.importorskip("torch")
special = pytest.importorskip("scipy.special")

INF, NAN = math.inf, math.nan
ROWS = [[1.0, INF, 2.0], [INF, INF, 1.0], [INF, -INF, 1.0], [-INF, -INF, -INF],
        [1.0, -INF, 2.0], [1.0, NAN, 2.0], [0.5, -1.0, 2.0]]
NORMALIZED = ["t.log_softmax(x, 1)", "t.softmax(x, 1)", "x.log_softmax(0)", "x.softmax(0)",
              "t.nn.functional.cross_entropy(x, t.tensor([0, 1, 2, 0, 2, 1, 1]))",
              "t.nn.functional.cross_entropy(x, t.tensor([1, 0, 2, 2, 0, 1, 1]), "
              "reduction='none')"]
NONE_KEPT = ["t.nn.functional.nll_loss(x, t.tensor([-100, -100]))",
             "t.nn.functional.nll_loss(x, t.tensor([1, 1]), ignore_index=1)",
             "t.nn.functional.nll_loss(x, t.tensor([-100, -100]), weight="
             "x.new_tensor([1, 2, 3.]))",
             "t.nn.functional.cross_entropy(x, t.tensor([-100, -100]))",
             "t.nn.functional.cross_entropy(x, t.tensor([-100, -100]), label_smoothing=0.2)",
             "t.nn.functional.nll_loss(x[None].movedim(1, 2), t.tensor([[-100, -100]]))"]
SHIFTED = np.array([[0.25, -1.0, 1.5], [2.0, 0.5, -0.5]])


def _general(monkeypatch):
    monkeypatch.setattr(math_methods, "normalized", lambda *args: None)
    monkeypatch.setattr(fused, "class_picks", lambda *args: None)


def _compare(ours, theirs):
    (y, grads), (ty, tgrads) = ours, theirs
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-6)
    for g, tg in zip(grads, tgrads):
        np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("general", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("expr", NORMALIZED + NONE_KEPT)
def test_eager_values_and_gradients_are_torchs(expr, dtype, general, monkeypatch):
    """Rows holding +inf are nan throughout in log_softmax (not -inf at the finite entries),
    and a mean over no kept target is nan with a zero gradient, fused or not."""
    rows = np.array(ROWS) if expr in NORMALIZED else SHIFTED
    if general:
        _general(monkeypatch)
    fn = eval(f"lambda t, x: {expr}")
    _compare(*(weighted_gradients(t, fn, [rows], dtype) for t in (gradjit, torch)))


@pytest.mark.parametrize("expr", NORMALIZED + NONE_KEPT)
def test_compiled_values_and_gradients_are_torchs(expr):
    """The traced general path under gradjit.value_and_grad gives the eager values."""
    rows = (np.array(ROWS) if expr in NORMALIZED else SHIFTED).astype(np.float32)
    fn = eval(f"lambda t, x: {expr}")
    x = torch.tensor(rows, requires_grad=True)
    expected = fn(torch, x)
    weights = np.linspace(0.5, 1.5, expected.numel()).reshape(tuple(expected.shape))
    (expected * torch.tensor(weights, dtype=torch.float32)).sum().backward()
    value, grad = gradjit.value_and_grad(
        lambda y: (fn(gradjit, y) * gradjit.tensor(weights, dtype=gradjit.float32)).sum())(
        gradjit.tensor(rows))
    np.testing.assert_allclose(value.numpy(), (expected * torch.tensor(
        weights, dtype=torch.float32)).sum().detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(grad.numpy(), x.grad.numpy(), rtol=1e-5, atol=1e-7)
    traced = gradjit.jit(lambda y: fn(gradjit, y))(gradjit.tensor(rows))
    np.testing.assert_allclose(traced.numpy(), expected.detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["log_softmax", "softmax"])
def test_numpy_style_normalizations_are_torchs(name):
    """jax.nn's log_softmax and softmax (eager and under gradjit.grad) agree with PyTorch's on
    these rows: nan throughout where a row holds +inf."""
    rows = np.array(ROWS)
    expected = getattr(torch, name)(torch.tensor(rows), 1).numpy()
    np.testing.assert_allclose(getattr(gradjit.nn, name)(rows, axis=1), expected, rtol=1e-12)
    traced = gradjit.jit(lambda x: getattr(gradjit.nn, name)(x, axis=1))(rows)
    np.testing.assert_allclose(traced, expected, rtol=1e-12)


def test_numpy_style_logsumexp_is_scipys():
    """scipy.special.logsumexp's semantics: +inf where a row holds +inf, -inf for a row of -inf,
    nan with nan."""
    rows = np.array(ROWS)
    expected = special.logsumexp(rows, axis=1)
    np.testing.assert_allclose(gradjit.scipy.special.logsumexp(rows, axis=1), expected)
    traced = gradjit.jit(lambda x: gradjit.scipy.special.logsumexp(x, axis=1))(rows)
    np.testing.assert_allclose(traced, expected)
