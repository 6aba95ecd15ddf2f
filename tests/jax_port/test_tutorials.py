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
