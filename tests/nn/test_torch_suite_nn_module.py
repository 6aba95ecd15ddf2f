"""Module's registry as PyTorch's own nn tests exercise it (test_nn.py: add_module,
register_buffer and register_parameter checks, non-persistent buffers, assignment order,
train modes, `to` arguments, extra state): each scenario run in gradjit and torch, compared."""

import copy

import pytest

from tests.nn.helpers import same_outcome


def module_with(t, name, kind):
    """A Module holding `name` as a plain attribute, a buffer, a parameter or a submodule."""
    m = t.nn.Module()
    if kind == "attribute":
        m.attribute_name = 5
    elif kind == "buffer":
        m.register_buffer(name, t.ones(2))
    elif kind == "Buffer":
        setattr(m, name, t.nn.Buffer(t.ones(2)))
    elif kind == "parameter":
        m.register_parameter(name, t.nn.Parameter(t.ones(2)))
    else:
        m.add_module(name, t.nn.Module())
    return m


KINDS = ("attribute", "buffer", "Buffer", "parameter", "module")
REGISTER = {
    "register_buffer": lambda t, m: m.register_buffer("attribute_name", t.ones(2)),
    "Buffer": lambda t, m: setattr(m, "attribute_name", t.nn.Buffer(t.ones(2))),
    "register_parameter": lambda t, m: m.register_parameter(
        "attribute_name", t.nn.Parameter(t.ones(2))
    ),
    "add_module": lambda t, m: m.add_module("attribute_name", t.nn.Module()),
    "register_module": lambda t, m: m.register_module("attribute_name", t.nn.Module()),
}
CLASHES = {
    f"{how}_over_{kind}": (
        lambda t, how=how, kind=kind: REGISTER[how](t, module_with(t, "attribute_name", kind))
    )
    for how in REGISTER
    for kind in KINDS
}


def tables(m):
    return [list(m._parameters), list(m._buffers), list(m._modules), list(m.state_dict())]


def non_persistent(t):
    m = t.nn.Module()
    m.buf = t.nn.Buffer(t.ones(5), persistent=False)
    seen = [tables(m)]
    m.buf = t.nn.Buffer(t.ones(5))
    seen.append(tables(m))
    m.buf = t.nn.Buffer(t.ones(5), persistent=False)
    seen.append(tables(m))
    m.buf = None
    seen.append(tables(m))
    m.buf = t.ones(5)
    seen.append(tables(m))
    m.buf = t.nn.Parameter(t.ones(5))
    seen.append(tables(m))
    del m.buf
    m.register_buffer("other", t.ones(1), persistent=False)
    m.load_state_dict({})
    return seen + [tables(m)]


def assignment_order(t, make):
    m = t.nn.Module()
    a, b, c = make(t)
    m.a = None
    seen = ["a" in m.__dict__]
    m.a = a
    seen.append("a" in m.__dict__)
    m.b = b
    m.a = None
    seen.append(tables(m))
    m.a = a
    seen.append(tables(m))
    m.a = c
    del m.a
    seen.append(hasattr(m, "a"))
    m.a = a
    return seen + [tables(m)]


def three_parameters(t):
    return [t.nn.Parameter(t.ones(n)) for n in (2, 3, 4)]


def three_linears(t):
    return [t.nn.Linear(n, n) for n in (4, 5, 6)]


def parameter_assignment(t):
    m = t.nn.Linear(5, 5)
    m.param_name = t.nn.Parameter(t.ones(5, 5))
    m.var_name = t.ones(5, 5)
    seen = [tables(m)]
    try:
        m.param_name = t.ones(5, 5)
    except TypeError as error:
        seen.append(str(error))
    m.param_name = None
    return seen + [tables(m), [n for n, _ in m.named_parameters()]]


class Extra:
    """get_extra_state/set_extra_state holding a Python value."""

    def __init__(self, value):
        self.value = value

    def get_extra_state(self):
        return {"value": self.value}

    def set_extra_state(self, state):
        self.value = state["value"]


def extra_state(t):
    Holder = type(
        "Holder",
        (Extra, t.nn.Module),
        {"__init__": lambda self, v: (t.nn.Module.__init__(self), setattr(self, "value", v))[0]},
    )
    source, target = Holder(3), Holder("other")
    target.load_state_dict(source.state_dict())
    return list(source.state_dict().items()), target.value


def extra_state_half(t, method):
    Half = type("Half", (t.nn.Module,), {method: lambda self, *a: {"foo": 5}})
    m = Half()
    return m.load_state_dict(m.state_dict())


def buffer_names_and_types(t):
    m = t.nn.Module()
    outcomes = []
    for name in (1, None):
        for call in (
            lambda: m.register_buffer(name, t.ones(5)),
            lambda: m.register_parameter(name, t.nn.Parameter(t.ones(1))),
            lambda: m.add_module(name, t.nn.Linear(1, 1)),
        ):
            try:
                call()
            except TypeError as error:
                outcomes.append(str(error))
    return outcomes


def train_mode(t, mode, subclass):
    class Net(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = t.nn.Linear(2, 2)

    net = Net() if subclass else t.nn.Sequential(t.nn.Linear(2, 2))
    return net.train(mode)


TO_ARGUMENTS = {  # test_module_to_argparse: every call torch's `to` refuses
    "device_and_bool": lambda t: (t.device("cpu"), True),
    "integer_dtype": lambda t: (t.long,),
    "none_and_bool": lambda t: (None, True),
    "device_dtype_bool": lambda t: (t.device("cpu"), t.long, True),
    "list": lambda t: ([],),
    "integer_tensor": lambda t: (t.tensor(3, dtype=t.long),),
    "five_positional": lambda t: ("cpu", None, True, False, None),
    "tensor_and_device": lambda t: (t.ones(1), "cpu"),
}


def dtypes(module):
    return [str(v.dtype) for v in (*module.parameters(), *module.buffers())]


def module_type(t):
    net = t.nn.Module()
    net.l = t.nn.Linear(2, 3)
    net.l2 = net.l
    net.add_module("empty", None)
    net.indices = t.nn.Buffer(t.zeros(1, dtype=t.long))
    seen = [dtypes(net.double()), dtypes(net.to(t.half)), dtypes(net.to(t.device("cpu")))]
    seen += [dtypes(net.to(t.float)), dtypes(net.to(t.zeros(1, dtype=t.float64)))]
    return seen + [net.to("cpu") is net, dtypes(net.to("cpu", dtype=t.float32))]


def children_and_modules(t):
    t.manual_seed(0)
    lin = t.nn.Linear(1, 1)

    class Net(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1, self.l2 = lin, lin
            self.param = t.empty(3, 5)
            self.block = t.nn.Sequential(t.nn.Linear(1, 1), t.nn.Linear(1, 1))

    n = Net()
    s = t.nn.Sequential(n, n)
    return (
        [name for name, _ in s.named_modules()],
        [name for name, _ in s.named_modules(remove_duplicate=False)],
        [type(m).__name__ for m in s.modules()],
        [name for name, _ in n.named_children()],
    )


def add_module_name(t, name):
    s = t.nn.Sequential()
    s.add_module(name, t.nn.Linear(1, 1))


SCENARIOS = {
    **CLASHES,
    "non_persistent_buffers": non_persistent,
    "parameter_assignment_order": lambda t: assignment_order(t, three_parameters),
    "module_assignment_order": lambda t: assignment_order(t, three_linears),
    "parameter_assignment": parameter_assignment,
    "non_leaf_parameter": lambda t: setattr(t.nn.Linear(2, 2), "weight", t.ones(2, 2) + 2),
    "buffer_assigned_none_stays_a_buffer": lambda t: (
        lambda m: (setattr(m, "buf", None), "buf" in m.__dict__, list(m._buffers))[1:]
    )((lambda m: (setattr(m, "buf", t.nn.Buffer(t.ones(1))), m)[1])(t.nn.Module())),
    "buffer_overwritten": lambda t: (
        lambda m: (
            m.register_buffer("b", t.ones(2)),
            m.register_buffer("b", t.zeros(2)),
            m.b,
            m.register_buffer("b", None),
            list(m.state_dict()),
        )[2:]
    )(t.nn.Module()),
    "buffer_not_a_tensor": lambda t: t.nn.Module().register_buffer("b", 5),
    "names_not_strings": buffer_names_and_types,
    "add_module_not_a_module": lambda t: t.nn.Module().add_module("x", "non-module"),
    "add_module_empty_name": lambda t: add_module_name(t, ""),
    "add_module_dotted_name": lambda t: add_module_name(t, "name.with.dot"),
    "add_module_replaces": lambda t: (lambda m: (m.add_module("l", t.nn.Tanh()), repr(m))[1])(
        (lambda m: (setattr(m, "l", t.nn.ReLU()), m)[1])(t.nn.Module())
    ),
    **{
        f"train_{name}_{kind}": (
            lambda t, mode=mode, kind=kind: train_mode(t, mode(t), kind == "subclass")
        )
        for name, mode in (("str", lambda t: "invalid_str"), ("device", lambda t: t.device("cpu")))
        for kind in ("subclass", "sequential")
    },
    **{
        f"to_{name}": (lambda t, args=args: t.nn.Sequential(t.nn.Linear(3, 3)).to(*args(t)))
        for name, args in TO_ARGUMENTS.items()
    },
    "to_copy": lambda t: t.nn.Linear(3, 5).to("cpu", copy=True),
    "to_dtype_non_blocking": lambda t: t.nn.Linear(3, 3).to(
        t.device("cpu"), dtype=t.long, non_blocking=True
    ),
    "module_type": module_type,
    "children_and_modules": children_and_modules,
    "extra_state": extra_state,
    "extra_state_without_set": lambda t: extra_state_half(t, "get_extra_state"),
    "extra_state_without_get": lambda t: extra_state_half(t, "set_extra_state"),
    "deepcopy_is_independent": lambda t: (
        lambda m: (lambda c: (c.weight.data.fill_(2.0), bool((m.weight == c.weight).all()))[1])(
            copy.deepcopy(m)
        )
    )((t.manual_seed(0), t.nn.Linear(4, 5))[1]),
    "rnn_nonlinearity_by_position": lambda t: t.nn.RNN(2, 3, 1, "relu").nonlinearity,
    "rnn_nonlinearity_default": lambda t: t.nn.RNN(1, 10).nonlinearity,
    "dir_hides_digits": lambda t: [k for k in dir(t.nn.Sequential(t.nn.Linear(2, 2))) if k == "0"],
    "dir_lists_members": lambda t: (lambda m: [k in dir(m) for k in ("_sub", "_param", "_buf")])(
        (
            lambda m: (
                setattr(m, "_sub", t.nn.Linear(2, 2)),
                setattr(m, "_param", t.nn.Parameter(t.ones(2))),
                setattr(m, "_buf", t.nn.Buffer(t.ones(2))),
                m,
            )[-1]
        )(t.nn.Linear(2, 2))
    ),
    "requires_grad_keeps_buffers": lambda t: (
        lambda m: [b.requires_grad for b in m.requires_grad_(True).buffers()]
    )(t.nn.BatchNorm1d(2)),
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_module_registry_matches_torch(name):
    same_outcome(SCENARIOS[name])


@pytest.mark.parametrize("kind", ["buffer", "parameter"])
def test_dotted_names_are_refused_as_torch_words_it(kind):
    def register(t):
        m = t.nn.Module()
        if kind == "buffer":
            m.register_buffer("a.b", t.ones(1))
        else:
            m.register_parameter("a.b", None)

    same_outcome(register)
