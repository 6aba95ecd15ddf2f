"""torch.utils.hooks.RemovableHandle as PyTorch's suites use it (test_utils.py,
test_module_hooks.py) side by side with torch: the handles of tensor, module and backward
hooks are RemovableHandles, and a registry of one's own built on it removes a hook from its
table and from the tables of its options, once, also on leaving a `with` block."""
import importlib
from collections import OrderedDict

import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()


def hooks(lib):
    return importlib.import_module(lib.__name__ + ".utils.hooks")


@scenario
def registering_returns_removable_handles(lib):
    m, x = lib.nn.Linear(1, 1), lib.ones(1, requires_grad=True)
    handles = [m.register_forward_hook(lambda *a: None), x.register_hook(lambda g: g),
               m.register_forward_pre_hook(lambda *a: None),
               m.register_full_backward_hook(lambda *a: None)]
    return ([isinstance(h, hooks(lib).RemovableHandle) for h in handles],
            [type(h).__name__ for h in handles], len({h.id for h in handles}))


@scenario
def a_registry_of_ones_own(lib):
    table, options = OrderedDict(), OrderedDict()
    handle = hooks(lib).RemovableHandle(table, extra_dict=options)
    table[handle.id], options[handle.id] = "hook", True
    with handle:
        inside = (len(table), len(options))
    return inside, dict(table), dict(options)


@scenario
def several_option_tables_removed_once(lib):
    table, first, second = OrderedDict(), OrderedDict(), OrderedDict()
    handle = hooks(lib).RemovableHandle(table, extra_dict=[first, second])
    table[handle.id] = first[handle.id] = second[handle.id] = 1
    handle.remove()
    handle.remove()
    return dict(table), dict(first), dict(second)


@pytest.mark.parametrize("name", cases(SCENARIOS, {}))
def test_hooks_scenario_matches_torch(name):
    check(SCENARIOS[name])
