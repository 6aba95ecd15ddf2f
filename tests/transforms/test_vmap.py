"""vmap against Python loops of single calls and torch.func.vmap: in_axes/out_axes forms,
composition with grad, jit, jvp and itself, tensors, backends, and JAX's errors."""
import numpy as np
import pytest
import torch

import gradjit
from gradjit.ir.primitive import BatchingError, ShapeError
from gradjit.tracer.api import COMPILE_OBSERVERS

rng = np.random.default_rng(7)


def loop(f, in_axes, size, *args):
    """f applied to each example, stacked on axis 0: the reference vmap must equal."""
    def example(x, axis, k):
        return x if axis is None else np.take(x, k, axis)
    outs = [f(*(example(x, a, k) for x, a in zip(args, in_axes))) for k in range(size)]
    return np.stack(outs)


def t(x):
    return torch.tensor(x)


def test_in_axes_positions_against_a_loop_and_torch():
    a, b, c = rng.standard_normal((3, 4)), rng.standard_normal((4, 5)), rng.standard_normal(4)

    def f(x, y, z):
        return np.tanh(x @ y) * np.sum(z * x)

    def f_torch(x, y, z):
        return torch.tanh(x @ y) * torch.sum(z * x)

    got = gradjit.vmap(f, in_axes=(0, 1, None))(a, np.moveaxis(np.stack([b] * 3), 0, 1), c)
    np.testing.assert_allclose(got, loop(f, (0, None, None), 3, a, b, c), rtol=1e-12)
    bs = rng.standard_normal((4, 3, 5))
    got = gradjit.vmap(f, in_axes=(0, -2, None))(a, bs, c)
    want = torch.func.vmap(f_torch, in_dims=(0, -2, None))(t(a), t(bs), t(c)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_out_axes_and_pytree_prefixes():
    params = {"w": rng.standard_normal((5, 3)), "b": rng.standard_normal(5)}
    xs = rng.standard_normal((3, 2, 6))

    def f(p, x):
        h = p["w"] @ x + p["b"][:, None]
        return {"h": h, "n": np.sum(h * h)}

    got = gradjit.vmap(f, in_axes=({"w": None, "b": None}, 2), out_axes={"h": -1, "n": 0})(
        params, xs)
    want = loop(lambda x: f(params, x)["h"], (2,), 6, xs)
    np.testing.assert_allclose(got["h"], np.moveaxis(want, 0, -1), rtol=1e-12)
    np.testing.assert_allclose(got["n"], loop(lambda x: f(params, x)["n"], (2,), 6, xs))
    # out_axes None: an output shared by the batch; a constant output is stacked like JAX's
    got = gradjit.vmap(lambda p, x: (np.sum(p["w"]), x.sum(), 1.5), in_axes=(None, 0),
                       out_axes=(None, 0, 0))(params, xs)
    np.testing.assert_allclose(got[0], params["w"].sum())
    np.testing.assert_allclose(got[1], xs.reshape(3, -1).sum(1))
    np.testing.assert_array_equal(got[2], [1.5, 1.5, 1.5])


def test_keyword_arguments_and_axis_size():
    xs, scale = rng.standard_normal((4, 3)), rng.standard_normal(4)
    got = gradjit.vmap(lambda x, scale=1.0: x * scale)(xs, scale=scale)
    np.testing.assert_allclose(got, xs * scale[:, None])
    got = gradjit.vmap(lambda x: x + 1, in_axes=None, axis_size=3)(np.ones(2))
    np.testing.assert_array_equal(got, np.full((3, 2), 2.0))


def mlp_loss(params, x, y):
    h = np.tanh(x @ params["w1"] + params["b1"])
    return np.mean((h @ params["w2"] - y) ** 2)


def test_per_example_gradients_of_an_mlp_compiled_once():
    params = {"w1": rng.standard_normal((5, 16)), "b1": rng.standard_normal(16),
              "w2": rng.standard_normal((16, 3))}
    xs, ys = rng.standard_normal((32, 5)), rng.standard_normal((32, 3))
    compiled = []
    COMPILE_OBSERVERS.append(lambda f, entry: compiled.append(f))
    try:
        per_example = gradjit.vmap(gradjit.grad(mlp_loss), in_axes=(None, 0, 0))
        got = per_example(params, xs, ys)
        again = per_example(params, xs + 1, ys)
    finally:
        COMPILE_OBSERVERS.pop()
    assert compiled == [per_example] and per_example.cache_info().traces == 1
    single = gradjit.grad(mlp_loss)
    for k in params:
        want = np.stack([single(params, x, y)[k] for x, y in zip(xs, ys)])
        np.testing.assert_allclose(got[k], want, rtol=1e-12, atol=1e-14, err_msg=k)
        np.testing.assert_allclose(again[k][3], single(params, xs[3] + 1, ys[3])[k], rtol=1e-12)

    def torch_loss(p, x, y):
        h = torch.tanh(x @ p["w1"] + p["b1"])
        return torch.mean((h @ p["w2"] - y) ** 2)
    want = torch.func.vmap(torch.func.grad(torch_loss), in_dims=(None, 0, 0))(
        {k: t(v) for k, v in params.items()}, t(xs), t(ys))
    for k in params:
        np.testing.assert_allclose(got[k], want[k].numpy(), rtol=1e-10, atol=1e-13)


def test_nested_vmap_against_torch():
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((5, 4))
    pairwise = gradjit.vmap(gradjit.vmap(lambda x, y: np.sum((x - y) ** 2), in_axes=(None, 0)),
                            in_axes=(0, None))
    want = torch.func.vmap(torch.func.vmap(lambda x, y: torch.sum((x - y) ** 2),
                                           in_dims=(None, 0)), in_dims=(0, None))(t(a), t(b))
    np.testing.assert_allclose(pairwise(a, b), want.numpy(), rtol=1e-12)


def test_grad_of_a_summed_vmap_against_finite_differences():
    xs = rng.standard_normal((6, 3))

    def total(w):
        return gradjit.vmap(lambda x: np.sin(x @ w) * np.exp(-w[0] ** 2))(xs).sum()

    w = rng.standard_normal(3)
    eps = 1e-6
    numeric = [(total(w + eps * e) - total(w - eps * e)) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(gradjit.grad(total)(w), numeric, rtol=1e-6, atol=1e-8)


def test_jit_of_vmap_and_vmap_of_jvp_and_jit():
    xs, ts = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    jitted = gradjit.jit(gradjit.vmap(lambda x: np.exp(x) / np.sum(np.exp(x))))
    np.testing.assert_allclose(jitted(xs), np.exp(xs) / np.exp(xs).sum(1, keepdims=True))

    def tangent(x, v):
        return gradjit.jvp(lambda z: np.sin(z) * z, (x,), (v,))[1]
    np.testing.assert_allclose(gradjit.vmap(tangent)(xs, ts),
                               (np.cos(xs) * xs + np.sin(xs)) * ts, rtol=1e-12)
    inner = gradjit.jit(lambda x: x[::-1] * 2)
    np.testing.assert_allclose(gradjit.vmap(inner)(xs), xs[:, ::-1] * 2)


def test_indexing_sorting_and_linalg_batch():
    xs = rng.standard_normal((3, 4, 4))
    spd = xs @ np.swapaxes(xs, 1, 2) + 4 * np.eye(4)
    idx = rng.integers(0, 4, (3, 2))

    def f(a, i):
        return np.linalg.solve(a, a[i].sum(0)) + np.sort(a[:, 0])[::-1] @ a

    want = loop(f, (0, 0), 3, spd, idx)
    np.testing.assert_allclose(gradjit.vmap(f)(spd, idx), want, rtol=1e-10)


@pytest.mark.parametrize("in_axes", [(0, 0, 0), (None, 0, 0), (0, None, 0), (0, None, None)])
def test_several_index_arrays_batch_in_every_combination(in_axes):
    """x[:, i, j] with negative indices: values and per-example gradients equal a loop."""
    x, i = rng.standard_normal((5, 4, 6, 3)), rng.integers(-6, 6, size=(5, 2, 7))
    j = rng.integers(-3, 3, size=(5, 2, 7))
    args = [a if axis == 0 else a[0] for a, axis in zip((x, i, j), in_axes)]

    def f(x, i, j):
        return (x[:, i, j] ** 2).sum(0)

    def total(x, i, j):
        return f(x, i, j).sum()
    np.testing.assert_allclose(gradjit.vmap(f, in_axes=in_axes)(*args),
                               loop(f, in_axes, 5, *args), rtol=1e-12)
    grads = gradjit.vmap(gradjit.grad(total), in_axes=in_axes)(*args)
    np.testing.assert_allclose(grads, loop(gradjit.grad(total), in_axes, 5, *args), rtol=1e-12)


def test_tensors_in_tensors_out_and_other_backends():
    x = gradjit.randn(3, 4)
    out = gradjit.vmap(lambda r: (r * r).sum())(x)
    assert isinstance(out, gradjit.Tensor)
    np.testing.assert_allclose(out.numpy(), (x.numpy() ** 2).sum(1), rtol=1e-6)
    xs, w = rng.standard_normal((2, 3)), rng.standard_normal(3)
    single = gradjit.grad(lambda w, x: np.sum(np.tanh(w * x) ** 2))
    want = np.stack([single(w, x) for x in xs])
    for backend in ("interpreter", "cuda-emulator"):
        per_example = gradjit.vmap(gradjit.grad(lambda w, x: np.sum(np.tanh(w * x) ** 2)),
                                   in_axes=(None, 0), backend=backend)
        np.testing.assert_allclose(per_example(w, xs), want, rtol=1e-12, err_msg=backend)


def test_python_control_flow_on_shared_values_only():
    xs = rng.standard_normal((3, 2))

    def f(x, flag):
        return x * 2 if flag.sum() > 0 else x

    np.testing.assert_allclose(gradjit.vmap(f, in_axes=(0, None))(xs, np.ones(1)), xs * 2)
    with pytest.raises(BatchingError, match=r"differs along the mapped axis.*\n  at .*"
                                            r"test_vmap.py:\d+: return x \* 2 if flag"):
        gradjit.vmap(f)(xs, np.ones((3, 1)))


@pytest.mark.parametrize("call, message", [
    (lambda: gradjit.vmap(np.add)(np.ones(3), np.ones(4)),
     "inconsistent sizes for array axes to be mapped:\n  \\* one axis had size 3: axis 0 of"),
    (lambda: gradjit.vmap(np.sin, axis_size=2)(np.ones(3)), r"\(axis_size=2\)"),
    (lambda: gradjit.vmap(np.sin, in_axes=2)(np.ones((3, 4))),
     "along axis 2, which implies that its rank should be at least 3, but is only 2"),
    (lambda: gradjit.vmap(np.add, in_axes=(0,))(np.ones(3), np.ones(3)),
     r"len\(in_axes\)=1, len\(args\)=2"),
    (lambda: gradjit.vmap(np.sin, in_axes=({"a": 0},))(np.ones(3)),
     r"tree prefix of the corresponding value, got specification \{'a': 0\} for value tree \*"),
    (lambda: gradjit.vmap(np.sin, in_axes=None)(np.ones(3)), "at least one non-None value"),
    (lambda: gradjit.vmap(np.sin, out_axes=None)(np.ones(3)),
     "output 0 varies along the mapped axis, so its out_axes cannot be None"),
    (lambda: gradjit.vmap(np.sin, out_axes=2)(np.ones(3)), "out_axes=2 is out of range"),
    (lambda: gradjit.vmap(np.sin, in_axes="0"), "in_axes must be an int, None, or a tuple"),
])
def test_errors_name_the_call_line(call, message):
    with pytest.raises(BatchingError, match=message) as info:
        call()
    assert "test_vmap.py" in str(info.value).splitlines()[-1]
    assert isinstance(info.value, ValueError)  # as JAX and torch.func raise them


def test_jacobians_are_one_compiled_program():
    x = rng.standard_normal(6)
    compiled = []
    COMPILE_OBSERVERS.append(lambda f, entry: compiled.append(f))
    try:
        h = gradjit.hessian(lambda x: np.sum(np.sin(x) * x[::-1]) ** 2)(x)
    finally:
        COMPILE_OBSERVERS.pop()
    assert len(compiled) == 1  # the forward-over-reverse program over the whole basis

    def f_torch(x):
        return torch.sum(torch.sin(x) * x.flip(0)) ** 2
    np.testing.assert_allclose(h, torch.func.hessian(f_torch)(t(x)).numpy(), rtol=1e-10)
    jac = gradjit.jacrev(lambda x: np.tanh(np.outer(x, x)))(x)
    np.testing.assert_allclose(
        jac, torch.func.jacrev(lambda x: torch.tanh(torch.outer(x, x)))(t(x)).numpy(),
        rtol=1e-10, atol=1e-14)


def test_shape_errors_name_the_user_line():
    def f(x):
        return x @ np.ones(5)
    with pytest.raises(ShapeError, match=r"\n  at .*test_vmap.py:\d+: return x @ np.ones\(5\)"):
        gradjit.vmap(f)(np.ones((2, 3)))
