"""state_dict and load_state_dict as PyTorch's own nn tests exercise them
(test_load_state_dict.py, test_module_hooks.py): hooks, metadata, extra state, strict and
assign loading and their errors, each scenario run in gradjit and torch and compared."""
import warnings

import pytest

from tests.nn.helpers import same_outcome


def net(t):
    t.manual_seed(0)
    return t.nn.Sequential(t.nn.Linear(3, 2), t.nn.BatchNorm1d(2),
                           t.nn.Sequential(t.nn.Linear(2, 1)))


def keys(state):
    return list(state)


def state_dict_hooks_in_order(t):
    module, calls = net(t), []
    module.register_state_dict_pre_hook(lambda m, prefix, keep_vars:
                                        calls.append(("pre", prefix, keep_vars)))
    module[0].register_state_dict_post_hook(lambda m, state, prefix, meta:
                                            calls.append(("post", keys(state), prefix, meta)))
    module._register_state_dict_hook(lambda m, state, prefix, meta:
                                     calls.append(("old", len(state))))
    module.state_dict(prefix="top.", keep_vars=True)
    return calls


def old_state_dict_hook_replaces_the_result(t):
    module = net(t)
    module._register_state_dict_hook(lambda m, state, prefix, meta: {"only": t.ones(1)})
    return module.state_dict()


def public_post_hook_must_return_none(t):
    module = net(t)
    module.register_state_dict_post_hook(lambda m, state, prefix, meta: {})
    return module.state_dict()


def same_function_as_both_post_hooks(t):
    def hook(m, state, prefix, meta):
        return None
    module = net(t)
    module.register_state_dict_post_hook(hook)
    return module._register_state_dict_hook(hook)


def metadata_records_versions(t):
    return net(t).state_dict()._metadata


def positional_arguments_warn(t):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        state = net(t)[0].state_dict({}, "p.")
    return keys(state), [(w.category.__name__, str(w.message)) for w in caught]


def destination_is_filled_and_returned(t):
    destination = {}
    state = net(t).state_dict(destination=destination, prefix="m.")
    return state is destination, keys(destination)


def load_hooks_in_order(t):
    module, calls = net(t), []
    module.register_load_state_dict_pre_hook(
        lambda m, state, prefix, meta, strict, missing, unexpected, errors:
        calls.append(("pre", type(m).__name__, prefix, meta, strict)))
    module[2]._register_load_state_dict_pre_hook(
        lambda state, prefix, meta, strict, missing, unexpected, errors:
        calls.append(("old", prefix, keys(state))))
    module[1].register_load_state_dict_post_hook(
        lambda m, incompatible: calls.append(("post", type(m).__name__, repr(incompatible))))
    module.load_state_dict(net(t).state_dict())
    return calls


def post_hook_adds_a_missing_key(t):
    module = net(t)
    module.register_load_state_dict_post_hook(
        lambda m, incompatible: incompatible.missing_keys.append("made.up"))
    return module.load_state_dict(net(t).state_dict())


def post_hook_returning_a_value(t):
    module = net(t)
    module.register_load_state_dict_post_hook(lambda m, incompatible: incompatible)
    return module.load_state_dict(net(t).state_dict())


def pre_hook_renames_keys(t):
    module = net(t)

    def rename(m, state, prefix, *rest):
        for key in [k for k in state if k.startswith("old.")]:
            state["0." + key[4:]] = state.pop(key)
    module.register_load_state_dict_pre_hook(rename)
    state = {("old." + k[2:] if k.startswith("0.") else k): v * 0 + 2
             for k, v in net(t).state_dict().items()}
    return module.load_state_dict(state), module[0].weight


def load_a_list(t):
    return net(t).load_state_dict([("0.weight", t.zeros(2, 3))])


def load_a_non_tensor(t):
    state = net(t).state_dict()
    state["0.bias"] = [1.0, 2.0]
    return net(t).load_state_dict(state)


def load_wrong_shapes_and_keys(t):
    state = net(t).state_dict()
    state["0.weight"] = t.zeros(3, 3)
    state["2.0.extra"] = t.zeros(1)
    state["9.weight"] = t.zeros(1)
    del state["1.running_var"]
    return net(t).load_state_dict(state)


def load_not_strict_reports_keys(t):
    state = net(t).state_dict()
    state["2.0.extra"] = t.zeros(1)
    del state["1.running_var"]
    module = net(t)
    result = module.load_state_dict(state, strict=False)
    return result, result.missing_keys, result.unexpected_keys, repr(result)


def load_zero_dim_from_one_element(t):
    module = t.nn.Module()
    module.register_buffer("step", t.tensor(0.0))
    module.load_state_dict({"step": t.tensor([4.0])})
    return module.step


def load_with_assign(t):
    module = net(t)
    state = {k: v + 1 for k, v in net(t).state_dict().items()}
    state["0.weight"] = t.nn.Parameter(state["0.weight"], requires_grad=False)
    module.load_state_dict(state, assign=True)
    weight = module[0].weight
    return (type(weight).__name__, weight.requires_grad, weight is state["0.weight"],
            type(module[0].bias).__name__, module[1].running_mean is state["1.running_mean"],
            module[0].bias)


def load_copies_in_place(t):
    module = net(t)
    weight = module[0].weight
    state = {k: v + 1 for k, v in net(t).state_dict().items()}
    module.load_state_dict(state)
    return module[0].weight is weight, weight, weight.requires_grad


class WithExtra:
    """A module class with extra state in the state dict."""

    @staticmethod
    def build(t):
        class Counter(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.linear, self.count = t.nn.Linear(1, 1), 3

            def get_extra_state(self):
                return {"count": self.count}

            def set_extra_state(self, state):
                self.count = state["count"]
        return Counter()


def extra_state_round_trip(t):
    source, target = WithExtra.build(t), WithExtra.build(t)
    source.count = 7
    state = source.state_dict()
    target.load_state_dict(state)
    return keys(state), state["_extra_state"], target.count


def extra_state_missing_when_strict(t):
    state = WithExtra.build(t).state_dict()
    del state["_extra_state"]
    return WithExtra.build(t).load_state_dict(state)


def extra_state_unexpected_without_setter(t):
    module = t.nn.Linear(1, 1)
    state = dict(module.state_dict(), _extra_state=1)
    return module.load_state_dict(state)


def base_get_extra_state(t):
    return t.nn.Module().get_extra_state()


def base_set_extra_state(t):
    return t.nn.Module().set_extra_state({})


def non_persistent_and_tied(t):
    module = net(t)
    module.register_buffer("scratch", t.ones(1), persistent=False)
    module[2][0].weight = t.nn.Parameter(t.ones(1, 2))
    module.shared = module[0]
    return keys(module.state_dict()), [n for n, _ in module.named_buffers()]


SCENARIOS = [state_dict_hooks_in_order, old_state_dict_hook_replaces_the_result,
             public_post_hook_must_return_none, same_function_as_both_post_hooks,
             metadata_records_versions, positional_arguments_warn,
             destination_is_filled_and_returned, load_hooks_in_order,
             post_hook_adds_a_missing_key, post_hook_returning_a_value, pre_hook_renames_keys,
             load_a_list, load_a_non_tensor, load_wrong_shapes_and_keys,
             load_not_strict_reports_keys, load_zero_dim_from_one_element, load_with_assign,
             load_copies_in_place, extra_state_round_trip, extra_state_missing_when_strict,
             extra_state_unexpected_without_setter, base_get_extra_state, base_set_extra_state,
             non_persistent_and_tied]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
def test_state_dicts_match_torch(scenario):
    same_outcome(scenario)


def test_old_batch_norm_checkpoints_keep_the_batch_count():
    """A checkpoint saved before version 2 has no num_batches_tracked: loading it keeps the
    module's own count, where a version-2 checkpoint without it is missing a key."""
    def scenario(t, version):
        module = net(t)
        module[1].num_batches_tracked.fill_(5)
        state = net(t).state_dict()
        del state["1.num_batches_tracked"]
        state._metadata["1"]["version"] = version
        return module.load_state_dict(state), module[1].num_batches_tracked
    same_outcome(lambda t: scenario(t, 1))
    same_outcome(lambda t: scenario(t, 2))
