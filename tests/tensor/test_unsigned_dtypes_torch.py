"""torch.uint16, uint32 and uint64 against PyTorch 2.13: names, storage, casts, printing,
the checks of torch.tensor, and promotion (to floats only: PyTorch refuses to promote them
with any other integer or bool type)."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

NAMES = ["uint16", "uint32", "uint64"]
VALUES = [0, 1, 2, 255, 65535]


def _both(fn, name):
    return [fn(L, getattr(L, name)) for L in (gradjit, torch)]


@pytest.mark.parametrize("name", NAMES)
def test_dtype_attributes(name):
    ours, theirs = _both(lambda L, dt: dt, name)
    assert repr(ours) == repr(theirs)
    assert (ours.is_signed, ours.itemsize, ours.is_floating_point) == \
        (theirs.is_signed, theirs.itemsize, theirs.is_floating_point)
    assert repr(gradjit.iinfo(ours)) == repr(torch.iinfo(theirs))
    assert (gradjit.iinfo(ours).max, gradjit.iinfo(ours).bits) == \
        (torch.iinfo(theirs).max, torch.iinfo(theirs).bits)


SHOWN = [lambda L, dt: L.tensor(VALUES, dtype=dt), lambda L, dt: L.tensor(7, dtype=dt),
         lambda L, dt: L.tensor([], dtype=dt), lambda L, dt: L.zeros(2, 3, dtype=dt),
         lambda L, dt: L.tensor([[1, 2], [3, 4]], dtype=dt) * 3,
         lambda L, dt: L.full((2,), L.iinfo(dt).max, dtype=dt),
         lambda L, dt: L.tensor([1.7, -1.0, -3.5, 7e4]).to(dt),
         lambda L, dt: L.tensor([-1, 2 ** 33, 70000]).to(dt),
         lambda L, dt: L.tensor([True, False]).to(dt),
         lambda L, dt: L.tensor(VALUES, dtype=dt).to(L.int8),
         lambda L, dt: L.tensor(VALUES, dtype=dt).float(),
         lambda L, dt: L.tensor(VALUES, dtype=dt).double() / 2,
         lambda L, dt: L.tensor(VALUES, dtype=dt).sum(),
         lambda L, dt: L.tensor(VALUES, dtype=dt) == 2,
         lambda L, dt: L.tensor(VALUES, dtype=dt) * L.tensor(VALUES, dtype=dt),
         lambda L, dt: L.cat([L.tensor(VALUES, dtype=dt)] * 2),
         lambda L, dt: L.from_numpy(np.array(VALUES, dtype=str(dt).split(".")[1])),
         lambda L, dt: (L.manual_seed(0), L.randint(0, 5, (6,), dtype=dt))[1]]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("make", SHOWN)
def test_values_dtypes_and_printing(name, make):
    ours, theirs = _both(make, name)
    assert repr(ours) == repr(theirs)
    assert ours.tolist() == theirs.tolist()
    assert ours.numpy().dtype == theirs.numpy().dtype


@pytest.mark.parametrize("name", NAMES)
def test_storage_type_names_and_items(name):
    ours, theirs = _both(lambda L, dt: L.tensor(VALUES, dtype=dt), name)
    assert ours.type() == theirs.type()
    assert ours.element_size() == theirs.element_size()
    assert ours[-1].item() == theirs[-1].item() and type(ours[-1].item()) is int
    assert hasattr(gradjit, f"UInt{name[4:]}Tensor") == hasattr(torch, f"UInt{name[4:]}Tensor")


def test_the_largest_uint64_values():
    for value in (2 ** 63, 2 ** 64 - 1):
        ours, theirs = _both(lambda L, dt: L.tensor([value, 1], dtype=dt), "uint64")
        assert repr(ours) == repr(theirs) and ours.tolist() == theirs.tolist()


PROMOTED = [lambda L, a: a * 2, lambda L, a: 3 * a, lambda L, a: a * 1.5,
            lambda L, a: a * L.ones(5), lambda L, a: a * L.ones(5, dtype=L.float64),
            lambda L, a: a * L.tensor(2), lambda L, a: a * L.tensor(2.5),
            lambda L, a: L.tensor([True] * 5) * 1.5 + a]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("fn", PROMOTED)
def test_promotion_to_floats_and_with_numbers(name, fn):
    ours, theirs = _both(lambda L, dt: fn(L, L.tensor(VALUES, dtype=dt)), name)
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.numpy().astype(float), theirs.numpy().astype(float))


REFUSED = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("other", REFUSED)
def test_promotion_with_other_integers_is_refused(name, other):
    if other == name:
        return
    for first in (True, False):
        def call(L):
            a = L.tensor([1, 2], dtype=getattr(L, name))
            b = L.tensor([1, 0], dtype=getattr(L, other))
            return a * b if first else b * a
        same_error(lambda: call(gradjit), lambda: call(torch))


@pytest.mark.parametrize("data, name", [([-1], "uint64"), ([1.5], "uint64"), ([2 ** 64], "uint64"),
                                        ([[1, 2], [3, -4]], "uint64"), ([2 ** 32], "uint32"),
                                        ([70000], "uint16"), ([-70000], "uint16")])
def test_torch_tensor_checks_the_numbers(data, name):
    same_error(lambda: gradjit.tensor(data, dtype=getattr(gradjit, name)),
               lambda: torch.tensor(data, dtype=getattr(torch, name)))


@pytest.mark.parametrize("data, name", [([-1], "uint32"), ([-5, 3], "uint16")])
def test_negative_numbers_wrap_as_torchs(data, name):
    ours, theirs = (L.tensor(data, dtype=getattr(L, name)) for L in (gradjit, torch))
    assert ours.tolist() == theirs.tolist()
