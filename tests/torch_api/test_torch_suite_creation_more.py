"""PyTorch's tensor-creation suite (test_tensor_creation_ops.py), the parts
test_torch_suite_creation.py leaves: out= on every factory (zeros, ones, full, empty, eye,
arange, linspace, logspace, randperm and the seeded draws), dtype= against out=, strided and
permuted empties, as_strided, the *_like forms' dtypes, full's inferred dtypes, randint's and
randperm's arguments, frombuffer and scalar_tensor."""
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()


@scenario
def out_of_every_factory(lib):
    outs = {name: lib.empty(0, dtype=dt) for name, dt in (
        ("zeros", lib.int32), ("ones", lib.float64), ("full", lib.int16), ("empty", lib.float32),
        ("eye", lib.int32), ("arange", lib.float32), ("linspace", lib.float64),
        ("logspace", lib.float32), ("randperm", lib.int64))}
    returned = [lib.zeros(2, 2, out=outs["zeros"]), lib.ones(3, out=outs["ones"]),
                lib.full((2,), 7, out=outs["full"]), lib.empty(2, out=outs["empty"]),
                lib.eye(2, out=outs["eye"]), lib.arange(5, out=outs["arange"]),
                lib.linspace(0, 1, 3, out=outs["linspace"]),
                lib.logspace(0, 2, 3, out=outs["logspace"])]
    lib.manual_seed(0)
    lib.randperm(4, out=outs["randperm"])
    same = [r is o for r, o in zip(returned, outs.values())]
    empty = outs.pop("empty")  # its values are whatever the memory held
    return outs, (empty.shape, empty.dtype), same


@scenario
def out_of_seeded_draws(lib):
    lib.manual_seed(3)
    uniform, normal = lib.empty(3), lib.empty(2, 2, dtype=lib.float64)
    integers = lib.empty(4, dtype=lib.int32)
    lib.rand(3, out=uniform)
    lib.randn(2, 2, out=normal)
    lib.randint(2, 9, (4,), out=integers)
    return uniform, normal, integers


@scenario
def out_resized_from_another_shape(lib):
    out = lib.ones(5)
    lib.zeros(2, 2, out=out)
    return out


@scenario
def dtype_against_out(lib):
    return lib.zeros(2, out=lib.empty(2), dtype=lib.float64)


def out_requiring_grad(factory):
    def run(lib):
        return factory(lib, lib.empty(2, requires_grad=True))
    run.__name__ = f"out_requiring_grad_{factory.__name__}"
    scenario(run)


def ones(lib, out):
    return lib.ones(2, out=out)


def eye(lib, out):
    return lib.eye(2, out=out)


def arange(lib, out):
    return lib.arange(2.0, out=out)


def randint(lib, out):
    return lib.randint(3, (2,), out=out)


for _factory in (ones, eye, arange, randint):
    out_requiring_grad(_factory)


@scenario
def strided_and_permuted_empties(lib):
    a = lib.empty_strided((2, 3), (1, 2))
    b = lib.empty_permuted((2, 3, 4), (0, 2, 1))
    return (a.shape, a.stride(), lib.empty_strided((2, 3), (3, 1), dtype=lib.int8).dtype,
            b.shape, b.stride())


@scenario
def as_strided_forms(lib):
    x = lib.arange(10.0)
    return (x.as_strided((3, 3), (1, 2)), x.as_strided((2,), (3,), 1),
            lib.as_strided(x, (2, 2), (2, 1), 4))


@scenario
def like_forms(lib):
    x = lib.ones(2, 3, dtype=lib.int32)
    permuted = lib.ones(2, 3, 4, 5).permute(0, 2, 3, 1)
    return (lib.full_like(x, 2.7), lib.full_like(x, 2.7, dtype=lib.float64),
            lib.zeros_like(x, dtype=lib.bool), lib.ones_like(x).dtype, lib.empty_like(x).shape,
            lib.rand_like(x.float()).shape, lib.empty_like(permuted).stride(),
            lib.zeros_like(permuted, memory_format=lib.contiguous_format).stride(),
            permuted.clone().stride())


@scenario
def full_infers_its_dtype(lib):
    return (lib.full((2,), 1).dtype, lib.full((2,), 1.0).dtype, lib.full((2,), True).dtype,
            lib.full((2,), 1j).dtype, lib.full([], 3), lib.full((2,), 3, dtype=lib.bool),
            lib.full((2,), 255, dtype=lib.uint8), lib.full(size=(1,), fill_value=3.0))


@scenario
def spaced_forms(lib):
    return (lib.linspace(0, 1, 1), lib.linspace(0, 1, 0), lib.linspace(1, 0, 5),
            lib.linspace(0, 10, 5, dtype=lib.int64), lib.logspace(0, 2, 3, base=3),
            lib.logspace(0, 3, 4, dtype=lib.int64), lib.linspace(0, 1j, 3),
            lib.arange(1, 2.5, 0.5), lib.arange(-1.0, -2.0, -0.3), lib.arange(0, 1, 0.1).shape,
            lib.arange(5, dtype=lib.float16), lib.arange(lib.tensor(3)), lib.arange(2.0).dtype)


@scenario
def eye_forms(lib):
    return (lib.eye(2), lib.eye(2, 3), lib.eye(3, 1, dtype=lib.int64), lib.eye(0), lib.eye(2, 0),
            lib.eye(2, dtype=lib.complex64))


@scenario
def index_triangles(lib):
    return (lib.tril_indices(3, 3), lib.triu_indices(3, 4, 1), lib.tril_indices(0, 0),
            lib.triu_indices(3, 3, -5))


@scenario
def seeded_integer_draws(lib):
    lib.manual_seed(0)
    return (lib.randint(3, (2, 2)), lib.randint(1, 3, (4,)), lib.randint(5, (0,)).shape,
            lib.randint_like(lib.ones(3), 4), lib.randperm(5), lib.randperm(0),
            lib.randperm(3, dtype=lib.float32))


def refusal(name, call):
    def run(lib):
        return call(lib)
    run.__name__ = name
    scenario(run)


for _name, _call in {
        "randint_empty_range": lambda L: L.randint(3, 1, (2,)),
        "randint_equal_bounds": lambda L: L.randint(2, 2, (2,)),
        "linspace_negative_steps": lambda L: L.linspace(0, 1, -1),
        "arange_zero_step": lambda L: L.arange(0, 10, 0),
        "arange_wrong_direction": lambda L: L.arange(10, 0, 1),
        "eye_negative": lambda L: L.eye(-1),
        "zeros_negative": lambda L: L.zeros(2, -1),
        "integer_tensor_requiring_grad": lambda L: L.zeros(2, dtype=L.long, requires_grad=True),
        "ragged_nested_lists": lambda L: L.tensor([[1, 2], [3]]),
        "complex_of_integers": lambda L: L.complex(L.tensor([1]), L.tensor([1])),
        "polar_of_two_dtypes":
            lambda L: L.polar(L.tensor([1.0]), L.tensor([1.0], dtype=L.float64))}.items():
    refusal(_name, _call)


@scenario
def from_buffers_and_scalars(lib):
    return (lib.frombuffer(bytearray(b"\x01\x00\x02\x00"), dtype=lib.int16),
            lib.frombuffer(bytearray(8), dtype=lib.float32, count=1, offset=4),
            lib.scalar_tensor(3), lib.scalar_tensor(True).dtype,
            lib.scalar_tensor(2, dtype=lib.int8))


@pytest.mark.parametrize("name", cases(SCENARIOS, {}))
def test_creation_scenario_matches_torch(name):
    check(SCENARIOS[name])
