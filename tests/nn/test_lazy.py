"""Lazy modules against torch: reprs before and after the first call, the class each
becomes, seeded initial values, outputs and gradients, state-dict loading and errors."""
import numpy as np
import pytest

import gradjit
from tests.nn.helpers import same_error, torch


def _network(nn):
    return nn.Sequential(
        nn.LazyConv2d(6, kernel_size=5, padding=2), nn.LazyBatchNorm2d(), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.LazyConvTranspose2d(3, 2, stride=2), nn.LazyInstanceNorm2d(), nn.Flatten(),
        nn.LazyLinear(20), nn.LazyBatchNorm1d(), nn.ReLU(), nn.LazyLinear(10, bias=False))


def _run(lib):
    lib.manual_seed(0)
    net = _network(lib.nn)
    before = repr(net)
    x = lib.rand(6, 1, 12, 12)
    out = net(x)
    out.pow(2).sum().backward()
    conv1d = lib.nn.LazyConv1d(4, 3, groups=2)
    lazy_out = conv1d(lib.ones(2, 6, 5))
    described = (before, repr(net), [type(m).__name__ for m in net], repr(conv1d),
                 [(n, tuple(p.shape)) for n, p in net.named_parameters()],
                 [n for n, _ in net.named_buffers()])
    values = [p.detach().numpy() for p in net.parameters()] + \
        [p.grad.numpy() for p in net.parameters()] + \
        [b.numpy() for b in net.buffers()] + [out.detach().numpy(), lazy_out.detach().numpy()]
    return described, values


def test_lazy_network_matches_torch():
    (got, got_values), (want, want_values) = _run(gradjit), _run(torch)
    assert got == want
    for g, w in zip(got_values, want_values, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-3)  # float32 through three norms


def test_uninitialized_parameters_as_torch():
    layer = gradjit.nn.LazyLinear(3)
    assert repr(layer.weight) == "<UninitializedParameter>"
    assert layer.has_uninitialized_params() and len(list(layer.parameters())) == 2
    same_error(lambda: layer.weight.shape, lambda: torch.nn.LazyLinear(3).weight.shape)
    optimizer = gradjit.optim.SGD(layer.parameters(), lr=0.1)  # before the shapes exist
    layer(gradjit.ones(4, 5)).sum().backward()
    optimizer.step()
    assert type(layer) is gradjit.nn.Linear and layer.weight.shape == (3, 5)
    assert optimizer.param_groups[0]["params"][0] is layer.weight


def test_a_lazy_module_takes_its_shapes_from_a_state_dict():
    source = gradjit.nn.Linear(5, 3)
    lazy = gradjit.nn.LazyLinear(3)
    lazy.load_state_dict(source.state_dict())
    np.testing.assert_array_equal(lazy.weight.detach().numpy(),
                                  source.weight.detach().numpy())
    x = gradjit.ones(2, 5)
    np.testing.assert_array_equal(lazy(x).detach().numpy(), source(x).detach().numpy())


ERRORS = {
    "conv-rank": lambda L: L.nn.LazyConv2d(4, 3)(L.ones(2, 3)),
    "conv-groups": lambda L: L.nn.LazyConv2d(4, 3, groups=2)(L.ones(1, 3, 5, 5)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


def test_a_lazy_module_must_initialize_its_parameters():
    class Unfinished(gradjit.nn.LazyModuleMixin, gradjit.nn.Module):
        def __init__(self, defines):
            super().__init__()
            self.weight = gradjit.nn.UninitializedParameter()
            if defines:
                self.initialize_parameters = lambda x: None
            self._register_initializer()

        def forward(self, x):
            return x
    with pytest.raises(NotImplementedError, match="initialize_parameters is not implemented"):
        Unfinished(False)(gradjit.ones(2))
    with pytest.raises(RuntimeError, match="module Unfinished has not been fully initialized"):
        Unfinished(True)(gradjit.ones(2))
