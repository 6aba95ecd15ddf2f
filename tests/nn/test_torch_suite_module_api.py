"""The rest of the Module API as PyTorch's own nn tests exercise it (test_nn.py): looking up
and replacing members, traversal with prefixes and duplicates, dtype moves, modes, copies and
printing, each scenario run in gradjit and torch and compared."""

import copy
import io
import pickle

import pytest

from tests.nn.helpers import same_outcome


def net(t):
    t.manual_seed(0)
    return t.nn.Sequential(
        t.nn.Linear(3, 2), t.nn.BatchNorm1d(2), t.nn.Sequential(t.nn.Linear(2, 1), t.nn.ReLU())
    )


def names(pairs):
    return [name for name, _ in pairs]


LOOKUPS = {
    "get_buffer": lambda t: net(t).get_buffer("1.running_mean"),
    "get_buffer_of_a_parameter": lambda t: net(t).get_buffer("1.weight"),
    "get_buffer_missing": lambda t: net(t).get_buffer("1.nothing"),
    "get_parameter": lambda t: net(t).get_parameter("2.0.bias"),
    "get_parameter_of_a_buffer": lambda t: net(t).get_parameter("1.running_var"),
    "get_parameter_missing": lambda t: net(t).get_parameter("0.nothing"),
    "get_submodule_missing": lambda t: net(t).get_submodule("2.5"),
    "get_submodule_of_a_parameter": lambda t: net(t).get_submodule("0.weight.x"),
    "get_submodule_empty": lambda t: type(net(t).get_submodule("")).__name__,
    "set_submodule": lambda t: repr(
        (lambda m: (m.set_submodule("2.1", t.nn.Tanh()), m)[1])(net(t))
    ),
    "set_submodule_new_name": lambda t: repr(
        (lambda m: (m.set_submodule("2.act", t.nn.Tanh()), m)[1])(net(t))
    ),
    "set_submodule_strict_missing": lambda t: net(t).set_submodule(
        "2.act", t.nn.Tanh(), strict=True
    ),
    "set_submodule_no_target": lambda t: net(t).set_submodule("", t.nn.Tanh()),
    "set_submodule_not_a_module": lambda t: net(t).set_submodule("0", 3),
    "set_submodule_over_a_parameter": lambda t: net(t).set_submodule("0.weight", t.nn.Tanh()),
}


def shared(t):
    t.manual_seed(0)
    linear = t.nn.Linear(2, 2)
    holder = t.nn.Sequential(linear, t.nn.ReLU(), linear)
    holder.register_buffer("mask", t.ones(2))
    return holder


TRAVERSALS = {
    "named_modules_with_duplicates": lambda t: names(
        shared(t).named_modules(remove_duplicate=False)
    ),
    "named_modules_prefix": lambda t: names(net(t).named_modules(prefix="top")),
    "named_parameters_with_duplicates": lambda t: names(
        shared(t).named_parameters(remove_duplicate=False)
    ),
    "named_parameters_prefix_not_recursive": lambda t: names(
        net(t)[0].named_parameters(prefix="p", recurse=False)
    ),
    "named_buffers_prefix": lambda t: names(net(t).named_buffers(prefix="b")),
    "named_buffers_not_recursive": lambda t: names(shared(t).named_buffers(recurse=False)),
    "children_once_each": lambda t: [type(m).__name__ for m in shared(t).children()],
    "named_children": lambda t: names(shared(t).named_children()),
    "apply_order": lambda t: (
        lambda seen: (net(t).apply(lambda m: seen.append(type(m).__name__)), seen)[1]
    )([]),
    "state_dict_of_shared": lambda t: list(shared(t).state_dict()),
}


def dtypes(module):
    return [str(v.dtype) for v in list(module.parameters()) + list(module.buffers())]


def with_grads(t):
    module = net(t)
    module(t.ones(4, 3)).sum().backward()
    return module


MOVES = {
    "half": lambda t: dtypes(net(t).half()),
    "bfloat16": lambda t: dtypes(net(t).bfloat16()),
    "double_then_float": lambda t: dtypes(net(t).double().float()),
    "type_casts_every_tensor": lambda t: dtypes(net(t).type(t.float64)),
    "to_dtype_keeps_integers": lambda t: dtypes(net(t).to(t.float64)),
    "to_integer_dtype": lambda t: net(t).to(t.int32),
    "to_dtype_keyword": lambda t: net(t).to(dtype=t.int64),
    "to_tensor_dtype": lambda t: dtypes(net(t).to(t.zeros(1, dtype=t.float64))),
    "to_empty_keeps_shapes": lambda t: [
        tuple(p.shape) for p in net(t).to_empty(device="cpu").parameters()
    ],
    "share_memory": lambda t: type(net(t).share_memory()).__name__,
    "gradients_follow_double": lambda t: [
        str(p.grad.dtype) for p in with_grads(t).double().parameters()
    ],
}


def zero_grad(t, set_to_none):
    module = with_grads(t)
    module.zero_grad(set_to_none=set_to_none)
    return [p.grad for p in module.parameters()]


MODES = {
    "zero_grad_to_zeros": lambda t: zero_grad(t, False),
    "zero_grad_to_none": lambda t: zero_grad(t, True),
    "requires_grad_off": lambda t: [
        p.requires_grad for p in net(t).requires_grad_(False).parameters()
    ],
    "train_not_bool": lambda t: net(t).train(1),
    "eval_everywhere": lambda t: [m.training for m in net(t).eval().modules()],
    "train_after_eval": lambda t: [m.training for m in net(t).eval().train().modules()],
}


def deepcopied(t):
    module = net(t)
    module.register_forward_hook(lambda m, args, out: out * 2)
    clone = copy.deepcopy(module)
    clone[0].weight.data.fill_(1.0)
    return (
        len(clone._forward_hooks),
        clone(t.ones(4, 3)),
        module[0].weight,
        clone[0].weight is module[0].weight,
    )


def pickled(t):
    module = net(t)
    module[1].running_mean.fill_(0.5)
    buffer = io.BytesIO()
    pickle.dump(module, buffer)
    buffer.seek(0)
    clone = pickle.load(buffer)
    return repr(clone), clone.state_dict(), [type(p).__name__ for p in clone.parameters()]


def custom_repr(t):
    class Custom(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = t.nn.Linear(1, 1)

        def extra_repr(self):
            return "first=1\nsecond=2"

    return repr(Custom()), repr(t.nn.Sequential(Custom(), t.nn.ModuleList([Custom()])))


COPIES = {
    "deepcopy": deepcopied,
    "pickle": pickled,
    "custom_repr": custom_repr,
    "buffer_parameter": lambda t: (
        type(
            (lambda m: (m.register_buffer("b", t.nn.Parameter(t.ones(1))), m.b)[1])(t.nn.Module())
        ).__name__
    ),
}


def lazy(t):
    t.manual_seed(0)
    return t.nn.LazyLinear(4)


LAZY = {  # lazy modules (test_lazy_modules.py): before and after their first call
    "lazy_sd": lambda t: [(k, type(v).__name__) for k, v in lazy(t).state_dict().items()],
    "lazy_load": lambda t: (
        lambda m: (
            m.load_state_dict(t.nn.Linear(3, 4).state_dict()),
            type(m).__name__,
            m.weight.shape,
            m.has_uninitialized_params(),
        )
    )(lazy(t)),
    "lazy_load_into_init": lambda t: (
        lambda m: (m(t.ones(1, 3)), m.load_state_dict(lazy(t).state_dict()))
    )(lazy(t)),
    "lazy_load_shape": lambda t: (
        lambda m: (m(t.ones(1, 3)), m.load_state_dict(t.nn.Linear(5, 4).state_dict()))
    )(lazy(t)),
    "lazy_fwd": lambda t: (lambda m: (m(t.ones(2, 3)), type(m).__name__, repr(m)))(lazy(t)),
    "lazy_repr": lambda t: repr(lazy(t)),
    "lazy_param_repr": lambda t: repr(lazy(t).weight),
    "lazy_deepcopy": lambda t: repr(copy.deepcopy(lazy(t))),
    "lazy_params": lambda t: [type(p).__name__ for p in lazy(t).parameters()],
    "lazy_to": lambda t: lazy(t).double().weight.dtype,
    "lazy_conv": lambda t: (lambda m: (m(t.ones(1, 3, 5, 5)).shape, repr(m)))(
        (t.manual_seed(0), t.nn.LazyConv2d(4, 3))[1]
    ),
    "lazy_bn": lambda t: (lambda m: (m(t.ones(2, 3)), repr(m), list(m.state_dict())))(
        t.nn.LazyBatchNorm1d()
    ),
    "lazy_bn_sd": lambda t: [
        (k, type(v).__name__) for k, v in t.nn.LazyBatchNorm1d().state_dict().items()
    ],
    "lazy_uninit_shape": lambda t: lazy(t).weight.shape,
    "lazy_pickle": lambda t: len(pickle.dumps(lazy(t))) > 0,
    "lazy_in_seq": lambda t: (lambda s: (s(t.ones(2, 3)).shape, repr(s)))(
        t.nn.Sequential(lazy(t), t.nn.ReLU(), t.nn.LazyLinear(2))
    ),
    "lazy_optimizer": lambda t: t.optim.SGD(lazy(t).parameters(), lr=0.1),
    "lazy_initialize_twice": lambda t: (lambda m: (m(t.ones(1, 3)), m(t.ones(1, 5))))(lazy(t)),
}

SCENARIOS = {**LOOKUPS, **TRAVERSALS, **MOVES, **MODES, **COPIES, **LAZY}


@pytest.mark.parametrize("name", SCENARIOS)
def test_module_api_matches_torch(name):
    same_outcome(SCENARIOS[name])
