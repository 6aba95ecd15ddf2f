"""The containers as PyTorch's own nn tests exercise them (test_nn.py: Sequential, ModuleList,
ModuleDict, ParameterList, ParameterDict): each scenario is run in gradjit and torch and its
members (by position in a shared list), printing and errors compared."""

from collections import OrderedDict

import pytest

from tests.nn.helpers import same_outcome


def linears(t, n=5):
    t.manual_seed(0)
    return [t.nn.Linear(i + 1, i + 2) for i in range(n)]


def params(t, n=6):
    t.manual_seed(0)
    return [t.nn.Parameter(t.randn(2, 2)) for _ in range(n)]


def which(members, pool):
    """Each member as its position in `pool` (identity, not equality), or its repr."""
    return [next((i for i, p in enumerate(pool) if p is m), repr(m)) for m in members]


def sequential_indexing(t):
    ls = linears(t)
    n = t.nn.Sequential(*ls[:4])
    seen = [which(n[1:], ls), which(n[::-1], ls), which(n[:-3], ls), n[t.tensor(3)] is ls[3]]
    n[0], n[-1], n[t.tensor(1, dtype=t.int16)] = ls[3], ls[3], ls[0]
    seen.append(which(n, ls))
    del n[1::2]
    return seen + [which(n, ls), list(n._modules)]


def sequential_arithmetic(t):
    ls = linears(t)
    a, b = t.nn.Sequential(ls[0], ls[1]), t.nn.Sequential(ls[2], ls[3])
    sums = [a + b, b * 2, 2 * b]
    a += b
    c = t.nn.Sequential(ls[4])
    c *= 3
    return [which(s, ls) for s in (*sums, a, c)] + [repr(sums[0]), list(c._modules)]


def sequential_edits(t):
    ls = linears(t)
    n = t.nn.Sequential(*ls[:4])
    popped = n.pop(3) is ls[3]
    n.insert(1, ls[3]).insert(-2, ls[4])
    m = t.nn.Sequential(ls[0]).extend(t.nn.Sequential(ls[1], ls[2])).append(ls[3])
    return popped, which(n, ls), list(n._modules), which(m, ls), list(m._modules)


def named_sequential(t):
    ls = linears(t)
    n = t.nn.Sequential(OrderedDict([("a", ls[0]), ("b", ls[1]), ("c", ls[2])]))
    n[0], n[-1] = ls[3], ls[4]
    seen = [n.a is ls[3], n.c is ls[4], [k for k in dir(n) if k.isdigit()]]
    del n[1]
    return seen + [list(n._modules)]


def module_list(t):
    ls = linears(t)
    ml = t.nn.ModuleList(ls[:2])
    ml += [ls[2]]
    ml = ml + t.nn.ModuleList(ls[3:4])
    ml.insert(1, ls[4])
    ml.append(ls[0]).extend([ls[1]])
    ml[2] = ls[3]
    ml[t.tensor(2, dtype=t.int32)] = ls[2]
    seen = [which(ml, ls), which(ml[1:], ls), which(ml[::-1], ls), type(ml + ls).__name__]
    seen.append(ml.pop(1) is ls[4])
    del ml[-1]
    del ml[1::2]
    return seen + [which(ml, ls), list(ml._modules), which(ml.children(), ls)]


def module_dict(t):
    ls = linears(t)
    md = t.nn.ModuleDict(OrderedDict([("act", t.nn.ReLU()), ("fc", ls[0])]))
    md["fc2"] = ls[1]
    md.update([("fc3", ls[2]), ("act", ls[3])])
    md.update({"z": ls[4], "b": ls[0]})
    md.update(t.nn.ModuleDict([("m", ls[1])]))
    del md["fc"]
    seen = [list(md), which(md.values(), ls), "fc2" in md, md.pop("fc3") is ls[2], list(md)]
    md.clear()
    return seen + [len(md), repr(md)]


PARAMETER_DICT_KEYS = ("p1", "p2", "p3")


def parameter_dict(t):
    ps = params(t)
    pd = t.nn.ParameterDict(OrderedDict(zip(PARAMETER_DICT_KEYS, ps)))
    pd["p4"] = ps[3]
    pd.update([("p5", ps[4]), ("p2", ps[5])])
    pd.update({"p8": ps[0], "p7": ps[1]})
    del pd["p3"]
    seen = [list(pd), which(pd.values(), ps), [n for n, _ in pd.named_parameters()]]
    seen += [pd.pop("p4") is ps[3], list(reversed(pd)), pd.popitem()[0], list(pd)]
    copy = pd.copy()
    copy["extra"] = ps[2]
    seen += ["extra" in pd, which(copy.values(), ps), pd.get("nothing"), pd.get("p1") is ps[0]]
    seen += [pd.setdefault("p1", ps[5]) is ps[0], pd.setdefault("p9") is None]
    merged = pd | t.nn.ParameterDict(OrderedDict([("q", ps[4])]))
    pd |= t.nn.ParameterDict(OrderedDict([("r", ps[3])]))
    seen += [list(merged), list(pd), list(pd.fromkeys(["x", "y"], ps[0]).items())[0][1] is ps[0]]
    pd["tensor"] = t.ones(2)
    pd.update({"name": "bar"})
    seen += [type(pd["tensor"]).__name__, pd["name"], repr(pd)]
    pd.clear()
    return seen + [len(pd), list(pd.parameters())]


def parameter_list(t):
    ps = params(t)
    pl = t.nn.ParameterList(ps[:2])
    pl += [ps[2]]
    pl.append(ps[3]).extend([ps[4]])
    pl[-1] = ps[5]
    pl[t.tensor(2, dtype=t.int32)] = ps[0]
    seen = [which(pl, ps), which(pl[1:], ps), which(pl[::-1], ps), which(pl.parameters(), ps)]
    pl.append(t.ones(2))
    pl.extend([t.zeros(3), "foo"])
    pl += ["bar"]
    seen += [[type(v).__name__ for v in pl], len(list(pl.parameters())), repr(pl)]
    return seen + [[k for k in dir(pl) if k.isdigit()]]


def library_neutral(call):
    """The error of `call(t)` with the library's name in the classes it prints made neutral:
    gradjit's classes live in gradjit's modules, laid out as torch's."""

    def scenario(t):
        try:
            return call(t)
        except Exception as error:  # the error is the outcome compared
            return type(error).__name__, str(error).replace(t.__name__, "lib")

    return scenario


SCENARIOS = {
    "sequential_indexing": sequential_indexing,
    "sequential_arithmetic": sequential_arithmetic,
    "sequential_edits": sequential_edits,
    "named_sequential": named_sequential,
    "sequential_index_out_of_range": lambda t: t.nn.Sequential(t.nn.ReLU())[3],
    "sequential_insert_out_of_range": lambda t: t.nn.Sequential(*linears(t, 3)).insert(
        -5, t.nn.ReLU()
    ),
    "sequential_insert_not_a_module": library_neutral(
        lambda t: t.nn.Sequential(*linears(t, 3)).insert(1, [t.nn.ReLU()])
    ),
    "sequential_add_not_sequential": library_neutral(
        lambda t: t.nn.Sequential(t.nn.ReLU()) + t.nn.ReLU()
    ),
    "sequential_iadd_not_sequential": lambda t: t.nn.Sequential(t.nn.ReLU()).__iadd__(
        [t.nn.ReLU()]
    ),
    "sequential_mul_zero": library_neutral(lambda t: t.nn.Sequential(t.nn.ReLU()) * 0),
    "sequential_imul_negative": library_neutral(
        lambda t: t.nn.Sequential(t.nn.ReLU()).__imul__(-1)
    ),
    "sequential_mul_float": library_neutral(lambda t: t.nn.Sequential(t.nn.ReLU()) * 1.5),
    "sequential_empty_repr": lambda t: repr(t.nn.Sequential()),
    "module_list": module_list,
    "module_list_iadd_module": lambda t: t.nn.ModuleList().__iadd__(t.nn.ReLU()),
    "module_list_extend_module": lambda t: t.nn.ModuleList().extend(t.nn.ReLU()),
    "module_list_called": lambda t: t.nn.ModuleList()(t.ones(1, 3)),
    "module_list_index_out_of_range": lambda t: t.nn.ModuleList([t.nn.ReLU()])[-2],
    "module_list_of_modules": lambda t: which(
        t.nn.ModuleList(t.nn.Sequential(*linears(t, 3)).modules())[1:], []
    ),
    "module_dict": module_dict,
    "module_dict_update_module": lambda t: t.nn.ModuleDict().update(t.nn.ReLU()),
    "module_dict_update_list_of_modules": lambda t: t.nn.ModuleDict().update([t.nn.ReLU()]),
    "module_dict_update_short_pair": lambda t: t.nn.ModuleDict().update([[t.nn.ReLU()]]),
    "module_dict_int_key": lambda t: t.nn.ModuleDict().__setitem__(1, t.nn.ReLU()),
    "module_dict_called": lambda t: t.nn.ModuleDict()(t.ones(1, 3)),
    "module_dict_from_named_children": lambda t: list(
        t.nn.ModuleDict(
            t.nn.Sequential(OrderedDict([("b", t.nn.ReLU()), ("a", t.nn.Tanh())])).named_children()
        )
    ),
    "parameter_dict": parameter_dict,
    "parameter_dict_update_int": lambda t: t.nn.ParameterDict().update(1),
    "parameter_dict_update_list_of_int": lambda t: t.nn.ParameterDict().update([1]),
    "parameter_dict_update_parameter": lambda t: t.nn.ParameterDict().update(params(t)[0]),
    "parameter_dict_int_key": lambda t: t.nn.ParameterDict()[1],
    "parameter_dict_called": lambda t: t.nn.ParameterDict()(t.ones(1)),
    "parameter_dict_sorted_plain_dict": lambda t: list(
        t.nn.ParameterDict({"b": t.ones(1), "a": t.ones(1)})
    ),
    "parameter_list": parameter_list,
    "parameter_list_iadd_parameter": lambda t: t.nn.ParameterList().__iadd__(params(t)[0]),
    "parameter_list_extend_parameter": lambda t: t.nn.ParameterList().extend(params(t)[0]),
    "parameter_list_called": lambda t: t.nn.ParameterList()(t.ones(1)),
    "parameter_list_out_of_range": lambda t: t.nn.ParameterList(params(t, 2))[2],
    "parameter_list_state_dict": lambda t: list(
        t.nn.ParameterList(params(t, 2) + ["x"]).state_dict()
    ),
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_containers_match_torch(name):
    same_outcome(SCENARIOS[name])
