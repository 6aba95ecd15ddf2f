"""PyTorch's serialization suite (test_serialization.py) side by side with torch: torch.save
and torch.load of every dtype (those without a typed storage class go through the untyped
storage, as torch writes them), views sharing a storage, strides, parameters, state_dicts,
paths and map_location, and files written by the other library."""
import collections
import io
import os
import pathlib
import tempfile

import pytest
import torch

import gradjit
from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()
DTYPES = ("float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32",
          "int64", "uint16", "uint32", "uint64", "bool", "complex32", "complex64", "complex128")


def round_trip(lib, obj, writer=None, **load_options):
    """obj saved by `writer` (default: lib) into memory and loaded back by lib."""
    buffer = io.BytesIO()
    (writer or lib).save(obj, buffer)
    buffer.seek(0)
    return lib.load(buffer, **load_options)


def other(lib):
    return gradjit if lib is torch else torch


def comparable(t):
    """A loaded tensor as its dtype's name and values numpy holds for every dtype."""
    return str(t.dtype), t.to(t.dtype.to_complex() if t.is_complex() else t.dtype).to(
        "cpu").to(torch.complex128 if isinstance(t, torch.Tensor) and t.is_complex() else
                  gradjit.complex128 if t.is_complex() else
                  torch.float64 if isinstance(t, torch.Tensor) else gradjit.float64)


def values(lib, dt):
    x = lib.arange(12).reshape(3, 4)
    if dt.startswith("complex"):
        x = x * (1 + 0.5j)
    return x.to(getattr(lib, dt))


def dtype_round_trip(dt, from_other):
    def run(lib):
        writer = other(lib) if from_other else lib
        x = values(writer, dt)
        loaded = round_trip(lib, {"x": x, "row": x[1], "t": x.t()}, writer)
        loaded["x"][1, 1] = 1  # the row is a view of the same storage, as it was saved
        return ([comparable(loaded[k]) for k in ("x", "row", "t")], loaded["t"].stride(),
                loaded["row"].storage_offset())
    run.__name__ = f"{dt}_{'from_the_other_library' if from_other else 'round_trip'}"
    scenario(run)


for _dt in DTYPES:
    dtype_round_trip(_dt, False)
    dtype_round_trip(_dt, True)


@scenario
def nested_containers(lib):
    obj = {"a": [lib.ones(2), (lib.zeros(1), 3)], "b": collections.OrderedDict(x=lib.tensor(2.5)),
           "s": "text", "n": None, "f": 1.5, "set": {1, 2}}
    loaded = round_trip(lib, obj)
    return loaded, type(loaded["b"]).__name__, type(loaded["a"][1]).__name__


@scenario
def views_share_one_storage(lib):
    x = lib.arange(10.)
    a, b, c = round_trip(lib, [x, x[2:5], x])
    b[0] = 100.
    return a, b, c is a, b.stride(), b.storage_offset()


@scenario
def non_contiguous(lib):
    loaded = round_trip(lib, lib.arange(12.).reshape(3, 4).t()[1:])
    return loaded, loaded.stride(), loaded.is_contiguous()


@scenario
def empty_and_scalar(lib):
    return round_trip(lib, [lib.zeros(0, 3), lib.tensor(7), lib.zeros(2, 0, dtype=lib.int16)])


@scenario
def requires_grad_and_parameters(lib):
    x, p = round_trip(lib, [lib.ones(2, requires_grad=True), lib.nn.Parameter(lib.ones(2))])
    return (x.requires_grad, x.is_leaf, type(p).__name__, p.requires_grad, p,
            round_trip(lib, lib.nn.Parameter(lib.ones(1), requires_grad=False)).requires_grad)


def state_dict_of(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))
    model(lib.ones(4, 2))  # the batch norm's running statistics move
    return model.state_dict()


@scenario
def module_state_dict(lib):
    loaded = round_trip(lib, state_dict_of(lib))
    theirs = round_trip(lib, state_dict_of(other(lib)), other(lib))
    return (list(loaded), type(loaded).__name__, loaded["1.num_batches_tracked"],
            loaded._metadata["1"], loaded["1.running_mean"], list(theirs),
            theirs["1.running_var"])


@scenario
def whole_module_needs_weights_only_false(lib):
    loaded = round_trip(lib, lib.nn.Linear(2, 2), weights_only=False)
    return type(loaded).__name__, tuple(loaded.weight.shape)


@scenario
def paths_and_map_location(lib):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "x.pt")
        lib.save({"w": lib.ones(3)}, path)
        lib.save(lib.arange(3), pathlib.Path(folder) / "y.pt")
        return (lib.load(path), lib.load(pathlib.Path(folder) / "y.pt"),
                lib.load(path, map_location="cpu")["w"].device.type,
                lib.load(path, map_location=lambda storage, location: storage)["w"],
                lib.load(path, mmap=True)["w"])


@scenario
def load_a_missing_file(lib):
    return lib.load("/nonexistent/folder/file.pt")


@scenario
def dtypes_and_sizes_as_values(lib):
    loaded = round_trip(lib, {"dtype": lib.float16, "size": lib.ones(2, 3).shape,
                              "device": lib.device("cpu")})
    return loaded["dtype"], loaded["size"], str(loaded["device"])


@pytest.mark.parametrize("name", cases(SCENARIOS, {}))
def test_serialization_scenario_matches_torch(name):
    check(SCENARIOS[name])
