"""torch.fx against PyTorch 2.13: the same programs traced by both, compared by their printed
graphs, generated code, node lists and outputs; graph editing, Interpreter, Transformer,
ShapeProp, wrap, concrete_args, leaf modules and the errors of tracing control flow."""
import math
import operator

import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

X = np.linspace(-1, 1, 24).astype(np.float32).reshape(2, 3, 4)


def _net(L):
    class Net(L.nn.Module):
        def __init__(self):
            super().__init__()
            L.manual_seed(0)
            self.param = L.nn.Parameter(L.tensor(np.full((3, 4), 0.5, np.float32)))
            self.linear = L.nn.Linear(4, 5)
            self.seq = L.nn.Sequential(L.nn.Linear(5, 5), L.nn.ReLU())
            self.register_buffer("scale", L.tensor(np.float32([2.0])))

        def forward(self, x):
            y = self.seq(self.linear(x + self.param)).clamp(min=0.0, max=1.0)
            return L.nn.functional.relu(y) * self.scale
    return Net()


def _lenet(L):
    """The 60-minute blitz's network, nn.functional between its layers."""
    F = L.nn.functional

    class LeNet(L.nn.Module):
        def __init__(self):
            super().__init__()
            L.manual_seed(0)
            self.conv1, self.conv2 = L.nn.Conv2d(1, 6, 5), L.nn.Conv2d(6, 16, 5)
            self.fc1, self.fc2 = L.nn.Linear(16 * 5 * 5, 120), L.nn.Linear(120, 10)
            self.drop = L.nn.Dropout(0.1)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
            x = L.flatten(F.max_pool2d(F.relu(self.conv2(x)), 2), 1)
            x = self.drop(F.relu(self.fc1(x)))
            x = F.softmax(self.fc2(x), dim=-1)
            return F.log_softmax(x, dim=1), x.argmax(dim=1), F.gelu(x), \
                F.layer_norm(x, (10,)), F.cross_entropy(x, x.argmax(dim=1))
    return LeNet().eval()


def _state_on_the_left(L):
    """Buffers and constants operated on with a traced value: their methods record calls."""
    class State(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("scale", L.ones(4))
            self.w = L.nn.Parameter(L.ones(4))

        def forward(self, x):
            return self.scale * x, self.scale + x, self.scale @ x[0], self.w.add(x), \
                self.scale.add(x), L.ones(4) - x, x.new_zeros(2), x.float(), x.size()
    return State()


def _function(L):
    def f(x, y):
        z = L.relu(x) * 2 + y.sum(dim=0, keepdim=True)
        a, b = z.chunk(2, 1)
        return L.cat([a, b], 1), z.shape[0], -a, abs(b), 1 - z, z.view(z.size(0), -1)
    return f


def _indexing(L):
    def g(x):
        m = x[:, 1:2, None, ...]
        n = x.to(L.float64)
        unused = x * 3  # noqa: F841
        return {"m": m @ m.transpose(-1, -2), "n": n.mean(), "k": x[0]}
    return g


def _with_math(L):
    def h(x):
        return x * math.sqrt(x.dim()) / x.numel()
    return h


PROGRAMS = {"module": (_net, lambda L: (L.tensor(X),)),
            "lenet": (_lenet, lambda L: (L.tensor(np.linspace(-1, 1, 2 * 32 * 32).astype(
                np.float32).reshape(2, 1, 32, 32)),)),
            "state": (_state_on_the_left, lambda L: (L.tensor(X[0]),)),
            "function": (_function, lambda L: (L.tensor(X[0]), L.tensor(X[1]))),
            "indexing": (_indexing, lambda L: (L.tensor(X),)),
            "math": (_with_math, lambda L: (L.tensor(X),))}


def _values(out):
    if isinstance(out, dict):
        return {k: _values(v) for k, v in out.items()}
    if isinstance(out, (tuple, list)):
        return [_values(v) for v in out]
    return np.asarray(out.detach().numpy()) if hasattr(out, "detach") else out


def _close(ours, theirs):
    ours, theirs = _values(ours), _values(theirs)
    if isinstance(ours, dict):
        assert ours.keys() == theirs.keys()
        ours, theirs = list(ours.values()), list(theirs.values())
    for a, b in zip(ours if isinstance(ours, list) else [ours],
                    theirs if isinstance(theirs, list) else [theirs]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)  # float32 sums


def _traced(L, name):
    make, inputs = PROGRAMS[name]
    gm = L.fx.symbolic_trace(make(L))
    return gm, gm(*inputs(L))


@pytest.mark.parametrize("name", PROGRAMS)
def test_graph_code_and_outputs_as_torch(name):
    (g, g_out), (t, t_out) = _traced(gradjit, name), _traced(torch, name)
    assert str(g.graph) == str(t.graph)
    assert g.code == t.code
    _close(g_out, t_out)
    assert str(g) == str(t)


def test_a_graph_module_traces_again_as_torch():
    def run(L):
        once = L.fx.symbolic_trace(_lenet(L))
        twice = L.fx.symbolic_trace(once)
        return once, twice
    (_, g_twice), (t_once, t_twice) = run(gradjit), run(torch)
    assert str(g_twice.graph) == str(t_twice.graph) == str(t_once.graph)
    assert g_twice.code == t_twice.code


def _nodes(gm):
    return [(n.op, n.name, getattr(n.target, "__name__", n.target), n.format_node(),
             [u.name for u in n.users], [a.name for a in n.all_input_nodes])
            for n in gm.graph.nodes]


def test_node_lists_as_torch():
    assert _nodes(_traced(gradjit, "module")[0]) == _nodes(_traced(torch, "module")[0])
    names = [n.op for n in _traced(gradjit, "module")[0].graph.nodes]
    assert {"placeholder", "get_attr", "call_function", "call_method", "call_module",
            "output"} == set(names)


def _control_flow(L):
    def branch(x):
        if x.sum() > 0:
            return x
        return -x

    def loop(x):
        return [v for v in x]

    def length(x):
        return len(x)
    return branch, loop, length


def _raised(call):
    with pytest.raises(Exception) as info:
        call()
    return type(info.value).__name__, [c.__name__ for c in type(info.value).__mro__[1:]], \
        str(info.value)


@pytest.mark.parametrize("which", [0, 1, 2])
def test_tracing_control_flow_raises_as_torch(which):
    """torch.fx.proxy.TraceError (a ValueError) for bool() and iteration of a Proxy."""
    assert _raised(lambda: gradjit.fx.symbolic_trace(_control_flow(gradjit)[which])) == \
        _raised(lambda: torch.fx.symbolic_trace(_control_flow(torch)[which]))


def test_concrete_args_specialize_as_torch():
    def run(L):
        def h(x, flag=True, n=3):
            if flag:
                return x * n
            return x
        gm = L.fx.symbolic_trace(h, concrete_args={"flag": True})
        return gm, gm(L.tensor(X), True, 2)
    (g, g_out), (t, t_out) = run(gradjit), run(torch)
    assert str(g.graph) == str(t.graph) and g.code == t.code
    _close(g_out, t_out)
    same_error(lambda: g(gradjit.tensor(X), False), lambda: t(torch.tensor(X), False))


def _scaled(x):
    return x * x.shape[0]


gradjit.fx.wrap("_scaled")
torch.fx.wrap("_scaled")


def test_wrap_records_the_function_as_a_call():
    def run(L):
        gm = L.fx.symbolic_trace(lambda x: _scaled(x) + 1)
        return gm, [(n.op, getattr(n.target, "__name__", n.target)) for n in gm.graph.nodes]
    (g, g_nodes), (t, t_nodes) = run(gradjit), run(torch)
    assert g_nodes == t_nodes and ("call_function", "_scaled") in g_nodes
    _close(g(gradjit.tensor(X)), t(torch.tensor(X)))


def test_tracer_subclass_decides_leaf_modules():
    def run(L):
        class Deep(L.fx.Tracer):
            def is_leaf_module(self, m, qualname):
                return False

        class Block(L.nn.Module):
            def forward(self, x):
                return x.relu()

        class Top(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.block, self.act = Block(), L.nn.Tanh()

            def forward(self, x):
                return self.act(self.block(x))
        return [str(L.fx.Tracer().trace(Top())), str(Deep().trace(Top()))]
    ours, theirs = run(gradjit), run(torch)
    assert ours[0] == theirs[0] and "call_module[target=act]" in ours[0]
    assert "call_module" not in ours[1]


def _replace_add_by_mul(L, gm):
    """The FX tutorial's first transformation: every operator.add becomes a mul."""
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target is operator.add:
            with gm.graph.inserting_after(node):
                new = gm.graph.call_function(L.mul, node.args, node.kwargs)
            node.replace_all_uses_with(new)
            gm.graph.erase_node(node)
    gm.graph.lint()
    gm.recompile()
    return gm


def test_graph_editing_replaces_an_op_as_torch():
    def run(L):
        gm = L.fx.symbolic_trace(lambda x, y: (x + y).relu() + 1.0)
        gm = _replace_add_by_mul(L, gm)
        return gm, gm(L.tensor(X[0]), L.tensor(X[1]))
    (g, g_out), (t, t_out) = run(gradjit), run(torch)
    assert str(g.graph) == str(t.graph) and g.code == t.code
    _close(g_out, t_out)


def _rewrites(L):
    """replace_pattern's documented example, and an operator replaced inside a chain."""
    class Twice(L.nn.Module):
        def forward(self, x, w1, w2):
            m1 = L.cat([w1, w2]).sum()
            m2 = L.cat([w1, w2]).sum()
            return x + L.max(m1) + L.max(m2)

    class Chain(L.nn.Module):
        def forward(self, x):
            y = (x + 1).relu()
            return (y + 1).relu() * (x - 1).relu()
    return [(Twice(), lambda w1, w2: L.cat([w1, w2]).sum(), lambda w1, w2: L.stack([w1, w2]),
             (L.tensor(X[0, 0]), L.tensor(X[0, 1]), L.tensor(X[0, 2]))),
            (Chain(), lambda a: (a + 1).relu(), lambda a: L.sigmoid(a * 2),
             (L.tensor(X[1]),))]


@pytest.mark.parametrize("case", [0, 1])
def test_replace_pattern_as_torch(case):
    def run(L):
        model, pattern, replacement, inputs = _rewrites(L)[case]
        gm = L.fx.symbolic_trace(model)
        matches = L.fx.replace_pattern(gm, pattern, replacement)
        return gm, [(m.anchor.name, sorted((p.name, g.name) for p, g in m.nodes_map.items()))
                    for m in matches], gm(*inputs)
    (g, g_matches, g_out), (t, t_matches, t_out) = run(gradjit), run(torch)
    assert g_matches == t_matches and g_matches
    assert str(g.graph) == str(t.graph) and g.code == t.code
    _close(g_out, t_out)


def test_create_node_dead_code_and_lint_as_torch():
    def run(L):
        graph = L.fx.Graph()
        x = graph.placeholder("x")
        dead = graph.call_method("neg", (x,))
        y = graph.create_node("call_function", L.sin, (x,), name="sine")
        graph.output(y)
        graph.lint()
        before = str(graph)
        changed = graph.eliminate_dead_code()
        assert dead not in list(graph.nodes)
        return before, str(graph), changed, len(graph.nodes)
    assert run(gradjit) == run(torch)


def test_insertion_points_as_torch():
    """inserting_after(n) puts each new node right after n (so in reverse), None the end."""
    def run(L):
        g = L.fx.Graph()
        x = g.placeholder("x")
        y = g.call_method("neg", (x,))
        g.output(y)
        with g.inserting_after(x):
            g.call_method("sin", (g.call_method("exp", (x,)),))
        with g.inserting_before(y):
            g.call_method("cos", (x,))
        with g.inserting_after():
            g.placeholder("z")
        with g.inserting_before():
            g.placeholder("w")
        return str(g)
    assert run(gradjit) == run(torch)


def test_node_updates_and_lookups_as_torch():
    def run(L):
        gm = L.fx.symbolic_trace(lambda x, y: (x * 2).sum(dim=0) + y)
        g = gm.graph
        mul, = g.find_nodes(op="call_function", target=operator.mul)
        mul.update_arg(1, 3)
        total, = g.find_nodes(op="call_method", target="sum")
        total.update_kwarg("dim", 1)
        x, y = g.find_nodes(op="placeholder")
        total.next.replace_input_with(y, x)
        gm.recompile()
        return str(g), gm.code, [n.name for n in (mul.prev, mul.next)], \
            _boxed_run(L, gm)
    assert run(gradjit) == run(torch)


def _boxed_run(L, gm):
    """boxed_run takes its arguments out of the list it is given."""
    args = [L.ones(2, 2), L.ones(2, 2)]
    out = L.fx.Interpreter(gm).boxed_run(args)
    return out.tolist(), args


def test_erase_of_a_used_node_refused_as_torch():
    def run(L):
        graph = L.fx.Graph()
        x = graph.placeholder("x")
        graph.output(graph.call_method("neg", (x,)))
        graph.erase_node(x)
    same_error(lambda: run(gradjit), lambda: run(torch))


def test_lint_finds_use_before_definition_as_torch():
    def run(L):
        graph = L.fx.Graph()
        x = graph.placeholder("x")
        a = graph.call_method("neg", (x,))
        b = graph.call_method("exp", (a,))
        graph.output(b)
        b.prepend(b.prev)  # no change: a stays before b
        a.prepend(b)  # b before a
        graph.lint()
    same_error(lambda: run(gradjit), lambda: run(torch))


class _NegSigmoid:
    """The Transformer tutorial's rewrite: sigmoid calls become neg of them."""

    @staticmethod
    def make(L):
        class T(L.fx.Transformer):
            def call_method(self, target, args, kwargs):
                out = super().call_method(target, args, kwargs)
                return -out if target == "sigmoid" else out
        return T


def test_interpreter_and_transformer_as_torch():
    def run(L):
        gm = L.fx.symbolic_trace(lambda x: x.sigmoid().sum(1))
        values = L.fx.Interpreter(gm).run(L.tensor(X))
        new = _NegSigmoid.make(L)(gm).transform()
        return values, new, new(L.tensor(X))
    (gv, g, g_out), (tv, t, t_out) = run(gradjit), run(torch)
    _close(gv, tv)
    assert str(g.graph) == str(t.graph) and g.code == t.code
    np.testing.assert_allclose(_values(g_out), _values(t_out), rtol=1e-6)


def test_shape_prop_describes_each_node_as_torch():
    from torch.fx.passes.shape_prop import ShapeProp

    def run(L, prop):
        gm = L.fx.symbolic_trace(_net(L))
        prop(gm).propagate(L.tensor(X))
        return [(n.name, tuple(n.meta["tensor_meta"].shape), str(n.meta["tensor_meta"].dtype),
                 n.meta["tensor_meta"].requires_grad, tuple(n.meta["tensor_meta"].stride))
                for n in gm.graph.nodes if n.op != "output"]
    assert run(gradjit, gradjit.fx.passes.shape_prop.ShapeProp) == run(torch, ShapeProp)


def _conv_bn(L):
    class ConvBN(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = L.nn.Conv2d(2, 3, 3, bias=False)
            self.bn = L.nn.BatchNorm2d(3)

        def forward(self, x):
            return L.relu(self.bn(self.conv(x)))
    L.manual_seed(0)
    model = ConvBN()
    model.bn.running_mean = L.linspace(-0.5, 0.5, 3)
    return model.eval()


def _fuse(L, model):
    """The FX tutorial's conv+bn fusion: the conv's weight and bias absorb the batch norm."""
    import copy
    gm = L.fx.symbolic_trace(copy.deepcopy(model))
    modules = dict(gm.named_modules())
    for node in gm.graph.nodes:
        if node.op == "call_module" and isinstance(modules[node.target], L.nn.BatchNorm2d) and \
                node.args[0].op == "call_module":
            conv, bn = modules[node.args[0].target], modules[node.target]
            scale = bn.weight * (bn.running_var + bn.eps).rsqrt()
            conv.weight = L.nn.Parameter((conv.weight * scale.reshape(-1, 1, 1, 1)).detach())
            conv.bias = L.nn.Parameter((bn.bias - bn.running_mean * scale).detach())
            node.replace_all_uses_with(node.args[0])
            gm.graph.erase_node(node)
    gm.graph.lint()
    gm.delete_all_unused_submodules()
    gm.recompile()
    return gm


def test_conv_bn_fusion_tutorial_runs_as_torch():
    x = np.linspace(-1, 1, 2 * 2 * 5 * 5).astype(np.float32).reshape(2, 2, 5, 5)

    def run(L):
        model = _conv_bn(L)
        fused = _fuse(L, model)
        return str(fused.graph), fused.code, _values(fused(L.tensor(x))), \
            _values(model(L.tensor(x))), sorted(n for n, _ in fused.named_modules())
    ours, theirs = run(gradjit), run(torch)
    assert ours[0] == theirs[0] and ours[1] == theirs[1] and ours[4] == theirs[4]
    np.testing.assert_allclose(ours[2], ours[3], rtol=1e-5, atol=1e-6)


def test_print_tabular_needs_tabulate_as_torch(capsys):
    same_error(lambda: gradjit.fx.symbolic_trace(lambda x: x + 1).graph.print_tabular(),
               lambda: torch.fx.symbolic_trace(lambda x: x + 1).graph.print_tabular())
    out = capsys.readouterr().out.split("\n")
    assert out[0] == out[1] and "tabulate" in out[0]


def test_print_readable_and_deepcopy_as_torch():
    import copy

    def run(L):
        gm = L.fx.symbolic_trace(_net(L))
        twin = copy.deepcopy(gm)
        return gm.print_readable(print_output=False), twin.code == gm.code, \
            _values(twin(L.tensor(X))), _values(gm(L.tensor(X)))
    ours, theirs = run(gradjit), run(torch)
    assert ours[0] == theirs[0] and ours[1] and theirs[1]
    np.testing.assert_equal(ours[2], ours[3])


def _error_cases(L):
    """Programs both libraries refuse, each with the call that raises."""
    def two(x, y):
        return x + y

    def stray_module(x):
        return L.nn.ReLU()(x)
    stray = L.nn.Parameter(L.ones(1))

    def nested_wrap():
        L.fx.wrap("two")

    def foreign_arg():
        g1, g2 = L.fx.Graph(), L.fx.Graph()
        g2.output(g2.call_method("neg", (g1.placeholder("x"),)))
        g2.lint()

    def wrong_graph():
        g1, g2 = L.fx.Graph(), L.fx.Graph()
        g2.erase_node(g1.placeholder("x"))

    def renamed():
        g = L.fx.Graph()
        x = g.placeholder("x")
        g.output(g.call_method("neg", (x,))).args[0].name = "x"
        g.lint()

    def missing_attribute():
        gm = L.fx.symbolic_trace(lambda x: x + 1)
        with pytest.warns(UserWarning, match="no underlying reference"):
            gm.graph.get_attr("nope")
        gm.graph.lint()

    def graph_of(*ops):
        g = L.fx.Graph()
        x = g.placeholder("x")
        for op in ops:
            x = op(g, x)
        g.output(x)
        return g

    def missing_input():
        L.fx.Interpreter(L.fx.symbolic_trace(two)).run(L.ones(1))

    def missing_target():
        L.fx.Interpreter(L.nn.Module(), graph=graph_of(lambda g, x: g.get_attr("w"))).run(1)

    def stale_value():
        g = graph_of(lambda g, x: g.call_method("neg", (x,)), lambda g, x: g.call_method(
            "exp", (x,)))
        nodes = list(g.nodes)
        nodes[1].prepend(nodes[2])
        L.fx.Interpreter(L.nn.Module(), graph=g).run(L.ones(1))

    def key_error():
        g = graph_of(lambda g, x: g.call_function(operator.getitem, (x, "k")))
        L.fx.Interpreter(L.nn.Module(), graph=g).run({})

    return {
        "key_error": key_error,
        "concrete_count": lambda: L.fx.symbolic_trace(two, concrete_args=(1,)),
        "argument_type": lambda: L.fx.symbolic_trace(lambda x: x + object()),
        "stray_module": lambda: L.fx.symbolic_trace(stray_module),
        "stray_parameter": lambda: L.fx.symbolic_trace(lambda x: x + stray),
        "nested_wrap": nested_wrap,
        "foreign_arg": foreign_arg,
        "wrong_graph": wrong_graph,
        "renamed": renamed,
        "missing_attribute": missing_attribute,
        "root_dict": lambda: L.fx.GraphModule({}, graph_of(lambda g, x: g.get_attr("w"))),
        "root_type": lambda: L.fx.GraphModule(5, L.fx.Graph()),
        "missing_input": missing_input,
        "missing_target": missing_target,
        "stale_value": stale_value,
        "bad_op": lambda: L.fx.Graph().create_node("bogus", "x"),
    }


@pytest.mark.parametrize("case", sorted(_error_cases(gradjit)))
def test_errors_as_torch(case):
    assert _raised(_error_cases(gradjit)[case]) == _raised(_error_cases(torch)[case])


def test_private_attributes_of_a_proxy_are_not_traced():
    """gradjit's own probes (t._edge) must not take a Proxy for a tensor."""
    seen = []
    gradjit.fx.symbolic_trace(lambda x: seen.append(hasattr(x, "_edge")) or x)
    assert seen == [False]
