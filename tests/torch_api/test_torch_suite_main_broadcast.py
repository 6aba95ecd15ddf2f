"""PyTorch's test_torch broadcasting and storage tests, side by side with torch: each
broadcasting method and function against its fully expanded operands, the in-place forms
(which broadcast only their other operands), is_set_to, and resize_ of strided tensors."""
import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()
DIFFERENCES = {"addcdiv_deprecated_value_first": "the deprecated addcdiv/addcmul(input, value, "
                                                  "tensor1, tensor2) overload is not accepted"}

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


def _shapes_or_errors(calls):
    out = []
    for call in calls:
        try:
            result = call()
            out.append([tuple(r.shape) for r in result] if isinstance(result, (tuple, list))
                       else tuple(result.shape))
        except Exception as e:  # noqa: BLE001 - the error is what the scenario compares
            out.append((type(e).__name__, str(e)))
    return out


@scenario
def shape_functions_of_empty_tensors(lib):
    x = lib.zeros(0, 1, 3, 0)
    return _shapes_or_errors([
        lambda: lib.flatten(x, 0, 3), lambda: lib.flatten(x, 0, 2), lambda: lib.flatten(x, 1, 2),
        lambda: lib.unsqueeze(x, 1), lambda: lib.squeeze(x, 1), lambda: lib.squeeze(x),
        lambda: lib.transpose(x, 1, 3), lambda: lib.zeros(5, 0).t(),
        lambda: lib.select(x, 2, 2), lambda: x.repeat(9, 7, 5, 2, 3), lambda: x.permute(2, 3, 0, 1),
        lambda: lib.diagonal(lib.zeros(5, 0)), lambda: lib.diagonal(lib.zeros(0, 5), offset=1),
        lambda: lib.diagonal(lib.zeros(3, 4, 5, 6), offset=45252),
        lambda: lib.diagonal(lib.zeros(3, 4, 5, 6), offset=-45252),
        lambda: lib.diagflat(lib.tensor([])), lambda: lib.diagflat(lib.tensor([]), offset=1),
        lambda: lib.diagflat(lib.tensor([[]]), offset=1), lambda: lib.stack((x, x, x, x)),
        lambda: lib.chunk(x, 1, dim=0), lambda: lib.chunk(x, 3, dim=0),
        lambda: lib.chunk(x, 3, dim=2), lambda: lib.split(x, (0, 1, 2), dim=2),
        lambda: lib.split(x, 0, dim=1), lambda: lib.split(x, 1, dim=0),
        lambda: lib.split(x, 0, dim=0)])


@scenario
def dim_functions_of_empty_tensors(lib):
    x = lib.zeros(0, 1, 2, 0)
    f = lib.nn.functional
    ind_empty, ind_01 = lib.tensor([], dtype=lib.int64), lib.tensor([0, 1])
    return [x.stride(), x.size(3)] + _shapes_or_errors([
        lambda: f.glu(x, 0), lambda: f.glu(x, 2), lambda: f.softmax(x, 3),
        lambda: f.log_softmax(x, 0), lambda: lib.cumsum(x, 2), lambda: lib.cumprod(x, 0),
        lambda: lib.cummax(x, 0), lambda: lib.cummin(x, 2), lambda: lib.logcumsumexp(x, 2),
        lambda: x.flip(2), lambda: x.roll(1, x.size(1)), lambda: x.roll(1),
        lambda: x.roll((1, 1), (3, 1)), lambda: x.unbind(0), lambda: x.unbind(2),
        lambda: lib.cross(lib.zeros(0, 1, 3, 0), lib.zeros(0, 1, 3, 0), dim=2),
        lambda: lib.renorm(x, 1, 0, 5), lambda: lib.renorm(x, 1, 2, 5),
        lambda: lib.sort(x, dim=0), lambda: lib.topk(x, 0, dim=0), lambda: lib.topk(x, 1, dim=2),
        lambda: lib.topk(lib.zeros(2, 3, 4), 0),
        lambda: lib.gather(x, 2, lib.empty((0, 1, 3, 0), dtype=lib.int64)),
        lambda: lib.gather(lib.zeros(2, 3, 4), 0, lib.empty((0, 3, 4), dtype=lib.int64)),
        lambda: x.clone().scatter_(2, lib.empty((0, 1, 2, 0), dtype=lib.int64), x),
        lambda: x.clone().index_fill_(2, ind_01, -1),
        lambda: x.clone().index_copy_(2, ind_01, lib.empty((0, 1, 2, 0))),
        lambda: x.clone().index_add_(2, ind_empty, lib.empty((0, 1, 0, 0))),
        lambda: x.index_select(2, ind_empty), lambda: lib.zeros(2, 3, 4).index_select(0, ind_empty),
        lambda: lib.zeros(0, 3).index_select(1, ind_01),
        lambda: lib.zeros(3, 0).index_select(0, ind_01.int()),
        lambda: lib.zeros(()).index_select(0, lib.tensor([0], dtype=lib.int32)),
        lambda: lib.index_select(lib.zeros(0, 3), 0, ind_01),
        lambda: lib.index_select(lib.zeros(0, 3), 1, lib.tensor([0, 5])),
        lambda: lib.index_select(lib.zeros(()), 0, ind_empty),
        lambda: lib.ones([]).index_select(0, lib.tensor([0, 0]).int()),
        lambda: lib.zeros(3).index_select(0, lib.tensor([5]))])


@scenario
def addcdiv_overloads_and_integers(lib):
    a, b, c = (lib.tensor([[1.0, 2.0], [3.0, 4.0]]) + k for k in (0, 1, 2))
    out = [lib.addcdiv(a, b, c, value=0.5), lib.addcmul(a, b, c, value=-2),
           lib.addcdiv(a.cdouble(), b.cdouble(), c.cdouble(), value=0.5 + 0.5j)]
    try:
        lib.addcdiv(a.long(), b.long(), c.long(), value=3)
    except RuntimeError as e:
        out.append(str(e))
    return out


@scenario
def addcdiv_deprecated_value_first(lib):
    a, b, c = (lib.tensor([[1.0, 2.0], [3.0, 4.0]]) + k for k in (0, 1, 2))
    return lib.addcdiv(a, 0.5, b, c), lib.addcmul(a, 2, b, c)


@scenario
def random_fills_refuse_overlapping_memory(lib):
    x = lib.rand((1, 3)).expand((3, 3))
    out = []
    for op, args in (("random_", ()), ("uniform_", ()), ("cauchy_", ()), ("log_normal_", ()),
                     ("exponential_", ()), ("geometric_", (0.5,)), ("normal_", ())):
        try:
            getattr(x, op)(*args)
            out.append("ok")
        except RuntimeError as e:
            out.append(str(e))
    return out


@scenario
def normal_shapes_and_errors(lib):
    lib.manual_seed(0)
    t1, t4, t120 = lib.rand(1), lib.rand(4), lib.rand(120)
    t2145, t2345 = lib.rand(2, 1, 4, 5), lib.rand(2, 3, 4, 5)
    permuted = lib.rand(2, 4, 3, 5).permute(0, 2, 1, 3)
    channels_last = t2345.contiguous(memory_format=lib.channels_last)
    return _shapes_or_errors([
        lambda: lib.normal(t2345, t2345), lambda: lib.normal(permuted, channels_last),
        lambda: lib.normal(t2345, 2), lambda: lib.normal(2, t2345), lambda: lib.normal(t2345, t1),
        lambda: lib.normal(t2145, t2345), lambda: lib.normal(t120, t2345),
        lambda: lib.normal(t2345, t120), lambda: lib.normal(t2345, t4)])


@scenario
def elementwise_result_layouts(lib):
    lib.manual_seed(0)
    x, y = lib.rand(2, 3, 4, 4), lib.rand(2, 3, 4, 4)
    cl = [t.contiguous(memory_format=lib.channels_last) for t in (x, y)]
    perm = [t.permute(0, 2, 3, 1) for t in (x, y)]
    out = lib.empty_like(x).permute(0, 3, 2, 1)
    lib.add(perm[0], perm[1], out=out)
    mixed = x.permute(0, 2, 3, 1) + y.permute(0, 3, 2, 1)
    return [(cl[0] + cl[1]).stride(), (perm[0] + perm[1]).stride(), out.stride(), out,
            mixed.stride(), mixed]


@scenario
def copy_transposed_and_empty_views(lib):
    x = lib.arange(100 * 100, dtype=lib.float32).reshape(100, 100).t()
    out = []
    for dtype in (lib.float32, lib.float64, lib.complex64):
        y = lib.empty(100, 100, dtype=dtype)
        y.copy_(x)
        out += [y[:, 0], y[:, 40]]
    t = lib.from_numpy(np.empty((0, 4)))
    t[:, 1::2] *= 1
    return out + [t.shape, lib.tensor([0, 0, 0]).nonzero().untyped_storage().nbytes()]


@scenario
def dtype_identity_and_signedness(lib):
    import copy
    names = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128", "uint8",
             "int8", "int16", "int32", "int64", "bool")
    dtypes = [getattr(lib, n) for n in names]
    return [copy.deepcopy(d) is d for d in dtypes] + [
        (d.is_signed, lib.is_signed(lib.tensor(0, dtype=d))) for d in dtypes]


@scenario
def rng_state_and_seeds(lib):
    state = lib.get_rng_state()
    before = lib.rand(50)
    lib.set_rng_state(state)
    after = lib.rand(50)
    lib.manual_seed(123)
    seeded = lib.randn(101)
    mid_state = lib.get_rng_state()
    midstream = lib.randn(101)
    lib.set_rng_state(mid_state)
    repeated = lib.randn(101)
    seeds = []
    for seed in (2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1, 0, -1, -2 ** 63):
        lib.manual_seed(seed)
        seeds.append(lib.initial_seed())
    for bad in (-2 ** 63 - 1, 2 ** 64):
        try:
            lib.manual_seed(bad)
        except (RuntimeError, ValueError) as e:
            seeds.append((type(e).__name__, str(e)))
    return [bool((before == after).all()), seeded, bool((midstream == repeated).all()), seeds]


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_scenario(name):
    check(SCENARIOS[name])
