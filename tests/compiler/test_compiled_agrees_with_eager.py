"""Calls the op database found to differ once compiled: inside gradjit.jit (interpreter and
CPU backend) they give what the eager call gives, and what PyTorch 2.13 gives."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

BACKENDS = ("interpreter", None)
X = np.random.default_rng(0).normal(size=(3, 5))

# torch.return_types results: the compiled call rebuilds the same named tuple
RETURN_TYPES = {
    "max": lambda t, x: t.max(x, 1),
    "min": lambda t, x: x.min(0, keepdim=True),
    "topk": lambda t, x: t.topk(x, 2),
    "sort": lambda t, x: x.sort(1, descending=True),
    "cummax": lambda t, x: x.cummax(1),
    "cummin": lambda t, x: t.cummin(x, 0),
    "mode": lambda t, x: t.mode(x.round(), 1),
    "kthvalue": lambda t, x: x.kthvalue(2, 1),
    "aminmax": lambda t, x: t.aminmax(x, dim=1),
    "linalg_slogdet": lambda t, x: t.linalg.slogdet(x[:, :3]),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", RETURN_TYPES)
def test_compiled_call_returns_torchs_named_tuple(kind, backend):
    call = RETURN_TYPES[kind]
    expected = call(torch, torch.tensor(X))
    x = gradjit.tensor(X)
    eager = call(gradjit, x)
    compiled = gradjit.jit(lambda x: call(gradjit, x), backend=backend)(x)
    assert type(compiled) is type(eager)
    assert repr(compiled) == repr(eager) == repr(expected)


@pytest.mark.parametrize("backend", BACKENDS)
def test_negative_frequency_weights_traced_raise_torchs_error(backend):
    cov = gradjit.jit(lambda x, w: x.cov(fweights=w), backend=backend)
    x, good, bad = X[:, :4], np.array([1, 2, 1, 1]), np.array([1, -2, 1, 1])
    np.testing.assert_allclose(cov(gradjit.tensor(x), gradjit.tensor(good)).numpy(),
                               torch.cov(torch.tensor(x), fweights=torch.tensor(good)).numpy())
    same_error(lambda: cov(gradjit.tensor(x), gradjit.tensor(bad)),
               lambda: torch.cov(torch.tensor(x), fweights=torch.tensor(bad)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantiles_at_traced_q_give_torchs_values_gradients_and_range_error(name, backend):
    f = gradjit.jit(lambda x, q: getattr(gradjit, name)(x, q, dim=1), backend=backend)
    q = np.array([0.2, 0.7])
    g_x, g_q = gradjit.tensor(X, requires_grad=True), gradjit.tensor(q, requires_grad=True)
    t_x, t_q = torch.tensor(X, requires_grad=True), torch.tensor(q, requires_grad=True)
    g_out, t_out = f(g_x, g_q), getattr(torch, name)(t_x, t_q, dim=1)
    np.testing.assert_allclose(g_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    g_out.sum().backward()
    t_out.sum().backward()
    np.testing.assert_allclose(g_x.grad.numpy(), t_x.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(g_q.grad.numpy(), t_q.grad.numpy(), rtol=1e-12)
    outside = np.array([0.2, 1.5])
    same_error(lambda: f(gradjit.tensor(X), gradjit.tensor(outside)),
               lambda: getattr(torch, name)(torch.tensor(X), torch.tensor(outside), dim=1))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name, call", [
    ("ldl_factor", lambda a: gradjit.linalg.ldl_factor(a)),
    ("ldl_factor_ex", lambda a: gradjit.linalg.ldl_factor_ex(a)),
    ("ldl_solve", lambda a: gradjit.linalg.ldl_solve(a, gradjit.zeros(3, dtype=gradjit.int32), a)),
])
def test_host_factorizations_refuse_traced_matrices_naming_the_function_and_line(
        name, call, backend):
    with pytest.raises(TypeError, match=rf"^linalg\.{name} cannot be used on a value traced(.|\n)*"
                                        r"test_compiled_agrees_with_eager.py:\d+"):
        gradjit.jit(call, backend=backend)(gradjit.tensor(X[:, :3] + X[:, :3].T))


@pytest.mark.parametrize("backend", BACKENDS)
def test_random_draws_while_tracing_are_refused_not_replayed(backend):
    """A draw would be kept in the trace and replayed by every call (and a second trace, the
    gradient's, would draw other values): fractional max pooling without _random_samples."""
    pool = gradjit.jit(lambda x: gradjit.nn.functional.fractional_max_pool2d(
        x, 2, output_ratio=(0.5, 0.5)), backend=backend)
    with pytest.raises(RuntimeError, match=r"^a draw from the random generator: random values "
                                           r"cannot be drawn inside(.|\n)*at .*py:\d+"):
        pool(gradjit.tensor(X.reshape(1, 1, 3, 5), requires_grad=True))
    with pytest.raises(RuntimeError, match="random values cannot be drawn"):
        gradjit.jit(lambda x: x + gradjit.rand(5), backend=backend)(gradjit.tensor(X))
    samples = gradjit.rand(1, 1, 2, dtype=gradjit.float64)  # drawn outside, closed over
    x = gradjit.tensor(X.reshape(1, 1, 3, 5), requires_grad=True)
    eager = gradjit.nn.functional.fractional_max_pool2d(x, 2, output_size=(2, 2),
                                                        _random_samples=samples)
    compiled = gradjit.jit(lambda x: gradjit.nn.functional.fractional_max_pool2d(
        x, 2, output_size=(2, 2), _random_samples=samples), backend=backend)(x)
    np.testing.assert_array_equal(compiled.detach().numpy(), eager.detach().numpy())
    with pytest.raises(TypeError, match=r"^fractional_max_pool2d's _random_samples cannot be "
                                        r"used on a value traced"):
        gradjit.jit(lambda x, s: gradjit.nn.functional.fractional_max_pool2d(
            x, 2, output_size=(2, 2), _random_samples=s), backend=backend)(x, samples)


# one value written through run-time indices that repeat: placed once, not summed
FILLS = {
    "index_fill": lambda t, x, i, v: x.index_fill(-1, i, v),
    "index_fill_number": lambda t, x, i, v: x.index_fill(1, i, -1.5),
    "scatter_value": lambda t, x, i, v: x.scatter(1, i.reshape(1, 5).expand(3, 5), value=7.25),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", FILLS)
def test_fills_through_repeated_traced_indices_give_torchs_values_and_gradients(name, backend):
    fill, index = FILLS[name], np.array([4, 3, 3, 4, 0])
    t_x, t_v = torch.tensor(X, requires_grad=True), torch.tensor(-2.5, requires_grad=True,
                                                                 dtype=torch.float64)
    g_x, g_v = gradjit.tensor(X, requires_grad=True), gradjit.tensor(-2.5, requires_grad=True,
                                                                     dtype=gradjit.float64)
    t_out = fill(torch, t_x, torch.tensor(index), t_v)
    g_out = gradjit.jit(lambda x, i, v: fill(gradjit, x, i, v), backend=backend)(
        g_x, gradjit.tensor(index), g_v)
    np.testing.assert_array_equal(g_out.detach().numpy(), t_out.detach().numpy())
    weights = np.linspace(0.5, 1.5, X.size).reshape(X.shape)
    (t_out * torch.tensor(weights)).sum().backward()
    (g_out * gradjit.tensor(weights)).sum().backward()
    np.testing.assert_allclose(g_x.grad.numpy(), t_x.grad.numpy(), rtol=1e-12)
    if t_v.grad is not None:
        np.testing.assert_allclose(g_v.grad.numpy(), t_v.grad.numpy(), rtol=1e-12)


# tensors written through run-time indices that repeat: the last write wins, as on torch's CPU,
# and every written value gets the gradient at its target, as torch's backward gathers it
WRITES = {
    "scatter": lambda x, i, s: x.scatter(1, i.reshape(1, 5).expand(3, 5), s[:, :5]),
    "index_copy": lambda x, i, s: x.index_copy(1, i, s[:, :5]),
    "put": lambda x, i, s: x.put(i, s[0, :5]),
}


@pytest.mark.parametrize("backend", ["eager", *BACKENDS])
@pytest.mark.parametrize("name", WRITES)
def test_writes_through_repeated_indices_keep_the_last_with_torchs_gradients(name, backend):
    write, index, source = WRITES[name], np.array([4, 3, 3, 4, 0]), X[:, ::-1] * 3
    t_x, t_s = torch.tensor(X, requires_grad=True), torch.tensor(source.copy(),
                                                                 requires_grad=True)
    g_x, g_s = gradjit.tensor(X, requires_grad=True), gradjit.tensor(source.copy(),
                                                                     requires_grad=True)
    t_out = write(t_x, torch.tensor(index), t_s)
    run = write if backend == "eager" else gradjit.jit(write, backend=backend)
    g_out = run(g_x, gradjit.tensor(index), g_s)
    np.testing.assert_array_equal(g_out.detach().numpy(), t_out.detach().numpy())
    weights = np.linspace(0.5, 1.5, X.size).reshape(X.shape)
    (t_out * torch.tensor(weights)).sum().backward()
    (g_out * gradjit.tensor(weights)).sum().backward()
    np.testing.assert_array_equal(g_x.grad.numpy(), t_x.grad.numpy())
    np.testing.assert_array_equal(g_s.grad.numpy(), t_s.grad.numpy())


# complex results join the caller's graph as the eager call's do
COMPLEX_RESULTS = {
    "eig": (lambda t, a: t.linalg.eig(a),
            lambda t, out: (out[0].abs() * 1.5).sum() + out[1].abs().sum() + out[0].real.sum()),
    "fft": (lambda t, a: t.fft.fft(a),
            lambda t, z: (z * t.tensor(X[:, :3] + 0j)).real.sum() + (z.imag ** 2).sum()),
    "complex and real": (lambda t, a: (t.fft.rfft(a).to(t.complex64), a.float().exp()),
                         lambda t, out: out[0].abs().sum() + (out[1] * 0.5).sum()),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", COMPLEX_RESULTS)
def test_complex_results_carry_torchs_gradients(name, backend):
    call, loss = COMPLEX_RESULTS[name]
    a = X[:3, :3]
    t_a, g_a = torch.tensor(a, requires_grad=True), gradjit.tensor(a, requires_grad=True)
    loss(torch, call(torch, t_a)).backward()
    out = gradjit.jit(lambda a: call(gradjit, a), backend=backend)(g_a)
    loss(gradjit, out).backward()
    np.testing.assert_allclose(g_a.grad.numpy(), t_a.grad.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_tensor_split_at_traced_sections_or_indices_retraces_per_value(backend):
    split = gradjit.jit(lambda x, n: gradjit.tensor_split(x, n, dim=1), backend=backend)
    for at in (np.array(2), np.array(3), np.array([1, 4])):
        got = split(gradjit.tensor(X), gradjit.tensor(at))
        expected = torch.tensor_split(torch.tensor(X), torch.tensor(at), dim=1)
        assert len(got) == len(expected)
        for g, t in zip(got, expected):
            np.testing.assert_array_equal(g.numpy(), t.numpy())
    assert split.cache_info().traces == 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_max_unpool_at_traced_indices_is_refused_naming_the_line(backend):
    """Overlapping windows repeat an index; a scatter through run-time indices would add the
    values there, where max_unpool places one."""
    values, indices = gradjit.nn.functional.max_pool1d(
        gradjit.tensor(X.reshape(1, 3, 5)), 3, stride=1, return_indices=True)
    unpool = gradjit.jit(lambda v, i: gradjit.nn.functional.max_unpool1d(v, i, 3, stride=1),
                         backend=backend)
    with pytest.raises(TypeError, match=r"^max_unpool1d's indices cannot be used on a value "
                                        r"traced(.|\n)*test_compiled_agrees_with_eager.py:\d+"):
        unpool(values, indices)
    closed = gradjit.jit(lambda v: gradjit.nn.functional.max_unpool1d(v, indices, 3, stride=1),
                         backend=backend)(values)
    expected = torch.nn.functional.max_unpool1d(torch.tensor(values.numpy()),
                                                torch.tensor(indices.numpy()), 3, stride=1)
    np.testing.assert_allclose(closed.numpy(), expected.numpy(), rtol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_number_scattered_into_integers_keeps_their_dtype(backend):
    x, index = np.arange(15).reshape(3, 5), np.array([[4, 3, 3, 4, 0]] * 3)
    expected = torch.tensor(x).scatter(1, torch.tensor(index), value=7.75)
    got = gradjit.jit(lambda x, i: x.scatter(1, i, value=7.75), backend=backend)(
        gradjit.tensor(x), gradjit.tensor(index))
    assert str(got.dtype) == str(expected.dtype)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
