"""torch-level settings and queries, and the layout/view Tensor methods, against PyTorch 2.13:
the default dtype, promotion questions, thread and determinism settings, typename,
broadcasting helpers, strides, unfold/unflatten/sum_to_size and the in-place forms."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error


@pytest.fixture
def float64_default():
    gradjit.set_default_dtype(gradjit.float64)
    torch.set_default_dtype(torch.float64)
    yield
    gradjit.set_default_dtype(gradjit.float32)
    torch.set_default_dtype(torch.float32)


FACTORIES = [lambda L: L.tensor(1.5), lambda L: L.tensor([1, 2]), lambda L: L.tensor([True]),
             lambda L: L.zeros(2), lambda L: L.ones(2, 3), lambda L: L.full((2,), 1.5),
             lambda L: L.arange(0.0, 3), lambda L: L.arange(3), lambda L: L.linspace(0, 1, 5),
             lambda L: L.rand(2), lambda L: L.randn(2), lambda L: L.empty(2),
             lambda L: L.eye(2), lambda L: L.Tensor([1, 2]), lambda L: L.tensor([])]


@pytest.mark.parametrize("make", FACTORIES)
def test_set_default_dtype_changes_what_factories_make(make, float64_default):
    assert gradjit.get_default_dtype() is gradjit.float64
    assert str(make(gradjit).dtype) == str(make(torch).dtype)


def test_only_floating_defaults():
    for library in (gradjit, torch):
        with pytest.raises(TypeError, match="only floating-point types are supported"):
            library.set_default_dtype(library.int64)
    assert gradjit.get_default_dtype() is gradjit.float32


OPERANDS = {"i32": lambda L: L.ones(2, dtype=L.int32),
            "u8_0d": lambda L: L.tensor(1, dtype=L.uint8),
            "i8": lambda L: L.ones(2, dtype=L.int8),
            "f64_0d": lambda L: L.tensor(1.0, dtype=L.float64),
            "f16": lambda L: L.ones(2, dtype=L.float16), "bool": lambda L: L.tensor([True]),
            "int": lambda L: 3, "float": lambda L: 2.5, "True": lambda L: True}


@pytest.mark.parametrize("a", OPERANDS)
@pytest.mark.parametrize("b", OPERANDS)
def test_result_type(a, b):
    expected = torch.result_type(OPERANDS[a](torch), OPERANDS[b](torch))
    assert str(gradjit.result_type(OPERANDS[a](gradjit), OPERANDS[b](gradjit))) == str(expected)


DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]


def test_promote_types_and_can_cast():
    for a in DTYPES:
        for b in DTYPES:
            ta, tb, ga, gb = (getattr(L, n) for L in (torch, gradjit) for n in (a, b))
            assert str(gradjit.promote_types(ga, gb)) == str(torch.promote_types(ta, tb)), (a, b)
            assert gradjit.can_cast(ga, gb) == torch.can_cast(ta, tb), (a, b)


def test_queries():
    for L in (gradjit, torch):
        x, i = L.ones(2), L.ones(1, dtype=L.int64)
        assert (L.is_floating_point(x), L.is_floating_point(i), L.is_complex(x)) == \
            (True, False, False)
        assert L.is_nonzero(L.tensor([2])) and not L.is_nonzero(L.tensor(0.0))
        assert L.is_same_size(x, L.zeros(2)) and not L.is_same_size(x, i)
        assert L.ones(3).is_cpu and L.ones(3).get_device() == -1
    assert gradjit.typename(gradjit.ones(2, dtype=gradjit.int64)) == "torch.LongTensor"
    for obj in (3, "a", int, np.float32):
        assert gradjit.typename(obj) == torch.typename(obj)
    assert gradjit.typename(gradjit.nn.Linear) == "gradjit.nn.modules.linear.Linear"


@pytest.mark.parametrize("value", [[], [1.0, 2.0]], ids=["empty", "two"])
def test_is_nonzero_needs_one_value(value):
    with pytest.raises(RuntimeError) as theirs:
        torch.is_nonzero(torch.tensor(value))
    with pytest.raises(RuntimeError, match=str(theirs.value)):
        gradjit.is_nonzero(gradjit.tensor(value))


def test_thread_and_determinism_settings_are_kept():
    gradjit.set_num_threads(3)
    gradjit.set_num_interop_threads(2)
    assert gradjit.get_num_threads() == 3 and gradjit.get_num_interop_threads() == 2
    gradjit.use_deterministic_algorithms(True, warn_only=True)
    assert gradjit.are_deterministic_algorithms_enabled()
    assert gradjit.is_deterministic_algorithms_warn_only_enabled()
    gradjit.use_deterministic_algorithms(False)
    assert not gradjit.are_deterministic_algorithms_enabled()
    for L in (gradjit, torch):
        with pytest.raises(RuntimeError, match="set_num_threads expects a positive integer"):
            L.set_num_threads(0)
        with pytest.raises(RuntimeError, match="set_num_interop_threads expects a positive"):
            L.set_num_interop_threads(0)


@pytest.mark.parametrize("mode", ["default", "warn", "error", 0, 1, 2])
def test_deterministic_debug_mode_matches_pytorch(mode):
    states = []
    for L in (gradjit, torch):
        L.set_deterministic_debug_mode(mode)
        states.append((L.get_deterministic_debug_mode(), L.are_deterministic_algorithms_enabled(),
                       L.is_deterministic_algorithms_warn_only_enabled()))
        L.use_deterministic_algorithms(False)
    assert states[0] == states[1]


@pytest.mark.parametrize("bad", ["x", 3, 1.5, None])
def test_deterministic_debug_mode_errors_match_pytorch(bad):
    same_error(lambda: gradjit.set_deterministic_debug_mode(bad),
               lambda: torch.set_deterministic_debug_mode(bad))


def test_warn_always_storage_and_version_queries_match_pytorch():
    for L in (gradjit, torch):
        assert not L.is_warn_always_enabled()
        L.set_warn_always(True)
        assert L.is_warn_always_enabled()
        L.set_warn_always(False)
        assert L.is_storage(L.ones(2).untyped_storage()) and not L.is_storage(L.ones(2))
    same_error(lambda: gradjit.set_warn_always(1), lambda: torch.set_warn_always(1))
    assert gradjit.version.cuda is torch.version.cuda is None  # CPU builds: no CUDA toolkit
    assert gradjit.version.__version__ == gradjit.__version__


def test_broadcasting_helpers():
    for shapes in [((2, 1), (3,)), ((1,), 4), ((5, 1, 3), (1, 4, 1), ())]:
        assert gradjit.broadcast_shapes(*shapes) == torch.broadcast_shapes(*shapes)
    with pytest.raises(RuntimeError) as theirs:
        torch.broadcast_shapes((2, 3), (4,))
    with pytest.raises(RuntimeError) as ours:
        gradjit.broadcast_shapes((2, 3), (4,))
    assert str(ours.value) == str(theirs.value)
    a, b = gradjit.broadcast_tensors(gradjit.arange(3), gradjit.ones(2, 1))
    ta, tb = torch.broadcast_tensors(torch.arange(3), torch.ones(2, 1))
    np.testing.assert_array_equal(a.numpy(), ta.numpy())
    np.testing.assert_array_equal(b.numpy(), tb.numpy())
    assert gradjit.broadcast_to(gradjit.ones(3), (2, 3)).shape == (2, 3)
    x = gradjit.ones(2, requires_grad=True)
    assert not gradjit.detach(x).requires_grad


VIEWS = {
    "stride": lambda L: L.arange(24.0).reshape(2, 3, 4).stride(),
    "stride_t": lambda L: L.arange(12.0).reshape(3, 4).t().stride(),
    "stride_dim": lambda L: L.arange(12.0).reshape(3, 4).stride(-2),
    "offset": lambda L: L.arange(12.0).reshape(3, 4)[1:, 2:].storage_offset(),
    "offset_fresh": lambda L: (L.ones(3) + 1).storage_offset(),
    "ravel": lambda L: L.arange(6).reshape(2, 3).t().ravel(),
    "torch_ravel": lambda L: L.ravel(L.arange(6).reshape(2, 3)),
    "unflatten": lambda L: L.arange(24).reshape(2, 12).unflatten(1, (3, -1)),
    "torch_unflatten": lambda L: L.unflatten(L.arange(6), 0, (2, 3)),
    "unfold": lambda L: L.arange(7.0).unfold(0, 3, 2),
    "unfold_2d": lambda L: L.arange(20.0).reshape(4, 5).unfold(1, 2, 1),
    "unfold_neg": lambda L: L.arange(20.0).reshape(4, 5).unfold(-2, 4, 3),
    "sum_to_size": lambda L: L.arange(24.0).reshape(2, 3, 4).sum_to_size(3, 1),
    "sum_to_size_same": lambda L: L.arange(6.0).reshape(2, 3).sum_to_size((2, 3)),
    "tril_": lambda L: L.arange(16.0).reshape(4, 4).tril_(-1),
    "triu_": lambda L: L.arange(12).reshape(3, 4).triu_(1),
    "cumsum_": lambda L: L.arange(6.0).reshape(2, 3).cumsum_(1),
    "cumprod_": lambda L: L.arange(1.0, 7).reshape(2, 3).cumprod_(0),
    "fill_diagonal_": lambda L: L.zeros(3, 4).fill_diagonal_(5),
    "fill_diagonal_int": lambda L: L.zeros(3, 3, dtype=L.int64).fill_diagonal_(2.7),
    "fill_diagonal_wrap": lambda L: L.zeros(7, 3).fill_diagonal_(1, wrap=True),
    "fill_diagonal_tall": lambda L: L.zeros(7, 3).fill_diagonal_(1),
    "fill_diagonal_cube": lambda L: L.zeros(2, 2, 2).fill_diagonal_(3),
    "swapaxes_": lambda L: L.arange(6).reshape(2, 3).swapaxes_(0, 1),
    "swapdims_": lambda L: L.arange(6).reshape(1, 2, 3).swapdims_(2, 0),
    "new_empty_strided": lambda L: L.ones(2, dtype=L.int32).new_empty_strided((2, 3), (1, 2))
    .shape,
}


@pytest.mark.parametrize("name", VIEWS)
def test_views_and_in_place_forms(name):
    ours, theirs = VIEWS[name](gradjit), VIEWS[name](torch)
    if isinstance(theirs, torch.Tensor):
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    else:
        assert ours == theirs


def test_in_place_forms_return_self_and_carry_gradients():
    grads = []
    for L in (gradjit, torch):
        x = L.arange(1.0, 10).reshape(3, 3).requires_grad_()
        y = x * x
        assert y.cumsum_(1) is y and y.tril_() is y
        y.sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(*grads)
    x = gradjit.arange(6.0, requires_grad=True)
    x.unfold(0, 3, 2).sum().backward()
    assert x.grad.tolist() == [1, 1, 2, 1, 1, 0]


ERRORS = [lambda L: L.ones(2, 3).sum_to_size(4), lambda L: L.ones(3).fill_diagonal_(1),
          lambda L: L.ones(2, 3, 4).fill_diagonal_(1), lambda L: L.ones(5).unfold(0, 6, 1),
          lambda L: L.ones(5).unfold(0, 2, 0), lambda L: L.ones(6).unflatten(0, (4, -1)),
          lambda L: L.ones(6).unflatten(0, (4, 2)), lambda L: L.ones(2, 3).stride(5)]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_pytorch(call):
    same_error(lambda: call(gradjit), lambda: call(torch))
