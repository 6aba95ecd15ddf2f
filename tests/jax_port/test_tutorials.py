"""Small programs in the style of JAX's introductory tutorials, each run twice with only its
imports changed (`import jax` / `import gradjit as jax`, `jax.numpy` / `gradjit.numpy` as jnp,
`lax`, `tree_util`), and the two runs' results compared."""
import textwrap

import numpy as np
import pytest

jax_module = pytest.importorskip("jax")

IMPORTS = {
    "jax": "import jax\nimport jax.numpy as jnp\nfrom jax import lax, tree_util\n",
    "gradjit": "import gradjit as jax\nimport gradjit.numpy as jnp\n"
               "from gradjit import lax, tree_util\n",
}

PROGRAMS = {
    # Fit a line by gradient descent: parameters in a dict, updated leaf by leaf.
    "linear-regression": """
        rng = np.random.default_rng(0)
        xs = rng.normal(size=(64, 3))
        ys = xs @ np.array([1.5, -2.0, 0.5]) + 0.3 + 0.01 * rng.normal(size=64)

        def loss(params, x, y):
            prediction = x @ params["w"] + params["b"]
            return jnp.mean((prediction - y) ** 2)

        step = jax.jit(jax.value_and_grad(loss))
        params = {"w": np.zeros(3), "b": np.float64(0.0)}
        for _ in range(100):
            value, grads = step(params, xs, ys)
            params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
        result = (value, params)
    """,
    # One gradient per example: vmap over grad, the parameters shared.
    "per-example-gradients": """
        rng = np.random.default_rng(1)
        w = rng.normal(size=4)
        xs, ys = rng.normal(size=(8, 4)), rng.normal(size=8)

        def loss(w, x, y):
            return (jnp.tanh(x @ w) - y) ** 2

        per_example = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))
        result = per_example(w, xs, ys)
    """,
    # A multilayer perceptron whose parameters are a list of (weights, bias) pairs.
    "mlp-pytree": """
        rng = np.random.default_rng(2)
        sizes = [3, 8, 8, 1]
        params = [(rng.normal(size=(m, n)) / np.sqrt(m), np.zeros(n))
                  for m, n in zip(sizes[:-1], sizes[1:])]

        def forward(params, x):
            for w, b in params[:-1]:
                x = jnp.maximum(x @ w + b, 0.0)
            w, b = params[-1]
            return (x @ w + b)[..., 0]

        def loss(params, x, y):
            return jnp.mean((forward(params, x) - y) ** 2)

        x = rng.normal(size=(16, 3))
        y = np.sin(x).sum(axis=1)
        grads = jax.jit(jax.grad(loss))(params, x, y)
        count = len(jax.tree.leaves(grads))
        shapes = tree_util.tree_map(lambda g: g.shape, grads)
        result = (count, shapes == [(w.shape, b.shape) for w, b in params], grads)
    """,
    # Arrays are immutable: a histogram built with functional index updates in a loop.
    "histogram-with-at": """
        data = np.array([0.1, 0.7, 0.4, 0.9, 0.95, 0.2, 0.5, 1.3, -0.2])

        @jax.jit
        def histogram(values):
            def body(i, counts):
                bucket = jnp.floor(values[i] * 4).astype(jnp.int32)
                return counts.at[bucket].add(1.0)
            return lax.fori_loop(0, values.shape[0], body, jnp.zeros(4))

        result = histogram(data)
    """,
    # Structured control flow: a piecewise function, a running average and a Newton solve.
    "control-flow": """
        def piecewise(x):
            return lax.cond(x > 1.0, lambda v: v ** 2, lambda v: 2.0 * v - 1.0, x)

        def running_average(xs, decay):
            def step(average, x):
                average = decay * average + (1 - decay) * x
                return average, average
            return lax.scan(step, 0.0, xs)

        def newton_sqrt(a):
            def body(state):
                x, i = state
                return 0.5 * (x + a / x), i + 1
            return lax.while_loop(lambda s: s[1] < 20, body, (a, 0))[0]

        xs = np.linspace(-1.0, 2.0, 7)
        result = ([jax.jit(piecewise)(x) for x in xs],
                  [jax.grad(piecewise)(x) for x in xs],
                  jax.jit(running_average)(xs, 0.8),
                  jax.grad(lambda xs: running_average(xs, 0.8)[0])(xs),
                  jax.jit(newton_sqrt)(np.float64(2.0)))
    """,
    # A user-defined class as a pytree node, passed through jit and differentiated.
    "custom-pytree": """
        @tree_util.register_pytree_node_class
        class Particle:
            def __init__(self, position, velocity, label):
                self.position, self.velocity, self.label = position, velocity, label

            def tree_flatten(self):
                return (self.position, self.velocity), self.label

            @classmethod
            def tree_unflatten(cls, label, children):
                return cls(*children, label)

        @jax.jit
        def move(p, dt):
            return Particle(p.position + dt * p.velocity, p.velocity, p.label)

        def energy(p):
            return 0.5 * jnp.sum(p.velocity ** 2) + jnp.sum(jnp.cos(p.position))

        p = Particle(np.array([0.0, 1.0]), np.array([1.0, -0.5]), "a")
        q = move(p, 0.1)
        g = jax.grad(energy)(q)
        result = (q.label, q.position, g.position, g.velocity)
    """,
    # A recurrent cell unrolled by scan, trained through it.
    "rnn-scan": """
        rng = np.random.default_rng(3)
        params = {"wx": rng.normal(size=(2, 4)) * 0.5, "wh": rng.normal(size=(4, 4)) * 0.5}
        inputs = rng.normal(size=(6, 2))

        def run(params, inputs):
            def cell(h, x):
                h = jnp.tanh(x @ params["wx"] + h @ params["wh"])
                return h, h.sum()
            h, outputs = lax.scan(cell, jnp.zeros(4), inputs)
            return jnp.sum(outputs ** 2) + jnp.sum(h)

        result = jax.jit(jax.value_and_grad(run))(params, inputs)
    """,
    # An MLP classifier whose parameters and data come from jax.random and jax.nn's
    # initializers, trained by jitted gradient steps on a softmax cross-entropy.
    "mlp-prngkey-training": """
        key = jax.random.PRNGKey(0)
        key, data_key, label_key = jax.random.split(key, 3)
        x = jax.random.normal(data_key, (32, 4))
        y = jax.nn.one_hot(jax.random.randint(label_key, (32,), 0, 3), 3)
        sizes = [4, 16, 3]
        init = jax.nn.initializers.glorot_normal()
        params = []
        for m, n in zip(sizes[:-1], sizes[1:]):
            key, w_key = jax.random.split(key)
            params.append((init(w_key, (m, n)), jnp.zeros(n)))

        def loss(params, x, y):
            for w, b in params[:-1]:
                x = jax.nn.gelu(x @ w + b)
            w, b = params[-1]
            return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(x @ w + b), axis=-1))

        @jax.jit
        def step(params, x, y):
            value, grads = jax.value_and_grad(loss)(params, x, y)
            return value, jax.tree.map(lambda p, g: p - 0.5 * g, params, grads)

        for _ in range(30):
            value, params = step(params, x, y)
        result = (value, params, jax.nn.softmax(x[:3] @ params[0][0]))
    """,
    # Keys carried through loops: a random walk that splits its key at every scan step, and a
    # fori_loop folding the step number into a typed key.
    "keys-in-loops": """
        def walk(key):
            def step(carry, _):
                key, x = carry
                key, subkey = jax.random.split(key)
                x = x + jax.random.normal(subkey, ())
                return (key, x), x
            return lax.scan(step, (key, 0.0), None, length=6)[1]

        def accumulate(key):
            def body(i, carry):
                key, total = carry
                return jax.random.fold_in(key, i), total + jax.random.uniform(key, ())
            return lax.fori_loop(0, 4, body, (key, 0.0))[1]

        result = (jax.jit(walk)(jax.random.PRNGKey(0)), jax.jit(accumulate)(jax.random.key(1)))
    """,
    # Keys split once and consumed by vmap: one draw per key, a Monte Carlo estimate per key,
    # and dropout with a fresh key folded in per step (typed keys from jax.random.key).
    "vmap-over-split-keys": """
        keys = jax.random.split(jax.random.PRNGKey(42), 8)
        draws = jax.vmap(lambda k: jax.random.normal(k, (3,)))(keys)

        def estimate(k, scale):
            return jnp.mean(jnp.exp(scale * jax.random.uniform(k, (64,))))

        estimates = jax.jit(jax.vmap(estimate, in_axes=(0, None)))(keys, 0.5)
        choices = jax.vmap(lambda k: jax.random.choice(k, 10, (2,), replace=False))(keys)

        def dropout(key, x, rate):
            keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
            return jnp.where(keep, x / (1.0 - rate), 0.0)

        base = jax.random.key(7)
        x = jnp.arange(1.0, 9.0)
        dropped = [jax.jit(dropout)(jax.random.fold_in(base, i), x, 0.25) for i in range(3)]
        grad = jax.grad(lambda x: jnp.sum(dropout(base, x, 0.5) ** 2))(x)
        result = (draws, estimates, choices, dropped, grad,
                  jax.random.key_data(jax.random.split(base, 2)))
    """,
}


def _run(program, library):
    namespace = {"np": np}
    exec(IMPORTS[library] + textwrap.dedent(PROGRAMS[program]), namespace)
    return namespace["result"]


@pytest.mark.parametrize("program", PROGRAMS)
def test_runs_with_only_the_imports_changed(program):
    ours, theirs = _run(program, "gradjit"), _run(program, "jax")
    ours_leaves, ours_tree = jax_module.tree.flatten(ours)
    theirs_leaves, theirs_tree = jax_module.tree.flatten(theirs)
    assert len(ours_leaves) == len(theirs_leaves)
    for a, b in zip(ours_leaves, theirs_leaves):
        if isinstance(b, str):
            assert a == b
        else:
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10, atol=1e-12)
