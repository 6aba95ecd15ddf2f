"""The legacy tensor types (torch.FloatTensor, ...) against PyTorch: constructors, isinstance,
Tensor.type and set_default_tensor_type."""
import warnings

import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")

NAMES = ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor", "ByteTensor",
         "CharTensor", "ShortTensor", "HalfTensor", "BFloat16Tensor"]
DATA = [[1, 0, 2], [1.7, -2.5], [[1, 2], [3, 4]], (2, 3), [], np.arange(3.0)]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("data", DATA, ids=str)
def test_data_gives_torchs_values_and_dtype(name, data):
    try:
        theirs = getattr(torch, name)(data)
    except RuntimeError:
        return same_error(lambda: getattr(gradjit, name)(data), lambda: getattr(torch, name)(data))
    ours = getattr(gradjit, name)(data)
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("sizes", [(2, 3), (0,), (2, 0)])
def test_sizes_give_a_tensor_of_that_shape(sizes):
    assert tuple(gradjit.FloatTensor(*sizes).shape) == tuple(torch.FloatTensor(*sizes).shape)
    assert tuple(gradjit.LongTensor(gradjit.Size(sizes)).shape) == \
        tuple(torch.LongTensor(torch.Size(sizes)).shape)
    assert tuple(gradjit.Tensor(gradjit.Size(sizes)).shape) == \
        tuple(torch.Tensor(torch.Size(sizes)).shape)


def test_a_tensor_of_the_same_type_is_aliased():
    for lib in (gradjit, torch):
        a = lib.ones(2, requires_grad=True)
        b = lib.FloatTensor(a)
        assert b.requires_grad and type(b.grad_fn).__name__ == "AliasBackward0"
        b.sum().backward()
        assert a.grad.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("call", [
    "FloatTensor(lib.ones(2, dtype=lib.float64))", "LongTensor(lib.ones(2))",
    "FloatTensor(2.5)", "FloatTensor('a')", "FloatTensor(-1)", "IntTensor(2, -3)",
    "ByteTensor(lib.ones(1, dtype=lib.int16))", "HalfTensor(lib.ones(1))"])
def test_errors_match_torch(call):
    same_error(lambda: eval("lib." + call, {"lib": gradjit}),
               lambda: eval("lib." + call, {"lib": torch}))


@pytest.mark.parametrize("name", NAMES)
def test_isinstance_checks_dtype_and_device(name):
    for dtype in ("float32", "float64", "int64", "bool", "uint8"):
        ours = isinstance(gradjit.zeros(2, dtype=getattr(gradjit, dtype)), getattr(gradjit, name))
        theirs = isinstance(torch.zeros(2, dtype=getattr(torch, dtype)), getattr(torch, name))
        assert ours == theirs
    assert not isinstance(gradjit.zeros(2), gradjit.cuda.FloatTensor)
    assert getattr(gradjit, name).dtype is getattr(gradjit, str(getattr(torch, name).dtype)[6:])
    assert repr(getattr(gradjit, name)) == repr(getattr(torch, name))
    assert repr(getattr(gradjit.cuda, name)) == repr(getattr(torch.cuda, name))


@pytest.mark.parametrize("target", ["DoubleTensor", "IntTensor", "'torch.LongTensor'",
                                    "'torch.HalfTensor'", "lib.float64"])
def test_type_casts_to_a_legacy_type_or_its_name(target):
    def cast(lib):
        t = eval(target if target[0] in "'l" else "lib." + target, {"lib": lib})
        return lib.tensor([1.5, -2.0]).type(t)
    ours, theirs = cast(gradjit), cast(torch)
    assert str(ours.dtype) == str(theirs.dtype) and ours.tolist() == theirs.tolist()
    assert ours.type() == theirs.type()


def test_type_refuses_an_unknown_name():
    same_error(lambda: gradjit.ones(1).type("torch.Foo"), lambda: torch.ones(1).type("torch.Foo"))
    same_error(lambda: gradjit.ones(1).type("float"), lambda: torch.ones(1).type("float"))


def test_set_default_tensor_type_sets_the_default_dtype_and_warns():
    try:
        with pytest.warns(UserWarning, match="deprecated as of PyTorch 2.1"):
            gradjit.set_default_tensor_type(gradjit.DoubleTensor)
        assert gradjit.tensor([1.0]).dtype is gradjit.float64
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gradjit.set_default_tensor_type("torch.FloatTensor")
            assert gradjit.ones(1).dtype is gradjit.float32
            same_error(lambda: gradjit.set_default_tensor_type(gradjit.LongTensor),
                       lambda: torch.set_default_tensor_type(torch.LongTensor))
    finally:
        gradjit.set_default_dtype(gradjit.float32)


def test_several_data_arguments_or_an_unknown_cuda_name_are_refused():
    with pytest.raises(TypeError, match=r"invalid combination of arguments - got \(list, list\)"):
        gradjit.FloatTensor([1], [2])
    with pytest.raises(AttributeError, match="no attribute 'FooTensor'"):
        _ = gradjit.cuda.FooTensor
