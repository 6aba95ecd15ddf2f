"""gradjit.nn's JAX names against jax.nn: activations, softmax and its kin, one_hot and
standardize give JAX's values and gradients (gradjit.grad against jax.grad, kinks included),
and jax.nn.initializers draw JAX's parameters from the same key."""
import numpy as np
import pytest

import gradjit
import gradjit.numpy as gnp

jax = pytest.importorskip("jax")
jnn = jax.nn
gnn = gradjit.nn

# points on both sides of every kink, and the kinks themselves (0 and 6 for relu6, ±1, ±3)
POINTS = np.array([-7.0, -3.0, -2.5, -1.0, -0.3, 0.0, 0.4, 1.0, 2.0, 3.0, 6.0, 8.0])

ELEMENTWISE = {
    "relu": (), "relu6": (), "sigmoid": (), "softplus": (), "soft_sign": (), "silu": (),
    "swish": (), "log_sigmoid": (), "leaky_relu": (0.2,), "hard_tanh": (), "elu": (0.7,),
    "celu": (1.3,), "selu": (), "gelu": (), "gelu-exact": (False,), "hard_sigmoid": (),
    "hard_silu": (), "hard_swish": (), "mish": (), "squareplus": (), "squareplus-b": (2.0,),
    "sparse_plus": (), "sparse_sigmoid": (),
}


def tolerance(dtype):
    return {"rtol": 1e-5, "atol": 1e-6} if dtype == np.float32 else \
        {"rtol": 1e-12, "atol": 1e-13}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(ELEMENTWISE))
def test_elementwise_values_and_gradients(name, dtype):
    fname, args = name.split("-")[0], ELEMENTWISE[name]
    x = POINTS.astype(dtype)
    expected = getattr(jnn, fname)(x, *args)
    got = getattr(gnn, fname)(x, *args)
    assert np.result_type(got) == expected.dtype
    np.testing.assert_allclose(got, expected, **tolerance(dtype))

    def total(nn, point):
        return (getattr(nn, fname)(point, *args) * np.linspace(0.5, 2.0, len(POINTS))).sum()

    np.testing.assert_allclose(gradjit.grad(lambda p: total(gnn, p))(x),
                               jax.grad(lambda p: total(jnn, p))(x), **tolerance(dtype))
    np.testing.assert_allclose(gradjit.jit(getattr(gnn, fname))(x, *args), expected,
                               **tolerance(dtype))


LOGITS = np.array([[1.0, -2.0, 0.5, 3.0], [0.0, 0.1, -0.1, 100.0], [-5.0, -5.0, -5.0, -5.0]])
MASK = np.array([[True, False, True, True], [True, True, True, False],
                 [False, True, True, True]])
REDUCTIONS = [
    ("softmax", {}), ("softmax", {"axis": 0}), ("softmax", {"where": MASK}),
    ("log_softmax", {}), ("log_softmax", {"axis": 0}), ("log_softmax", {"where": MASK}),
    ("logsumexp", {}), ("logsumexp", {"axis": 1}), ("logsumexp", {"axis": 0, "keepdims": True}),
    ("logsumexp", {"axis": 1, "where": MASK}), ("glu", {}), ("glu", {"axis": 0}) ,
    ("standardize", {}), ("standardize", {"axis": 0}),
    ("standardize", {"algorithm": "stable", "epsilon": 1e-3}),
]


@pytest.mark.parametrize("name, kwargs", REDUCTIONS,
                         ids=[f"{n}-{'-'.join(k)}" for n, k in REDUCTIONS])
def test_reductions_values_and_gradients(name, kwargs):
    x = LOGITS[:, :4] if name != "glu" or kwargs.get("axis") != 0 else LOGITS[:2]
    expected = getattr(jnn, name)(x, **kwargs)
    np.testing.assert_allclose(getattr(gnn, name)(x, **kwargs), expected, rtol=1e-12,
                               atol=1e-13)
    weights = np.cos(np.arange(np.size(expected))).reshape(np.shape(expected))

    def total(nn, point):
        out = getattr(nn, name)(point, **kwargs)
        finite = np.isfinite(np.asarray(expected))
        return (nn_where(nn, finite, out, 0.0) * weights).sum()

    np.testing.assert_allclose(gradjit.grad(lambda p: total(gnn, p))(x),
                               jax.grad(lambda p: total(jnn, p))(x), rtol=1e-10, atol=1e-12)


def nn_where(nn, mask, a, b):
    return (jax.numpy if nn is jnn else gnp).where(mask, a, b)


@pytest.mark.parametrize("kwargs", [{}, {"axis": 0}, {"dtype": np.int32}, {"axis": 1}])
def test_one_hot(kwargs):
    labels = np.array([[0, 3, 1], [2, 2, 5]])
    expected = jnn.one_hot(labels, 4, **kwargs)
    got = gnn.one_hot(labels, 4, **kwargs)
    assert np.result_type(got) == expected.dtype
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(gradjit.jit(lambda y: gnn.one_hot(y, 4, **kwargs))(labels),
                                  expected)


INITIALIZERS = [
    ("zeros", None), ("ones", None), ("constant", (0.3,)), ("normal", ()), ("normal", (2.0,)),
    ("uniform", (0.5,)), ("truncated_normal", (1.5,)), ("glorot_uniform", ()),
    ("glorot_normal", ()), ("xavier_uniform", ()), ("xavier_normal", ()),
    ("he_uniform", ()), ("he_normal", ()), ("kaiming_uniform", ()), ("kaiming_normal", ()),
    ("lecun_uniform", ()), ("lecun_normal", ()), ("orthogonal", ()), ("orthogonal", (2.0, 0)),
    ("variance_scaling", (0.5, "fan_out", "normal")),
    ("variance_scaling", (3.0, "fan_geo_avg", "uniform")),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(4, 6), (3, 3, 5)])
@pytest.mark.parametrize("name, args", INITIALIZERS,
                         ids=[f"{n}{i}" for i, (n, _) in enumerate(INITIALIZERS)])
def test_initializers(name, args, shape, dtype):
    def make(nn):
        made = getattr(nn.initializers, name)
        return made if args is None else made(*args)

    expected = make(jnn)(jax.random.PRNGKey(3), shape, dtype)
    got = make(gnn)(gradjit.random.PRNGKey(3), shape, dtype)
    assert np.result_type(got) == expected.dtype
    np.testing.assert_allclose(got, expected, **tolerance(dtype))


def test_errors_as_jax():
    for nn in (jnn, gnn):
        with pytest.raises(ValueError, match="Unknown algorithm"):
            nn.standardize(LOGITS, algorithm="exact")
        with pytest.raises(ValueError, match="invalid mode"):
            nn.initializers.variance_scaling(1.0, "fan", "normal")(jax.random.PRNGKey(0), (2, 2))
        with pytest.raises(ValueError, match="invalid distribution"):
            nn.initializers.variance_scaling(1.0, "fan_in", "cauchy")(
                jax.random.PRNGKey(0), (2, 2))
        with pytest.raises(ValueError, match="Must be at least 2D"):
            nn.initializers.glorot_normal()(jax.random.PRNGKey(0), (3,))
        with pytest.raises(ValueError, match="at least a 2D shape"):
            nn.initializers.orthogonal()(jax.random.PRNGKey(0), (3,))
