"""Transformed functions pickle as the user's function plus options and their cached traces
(IR text): the receiver, in this process or another, runs them without tracing again."""
import json
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import gradjit

cloudpickle = pytest.importorskip("cloudpickle")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def loss(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


@gradjit.grad
def decorated(w, x):
    return np.mean(np.exp(x @ w))


def branchy(w, x):
    if np.sum(x) > 0:  # a guard: both paths travel
        return np.sum(np.sin(x @ w))
    return np.sum(np.cos(x @ w))


W, X = np.linspace(-1, 1, 3), np.arange(12.).reshape(4, 3) / 10


def test_plain_pickle_of_an_importable_function_carries_its_trace():
    g = gradjit.grad(loss)
    expected = g(W, X)
    h = pickle.loads(pickle.dumps(g))
    assert h is not g and h.cache_info() == (0, 0, 0)
    np.testing.assert_array_equal(h(W, X), expected)
    assert h.cache_info() == (0, 1, 0)  # ran a received trace: no tracing here
    assert h.cache.fast  # and plain arrays take the lean call path, as after tracing


def test_decorated_function_pickles_by_name():
    expected = decorated(W, X)
    assert pickle.loads(pickle.dumps(decorated)) is decorated
    np.testing.assert_array_equal(decorated(W, X), expected)


def test_cloudpickle_of_a_closure_with_pytrees_and_aux():
    scale = 3.0
    g = gradjit.value_and_grad(lambda p, x: (scale * np.sum((x @ p["w"] + p["b"]) ** 2),
                                             {"n": x.shape[0]}), has_aux=True)
    params = {"w": W, "b": np.float64(0.5)}
    expected = g(params, X)
    h = cloudpickle.loads(cloudpickle.dumps(g))
    (value, aux), grads = h(params, X)
    assert value == expected[0][0] and aux == {"n": 4}
    assert set(grads) == {"w", "b"}
    np.testing.assert_array_equal(grads["w"], expected[1]["w"])
    assert h.cache_info().traces == 0


def test_jit_with_static_arguments_and_guards():
    f = gradjit.jit(lambda x, k: np.tanh(x) * k, static_argnums=1)
    b = gradjit.grad(branchy)
    f(X, 2)
    b(W, X), b(W, -X)
    f2, b2 = cloudpickle.loads(cloudpickle.dumps((f, b)))
    np.testing.assert_allclose(f2(X, 2), np.tanh(X) * 2, rtol=1e-14)
    np.testing.assert_allclose(b2(W, -X), -X.T @ -np.sin(-X @ W), rtol=1e-14)
    np.testing.assert_allclose(b2(W, X), X.T @ np.cos(X @ W), rtol=1e-14)
    assert f2.cache_info() == (0, 1, 0) and b2.cache_info() == (0, 2, 0)


def test_without_traces_pickles_the_function_and_options_only():
    g = gradjit.grad(loss, argnums=(0, 1))
    g(W, X)
    h = pickle.loads(pickle.dumps(g.without_traces()))
    assert h.options == g.options and len(pickle.dumps(h)) < len(pickle.dumps(g)) / 2
    gw, gx = h(W, X)
    np.testing.assert_array_equal(gx, g(W, X)[1])
    assert h.cache_info() == (1, 0, 1)


def test_another_process_runs_the_received_trace_without_tracing(tmp_path):
    g = gradjit.value_and_grad(lambda w, x: np.sum(np.tanh(x @ w) ** 2))
    value, grad = g(W, X)
    (tmp_path / "g.pkl").write_bytes(cloudpickle.dumps((g, W, X)))
    script = ("import json, sys, pickle\n"
              "g, w, x = pickle.load(open(sys.argv[1], 'rb'))\n"
              "value, grad = g(w, x)\n"
              "print(json.dumps([float(value), grad.tolist(), list(g.cache_info())]))\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path / "g.pkl")], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=120, check=True)
    received_value, received_grad, info = json.loads(out.stdout)
    assert received_value == value and received_grad == grad.tolist()  # the same program
    assert info == [0, 1, 0]  # no trace in the receiving process


def test_composed_transformations_and_tensor_arguments():
    jg = gradjit.jit(gradjit.grad(lambda x: np.sum(np.sin(x) ** 2)))
    gg = gradjit.grad(gradjit.grad(lambda x: np.sin(x) * x))
    tg = gradjit.grad(lambda t: (t * t).sum())
    x, t = np.linspace(0, 1, 5), gradjit.tensor([1.0, -2.0])
    expected = jg(x), gg(1.5), tg(t)
    jg2, gg2, tg2 = cloudpickle.loads(cloudpickle.dumps((jg, gg, tg)))
    np.testing.assert_array_equal(jg2(x), expected[0])
    assert gg2(1.5) == expected[1] == pytest.approx(2 * np.cos(1.5) - 1.5 * np.sin(1.5))
    assert isinstance(tg2(t), gradjit.Tensor) and tg2(t).tolist() == [2.0, -4.0]
    assert [f.cache_info().traces for f in (jg2, gg2, tg2)] == [0, 0, 0]
