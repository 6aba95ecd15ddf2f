"""gradjit.jit answers torch.jit's names: scripted and traced modules and functions give
PyTorch's results and reprs, save/load round-trips, and gradjit.jit still compiles."""
import torch

import gradjit


def _mlp(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(6, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))


def test_script_sequential_prints_and_computes_as_torch():
    out = []
    for lib in (torch, gradjit):
        net = _mlp(lib)
        scripted = lib.jit.script(net)
        x = lib.ones(3, 6)
        out.append((repr(scripted), repr(scripted(x)), list(scripted.state_dict()),
                    scripted.original_name, repr(lib.jit.script(lib.nn.Linear(2, 3)))))
        assert scripted[0].weight is net[0].weight or lib is torch
        assert isinstance(scripted, lib.jit.ScriptModule)
        assert isinstance(scripted, lib.nn.Module)
    assert out[0] == out[1]


def test_trace_module_prints_under_original_names():
    out = []
    for lib in (torch, gradjit):
        net = _mlp(lib)
        traced = lib.jit.trace(net, lib.ones(1, 6))
        out.append((repr(traced), repr(traced(lib.ones(2, 6)))))
    assert out[0] == out[1]


def test_script_and_trace_functions_follow_torch():
    def f(x, y):
        return x * y + x.relu()

    def g(x):
        return x + 1
    out = []
    for lib in (torch, gradjit):
        x, y = lib.tensor([1.0, -2.0]), lib.tensor([3.0, 4.0])
        out.append((repr(lib.jit.script(f)(x, y)),
                    repr(lib.jit.trace(g, (lib.zeros(2),))(lib.zeros(3)))))
    assert out[0] == out[1]


def _net_class(lib):
    """A module whose forward takes the scripted branch only when scripted (a module-level
    class, so that gradjit's save can pickle it)."""
    def __init__(self):
        lib.nn.Module.__init__(self)
        self.lin = lib.nn.Linear(3, 2)

    def forward(self, x):
        if lib.jit.is_scripting():
            return self.lin(x)
        return self.lin(x) * 0
    return type(f"Net_{lib.__name__}", (lib.nn.Module,),
                {"__init__": __init__, "forward": forward})


Net_torch, Net_gradjit = _net_class(torch), _net_class(gradjit)


def test_save_load_round_trip_and_is_scripting_branch(tmp_path):
    out = []
    for lib, cls in ((torch, Net_torch), (gradjit, Net_gradjit)):
        lib.manual_seed(1)
        net = cls()
        scripted = lib.jit.script(net)
        path = tmp_path / f"{lib.__name__}.pt"
        scripted.save(str(path))
        loaded = lib.jit.load(str(path))
        x = lib.ones(2, 3)
        out.append((repr(scripted(x)), repr(loaded).replace(cls.__name__, "Net"),
                    lib.equal(loaded(x), scripted(x)), lib.jit.is_scripting(),
                    lib.jit.is_tracing(), repr(net(x))))
    assert out[0] == out[1]


def test_decorators_return_the_function():
    def f(x):
        return x
    for lib in (torch, gradjit):
        assert lib.jit.ignore(f) is f and lib.jit.unused(f) is f and lib.jit.export(f) is f
        assert lib.jit.ignore(drop=True)(f) is f


def test_script_shares_parameters_with_the_original():
    net = _mlp(gradjit)
    scripted = gradjit.jit.script(net)
    opt = gradjit.optim.SGD(scripted.parameters(), lr=0.5)
    scripted(gradjit.ones(1, 6)).sum().backward()
    opt.step()
    assert gradjit.equal(net(gradjit.ones(1, 6)), scripted(gradjit.ones(1, 6)))


def test_gradjit_jit_still_compiles():
    f = gradjit.jit(lambda x: (x * x).sum())
    assert float(f(gradjit.tensor([1.0, 2.0]))) == 5.0


def test_entry_points_warn_deprecation_as_torch():
    import warnings
    out = []
    for lib in (torch, gradjit):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.jit.script(lib.nn.Linear(2, 2))
            lib.jit.trace(lib.nn.Linear(2, 2), lib.ones(1, 2))
        out.append([(w.category, str(w.message)) for w in caught])
    assert out[0] == out[1]


def test_indexing_a_scripted_container_gives_the_original_modules():
    out = []
    for lib in (torch, gradjit):
        net = _mlp(lib)
        scripted = lib.jit.script(net)
        out.append(([type(m).__name__ for m in scripted], len(scripted),
                    scripted[0] is net[0], type(scripted._modules["0"]).__name__,
                    repr(scripted[2])))
    assert out[0] == out[1]
