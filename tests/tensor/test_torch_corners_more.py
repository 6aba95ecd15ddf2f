"""PyTorch's answers in small corners: float -> int casts of NaN, inf and out-of-range values,
complex -> real casts, out-of-range indices of the index_* family, and what torch.tensor
refuses; eager and under gradjit.compile, compared with torch (and numpy under jit)."""
import warnings

import numpy as np
import pytest
import torch

import gradjit
from gradjit.tensor import dtype_device

SPECIAL = [np.nan, np.inf, -np.inf, 1e20, -1e20, 3e9, -3e9, 2.0 ** 31, -2.0 ** 31, 2.0 ** 63,
           1.7e19, 1e5, 200.0, -1.0, 2.5, -2.5, -0.0]
INTEGERS = ["int64", "int32", "int16", "int8", "uint8", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("source", ["float32", "float64"])
@pytest.mark.parametrize("target", INTEGERS)
def test_float_to_int_casts_give_torchs_values_eager_and_compiled(source, target):
    x = np.array(SPECIAL * 3, source)  # long enough for the vector loop
    expected = torch.from_numpy(x).to(getattr(torch, target)).numpy()
    eager = gradjit.from_numpy(x.copy()).to(getattr(gradjit, target)).numpy()
    compiled = gradjit.compile(lambda t: (t * 1).to(getattr(gradjit, target)))(
        gradjit.from_numpy(x.copy())).numpy()
    np.testing.assert_array_equal(eager, expected)
    np.testing.assert_array_equal(compiled, expected)


@pytest.mark.parametrize("name", ["long", "int"])
def test_short_cast_names_and_trunc_give_torchs_minimum_integer(name):
    values = [np.nan, np.inf, -np.inf]
    ours, theirs = gradjit.tensor(values), torch.tensor(values)
    assert getattr(ours, name)().tolist() == getattr(theirs, name)().tolist()
    assert gradjit.trunc(ours).long().tolist() == torch.trunc(theirs).long().tolist()


@pytest.mark.parametrize("target", INTEGERS)
def test_numpy_casts_under_jit_keep_numpys_values(target):
    x = np.array(SPECIAL * 3)
    with np.errstate(invalid="ignore"):
        expected = x.astype(target)
    np.testing.assert_array_equal(gradjit.jit(lambda v: (v * 1).astype(target))(x), expected)


def test_complex_to_real_cast_warns_once_as_torch():
    dtype_device._IMAGINARY_WARNED.clear()
    c = gradjit.tensor([1 + 2j])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert c.to(gradjit.float32).tolist() == [1.0]
        assert c.float().tolist() == [1.0]
        assert c.real.tolist() == [1.0] and c.bool().tolist() == [True]  # neither warns
    assert [w.category for w in caught] == [UserWarning]
    assert str(caught[0].message).startswith(
        "Casting complex values to real discards the imaginary part")
    assert caught[0].filename == __file__


def _outcome(lib, op, rank, dim, position):
    source = lib.arange(24.0)[: [1, 3, 6, 24][rank]].reshape([(), (3,), (2, 3), (2, 3, 4)][rank])
    index = lib.tensor([position])
    try:
        if op == "index_select":
            out = lib.index_select(source, dim, index)
        elif op == "index_fill":
            out = source.index_fill(dim, index, 7.0)
        else:
            shape = list(source.shape)
            if dim < len(shape) > 0:  # (a dim past the rank: the dim check's error)
                shape[dim] = 1
            out = getattr(source, op)(dim, index, lib.ones(shape))
        return out.tolist()
    except (IndexError, RuntimeError) as e:
        return type(e), str(e).split("\n")[0]


@pytest.mark.parametrize("op", ["index_select", "index_add", "index_copy", "index_fill"])
@pytest.mark.parametrize("rank", [0, 1, 2, 3])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("position", [5, -5, -1, 0])
def test_index_family_out_of_range_as_torch(op, rank, dim, position):
    assert _outcome(gradjit, op, rank, dim, position) == _outcome(torch, op, rank, dim, position)


def test_index_fill_counts_negative_indices_back_compiled():
    x, index = np.arange(6.0).reshape(2, 3), [-1, 0]
    expected = torch.from_numpy(x).index_fill(1, torch.tensor(index), 7.0).numpy()
    fill = gradjit.compile(lambda t, i: t.index_fill(1, i, 7.0))
    np.testing.assert_array_equal(fill(gradjit.from_numpy(x), gradjit.tensor(index)).numpy(),
                                  expected)


FLIPPED = np.arange(6.0).reshape(2, 3)[::-1]
CONSTRUCTIONS = {
    "negative_strides": lambda lib: lib.tensor(FLIPPED),
    "negative_strides_columns": lambda lib: lib.tensor(FLIPPED.T[::-1]),
    "from_numpy_negative_strides": lambda lib: lib.from_numpy(FLIPPED),
    "dtype_name": lambda lib: lib.tensor([1.0, 2.0], dtype="float32"),
    "numpy_dtype": lambda lib: lib.tensor([1.0], dtype=np.dtype("float32")),
    "numpy_type": lambda lib: lib.tensor([1.0], dtype=np.float32),
    "python_type": lambda lib: lib.tensor([1], dtype=float),
    "two_element_tensors": lambda lib: lib.tensor([lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])]),
    "one_element_tensors": lambda lib: lib.tensor([lib.tensor([1.0]), lib.tensor([2.0])]),
    "nested_one_element": lambda lib: lib.tensor([[lib.tensor([1]), 2]]),
}


@pytest.mark.parametrize("name", CONSTRUCTIONS)
def test_tensor_construction_refuses_and_reads_as_torch(name):
    def outcome(lib):
        try:
            out = CONSTRUCTIONS[name](lib)
            return out.tolist(), str(out.dtype)
        except (TypeError, ValueError) as e:
            return type(e), str(e)
    assert outcome(gradjit) == outcome(torch)


NUMBER_FUNCTIONS = {
    "tensor_of_a_float": (lambda lib, a, b: lib.tensor(a) * b, (2.0, 3)),
    "sin_of_a_tensor": (lambda lib, a, b: lib.sin(lib.tensor(a)) + b, (0.5, 1.0)),
    "arange_scaled": (lambda lib, a, b: lib.arange(3.0) * a + b, (2.0, 1.0)),
    "numbers_alone": (lambda lib, a, b: a * b + 1, (2.0, 1.5)),
    "tensor_and_number": (lambda lib, a, b: (lib.tensor([a, b]), a - b), (2.0, 0.5)),
}


def _described(out):
    """Each returned leaf's type (any library's tensor as Tensor), dtype and values."""
    def leaf(x):
        if isinstance(x, (torch.Tensor, gradjit.Tensor)):
            return "Tensor", str(x.dtype).split(".")[-1], x.tolist()
        return type(x).__name__, x
    return [leaf(x) for x in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("name", NUMBER_FUNCTIONS)
def test_compile_of_number_arguments_returns_what_eager_returns(name):
    fn, args = NUMBER_FUNCTIONS[name]
    compiled = gradjit.compile(lambda *a: fn(gradjit, *a))
    expected = _described(fn(torch, *args))
    assert _described(compiled(*args)) == expected  # traced
    assert _described(compiled(*args)) == expected  # from the cache


@pytest.mark.parametrize("target", ["float32", "int64", "bool", "complex64", "uint8"])
@pytest.mark.parametrize("given", ["float64", "int32", "bool", "complex128"])
@pytest.mark.parametrize("shape", [(3,), ()])
def test_setitem_of_a_numpy_array_is_refused_as_torch(target, given, shape):
    def outcome(lib):
        t = lib.zeros(2, 3, dtype=getattr(lib, target))
        try:
            t[0] = np.ones(shape, given)
            return t.tolist()
        except TypeError as e:
            return str(e)
    assert outcome(gradjit) == outcome(torch)


def test_setitem_of_a_numpy_scalar_writes_it_as_torch():
    ours, theirs = gradjit.zeros(2, 3), torch.zeros(2, 3)
    ours[0], theirs[0] = np.float64(2.5), np.float64(2.5)
    assert ours.tolist() == theirs.tolist()
