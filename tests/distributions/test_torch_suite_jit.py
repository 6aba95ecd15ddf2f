"""PyTorch's suite's TestJit through gradjit's public tracer: a function building an example's
distribution and taking its log_prob, moments, entropy, cdf or support, traced with
gradjit.jit.trace at the example's parameters, then called at other valid parameters (and
another sample), gives what the untraced function gives."""
import numpy as np
import pytest

import gradjit
from tests.distributions.test_torch_suite_generic import outcome
from tests.distributions.torch_suite_examples import EXAMPLES, P, build

CASES = [(f"{name}-{i}", name, spec) for name, specs in EXAMPLES.items()
         for i, spec in enumerate(specs) if all(isinstance(v, P) for v in spec.values())]
WHAT = {"log_prob": lambda d, s: d.log_prob(s), "mean": lambda d, s: d.mean,
        "variance": lambda d, s: d.variance, "entropy": lambda d, s: d.entropy(),
        "cdf": lambda d, s: d.cdf(s), "enumerate_support": lambda d, s: d.enumerate_support()}


def _perturbed(dist_type, keys, values):
    """Other valid parameters: counts one more, bounds moved away from the other bound,
    the rest moved in their constraint's unconstrained space."""
    D, rng = gradjit.distributions, np.random.RandomState(5)
    C = D.constraints
    given = dist_type(**dict(zip(keys, values))).arg_constraints  # may depend on them
    out = []
    for key, value in zip(keys, values):
        constraint = given.get(key, C.real)
        shift = gradjit.tensor(rng.uniform(size=tuple(value.shape)), dtype=value.dtype)
        if isinstance(constraint, C._IntegerGreaterThan):
            out.append(value + 1)
        elif isinstance(constraint, C._LessThan):
            out.append(value - shift)
        elif isinstance(constraint, (C._GreaterThan, C._GreaterThanEq)):
            out.append(value + shift)
        elif not value.is_floating_point() or C.is_dependent(constraint):
            out.append(value)
        else:
            to = D.transform_to(constraint)
            out.append(to(to.inv(value) + (shift - 0.5) / 5))
    return out


@pytest.mark.parametrize("what", list(WHAT))
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_traced_function_equals_eager_on_new_parameters(case, what):
    _, name, spec = case
    D = getattr(gradjit.distributions, name)
    keys = list(spec)
    values = [build(gradjit, spec[k]).detach() for k in keys]

    def f(sample, *params):
        return WHAT[what](D(**dict(zip(keys, params)), validate_args=False), sample)
    gradjit.manual_seed(0)
    sample = D(**dict(zip(keys, values))).sample()
    eager = outcome(lambda: f(sample, *values))
    if isinstance(eager, tuple):
        assert eager[0] == "NotImplementedError"
        return
    traced = gradjit.jit.trace(f, (sample,) + tuple(values))
    if name in ("Wishart", "LKJCholesky", "MultivariateNormal", "LowRankMultivariateNormal"):
        new = values  # their matrices' constraints have no unconstrained neighbourhood here
    else:
        new = _perturbed(D, keys, values)
    gradjit.manual_seed(1)
    new_sample = D(**dict(zip(keys, new))).sample()
    expected, found = f(new_sample, *new), traced(new_sample, *new)
    assert tuple(found.shape) == tuple(expected.shape)
    np.testing.assert_allclose(found.detach().numpy(), expected.detach().numpy(), rtol=1e-5,
                               atol=1e-6, equal_nan=True)
