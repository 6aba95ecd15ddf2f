"""PyTorch's stateless suite (test_stateless.py) side by side with torch: functional_call with
one or several dicts of parameters and buffers, partial and strict replacement, buffers that
the call updates, keyword arguments, tied weights, parametrized tensors (by their own name,
through right_inverse, and by their original), gradients, and the module restored after a
call, even one that raises."""
import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

X = np.arange(12.0).reshape(4, 3) / 7 - 0.5
SCENARIOS = scenario = Scenarios()


def model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2))


def inputs(lib):
    return lib.tensor(X, dtype=lib.float32)


@scenario
def replace_every_parameter(lib):
    m = model(lib)
    ones = {name: p.detach() * 0 + 1 for name, p in m.named_parameters()}
    return lib.func.functional_call(m, ones, (inputs(lib),)), m[0].weight, dict(m.named_buffers())


@scenario
def replace_some_parameters(lib):
    m = model(lib)
    return (lib.func.functional_call(m, {"0.weight": lib.ones(2, 3)}, inputs(lib)),
            m[0].weight.sum())


@scenario
def given_buffers_are_updated(lib):
    m = model(lib)
    buffers = {"1.running_mean": lib.zeros(2), "1.running_var": lib.ones(2),
               "1.num_batches_tracked": lib.tensor(0)}
    lib.func.functional_call(m, buffers, (inputs(lib),))
    return buffers, m[1].running_mean, m[1].num_batches_tracked


@scenario
def several_dicts(lib):
    return lib.func.functional_call(model(lib), ({"0.weight": lib.ones(2, 3)},
                                                 {"0.bias": lib.ones(2)}), (inputs(lib),))


@scenario
def several_dicts_repeating_a_key(lib):
    return lib.func.functional_call(model(lib), ({"0.weight": lib.ones(2, 3)},
                                                 {"0.weight": lib.ones(2, 3)}), (inputs(lib),))


@scenario
def strict_with_missing_keys(lib):
    return lib.func.functional_call(model(lib), {"0.weight": lib.ones(2, 3)}, (inputs(lib),),
                                    strict=True)


@scenario
def strict_with_unexpected_keys(lib):
    return lib.func.functional_call(model(lib), {"0.nothing": lib.ones(2, 3)}, (inputs(lib),),
                                    strict=True)


@scenario
def unknown_keys_ignored_unless_strict(lib):
    return lib.func.functional_call(model(lib), {"nothing": lib.ones(2, 3)}, (inputs(lib),))


def scaled_module(lib):
    class Scaled(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.ones(2))

        def forward(self, x, *, scale=1.0):
            self.doubled = self.w * 2  # an attribute the call sets is left on the module
            return self.w * x * scale
    return Scaled()


@scenario
def keyword_arguments(lib):
    m = scaled_module(lib)
    out = lib.func.functional_call(m, {"w": lib.tensor([2.0, 3.0])}, (lib.ones(2),),
                                   {"scale": 5.0})
    return out, m.w, m.doubled


@scenario
def module_restored_after_a_raise(lib):
    m = scaled_module(lib)
    with pytest.raises(TypeError):
        lib.func.functional_call(m, {"w": lib.tensor([5.0, 6.0])}, (lib.zeros(2),),
                                 {"unknown": 1})
    return m.w, type(m.w).__name__


def tied_module(lib):
    class Tied(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Linear(2, 2, bias=False)
            self.b = self.a

        def forward(self, x):
            return self.b(self.a(x))
    lib.manual_seed(0)
    return Tied()


@scenario
def tied_weights(lib):
    m = tied_module(lib)
    return (lib.func.functional_call(m, {"a.weight": lib.eye(2) * 2}, (lib.ones(2),)),
            lib.func.functional_call(m, {"a.weight": lib.eye(2) * 2}, (lib.ones(2),),
                                     tie_weights=False))


@scenario
def tied_weights_given_twice(lib):
    return lib.func.functional_call(tied_module(lib), {"a.weight": lib.eye(2) * 2,
                                                      "b.weight": lib.eye(2)}, (lib.ones(2),))


@scenario
def gradients_reach_the_given_tensors(lib):
    m = model(lib)
    w = lib.ones(2, 3, requires_grad=True)
    lib.func.functional_call(m, {"0.weight": w}, (inputs(lib),)).pow(2).sum().backward()
    return w.grad, m[0].weight.grad


@scenario
def deprecated_spelling(lib):
    return lib.nn.utils.stateless.functional_call(model(lib), {"0.weight": lib.ones(2, 3)},
                                                  (inputs(lib),))


def parametrized(lib, inverse):
    class Symmetric(lib.nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(-1, -2)

    class Scale(lib.nn.Module):
        def forward(self, x):
            return x * 2

        def right_inverse(self, a):
            return a / 2
    lib.manual_seed(0)
    m = lib.nn.Linear(2, 2)
    lib.nn.utils.parametrize.register_parametrization(m, "weight",
                                                      Scale() if inverse else Symmetric())
    return m


W = [[1.0, 2.0], [3.0, 4.0]]


@scenario
def parametrized_by_its_name(lib):
    m = parametrized(lib, inverse=True)
    w = lib.tensor(W, requires_grad=True)
    out = lib.func.functional_call(m, {"weight": w}, (lib.ones(2),))
    out.sum().backward()
    return out, m.weight, w.grad, m.parametrizations.weight.original.grad


@scenario
def parametrized_without_right_inverse(lib):
    return lib.func.functional_call(parametrized(lib, inverse=False), {"weight": lib.tensor(W)},
                                    (lib.ones(2),))


@scenario
def parametrized_by_its_original(lib):
    m = parametrized(lib, inverse=False)
    out = lib.func.functional_call(m, {"parametrizations.weight.original": lib.tensor(W)},
                                   (lib.ones(2),))
    return out, m.weight


@pytest.mark.parametrize("name", cases(SCENARIOS, {}))
def test_stateless_scenario_matches_torch(name):
    check(SCENARIOS[name])
