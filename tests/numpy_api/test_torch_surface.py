"""PyTorch's surface on traced numpy values: every row of the table, applied to a numpy argument
under gradjit.value_and_grad, gives eager torch's values and torch autograd's gradient; names
numpy's ndarray has keep numpy's meaning, and names that cannot work traced say why."""
import pickle

import numpy as np
import pytest
import torch

import gradjit
from gradjit.tracer.torch_surface import REFUSED, NotTraceable, torch_only_names
from tests.numpy_api.torch_surface_table import DOMAINS, METHOD_NAMES, ROWS
from tests.torch_reference import same_error


def _leaves(out):
    if isinstance(out, (tuple, list)):
        return [leaf for part in out for leaf in _leaves(part)]
    return [out]


def _loss(lib, out, x):
    """A weighted sum of the floating outputs (complex ones by their real and imaginary parts),
    plus 0 * x so that a result with no gradient path gives zeros in both libraries."""
    total = (x * 0).sum()
    for leaf in _leaves(out):
        leaf = lib.as_tensor(leaf)
        if leaf.dtype.is_complex:
            leaf = leaf.real + 0.5 * leaf.imag
        if leaf.dtype.is_floating_point:
            weights = np.linspace(0.5, 1.5, max(leaf.numel(), 1))[:leaf.numel()]
            total = total + (leaf * lib.tensor(weights.reshape(tuple(leaf.shape)))).sum()
    return total


def _as_array(leaf):
    return leaf.detach().resolve_conj().numpy() if isinstance(leaf, torch.Tensor) else \
        np.asarray(leaf)


@pytest.mark.parametrize("name, domain, call", ROWS, ids=[row[0] for row in ROWS])
def test_traced_numpy_value_gives_torchs_values_and_gradients(name, domain, call):
    x = DOMAINS[domain]
    t = torch.tensor(x, requires_grad=True)
    expected = call(torch, t)
    _loss(torch, expected, t).backward()

    def loss(a):
        out = call(gradjit, a)
        return _loss(gradjit, out, a), out
    (_, out), grad = gradjit.value_and_grad(loss, has_aux=True)(x)
    got, want = _leaves(out), _leaves(expected)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(_as_array(g), _as_array(w), rtol=1e-7, atol=1e-9)
    assert isinstance(grad, np.ndarray)
    np.testing.assert_allclose(grad, t.grad.numpy(), rtol=1e-7, atol=1e-9)


def test_the_table_covers_the_common_surface():
    assert len(ROWS) >= 150
    # Tensor-method rows are torch's own names: numpy's names keep numpy's meaning (below)
    assert set(METHOD_NAMES) <= torch_only_names()


X = DOMAINS["x"]


@pytest.mark.parametrize("fn, expected", [
    (lambda t: t.std(), np.std(X)),  # ddof=0
    (lambda t: t.var(axis=0), np.var(X, axis=0)),
    (lambda t: t.max(axis=1), X.max(axis=1)),
    (lambda t: t.repeat(2, axis=0), X.repeat(2, axis=0)),
    (lambda t: t.transpose(), X.transpose()),
    (lambda t: t.reshape(2, 10), X.reshape(2, 10)),
    (lambda t: t.sum(1) * t.size, X.sum(1) * X.size),
    (lambda t: t.T @ t, X.T @ X),
    (lambda t: gradjit.std(t), np.std(X, ddof=1)),  # a torch function: torch's, unbiased
    (lambda t: gradjit.std_mean(t)[0], np.std(X, ddof=1)),
    (lambda t: gradjit.nn.functional.layer_norm(t, (5,)),
     (X - X.mean(1, keepdims=True)) / np.sqrt(X.var(1, keepdims=True) + 1e-5)),
])
def test_numpy_names_keep_numpy_meaning_and_torch_functions_torchs(fn, expected):
    out = gradjit.jit(fn)(X)
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-12)


def test_names_neither_namespace_has_are_attribute_errors():
    def f(a):
        assert not hasattr(a, "no_such_name") and not hasattr(a, "_edge")  # not a Tensor
        with pytest.raises(AttributeError, match="'Traced' object has no attribute"):
            a.no_such_name()
        return a.sum()
    gradjit.grad(f)(X)


def test_torch_in_place_methods_rebind_the_traced_value():
    def f(a):
        a.add_(1.0).clamp_(min=0.5)
        return a.mul_(2.0).sum()
    value, grad = gradjit.value_and_grad(f)(X)
    t = torch.tensor(X, requires_grad=True)
    expected = (t + 1.0).clamp(min=0.5).mul(2.0).sum()
    expected.backward()
    np.testing.assert_allclose(value, expected.item(), rtol=1e-12)
    np.testing.assert_allclose(grad, t.grad.numpy())


# What cannot work on a traced value, and why: the result's shape, a host-side check or the
# attribute reads the values or the memory, known only when the compiled function runs.
UNTRACEABLE = {
    **{f"Tensor.{name}": (lambda t, n=name: getattr(t, n), NotTraceable, why)
       for name, why in REFUSED.items()},
    **{f"ndarray.{name}": (lambda t, n=name: getattr(t, n), NotTraceable, "known only")
       for name in ("dump", "dumps")},
    **{f"ndarray.{name}": (lambda t, n=name: getattr(t, n), NotTraceable, "no memory")
       for name in ("flags", "data", "tobytes", "ctypes", "resize")},
    "ndarray.view-dtype": (lambda t: t.view(np.int64), NotTraceable, "no memory"),
    "torch.linalg.inv_ex": (lambda t: gradjit.linalg.inv_ex(t[:4, :4]), NotTraceable,
                            "info is read"),
    "torch.linalg.cholesky_ex": (lambda t: gradjit.linalg.cholesky_ex(t[:4, :4]),
                                 NotTraceable, "info is read"),
}


@pytest.mark.parametrize("call, error, why", UNTRACEABLE.values(), ids=UNTRACEABLE)
def test_names_that_cannot_work_traced_say_why_and_where(call, error, why):
    def f(a):
        call(a)
        return a.sum()
    with pytest.raises(error, match=why) as info:
        gradjit.grad(f)(X)
    assert "\n  at tests/numpy_api/test_torch_surface.py:" in str(info.value)  # the line


def test_torch_selections_of_a_traced_array_follow_its_mask():
    """masked_select and argwhere on a traced numpy value: the mask's value decides the shape
    (the trace holds for it, guarded), as numpy's boolean indexing does."""
    def f(a):
        return a.masked_select(a > 0).sum() + gradjit.argwhere(a > 0.5).sum() * a[0, 0]
    rows, cols = np.argwhere(X > 0.5).T
    value, grad = gradjit.value_and_grad(f)(X)
    np.testing.assert_allclose(value, X[X > 0].sum() + (rows.sum() + cols.sum()) * X[0, 0])
    want = (X > 0).astype(X.dtype)
    want[0, 0] += rows.sum() + cols.sum()
    np.testing.assert_allclose(grad, want)


def test_numpy_names_without_values_answer_as_numpy():
    def f(a):
        assert a.view() is a and a.view(np.float64) is a and a.to_device("cpu") is a
        assert a.device == np.ones(1).device
        assert not hasattr(a, "flags") and not hasattr(a, "numpy") and hasattr(a, "dim")
        with pytest.raises(ValueError, match="lives on the CPU"):
            a.to_device("cuda")
        return a.sum()
    np.testing.assert_array_equal(gradjit.grad(f)(X), np.ones_like(X))


@pytest.mark.parametrize("call", [
    lambda lib, t: t.nanmean(),
    lambda lib, t: lib.std(t),
    lambda lib, t: lib.mean(t),  # a torch function: torch's refusal, where np.mean takes ints
    lambda lib, t: lib.linalg.norm(t),
    lambda lib, t: t.erfinv_(),
], ids=["nanmean", "std", "mean", "linalg.norm", "erfinv_"])
def test_what_torch_refuses_on_integers_gradjit_refuses(call):
    ints = np.arange(20).reshape(4, 5)
    same_error(lambda: gradjit.jit(lambda a: call(gradjit, a))(ints),
               lambda: call(torch, torch.tensor(ints)))


@pytest.mark.parametrize("transform", [gradjit.jit, gradjit.compile], ids=["jit", "compile"])
@pytest.mark.parametrize("fn, torch_fn", [
    (lambda t: np.sum(t), lambda t: t.sum()),
    (lambda t: np.tanh(t).mean(), lambda t: t.tanh().mean()),
    (lambda t: np.linalg.norm(t), lambda t: torch.linalg.norm(t)),
    (lambda t: np.std(t, axis=1), lambda t: t.std(1, unbiased=False)),
], ids=["sum", "tanh", "linalg.norm", "std"])
def test_numpy_functions_on_compiled_tensor_arguments(transform, fn, torch_fn):
    a = gradjit.tensor(X, requires_grad=True)
    t = torch.tensor(X, requires_grad=True)
    out, expected = transform(fn)(a), torch_fn(t)
    assert isinstance(out, gradjit.Tensor)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-12)
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-12)


P = DOMAINS["prob"]
ONES = np.ones((4, 5))


def _d(lib):
    return lib.distributions


@pytest.mark.parametrize("call", [
    lambda lib, t: _d(lib).Normal(t, lib.exp(t)).log_prob(lib.tensor(ONES)),
    lambda lib, t: _d(lib).Categorical(probs=t).log_prob(lib.tensor([0, 1, 3, 4])),
    lambda lib, t: _d(lib).Categorical(logits=t).entropy(),
    lambda lib, t: _d(lib).Bernoulli(probs=t).log_prob(lib.tensor(ONES)),
    lambda lib, t: _d(lib).Dirichlet(t + 0.5).log_prob(lib.tensor(np.full((4, 5), 0.2))),
    lambda lib, t: _d(lib).Gamma(t + 1.0, 2.0).log_prob(lib.tensor(np.full((4, 5), 0.5))),
    lambda lib, t: _d(lib).MultivariateNormal(t[0], scale_tril=lib.diag(t[1] + 1)).log_prob(
        lib.tensor(ONES[0])),
    lambda lib, t: _d(lib).kl_divergence(_d(lib).Normal(t, 1.0), _d(lib).Normal(0.0, t)),
], ids=["Normal", "Categorical", "Categorical-logits", "Bernoulli", "Dirichlet", "Gamma",
        "MultivariateNormal", "kl_divergence"])
def test_distributions_take_traced_parameters(call):
    t = torch.tensor(P, requires_grad=True)
    expected = call(torch, t).sum()
    expected.backward()
    value, grad = gradjit.value_and_grad(lambda a: call(gradjit, a).sum())(P)
    np.testing.assert_allclose(value, expected.item(), rtol=1e-10)
    np.testing.assert_allclose(grad, t.grad.numpy(), rtol=1e-9)


_KERNELS = "torch's CPU kernel is not built for integers; gradjit computes in floating point"
_SAME_DTYPE = "torch asks the other operand for the input's integer dtype; gradjit promotes"
_STRICTER = "gradjit's norm refuses integers where torch's dist/cosine_similarity promote"
# Integer inputs that gradjit's eager Tensors treat unlike torch (eager gaps, not tracing
# ones): traced, each behaves as the eager Tensor does.
INTEGER_GAPS = {
    "torch.nn.functional.hinge_embedding_loss": _KERNELS,
    **dict.fromkeys(("Tensor.scatter_add", "Tensor.index_add", "Tensor.mv"), _SAME_DTYPE),
    **dict.fromkeys(("Tensor.dist", "torch.dist", "torch.nn.functional.cosine_similarity"),
                    _STRICTER),
}


def _raises(fn):
    try:
        fn()
    except Exception:
        return True
    return False


@pytest.mark.parametrize("name, domain, call", ROWS, ids=[row[0] for row in ROWS])
def test_integer_inputs_raise_where_torch_raises(name, domain, call):
    ints = (np.abs(DOMAINS[domain]) * 3 + 1).astype(np.int64)
    traced = _raises(lambda: gradjit.jit(lambda a: call(gradjit, a))(ints))
    if name in INTEGER_GAPS:
        assert traced == _raises(lambda: call(gradjit, gradjit.tensor(ints)))
    else:
        assert traced == _raises(lambda: call(torch, torch.tensor(ints)))


def test_one_function_mixes_both_namespaces_on_a_numpy_argument():
    labels = np.array([0, 1, 2, 4])

    def f(lib, a):
        top = a.topk(2, 1).values  # a Tensor around a traced value, for numpy's functions too
        if lib is torch:
            return top.tanh().sum() + a.std(unbiased=False) + torch.nn.functional.cross_entropy(
                a, torch.tensor(labels))
        return np.sum(np.tanh(top)) + a.std() + gradjit.nn.functional.cross_entropy(
            a, gradjit.tensor(labels))
    t = torch.tensor(X, requires_grad=True)
    expected = f(torch, t)
    expected.backward()
    value, grad = gradjit.value_and_grad(lambda a: f(gradjit, a))(X)
    assert isinstance(grad, np.ndarray) and not isinstance(value, gradjit.Tensor)
    np.testing.assert_allclose(value, expected.item(), rtol=1e-12)
    np.testing.assert_allclose(grad, t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_modules_take_traced_numpy_values():
    torch.manual_seed(0)
    reference = torch.nn.Sequential(torch.nn.Linear(5, 3), torch.nn.Tanh(),
                                    torch.nn.LayerNorm(3)).double()
    model = gradjit.nn.Sequential(gradjit.nn.Linear(5, 3), gradjit.nn.Tanh(),
                                  gradjit.nn.LayerNorm(3)).double()
    model.load_state_dict({k: gradjit.tensor(v.detach().numpy())
                           for k, v in reference.state_dict().items()})
    t = torch.tensor(X, requires_grad=True)
    expected = (reference(t) ** 2).sum()
    expected.backward()
    value, grad = gradjit.value_and_grad(lambda a: (model(a) ** 2).sum())(X)
    np.testing.assert_allclose(value, expected.item(), rtol=1e-12)
    np.testing.assert_allclose(grad, t.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn", [gradjit.add, gradjit.nn.functional.relu, gradjit.linalg.norm,
                                gradjit.linalg.matmul, gradjit.special.erf],
                         ids=["add", "F.relu", "linalg.norm", "linalg.matmul", "special.erf"])
def test_namespace_functions_pickle_as_themselves(fn):
    assert pickle.loads(pickle.dumps(fn)) is fn


@pytest.mark.parametrize("name", ["add", "sin", "flip", "clamp", "sin_", "log_softmax"])
def test_generated_functions_convert_traced_arguments_without_a_wrapper(name):
    """torch.add, torch.flip, torch.sin_, ...: no wrapper frame on an eager call (their traced
    arguments are converted on their own path), the table's values and gradients traced."""
    fn = getattr(gradjit, name)
    assert fn.converts_traced is fn and fn.__code__.co_name != "torch_function"
    assert pickle.loads(pickle.dumps(fn)) is fn


@pytest.mark.parametrize("call", ["lib.add(x, other=x * 2, alpha=3)", "lib.clamp(x, max=x.sin())",
                                  "lib.mm(x, lib.flip(x, (0,)).T)", "lib.sin_(x * 1)"])
def test_traced_keyword_and_wrapped_arguments_are_tensors(call):
    """Traced values passed by keyword, and to a function autocast wraps (torch.mm), which is
    then wrapped again, are Tensors around them."""
    f = eval(f"lambda lib, x: ({call}).sum()")
    t = torch.tensor(X, requires_grad=True)
    expected = f(torch, t)
    expected.backward()
    value, grad = gradjit.value_and_grad(lambda a: f(gradjit, a))(X)
    np.testing.assert_allclose(value, expected.item(), rtol=1e-12)
    np.testing.assert_allclose(grad, t.grad.numpy(), rtol=1e-10, atol=1e-12)


def torch_style(a):
    return (a.sum(dim=0).exp().mean() + a.T.matmul(a).trace() + a.std(dim=1).sum()
            + a.max(dim=1).values.sum() + a.mean(dim=0, keepdim=True).sum()
            + a.var(dim=1, correction=0).sum() + a[0].dot(a[1]) + a.argsort(dim=1)[0, 0]
            + a.prod(dim=1).sum())


def test_shared_methods_called_with_torch_keywords_are_torch_methods():
    """a.sum(dim=0), a.std(dim=1) (PyTorch's correction), a.max(dim=1).values on a traced
    numpy value: the keyword only PyTorch takes picks PyTorch's method; methods only PyTorch
    has take traced operands (a.T.matmul(a))."""
    t = torch.tensor(X, requires_grad=True)
    want = torch_style(t)
    want.backward()
    value, grad = gradjit.value_and_grad(torch_style)(X)
    np.testing.assert_allclose(value, want.item(), rtol=1e-12)
    np.testing.assert_allclose(grad, t.grad.numpy(), rtol=1e-10)
