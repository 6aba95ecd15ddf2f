"""nn.Module, Parameter and the containers against torch.nn: registration, traversal, state
dicts, modes, hooks, moves, printing and errors."""
import numpy as np
import pytest

import gradjit
from gradjit import nn
from tests.nn.helpers import close, copy_weights, same_error, to_gradjit, torch


def build(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.ReLU(),
                                          lib.nn.Dropout(0.2))
            self.heads = lib.nn.ModuleList([lib.nn.Linear(3, 2) for _ in range(3)] +
                                           [lib.nn.Tanh()])
            self.extra = lib.nn.ModuleDict({"norm": lib.nn.BatchNorm1d(2),
                                            "act": lib.nn.GELU(approximate="tanh")})
            self.scale = lib.nn.Parameter(lib.ones(2))
            self.register_buffer("offset", lib.zeros(2))
            self.register_buffer("scratch", lib.zeros(1), persistent=False)

        def forward(self, x):
            h = self.body(x)
            return self.extra["act"](self.extra["norm"](self.heads[0](h))) * self.scale + \
                self.offset
    return Net()


def test_traversal_and_state_dict_match_torch():
    g, t = build(gradjit), build(torch)
    assert [n for n, _ in g.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in g.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in g.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in g.named_children()] == [n for n, _ in t.named_children()]
    assert list(g.state_dict()) == list(t.state_dict())
    assert [type(m).__name__ for m in g.modules()] == [type(m).__name__ for m in t.modules()]
    assert len(list(g.parameters(recurse=False))) == 1
    assert all(isinstance(p, nn.Parameter) for p in g.parameters())
    assert not any(v.requires_grad for v in g.state_dict().values())
    assert g.state_dict(keep_vars=True)["scale"] is g.scale


def test_printing_matches_torch():
    assert repr(build(gradjit)) == repr(build(torch))
    for name, args in [("Linear", (3, 2, False)), ("Bilinear", (2, 3, 4)), ("Flatten", ()),
                       ("Identity", ()), ("LeakyReLU", (0.2, True)), ("Softmax", (1,)),
                       ("LogSoftmax", ()), ("Embedding", (5, 3, 0)), ("LayerNorm", ((2, 3),)),
                       ("BatchNorm1d", (4,)), ("Conv1d", (2, 4, 3)),
                       ("Conv2d", (2, 4, 3, 2, 1, 2, 2, False)), ("MaxPool2d", (2,)),
                       ("AvgPool2d", (3, 1, 1)), ("CrossEntropyLoss", ()), ("ReLU", (True,)),
                       ("Sigmoid", ()), ("MSELoss", ()), ("HuberLoss", ())]:
        assert repr(getattr(nn, name)(*args)) == repr(getattr(torch.nn, name)(*args)), name
    assert repr(nn.Conv2d(1, 1, 3, padding="same")) == repr(torch.nn.Conv2d(1, 1, 3,
                                                                           padding="same"))
    p = nn.Parameter(gradjit.tensor([1.0, 2.5]))
    assert repr(p) == repr(torch.nn.Parameter(torch.tensor([1.0, 2.5])))
    assert repr(nn.Parameter(gradjit.ones(2), requires_grad=False)) == \
        repr(torch.nn.Parameter(torch.ones(2), requires_grad=False))


def test_parameter_is_a_leaf_sharing_storage_and_ops_give_tensors():
    data = gradjit.zeros(3)
    p = nn.Parameter(data)
    assert p.requires_grad and p.is_leaf and isinstance(p, gradjit.Tensor)
    for result in (p * 2, p.detach(), p.data, p[0]):
        assert type(result) is gradjit.Tensor
    with gradjit.no_grad():
        p.add_(1)
    assert data.tolist() == [1.0, 1.0, 1.0]
    (p * p).sum().backward()
    assert p.grad.tolist() == [2.0, 2.0, 2.0]
    assert nn.Parameter().shape == (0,)


def test_modules_deepcopy_and_state_dicts_pickle():
    import copy
    import pickle
    m = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    clone = copy.deepcopy(m)
    assert isinstance(clone[0].weight, nn.Parameter) and clone[0].weight.requires_grad
    assert clone[0].weight is not m[0].weight
    assert np.array_equal(clone[0].weight.detach().numpy(), m[0].weight.detach().numpy())
    state = pickle.loads(pickle.dumps(m.state_dict()))
    assert list(state) == list(m.state_dict()) and state["1.num_batches_tracked"].item() == 0
    with gradjit.no_grad():
        clone[0].weight.zero_()
    assert m[0].weight.abs().sum().item() > 0


def test_load_state_dict_strict_and_not():
    g, t = build(gradjit), build(torch)
    copy_weights(g, t)
    x = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
    g.eval(), t.eval()
    close(g(gradjit.tensor(x)), t(torch.tensor(x)))
    state = t.state_dict()
    del state["scale"]
    state["foo"] = torch.ones(1)
    state["heads.0.weight"] = torch.ones(3, 3)
    g_state = to_gradjit(state)
    same_error(lambda: g.load_state_dict(g_state), lambda: t.load_state_dict(state))
    del state["heads.0.weight"], g_state["heads.0.weight"]
    assert tuple(g.load_state_dict(g_state, strict=False)) == \
        tuple(t.load_state_dict(state, strict=False))
    assert repr(g.load_state_dict(g.state_dict())) == repr(t.load_state_dict(t.state_dict()))


def test_train_eval_zero_grad_apply_and_moves():
    g = build(gradjit)
    assert g.training and g.body[2].training
    assert g.eval() is g and not any(m.training for m in g.modules())
    g.train()
    assert all(m.training for m in g.modules())
    with pytest.raises(ValueError, match="boolean"):
        g.train("yes")
    out = g(gradjit.randn(5, 4)).sum()
    out.backward()
    assert g.scale.grad is not None
    g.zero_grad(set_to_none=False)
    assert g.scale.grad.tolist() == [0.0, 0.0]
    g.zero_grad()
    assert g.scale.grad is None
    names = []
    g.apply(lambda m: names.append(type(m).__name__))
    assert names[-1] == "Net" and names[0] == "Linear"
    scale = g.scale
    g.double()
    assert g.scale is scale and g.scale.dtype is gradjit.float64 and g.offset.dtype is \
        gradjit.float64
    assert g.extra["norm"].num_batches_tracked.dtype is gradjit.int64
    g.to(gradjit.float32)
    assert g.body[0].weight.dtype is gradjit.float32 and g.body[0].weight.requires_grad
    g.float().cpu()
    g.requires_grad_(False)
    assert not any(p.requires_grad for p in g.parameters())


def test_hooks_change_inputs_and_outputs_and_are_removable():
    for lib in (gradjit, torch):
        m = lib.nn.Linear(2, 2)
        seen = []
        pre = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
        post = m.register_forward_hook(lambda mod, args, out: seen.append(args[0]) or out + 1)
        out = m(lib.ones(1, 2))
        assert seen[0].tolist() == [[0.0, 0.0]]
        assert np.allclose(out.tolist(), (m.bias + 1).tolist())
        pre.remove(), post.remove()
        assert np.allclose(m(lib.zeros(1, 2)).tolist(), m.bias.tolist())


def test_setattr_registers_and_refuses_like_torch():
    g, t = nn.Linear(2, 3), torch.nn.Linear(2, 3)
    same_error(lambda: g.weight.missing, lambda: t.weight.missing)
    same_error(lambda: g.nothing, lambda: t.nothing)
    same_error(lambda: g.register_buffer("weight", None),
               lambda: t.register_buffer("weight", None))
    same_error(lambda: g.register_parameter("x", gradjit.ones(1)),
               lambda: t.register_parameter("x", torch.ones(1)))
    same_error(lambda: g.register_parameter("a.b", None),
               lambda: t.register_parameter("a.b", None))
    same_error(lambda: setattr(g, "weight", gradjit.ones(2)),
               lambda: setattr(t, "weight", torch.ones(2)))
    g.bias = None
    assert [n for n, _ in g.named_parameters()] == ["weight"]
    g.sub = nn.ReLU()
    assert list(dict(g.named_children())) == ["sub"]
    del g.sub
    assert not list(g.children())
    g.register_buffer("b", gradjit.ones(1))
    g.b = gradjit.zeros(1)
    assert g.state_dict()["b"].tolist() == [0.0]
    same_error(lambda: nn.Module()(1), lambda: torch.nn.Module()(1))

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(gradjit.ones(1))
    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def test_containers_index_like_torch():
    layers = [nn.Linear(2, 2), nn.ReLU(), nn.Tanh()]
    seq = nn.Sequential(*layers)
    assert seq[-1] is layers[2] and len(seq) == 3 and list(seq) == layers
    assert repr(seq[1:]) == repr(torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU(),
                                                     torch.nn.Tanh())[1:])
    seq.append(nn.Sigmoid())
    seq[0] = nn.Identity()
    assert [type(m).__name__ for m in seq] == ["Identity", "ReLU", "Tanh", "Sigmoid"]
    del seq[1]
    assert len(seq) == 3
    with pytest.raises(IndexError):
        seq[5]
    ml = nn.ModuleList([nn.ReLU()])
    ml += [nn.Tanh()]
    ml.insert(0, nn.Sigmoid())
    ml.extend([nn.Identity()])
    assert [type(m).__name__ for m in ml] == ["Sigmoid", "ReLU", "Tanh", "Identity"]
    assert [n for n, _ in ml.named_children()] == ["0", "1", "2", "3"]
    del ml[0]
    assert [type(m).__name__ for m in ml[1:]] == ["Tanh", "Identity"]
    md = nn.ModuleDict([("a", nn.ReLU())])
    md["b"] = nn.Tanh()
    md.update({"c": nn.Identity()})
    assert list(md) == ["a", "b", "c"] and "b" in md and len(md) == 3
    assert type(md.pop("a")).__name__ == "ReLU" and list(md.keys()) == ["b", "c"]
    shared = nn.Linear(2, 2)
    twice = nn.Sequential(shared, shared)
    assert len(list(twice.parameters())) == 2 and len(list(twice.children())) == 1
    from collections import OrderedDict
    named = nn.Sequential(OrderedDict([("fc", nn.Linear(1, 1))]))
    assert named.fc is named[0] and twice.get_submodule("0") is shared
    assert named.get_parameter("fc.bias") is named.fc.bias


def test_registration_errors_match_torch():
    g, t = nn.Linear(2, 2), torch.nn.Linear(2, 2)
    for call in (lambda lib, m: m.register_buffer("", None),
                 lambda lib, m: m.register_buffer(3, None),
                 lambda lib, m: m.register_buffer("b", 3),
                 lambda lib, m: m.add_module("m", 3),
                 lambda lib, m: m.get_submodule("x.y"),
                 lambda lib, m: m.get_parameter("x"),
                 lambda lib, m: setattr(lib.nn.Sequential(lib.nn.ReLU()), "0", 3)):
        same_error(lambda: call(gradjit, g), lambda: call(torch, t))
    g.register_buffer("b", gradjit.ones(1))
    t.register_buffer("b", torch.ones(1))
    same_error(lambda: setattr(g, "b", 3), lambda: setattr(t, "b", 3))

    for lib in (gradjit, torch):
        class Early(lib.nn.Module):
            def __init__(self, register):
                register(self)
        for register in (lambda m: setattr(m, "w", lib.nn.Parameter(lib.ones(1))),
                         lambda m: setattr(m, "m", lib.nn.ReLU()),
                         lambda m: m.register_buffer("b", None),
                         lambda m: m.register_parameter("p", None)):
            with pytest.raises(AttributeError, match=r"before Module.__init__\(\) call"):
                Early(register)


def _backward_hook_run(lib):
    lib.manual_seed(0)
    seen = []
    net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
    bilinear = lib.nn.Bilinear(2, 2, 1)

    def record(name):
        def hook(module, grad_input, grad_output):
            seen.append((name, [None if g is None else g.detach().numpy().round(4).tolist()
                                for g in grad_input + grad_output]))
        return hook
    handles = [net[2].register_full_backward_hook(record("last")),
               net.register_full_backward_hook(record("all")),
               net[0].register_full_backward_pre_hook(lambda m, g: (g[0] * 10,)),
               net[2].register_full_backward_hook(record("first"), prepend=True),
               bilinear.register_full_backward_hook(record("bilinear"))]
    x = lib.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
    out = net(x)
    (out * lib.tensor([[1.0, -2.0]])).sum().backward(retain_graph=True)
    bilinear(out, out.detach()).sum().backward()
    handles[2].remove()
    doubled = net[1].register_full_backward_hook(lambda m, gi, go: (gi[0] * 2,))
    net(lib.ones(1, 3)).sum().backward()  # no input needs grad: grad_input is (None,)
    doubled.remove()
    return seen, x.grad.numpy().round(4).tolist(), type(out.grad_fn).__name__


def test_full_backward_hooks_match_torch():
    with pytest.warns(UserWarning, match="since no inputs require gradients"):
        got = _backward_hook_run(gradjit)
    with pytest.warns(UserWarning, match="since no inputs require gradients"):
        assert got == _backward_hook_run(torch)


def test_backward_hooks_refuse_what_they_cannot_replace():
    bilinear = gradjit.nn.Bilinear(2, 2, 1)
    bilinear.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[1]))
    x = gradjit.ones(1, 2, requires_grad=True)
    with pytest.raises(NotImplementedError, match="replace grad_input only of a module with one"):
        bilinear(x, x * 2).sum().backward()
    split = gradjit.nn.Module()
    split.forward = lambda t: (t * 2, t * 3)
    split.register_full_backward_pre_hook(lambda m, g: g)
    with pytest.raises(NotImplementedError, match="several outputs"):
        split(x)
    wrong = gradjit.nn.Linear(2, 2)
    wrong.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="invalid number of grad_input"):
        wrong(x).sum().backward()
