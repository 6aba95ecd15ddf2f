"""torch.nn.utils (clipping, parameter vectors), torch.testing.assert_close, inference_mode,
torch.random, torch.backends and torch.accelerator against PyTorch 2.13."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error


@pytest.mark.parametrize("norm_type", [2.0, 1.0, "inf", 3.5])
def test_gradient_clipping_and_parameter_vectors_match_pytorch(norm_type):
    results = []
    for lib in (torch, gradjit):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.Tanh(), lib.nn.Linear(3, 2))
        (model(lib.randn(5, 4)) ** 2).sum().backward()
        U = lib.nn.utils
        total = U.clip_grad_norm_(model.parameters(), 0.5, norm_type=norm_type)
        U.clip_grad_value_(model.parameters(), 0.05)
        grads = [p.grad.tolist() for p in model.parameters()]
        vector = U.parameters_to_vector(model.parameters())
        U.vector_to_parameters(vector * 2, model.parameters())
        results.append((total.item(), grads, vector.tolist(),
                        [p.tolist() for p in model.parameters()]))
    (t_total, *t_rest), (g_total, *g_rest) = results
    np.testing.assert_allclose(g_total, t_total, rtol=1e-6)
    for got, want in zip(g_rest, t_rest):
        np.testing.assert_allclose(np.concatenate([np.ravel(v) for v in got]),
                                   np.concatenate([np.ravel(v) for v in want]), rtol=1e-5,
                                   atol=1e-8)


ERRORS = {
    "not-close": lambda L: L.testing.assert_close(L.tensor([1.0, 2, 3]), L.tensor([1.0, 2.1, 3])),
    "dtype": lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([1.0]).double()),
    "shape": lambda L: L.testing.assert_close(L.tensor([1.0, 2]), L.tensor([1.0])),
    "integers": lambda L: L.testing.assert_close(L.tensor([1, 2]), L.tensor([1, 3])),
    "scalars": lambda L: L.testing.assert_close(1.0, 1.1),
    "tensor-and-list": lambda L: L.testing.assert_close(L.tensor([1.0]), [1.0]),
    "mapping": lambda L: L.testing.assert_close({"a": L.ones(2)}, {"a": L.ones(2) * 1.5}),
    "sequence": lambda L: L.testing.assert_close([L.ones(2), L.zeros(2)], [L.ones(2)] * 2),
    "nan": lambda L: L.testing.assert_close(L.tensor([float("nan")]), L.tensor([float("nan")])),
    "tolerances": lambda L: L.testing.assert_close(L.ones(1), L.ones(1), rtol=0.1),
    "keys": lambda L: L.testing.assert_close({"a": 1.0}, {"b": 1.0}),
    "lengths": lambda L: L.testing.assert_close([1.0], [1.0, 2.0]),
    "message": lambda L: L.testing.assert_close(L.ones(1), L.zeros(1), msg="differ"),
    "nonfinite-norm": lambda L: _nonfinite(L),
    "vector-type": lambda L: L.nn.utils.vector_to_parameters([1.0], [L.ones(1)]),
}


def _nonfinite(lib):
    p = lib.nn.Parameter(lib.ones(2))
    (p * float("inf")).sum().backward()
    return lib.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_pytorch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


def test_assert_close_passes_where_pytorch_does():
    for lib in (torch, gradjit):
        lib.testing.assert_close(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.000001]))
        lib.testing.assert_close(lib.tensor([float("nan")]), lib.tensor([float("nan")]),
                                 equal_nan=True)
        lib.testing.assert_close(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.5]), rtol=0.3,
                                 atol=0)
        lib.testing.assert_close(np.ones(2), np.ones(2) + 1e-9)
        lib.testing.assert_close({"w": [lib.ones(1)]}, {"w": [lib.ones(1)]})


def test_a_missing_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="module 'gradjit' has no attribute 'no_such'"):
        gradjit.no_such  # noqa: B018


def test_inference_mode_random_backends_and_accelerator():
    x = gradjit.ones(2, requires_grad=True)
    with gradjit.inference_mode():
        assert not (x * 2).requires_grad and gradjit.is_inference_mode_enabled()
    with gradjit.inference_mode(False):
        assert (x * 2).requires_grad and not gradjit.is_inference_mode_enabled()

    @gradjit.inference_mode()
    def predict(x):
        return x * 2
    assert not predict(x).requires_grad and (x * 2).requires_grad
    for lib in (torch, gradjit):
        lib.random.manual_seed(4)
        with lib.random.fork_rng():
            inside = lib.rand(3).tolist()
        assert lib.rand(3).tolist() == inside  # the block's draws did not advance the stream
    gradjit.manual_seed(4)
    torch.manual_seed(4)
    assert gradjit.random.get_rng_state().tolist() == torch.random.get_rng_state().tolist()
    device = "cuda" if gradjit.cuda.is_available() else \
        "mps" if gradjit.backends.mps.is_available() else "cpu"
    assert device == "cpu" and not gradjit.accelerator.is_available()
    gradjit.backends.cudnn.deterministic = True
    assert gradjit.backends.cudnn.deterministic and not gradjit.backends.cudnn.benchmark
