"""PyTorch's test_torch printing tests, side by side with torch: the repr of every dtype, of
huge, tiny, negative, non-finite and empty values, and set_printoptions (precision,
sci_mode, linewidth, edgeitems and threshold, the named profiles)."""
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()
DIFFERENCES = {}
INF, NAN = float("inf"), float("nan")


def printed(lib, options, *values, dtype=None):
    """The reprs of tensors of values under the print options, which are then reset."""
    lib.set_printoptions(**options)
    try:
        return [repr(lib.tensor(v, dtype=dtype)) for v in values]
    finally:
        lib.set_printoptions(profile="default", sci_mode=None)


DTYPE_NAMES = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128", "uint8",
               "int8", "int16", "int32", "int64", "bool")


@scenario
def repr_of_every_dtype(lib):
    out = []
    for name in DTYPE_NAMES:
        d = getattr(lib, name)
        out += [repr(lib.tensor([1, 0, 3], dtype=d)), repr(lib.tensor(2, dtype=d)),
                repr(lib.zeros(0, dtype=d)), repr(lib.zeros(2, 0, dtype=d)), str(d)]
    return out


@scenario
def repr_of_float_magnitudes(lib):
    return printed(lib, {}, [1e-5, 1.0], [1e8, 1.0], [1e-9, 1e9], [123456.0, 0.5],
                   [-1.5, 2.25, -100.0], [0.0, -0.0], [1e20], [1e-20], [INF, -INF, NAN, 1.5],
                   [INF, 1e10], [NAN, 0.001], [1.0, 2.0], [123.456, -7.0],
                   [[1.0, -2.5], [1e3, 4.0]], [1e-4, 1e4], [0.1, 1000.0])


@scenario
def repr_of_float16_and_double(lib):
    return printed(lib, {}, [1.1, -65504.0], [1e-3, 3.0], dtype=lib.float16) + printed(
        lib, {}, [1 / 3, 2e-300], [1e300, -1.0], dtype=lib.float64)


@scenario
def repr_of_integers(lib):
    return printed(lib, {}, [2 ** 40, -3], [-1, 0, 1], [[1, 22], [333, -4]],
                   [9223372036854775807])


@scenario
def repr_of_complex(lib):
    return printed(lib, {}, [1 + 2j, -3.5j, 1e10 + 1j], [INF + 1j, complex(NAN, -1)],
                   [1e-5 + 1e5j], [0j])


@scenario
def repr_with_requires_grad_and_grad_fn(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = x.double().sum()
    return [repr(x), repr(y), repr(z), str(y), repr(y.detach()), repr(x[0]),
            repr(lib.tensor(1.5, requires_grad=True))]


@scenario
def precision_option(lib):
    return printed(lib, {"precision": 2}, [1.23456, 2.5], [1e-5, 1.0], [1 + 2.3456j]) + \
        printed(lib, {"precision": 10}, [1 / 3, 2.0])


@scenario
def sci_mode_option(lib):
    return printed(lib, {"sci_mode": True}, [1.0, 2.5], [0.0]) + \
        printed(lib, {"sci_mode": False}, [1e-9, 1e9], [1e20, 1.0])


@scenario
def linewidth_option(lib):
    return printed(lib, {"linewidth": 20}, [float(i) for i in range(10)], list(range(12))) + \
        printed(lib, {"linewidth": 200}, [float(i) for i in range(30)])


@scenario
def threshold_and_edgeitems(lib):
    big = [float(i) for i in range(2000)]
    grid = [[float(i * 10 + j) for j in range(10)] for i in range(10)]
    return printed(lib, {}, big) + printed(lib, {"threshold": 5}, list(range(8)), grid) + \
        printed(lib, {"threshold": 5, "edgeitems": 1}, grid) + \
        printed(lib, {"edgeitems": 2}, big)


@scenario
def named_profiles(lib):
    values = [[1.123456789, 2.0], [3.0, 4.0]]
    big = list(range(1200))
    return printed(lib, {"profile": "short"}, values, big) + \
        printed(lib, {"profile": "full"}, values, list(range(1001))) + \
        printed(lib, {"profile": "default"}, values)


@scenario
def unknown_profile_is_ignored(lib):
    return printed(lib, {"precision": 2}, [1.23456]) + printed(
        lib, {"profile": "bogus", "linewidth": 30}, [1.23456] * 8)


@scenario
def repr_of_views_and_noncontiguous(lib):
    x = lib.arange(12.0).reshape(3, 4)
    return [repr(x.t()), repr(x[:, ::2]), repr(x[1]), repr(x.expand(2, 3, 4)[1]),
            repr(lib.arange(6).reshape(1, 2, 3)), repr(lib.zeros(1, 0, 2))]


@scenario
def repr_of_numbers_near_integers(lib):
    return printed(lib, {}, [1.0, 2.0000001], [100.0, 1.5e-3], [10000000.0], [1e16, 1.0],
                   [-0.5, 0.25, 1e-3])


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_scenario(name):
    check(SCENARIOS[name])
