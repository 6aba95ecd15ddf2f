"""gradjit.random's JAX names against jax.random itself (threefry2x32, partitionable, x64):
the same keys give the same bits, integers and floats, eagerly, under jit and under vmap;
floats made by transcendental functions within a few units in the last place."""
import numpy as np
import pytest

import gradjit
import gradjit.random as grandom

jax = pytest.importorskip("jax")
jrandom = jax.random

SEEDS = [0, 42, -3, 2**40 + 7]
SHAPES = [(), (5,), (3, 4)]
FLOATS = [np.float32, np.float64]


def keys(seed):
    """The same key in both libraries, legacy and typed."""
    return [(jrandom.PRNGKey(seed), grandom.PRNGKey(seed)),
            (jrandom.key(seed), grandom.key(seed))]


def same(expected, got, ulps=0):
    """Equal shapes and dtypes, and values equal or within `ulps` units of the dtype's epsilon
    times the larger of 1 and their size (transcendental functions differ from XLA's)."""
    expected = np.asarray(expected)
    assert (np.shape(got), np.result_type(got)) == (expected.shape, expected.dtype)
    if ulps == 0 or expected.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, expected)
    else:
        tolerance = ulps * np.finfo(expected.dtype).eps
        np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("seed", SEEDS)
def test_keys_split_and_fold_in_are_jax_words(seed):
    for jkey, gkey in keys(seed):
        same(jrandom.key_data(jkey), grandom.key_data(gkey))
        same(jrandom.key_data(jrandom.split(jkey)), grandom.key_data(grandom.split(gkey)))
        same(jrandom.key_data(jrandom.split(jkey, (2, 3))),
             grandom.key_data(grandom.split(gkey, (2, 3))))
        same(jrandom.key_data(jrandom.fold_in(jkey, 17)),
             grandom.key_data(grandom.fold_in(gkey, 17)))


@pytest.mark.parametrize("seed", [np.int32(-1), np.int64(-1), np.uint32(7), np.int8(-3),
                                  np.uint64(2**63 + 5), True])
def test_seeds_of_every_integer_type(seed):
    same(jrandom.PRNGKey(seed), grandom.PRNGKey(seed))


def test_keys_from_traced_seeds():
    seeds = np.array([0, 5, -7, 2**33 + 1])
    same(jax.vmap(jrandom.PRNGKey)(seeds), gradjit.vmap(grandom.PRNGKey)(seeds))
    same(jax.vmap(jrandom.PRNGKey)(seeds.astype(np.int32)),
         gradjit.vmap(grandom.PRNGKey)(seeds.astype(np.int32)))
    draw = gradjit.jit(lambda s: grandom.normal(grandom.key(s), (3,)))(np.int64(-7))
    same(jrandom.normal(jrandom.key(-7), (3,)), draw, ulps=64)


def test_typed_keys_index_unpack_and_wrap():
    k1, k2 = grandom.split(grandom.key(3))
    j1, j2 = jrandom.split(jrandom.key(3))
    same(jrandom.key_data(j2), grandom.key_data(k2))
    assert grandom.split(grandom.key(3), 4).shape == (4,)
    assert repr(grandom.key(0).dtype) == "key<fry>" and grandom.key(0).shape == ()
    wrapped = grandom.wrap_key_data(grandom.key_data(k1))
    same(jrandom.normal(j1, (3,)), grandom.normal(wrapped, (3,)), ulps=4)
    assert bool(wrapped == k1) and grandom.key_impl(k1) == "threefry2x32"
    assert grandom.key(0).dtype == grandom.key_dtype() and \
        str(grandom.key_dtype()) == str(jrandom.key_dtype())


def test_key_data_round_trip_under_jit():
    def draws(random, words):
        key = random.wrap_key_data(words)
        return (random.key_data(random.split(key, 2)), random.normal(random.fold_in(key, 3), (2,)),
                random.permutation(key, np.arange(12).reshape(3, 4), 1, independent=True))

    words = jrandom.key_data(jrandom.key(5))
    expected = jax.jit(lambda w: draws(jrandom, w))(words)
    for got in (draws(grandom, grandom.key_data(grandom.key(5))),
                gradjit.jit(lambda w: draws(grandom, w))(grandom.key_data(grandom.key(5)))):
        for e, g in zip(expected, got):
            same(e, g, ulps=64)


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32", "uint64"])
@pytest.mark.parametrize("shape", SHAPES)
def test_bits(shape, dtype):
    for jkey, gkey in keys(11):
        same(jrandom.bits(jkey, shape, dtype), grandom.bits(gkey, shape, dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES)
def test_uniform_is_exact(shape, dtype):
    for seed in SEEDS:
        for jkey, gkey in keys(seed):
            same(jrandom.uniform(jkey, shape, dtype), grandom.uniform(gkey, shape, dtype))
            same(jrandom.uniform(jkey, shape, dtype, -2.0, 3.0),
                 grandom.uniform(gkey, shape, dtype, -2.0, 3.0))
    compiled = gradjit.jit(lambda k, low, high: grandom.uniform(k, shape, dtype, low, high))
    same(jrandom.uniform(jkey, shape, dtype, -2.0, 3.1), compiled(gkey, -2.0, 3.1))


# (name, arguments after the key, ulps): exact where only arithmetic is involved
CONTINUOUS = [
    ("normal", lambda s, d: (s, d), 64),
    ("exponential", lambda s, d: (s, d), 64),
    ("laplace", lambda s, d: (s, d), 64),
    ("logistic", lambda s, d: (s, d), 64),
    ("gumbel", lambda s, d: (s, d), 64),
    ("cauchy", lambda s, d: (s, d), 64),
    ("truncated_normal", lambda s, d: (-1.0, 2.0, s, d), 64),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name, arguments, ulps", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
def test_continuous_samplers(name, arguments, ulps, dtype):
    for seed in SEEDS[:2]:
        for jkey, gkey in keys(seed):
            args = arguments((4, 50), dtype)
            same(getattr(jrandom, name)(jkey, *args), getattr(grandom, name)(gkey, *args), ulps)


# the distributions JAX derives from those draws: (sampler, arguments after the key)
DERIVED = {
    "lognormal": lambda d: (0.5, (6,), d),
    "pareto": lambda d: (np.array([1.0, 2.5], d), None, d),
    "rayleigh": lambda d: (2.0, (6,), d),
    "weibull_min": lambda d: (1.5, 0.7, (6,), d),
    "maxwell": lambda d: ((2, 3), d),
    "double_sided_maxwell": lambda d: (1.0, 2.0, (4,), d),
    "wald": lambda d: (np.array([0.5, 1.0, 3.0], d), None, d),
    "triangular": lambda d: (-1.0, 0.5, 2.0, (6,), d),
    "geometric": lambda d: (np.array([0.2, 0.7], d), (3, 2)),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", list(DERIVED))
def test_derived_samplers(name, dtype):
    for jkey, gkey in keys(13):
        args = DERIVED[name](dtype)
        same(getattr(jrandom, name)(jkey, *args), getattr(grandom, name)(gkey, *args), 64)


def test_normal_complex_gumbel_high_and_multivariate():
    jkey, gkey = keys(5)[0]
    same(jrandom.normal(jkey, (6,), np.complex128), grandom.normal(gkey, (6,), np.complex128),
         ulps=64)
    same(jrandom.gumbel(jkey, (20,), mode="high"), grandom.gumbel(gkey, (20,), mode="high"), 8)
    mean, cov = np.array([1.0, -2.0]), np.array([[2.0, 0.3], [0.3, 0.5]])
    np.testing.assert_allclose(grandom.multivariate_normal(gkey, mean, cov, (7,)),
                               jrandom.multivariate_normal(jkey, mean, cov, (7,)), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8"])
def test_randint(dtype):
    for seed in SEEDS:
        for jkey, gkey in keys(seed):
            for low, high in [(0, 10), (-5, 7), (3, 3), (0, 256), (-(2**40), 2**40)]:
                if np.iinfo(dtype).bits < 64 and abs(high) >= 2**31:
                    continue
                same(jrandom.randint(jkey, (3, 5), low, high, dtype),
                     grandom.randint(gkey, (3, 5), low, high, dtype))
    same(jrandom.randint(jkey, (4,), np.array([0, 1, 2, 3]), 9),
         grandom.randint(gkey, (4,), np.array([0, 1, 2, 3]), 9))


def test_bernoulli_rademacher_permutation_choice_categorical():
    for jkey, gkey in keys(9):
        p = np.array([0.1, 0.5, 0.9])
        same(jrandom.bernoulli(jkey, p, (4, 3)), grandom.bernoulli(gkey, p, (4, 3)))
        same(jrandom.bernoulli(jkey, 0.3, (5,), mode="high"),
             grandom.bernoulli(gkey, 0.3, (5,), mode="high"))
        same(jrandom.rademacher(jkey, (9,)), grandom.rademacher(gkey, (9,)))
        x = np.arange(12.0).reshape(3, 4)
        same(jrandom.permutation(jkey, 10), grandom.permutation(gkey, 10))
        same(jrandom.permutation(jkey, x, axis=1), grandom.permutation(gkey, x, axis=1))
        same(jrandom.permutation(jkey, x, 1, True), grandom.permutation(gkey, x, 1, True))
        same(jrandom.choice(jkey, 7, (5,)), grandom.choice(gkey, 7, (5,)))
        same(jrandom.choice(jkey, x, (2,), replace=False, axis=1),
             grandom.choice(gkey, x, (2,), replace=False, axis=1))
        w = np.array([0.1, 0.2, 0.3, 0.4])
        same(jrandom.choice(jkey, 4, (6,), p=w), grandom.choice(gkey, 4, (6,), p=w))
        same(jrandom.choice(jkey, 4, (3,), False, w), grandom.choice(gkey, 4, (3,), False, w))
        logits = np.log(np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]))
        same(jrandom.categorical(jkey, logits), grandom.categorical(gkey, logits))
        same(jrandom.categorical(jkey, logits, axis=0, shape=(5, 3)),
             grandom.categorical(gkey, logits, axis=0, shape=(5, 3)))
        same(jrandom.categorical(jkey, logits, shape=(2, 2), replace=False),
             grandom.categorical(gkey, logits, shape=(2, 2), replace=False))


def test_orthogonal():
    jkey, gkey = keys(2)[0]
    q = grandom.orthogonal(gkey, 4, (2,))
    np.testing.assert_allclose(q, jrandom.orthogonal(jkey, 4, (2,)), atol=1e-12)
    np.testing.assert_allclose(grandom.orthogonal(gkey, 3, m=5),
                               jrandom.orthogonal(jkey, 3, m=5), atol=1e-12)


def sample_all(random, key, x):
    """Draws of every kind from one key; `x` a traced float to mix in."""
    k1, k2, k3 = random.split(key, 3)
    return (random.normal(k1, (3,)) * x, random.uniform(k2, (2, 2), np.float32),
            random.randint(k3, (4,), 0, 100), random.bits(random.fold_in(key, 3), (2,)),
            random.permutation(k2, 6), random.categorical(k1, np.zeros((2, 5)) + x))


@pytest.mark.parametrize("typed", [False, True])
def test_under_jit_and_vmap(typed):
    make = "key" if typed else "PRNGKey"
    jkey, gkey = getattr(jrandom, make)(4), getattr(grandom, make)(4)
    expected = jax.jit(lambda k, x: sample_all(jrandom, k, x))(jkey, 1.5)
    for got in (sample_all(grandom, gkey, 1.5),
                gradjit.jit(lambda k, x: sample_all(grandom, k, x))(gkey, 1.5)):
        for e, g in zip(expected, got):
            same(e, g, ulps=64)
    jkeys, gkeys = jrandom.split(jkey, 5), grandom.split(gkey, 5)
    expected = jax.vmap(lambda k: sample_all(jrandom, k, 2.0))(jkeys)
    for got in (gradjit.vmap(lambda k: sample_all(grandom, k, 2.0))(gkeys),
                gradjit.jit(gradjit.vmap(lambda k: sample_all(grandom, k, 2.0)))(gkeys)):
        for e, g in zip(expected, got):
            same(e, g, ulps=64)
    jsplit = jax.jit(jrandom.split)(jkey)
    same(jrandom.key_data(jsplit), grandom.key_data(gradjit.jit(grandom.split)(gkey)))


# every sampler, as a function of the key alone
SAMPLERS = {
    "uniform": lambda r, k: r.uniform(k, (3,), np.float32, -1.0, 2.0),
    "normal": lambda r, k: r.normal(k, (2, 3)),
    "normal-complex": lambda r, k: r.normal(k, (2,), np.complex128),
    "truncated_normal": lambda r, k: r.truncated_normal(k, -0.5, 1.0, (4,)),
    "multivariate_normal": lambda r, k: r.multivariate_normal(
        k, np.ones(2), np.array([[1.0, 0.2], [0.2, 0.5]]), (3,)),
    "exponential": lambda r, k: r.exponential(k, (3,)),
    "laplace": lambda r, k: r.laplace(k, (3,)),
    "logistic": lambda r, k: r.logistic(k, (3,)),
    "cauchy": lambda r, k: r.cauchy(k, (3,)),
    "gumbel-high": lambda r, k: r.gumbel(k, (3,), mode="high"),
    "orthogonal": lambda r, k: r.orthogonal(k, 3),
    "gamma": lambda r, k: r.gamma(k, np.array([0.5, 2.0, 7.0])),
    "beta": lambda r, k: r.beta(k, 2.0, 3.0, (3,)),
    "dirichlet": lambda r, k: r.dirichlet(k, np.array([1.0, 2.0, 0.5])),
    "t": lambda r, k: r.t(k, 3.0, (2,)),
    "loggamma": lambda r, k: r.loggamma(k, np.array([0.05, 3.0])),
    "chisquare": lambda r, k: r.chisquare(k, 3.0, (2,)),
    "f": lambda r, k: r.f(k, 3.0, 5.0, (2,)),
    "generalized_normal": lambda r, k: r.generalized_normal(k, 1.5, (3,)),
    "poisson": lambda r, k: r.poisson(k, np.array([2.0, 40.0])),
    "binomial": lambda r, k: r.binomial(k, np.array([4.0, 400.0]), 0.3),
    "wald": lambda r, k: r.wald(k, np.array([0.5, 2.0])),
    "double_sided_maxwell": lambda r, k: r.double_sided_maxwell(k, 1.0, 2.0, (3,)),
    "geometric": lambda r, k: r.geometric(k, np.array([0.2, 0.7]), (3, 2)),
    "bits": lambda r, k: r.bits(k, (5,), np.uint32),
    "randint": lambda r, k: r.randint(k, (5,), -3, 100, np.int32),
    "bernoulli-high": lambda r, k: r.bernoulli(k, np.array([0.01, 0.5]), mode="high"),
    "rademacher": lambda r, k: r.rademacher(k, (4,), np.float32),
    "permutation-2d": lambda r, k: r.permutation(k, np.arange(12).reshape(3, 4), 1),
    "choice-p": lambda r, k: r.choice(k, np.arange(5.0), (3,), False, np.arange(1.0, 6.0) / 15),
    "categorical-k": lambda r, k: r.categorical(k, np.zeros((2, 5)), shape=(3, 2),
                                                replace=False),
}


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_every_sampler_under_jit_and_vmap_as_eagerly(name):
    sample = SAMPLERS[name]
    key = grandom.PRNGKey(8)
    eager = sample(grandom, key)
    np.testing.assert_allclose(gradjit.jit(lambda k: sample(grandom, k))(key), eager,
                               rtol=1e-12)
    batch = grandom.split(key, 3)
    batched = gradjit.vmap(lambda k: sample(grandom, k))(batch)
    for k, row in zip(batch, batched):
        np.testing.assert_allclose(row, sample(grandom, k), rtol=1e-12)
    np.testing.assert_allclose(eager, sample(jrandom, jrandom.PRNGKey(8)), rtol=1e-12)


# 8- and 16-bit integer draws: a compiled program computes them in host steps
NARROW = {
    "bits-uint8": lambda r, k: r.bits(k, (5,), np.uint8),
    "bits-uint16": lambda r, k: r.bits(k, (5,), np.uint16),
    "randint-int8": lambda r, k: r.randint(k, (5,), -3, 100, np.int8),
    "randint-int16": lambda r, k: r.randint(k, (5,), -300, 1000, np.int16),
    "randint-uint8": lambda r, k: r.randint(k, (5,), 0, 256, np.uint8),
    "rademacher-int8": lambda r, k: r.rademacher(k, (4,), np.int8),
    "geometric-int16": lambda r, k: r.geometric(k, 0.3, (4,), np.int16),
    "poisson-int16": lambda r, k: r.poisson(k, np.array([1.0, 30.0]), dtype=np.int16),
}


@pytest.mark.parametrize("name", list(NARROW))
def test_narrow_integer_draws_under_jit_and_vmap(name):
    sample = NARROW[name]
    jkey, gkey = keys(2)[0]
    same(sample(jrandom, jkey), gradjit.jit(lambda k: sample(grandom, k))(gkey))
    same(jax.vmap(lambda k: sample(jrandom, k))(jrandom.split(jkey, 3)),
         gradjit.jit(gradjit.vmap(lambda k: sample(grandom, k)))(grandom.split(gkey, 3)))


def test_grad_through_a_sampled_loss():
    def loss(random, w, key):
        noise = random.normal(key, (8,))
        return ((w * noise - random.uniform(key, (8,))) ** 2).sum()

    jkey, gkey = keys(6)[0]
    expected = jax.grad(lambda w, k: loss(jrandom, w, k))(0.7, jkey)
    got = gradjit.jit(gradjit.grad(lambda w, k: loss(grandom, w, k)))(0.7, gkey)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_gradients_through_the_bounds_of_uniform_and_truncated_normal():
    def total(random, key, low, high):
        return (random.uniform(key, (5,), minval=low, maxval=high) ** 2).sum() + \
            (random.truncated_normal(key, low, high, (4,)) ** 3).sum()

    jkey, gkey = keys(2)[0]
    expected = jax.grad(lambda a, b: total(jrandom, jkey, a, b), argnums=(0, 1))(-0.5, 1.5)
    got = gradjit.jit(gradjit.grad(lambda a, b: total(grandom, gkey, a, b), argnums=(0, 1)))
    np.testing.assert_allclose(got(-0.5, 1.5), expected, rtol=1e-12)


ERRORS = {
    "single key": (ValueError, lambda r, key: r.normal(r.split(key), (2,))),
    "not a key": (TypeError, lambda r, key: r.uniform(np.zeros(2), (2,))),
    "float dtype": (ValueError, lambda r, key: r.uniform(key, (2,), np.int32)),
    "unsigned dtype": (ValueError, lambda r, key: r.bits(key, (2,), np.int32)),
    "integer dtype": (TypeError, lambda r, key: r.randint(key, (2,), 0, 3, np.float32)),
    "array seed": (TypeError, lambda r, key: r.PRNGKey(np.arange(2))),
    "key seed": (TypeError, lambda r, key: r.key(r.key(0))),
    "array fold_in": (TypeError, lambda r, key: r.fold_in(key, np.arange(2))),
    "len of one key": (TypeError, lambda r, key: len(r.key(0))),
    "gumbel mode": (ValueError, lambda r, key: r.gumbel(key, (2,), mode="middle")),
    "bernoulli mode": (ValueError, lambda r, key: r.bernoulli(key, 0.5, mode="middle")),
    "bernoulli p": (TypeError, lambda r, key: r.bernoulli(key, 1)),
    "dirichlet alpha": (ValueError, lambda r, key: r.dirichlet(key, 1.0)),
    "factor method": (ValueError,
                      lambda r, key: r.multivariate_normal(key, np.zeros(2), np.eye(2),
                                                          method="lu")),
    "permutation of a float": (TypeError, lambda r, key: r.permutation(key, 2.5)),
    "geometric dtype": (ValueError, lambda r, key: r.geometric(key, 0.5, (2,), np.float32)),
    "choice too many": (ValueError, lambda r, key: r.choice(key, 3, (4,), replace=False)),
    "choice empty": (ValueError, lambda r, key: r.choice(key, 0, (4,))),
    "choice p": (ValueError, lambda r, key: r.choice(key, 3, (2,), p=np.ones(2) / 2)),
    "categorical too many": (ValueError, lambda r, key: r.categorical(
        key, np.zeros(3), shape=(4,), replace=False)),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_as_jax(case):
    """The same error type as jax.random's for the same mistake."""
    kind, call = ERRORS[case]
    for random in (jrandom, grandom):
        with pytest.raises(kind):
            call(random, random.PRNGKey(0))
