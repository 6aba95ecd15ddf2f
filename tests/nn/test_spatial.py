"""Adaptive pooling, channel dropout, normalize and Unflatten against torch.nn: values,
gradients, grad_fn names, the seeded masks, reprs and errors."""
import numpy as np
import pytest

import gradjit
from tests.nn.helpers import same_error, torch

X = np.random.default_rng(0).standard_normal((2, 3, 7, 5))

CASES = {
    "avg2d": lambda L, F, t: F.adaptive_avg_pool2d(t, (3, 2)),
    "avg2d-one": lambda L, F, t: F.adaptive_avg_pool2d(t, 1),
    "avg2d-none": lambda L, F, t: F.adaptive_avg_pool2d(t, (None, 2)),
    "avg2d-larger": lambda L, F, t: F.adaptive_avg_pool2d(t[0], (9, 6)),
    "max2d": lambda L, F, t: F.adaptive_max_pool2d(t, (4, 3)),
    "avg1d": lambda L, F, t: F.adaptive_avg_pool1d(t[0], 3),
    "max1d": lambda L, F, t: F.adaptive_max_pool1d(t[:, 0], 2),
    "normalize": lambda L, F, t: F.normalize(t, dim=2),
    "normalize-p1": lambda L, F, t: F.normalize(t, p=1.0, dim=-1),
    "dropout2d": lambda L, F, t: F.dropout2d(t, 0.4),
    "dropout1d": lambda L, F, t: F.dropout1d(t[0], 0.3),
    "dropout3d": lambda L, F, t: F.dropout3d(t, 0.5),
    "dropout2d-3d": lambda L, F, t: F.dropout2d(t[0], 0.4),  # read as (N, C, L), as PyTorch's
    "modules": lambda L, F, t: L.nn.Sequential(
        L.nn.AdaptiveAvgPool2d((2, 2)), L.nn.Dropout2d(0.25), L.nn.Flatten(),
        L.nn.Unflatten(1, (3, 4)), L.nn.AdaptiveMaxPool1d(2))(t),
}


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_nodes_match_torch(name):
    results = []
    for lib in (torch, gradjit):
        lib.manual_seed(0)
        t = lib.tensor(X, requires_grad=True)
        out = CASES[name](lib, lib.nn.functional, t)
        (out * out).sum().backward()
        results.append((out.detach().numpy(), t.grad.numpy(), type(out.grad_fn).__name__))
    (want, want_grad, want_node), (got, got_grad, got_node) = results
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-12, atol=1e-12)
    assert got_node == want_node


def test_reprs_and_eval_mode_match_torch():
    for make in (lambda L: L.nn.AdaptiveAvgPool2d((5, 7)), lambda L: L.nn.AdaptiveMaxPool2d(2),
                 lambda L: L.nn.Dropout3d(0.2), lambda L: L.nn.Unflatten(1, (3, 1))):
        assert repr(make(gradjit)) == repr(make(torch))
    x = gradjit.tensor(X)
    assert gradjit.nn.Dropout2d(0.9).eval()(x) is x


ERRORS = {
    "avg2d-rank": lambda L: L.nn.functional.adaptive_avg_pool2d(L.ones(7, 5), 2),
    "avg1d-rank": lambda L: L.nn.functional.adaptive_avg_pool1d(L.ones(7), 2),
    "dropout-p": lambda L: L.nn.Dropout2d(1.5),
    "dropout-functional-p": lambda L: L.nn.functional.dropout2d(L.ones(1, 2, 2, 2), -0.5),
    "dropout1d-rank": lambda L: L.nn.functional.dropout1d(L.ones(1, 2, 2, 2)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


def test_feature_dropout_warns_on_ranks_as_torch():
    for call in (lambda F, L: F.dropout2d(L.ones(2, 3, 4)), lambda F, L: F.dropout3d(L.ones(3, 4))):
        messages = []
        for lib in (gradjit, torch):
            with pytest.warns(UserWarning) as record:
                call(lib.nn.functional, lib)
            messages.append([str(w.message) for w in record])
        assert messages[0] == messages[1]


def test_output_size_of_the_wrong_length_is_refused():
    same_error(lambda: gradjit.nn.functional.adaptive_avg_pool2d(gradjit.tensor(X), (1, 2, 3)),
               lambda: torch.nn.functional.adaptive_avg_pool2d(torch.tensor(X), (1, 2, 3)))
