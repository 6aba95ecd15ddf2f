"""numpy's random Generator methods used in models, called inside gradjit.grad, jit and vmap by
a function whose source Python cannot show (run from a string, as `python -c`, exec or a
notebook kernel without its cell text do): the draws are numpy's, the function's own allocated
arrays are still filled with traced values, and gradients match central differences. Before,
such a draw handed numpy's compiled code a traced array and crashed the process."""
import numpy as np
import pytest

import gradjit
from tests.e2e.checks import central_differences

X = np.array([0.3, 0.7, 1.1])

# each body draws with the Generator method named, seeded inside, and multiplies into x
DRAWS = {
    "normal": "rng.normal(0.5, 2.0, size=x.shape)",
    "standard_normal": "rng.standard_normal(len(x))",
    "uniform": "rng.uniform(-1.0, 1.0, x.shape)",
    "random": "rng.random(x.shape)",
    "integers": "rng.integers(0, 5, size=x.shape)",
    "permutation": "rng.permutation(x.size)",
    "choice": "rng.choice(5, size=x.size)",
    "exponential": "rng.exponential(2.0, size=x.shape)",
    "binomial": "rng.binomial(4, 0.5, size=x.shape)",
    "laplace": "rng.laplace(size=x.shape)",
    "beta": "rng.beta(2.0, 3.0, size=x.shape)",
    "gamma": "rng.gamma(2.0, size=x.shape)",
    "legacy randn": "np.random.RandomState(4).randn(*x.shape)",
    "multivariate_normal": "rng.multivariate_normal([0.0, 1.0, 2.0], [[2.0, 0.5, 0.0], "
                           "[0.5, 1.0, 0.0], [0.0, 0.0, 1.0]])",
    # allocations among the arguments: the draw's own allocations are still numpy's
    "nested calls": "rng.normal(float(np.ones(2).sum()), size=np.zeros(3).shape)",
}


def _from_string(draw):
    """A function defined by exec from text: its code has no source lines to read."""
    text = ("def fn(x):\n"
            "    rng = np.random.default_rng(7)\n"
            f"    noise = {draw}\n"
            "    filled = np.zeros(len(x.shape) + 2)\n"
            "    filled[0] = x[1] ** 2\n"
            "    return (noise * x).sum() + np.sin(x).sum() * filled.sum()\n")
    namespace = {"np": np}
    exec(compile(text, "<string>", "exec"), namespace)
    return namespace["fn"]


@pytest.mark.parametrize("name", DRAWS)
def test_draws_in_code_without_source_are_numpys_and_fills_are_traced(name):
    fn = _from_string(DRAWS[name])
    np.testing.assert_allclose(gradjit.jit(fn)(X), fn(X), rtol=1e-12)
    np.testing.assert_allclose(gradjit.grad(fn)(X), central_differences(fn, (X,), 0),
                               rtol=1e-6, atol=1e-8)
    batch = np.stack([X, X + 0.1])
    np.testing.assert_allclose(gradjit.vmap(fn)(batch), [fn(batch[0]), fn(batch[1])],
                               rtol=1e-12)
