"""PyTorch's test_torch broadcasting and storage tests, side by side with torch: each
broadcasting method and function against its fully expanded operands, the in-place forms
(which broadcast only their other operands), is_set_to, and resize_ of strided tensors."""
import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()
DIFFERENCES = {}

# (small, large, third): shapes that broadcast to FULL in several ways
FULL = (3, 1, 4)
SHAPES = [((4,), (3, 1, 1), (1, 4)), ((1, 4), (3, 1, 4), (1,)), ((3, 1, 1), (1, 4), (4,))]


def operands(lib, shapes):
    rng = np.random.default_rng(7)
    return [lib.tensor(rng.uniform(-1, 1, s).astype(np.float32)) for s in shapes]


# name: (method call on (t1, t2, t3), function call on (t1, t2, t3)); None: no such form
CALLS = {
    "dist": (lambda a, b, c: a.dist(b), None),
    "atan2": (lambda a, b, c: a.atan2(b), None),
    "pow": (lambda a, b, c: a.abs().pow(b), None),
    "lerp": (lambda a, b, c: a.lerp(b, 0.5), lambda lib, a, b, c: lib.lerp(a, b, 0.5)),
    "add": (lambda a, b, c: a.add(b), None), "sub": (lambda a, b, c: a.sub(b), None),
    "mul": (lambda a, b, c: a.mul(b), None), "div": (lambda a, b, c: a.div(b), None),
    "fmod": (lambda a, b, c: a.fmod(b), None),
    "remainder": (lambda a, b, c: a.remainder(b), None),
    "eq": (lambda a, b, c: a.eq(b), None), "ge": (lambda a, b, c: a.ge(b), None),
    "lt": (lambda a, b, c: a.lt(b), None), "ne": (lambda a, b, c: a.ne(b), None),
    "max": (lambda a, b, c: a.max(b), None), "min": (lambda a, b, c: a.min(b), None),
    "addcdiv": (lambda a, b, c: a.addcdiv(b, c, value=1),
                lambda lib, a, b, c: lib.addcdiv(a, b, c, value=1.0)),
    "addcmul": (lambda a, b, c: a.addcmul(b, c, value=1),
                lambda lib, a, b, c: lib.addcmul(a, b, c, value=1.0)),
    "masked_select": (lambda a, b, c: a.masked_select(b < 0),
                      lambda lib, a, b, c: lib.masked_select(a, b < 0)),
    "masked_fill": (lambda a, b, c: a.masked_fill(b < 0.5, 1.0), None),
}
BINARY = {"dist", "atan2", "pow", "add", "sub", "mul", "div", "fmod", "remainder", "eq", "ge",
          "lt", "ne", "max", "min"}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_broadcast_equals_expanded(name):
    """The method (and torch.<name>) of operands that broadcast gives what it gives of the
    operands expanded to the full shape, in every order of the operands."""
    method, function = CALLS[name]

    def call(lib):
        out = []
        for shapes in SHAPES:
            t = operands(lib, shapes)
            full = [x.expand(*FULL) for x in t]
            for order in ((0, 1, 2), (1, 0, 2), (2, 1, 0)):
                args, expanded = [t[i] for i in order], [full[i] for i in order]
                out += [method(*args), method(*expanded)]
                if function is not None:
                    out += [function(lib, *args), function(lib, *expanded)]
                elif name in BINARY:
                    out.append(getattr(lib, name)(args[0], args[1]))
        return out
    check(call, rtol=1e-6)


INPLACE = {
    "add_": lambda a, b, c: a.add_(b), "mul_": lambda a, b, c: a.mul_(b),
    "lerp_": lambda a, b, c: a.lerp_(b, 0.5), "atan2_": lambda a, b, c: a.atan2_(b),
    "addcmul_": lambda a, b, c: a.addcmul_(b, c, value=1.0),
    "masked_fill_": lambda a, b, c: a.masked_fill_(b < 0.5, 1.0),
    "masked_scatter_": lambda a, b, c: a.masked_scatter_(b < 0.5, c.flatten().repeat(12)),
    "copy_": lambda a, b, c: a.copy_(b),
    "map_": lambda a, b, c: a.map_(b, lambda x, y: x + y),
    "map2_": lambda a, b, c: a.map2_(b, c, lambda x, y, z: x + y + z),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_in_place_broadcasts_its_other_operands(name):
    """In place into the full shape from smaller operands; into a smaller tensor from larger
    ones an error."""
    fn = INPLACE[name]

    def call(lib):
        out = []
        small, large, third = operands(lib, ((1, 4), (3, 1, 4), (4,)))
        target = lib.zeros(*FULL) + 0.25
        out.append(fn(target, small, third))
        try:
            fn(small.clone(), large, third)
            out.append("ok")
        except RuntimeError as e:
            out.append(type(e).__name__)
        return out
    check(call, rtol=1e-6)


@scenario
def is_set_to_of_set_tensors(lib):
    t1, t2 = lib.empty(3, 4, 9, 10), lib.empty(3, 4, 9, 10)
    t3 = lib.tensor([]).set_(t1)
    t4 = t3.clone().resize_(12, 90)
    b1 = lib.tensor([True, True])
    b2 = lib.tensor([0], dtype=lib.bool).set_(b1)
    e1 = lib.empty(2, 3, 4)
    z1 = lib.empty(2, 5, 0)
    return [t1.is_set_to(t2), t1.is_set_to(t3), t3.is_set_to(t1), t1.is_set_to(t4),
            b1.is_set_to(b2), e1.is_set_to(e1.view(4, 3, 2)), e1.view(4, 3, 2).is_set_to(e1),
            z1.is_set_to(z1.view(0)), z1.view(0).is_set_to(z1)]


@scenario
def resize_of_strided_tensors(lib):
    out = []
    for size, stride, new in (((10,), (1,), (5,)), ((2, 3, 4), None, (2, 5, 4)),
                              ((2, 3, 4), None, (3, 4, 5)), ((2, 3, 4), (1, 4, 12), (2, 3, 4)),
                              ((2, 3, 4), (1, 2, 6), (2, 3, 5)), ((2, 3, 4), (1, 2, 6), (4, 2))):
        n = int(np.prod(size))
        a = lib.arange(float(n)).reshape(size) if stride is None else \
            lib.empty_strided(size, stride).copy_(lib.arange(float(n)).reshape(size))
        a.resize_(new)
        out.append((tuple(a.shape), a.stride(), a.flatten()[:n].tolist()))
    return out


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_scenario(name):
    check(SCENARIOS[name])
