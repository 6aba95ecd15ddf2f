"""PyTorch's numpy-interop suite (test_numpy_interop.py) side by side with torch: from_numpy,
tensor and as_tensor of every dtype numpy and torch share (memory shared or copied), strided,
empty, broadcast and Fortran-ordered arrays, non-writable arrays, lists of arrays, numpy
scalars in arithmetic, indexing with numpy values, and the refusals of what torch cannot
hold."""

import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()
DTYPES = ("float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8", "bool",
          "complex64", "complex128", "uint16", "uint32", "uint64")


def conversions(dt):
    def run(lib):
        a = (np.arange(6).reshape(2, 3) % 2).astype(dt)
        shared = lib.from_numpy(a)
        a[0, 0] = 1
        copied, as_tensor = lib.tensor(a), lib.as_tensor(a)
        a[0, 1] = 1
        return (shared, copied, as_tensor, shared.numpy().dtype.name,
                lib.tensor(a).numpy().dtype.name)
    run.__name__ = f"conversions_{dt}"
    scenario(run)


for _dt in DTYPES:
    conversions(_dt)


@scenario
def strided_empty_and_scalar_arrays(lib):
    sliced = lib.from_numpy(np.arange(12.0).reshape(3, 4)[:, ::2])
    fortran = lib.from_numpy(np.asfortranarray(np.arange(6.0).reshape(2, 3)))
    broadcast = np.broadcast_to(np.arange(3.0), (2, 3))
    return (sliced, sliced.stride(), fortran, fortran.stride(), fortran.is_contiguous(),
            lib.from_numpy(broadcast), lib.tensor(broadcast), lib.from_numpy(np.zeros((0, 3))),
            lib.from_numpy(np.array(3.0)), lib.from_numpy(np.zeros((2, 0, 2), dtype=np.int8)))


def refusal(name, call):
    def run(lib):
        return call(lib)
    run.__name__ = name
    scenario(run)


for _name, _call in {
        "negative_strides": lambda L: L.from_numpy(np.arange(4.0)[::-1]),
        "object_array": lambda L: L.from_numpy(np.array([1, "a"], dtype=object)),
        "big_endian": lambda L: L.from_numpy(np.arange(3, dtype=">f8")),
        "not_an_array": lambda L: L.from_numpy([1, 2]),
        "long_double": lambda L: L.from_numpy(np.ones(2, dtype=np.longdouble)),
        "datetime": lambda L: L.tensor(np.array(["2020-01-01"], dtype="datetime64[D]")),
        "numpy_of_a_tensor_requiring_grad": lambda L: L.ones(2, requires_grad=True).numpy(),
        "numpy_of_bfloat16": lambda L: L.ones(2, dtype=L.bfloat16).numpy(),
        "lists_of_arrays_of_two_lengths":
            lambda L: L.tensor([np.array([1, 2]), np.array([3])])}.items():
    refusal(_name, _call)


@scenario
def numpy_shares_memory_both_ways(lib):
    t = lib.zeros(3)
    a = t.numpy()
    a[0] = 5
    t[1] = 7
    return t, a, lib.ones(2, requires_grad=True).numpy(force=True)


@scenario
def array_protocol(lib):
    t = lib.arange(4.0).reshape(2, 2)
    return (np.asarray(t), np.asarray(t, dtype=np.int32), np.array(t).dtype.name,
            np.add(t.numpy(), 1))


@scenario
def lists_of_arrays(lib):
    return (lib.tensor([np.array([1.0, 2.0]), np.array([3.0, 4.0])]),
            lib.tensor([np.array([1, 2], dtype=np.int32)]),
            lib.tensor([np.array([1.0, 2.0], dtype=np.float32), np.array([3, 4])]),
            lib.tensor([np.array([1, 2], dtype=np.int16), [3, 4]]),
            lib.tensor([[3, 4], np.array([1, 2], dtype=np.int16)]),
            lib.tensor([np.array([1, 2], dtype=np.int16), [3.5, 4]]),
            lib.tensor([np.array([], dtype=np.float32)]),
            lib.tensor([np.float32(1), np.array(2.0, dtype=np.float16)]))


@scenario
def numpy_scalars(lib):
    t = lib.tensor([1.0, 2.0])
    return (t * np.float64(2), (t + np.int64(1)).dtype,
            (lib.tensor([1, 2]) * np.float32(1.5)).dtype,
            (lib.tensor([1, 2], dtype=lib.int8) + np.int64(1)).dtype, np.float64(2) * t,
            lib.tensor(np.float32(1.5)), lib.tensor(np.int16(3)), lib.tensor(np.bool_(True)),
            lib.tensor([np.float32(1), np.float32(2)]), lib.tensor(np.complex64(1 + 2j)),
            t == np.array([1.0, 3.0]))


@scenario
def indexing_with_numpy_values(lib):
    t = lib.arange(10.0)
    written = lib.zeros(5)
    written[np.int32(0)] = np.float64(9)
    return (t[np.array([1, 3])], t[np.int64(2)], t[np.array([True, False] * 5)],
            t[np.array(3)], written)


@pytest.mark.parametrize("name", cases(SCENARIOS, {}))
def test_numpy_interop_scenario_matches_torch(name):
    check(SCENARIOS[name])


def test_torchs_warnings_for_slow_or_unsafe_conversions():
    """PyTorch gives these once a process, so they are checked here in gradjit alone."""
    import gradjit
    frozen = np.arange(3.0)
    frozen.flags.writeable = False
    with pytest.warns(UserWarning, match="The given NumPy array is not writable"):
        gradjit.from_numpy(frozen)
    with pytest.warns(UserWarning, match="list of numpy.ndarrays is extremely slow"):
        gradjit.tensor([np.ones(2), np.zeros(2)])
