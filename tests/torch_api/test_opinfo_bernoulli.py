"""Random draws against torch where the operator database found them apart: bernoulli's
gradient (zero, the draws still require grad)."""
import numpy as np
import pytest

import gradjit

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("call", [lambda t, p: t.bernoulli(p), lambda t, p: p.bernoulli()])
def test_bernoulli_of_probabilities_that_require_grad(call):
    draws = {}
    for lib in (gradjit, torch):
        lib.manual_seed(0)
        p = lib.tensor(np.linspace(0.05, 0.95, 12), requires_grad=True)
        out = call(lib, p)
        assert out.requires_grad and type(out.grad_fn).__name__ == "BernoulliBackward0"
        (out * 3).sum().backward()
        np.testing.assert_array_equal(p.grad.numpy(), np.zeros(12))
        draws[lib] = out.detach().numpy()
    np.testing.assert_array_equal(draws[gradjit], draws[torch])
