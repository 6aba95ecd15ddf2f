"""Cases numpy's docstring examples found wrong on traced values (complex correlate, interp,
nan_to_num and float_power; dict pad widths; size over axes; ix_; wrapped take and choose;
modf's gradient; matmul of a 0-d operand): compiled against numpy, gradients against central
differences in float64."""
import numpy as np
import pytest
import torch

import gradjit
from tests.numpy_api.check import check_grad, check_values, raises_as_numpy

rng = np.random.default_rng(7)
Z3 = rng.standard_normal(3) + 1j * rng.standard_normal(3)


@pytest.mark.parametrize("n, m", [(3, 3), (2, 3), (2, 4), (4, 2), (1, 5), (5, 1)])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_correlate_conjugates_v_and_centres_a_shorter_a(n, m, mode):
    a = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    v = rng.standard_normal(m) + 1j * rng.standard_normal(m)
    check_values(lambda a, v: np.correlate(a, v, mode), a, v, backends=("cpu",))
    check_values(lambda a, v: np.correlate(a, v, mode), a.real, v.real, backends=("cpu",))
    check_grad(lambda a, v: np.correlate(a, v, mode), a.real, v.real, argnums=(0, 1),
               backends=("cpu",))


@pytest.mark.parametrize("kwargs", [{}, {"nan": 111111, "posinf": 222222},
                                    {"nan": -1.5, "neginf": 3.0}])
def test_nan_to_num_of_complex_replaces_each_part(kwargs):
    z = np.array([complex(np.inf, np.nan), np.nan, complex(np.nan, np.inf),
                  complex(-np.inf, 2), 1 + 2j])
    check_values(lambda z: np.nan_to_num(z, **kwargs), z)


def test_array_equal_with_equal_nan_counts_complex_nans():
    a, b = np.array([np.nan + 1j, 2]), np.array([1 + np.nan * 1j, 2])
    for x, y in ((a, b), (a, a), (a, np.array([1 + 1j, 2]))):
        check_values(lambda x, y: np.array_equal(x, y, equal_nan=True), x, y,
                     backends=("cpu",))


@pytest.mark.parametrize("x, y", [(np.array([-8, 8]), 1.5), (Z3, 2.0),
                                  (np.array([2.0, 3.0]), 0.5j)])
def test_float_power_keeps_complex_operands_complex(x, y):
    check_values(lambda x: np.float_power(x, y), x)
    check_values(lambda x: np.float_power(x, 1.5, dtype=complex), np.array([-8, 8]))


@pytest.mark.parametrize("kwargs", [{}, {"left": 1j, "right": 2.0}, {"period": 3.0}])
def test_interp_of_complex_values_is_complex(kwargs):
    x, xp = np.array([1.5, 2.5, 4.0, -1.1]), np.array([0.5, 1.2, 2.8])
    fp = np.array([1j, 0, 2 + 3j])
    check_values(lambda x, xp, fp: np.interp(x, xp, fp, **kwargs), x, xp, fp)
    real = {k: np.real(v) for k, v in kwargs.items()}
    check_grad(lambda x, fp: np.interp(x, xp, fp, **real), x, fp.imag, argnums=(0, 1))


@pytest.mark.parametrize("width", [{1: (1, 2)}, {-1: 2}, {0: (3, 0)}, {0: (3, 0), 1: 2}, {}])
def test_pad_takes_a_dict_of_axis_widths(width):
    x = rng.standard_normal((2, 3))
    check_values(lambda x: np.pad(x, width), x)
    check_values(lambda x: np.pad(x, width, mode="edge"), x)
    check_grad(lambda x: np.pad(x, width, mode="reflect"), x)


@pytest.mark.parametrize("axis", [None, 1, -1, (0, 1), (1,), ()])
def test_size_counts_over_a_tuple_of_axes(axis):
    x = np.zeros((2, 3, 4))
    assert gradjit.jit(lambda x: np.size(x, axis) * x)(x).shape == x.shape
    assert gradjit.jit(lambda x: np.size(x, axis), static_argnums=())(x) == np.size(x, axis)


def test_size_refuses_repeated_and_out_of_range_axes_as_numpy():
    raises_as_numpy(lambda x: np.size(x, (0, 0)), ValueError, np.zeros((2, 3)))
    raises_as_numpy(lambda x: np.size(x, 2), np.exceptions.AxisError, np.zeros((2, 3)))


def test_ix_builds_the_open_mesh_of_traced_indices():
    x = rng.standard_normal((3, 5))
    check_values(lambda x, i, j: x[np.ix_(i, j)], x, np.array([0, 2]), np.array([4, 1, 1]))
    check_values(lambda i: np.ix_([True, False, True], i, []), np.array([2, 4]))
    check_values(lambda i: np.ix_(i * 1.5), np.array([2, 4]))
    check_grad(lambda x: x[np.ix_(np.array([0, 2]), np.array([4, 1, 1]))], x)
    raises_as_numpy(lambda i: np.ix_(i), ValueError, np.ones((2, 2), int))
    check_values(lambda b: np.ix_(b), np.array([True, False, True]))  # a run-time mask


def test_take_and_choose_wrap_indices_computed_at_run_time():
    x, i = rng.standard_normal(3), np.array([[-4, 5], [7, 0]])
    check_values(lambda x, i: np.take(x, i, mode="wrap"), x, i)
    check_values(lambda x, i: np.choose(i, [x[0], 2 * x[1], x[2]], mode="wrap"), x, i)
    check_grad(lambda x: np.take(x, i, mode="wrap"), x)
    raises_as_numpy(lambda x, i: np.take(x, i, mode="wrap"), IndexError, np.zeros(0),
                    np.array([1]))
    raises_as_numpy(lambda x, i: np.take(x, i, mode="spiral"), ValueError, x, i)


def test_modf_has_gradient_one_at_whole_numbers_and_keeps_signed_zeros():
    x = np.array([0.0, -0.0, 3.5, -2.0, -2.5, np.inf, -np.inf, 3.0])
    frac, whole = gradjit.jit(np.modf)(x)
    want_frac, want_whole = np.modf(x)
    np.testing.assert_array_equal(np.signbit(frac), np.signbit(want_frac))
    np.testing.assert_array_equal(frac, want_frac)
    np.testing.assert_array_equal(whole, want_whole)
    check_grad(lambda x: np.modf(x)[0], np.array([0.0, 3.5, -0.25]))
    # across a whole number the fraction jumps; its gradient there is torch.frac's, 1
    whole_numbers = np.array([-2.0, 0.0, 3.0])
    t = torch.tensor(whole_numbers, requires_grad=True)
    torch.frac(t).sum().backward()
    got = gradjit.grad(lambda x: np.modf(x)[0].sum())(whole_numbers)
    np.testing.assert_array_equal(got, t.grad.numpy())


@pytest.mark.parametrize("fn", [np.matmul, np.linalg.matmul])
def test_matmul_of_a_0d_operand_is_numpys_value_error(fn):
    raises_as_numpy(fn, ValueError, np.array([1.0, 2.0]), np.float64(3.0))
    raises_as_numpy(fn, ValueError, np.float64(3.0), np.array([1.0, 2.0]))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64, np.int8,
                                   np.int64, np.bool_])
def test_invert_of_unsigned_integers_flips_every_bit(dtype):
    x = np.array([13, 0, 1, 200 if dtype != np.int8 else 100], dtype=dtype)
    want = np.invert(x)
    got = gradjit.jit(np.invert, backend="interpreter")(x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    if dtype in (np.uint8, np.int8, np.int64, np.bool_):  # torch's integer types
        t = gradjit.bitwise_not(gradjit.tensor(x))
        np.testing.assert_array_equal(t.numpy(), torch.bitwise_not(torch.tensor(x)).numpy())


@pytest.mark.parametrize("fn", [np.sum, np.prod, np.cumsum, np.cumprod, np.nansum, np.nanprod,
                                np.nancumsum, np.nancumprod, np.add.reduce,
                                np.multiply.accumulate, lambda x: np.trace(np.diag(x))],
                         ids=lambda f: getattr(f, "__name__", "trace"))
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.int8, np.bool_])
def test_sums_and_products_of_unsigned_integers_accumulate_in_uint64(fn, dtype):
    x = np.array([3, 4, 5, 1], dtype=dtype)
    want = fn(x)
    got = gradjit.jit(fn, backend="interpreter")(x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_tensor_sums_of_uint8_stay_torchs_int64():
    x = np.array([3, 4, 200], dtype=np.uint8)
    for name in ("sum", "prod", "cumsum"):
        args = (0,) if name == "cumsum" else ()
        got = getattr(gradjit, name)(gradjit.tensor(x), *args)
        want = getattr(torch, name)(torch.tensor(x), *args)
        assert str(got.dtype) == str(want.dtype)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_shapes_that_do_not_broadcast_raise_numpys_value_error():
    for fn, args in ((lambda a, b: a + b, (np.ones(3), np.ones(2))),
                     (lambda a, w: np.mean(a, where=w),
                      (np.ones((0, 3)), np.array([[True], [False], [False]])))):
        with pytest.raises(ValueError):
            fn(*args)
        with pytest.raises(ValueError, match="broadcast"):
            gradjit.jit(fn)(*args)
    with pytest.raises(RuntimeError, match="must match the size"):  # Tensors keep torch's
        gradjit.ones(3) + gradjit.ones(2)


BOOLEANS = (np.array([True, False, True, False]), np.array([True, True, False, False]))


@pytest.mark.parametrize("fn", [np.add, np.multiply, np.maximum, np.minimum,
                                lambda a, b: a + b, lambda a, b: a * b,
                                lambda a, b: np.convolve(a, b), lambda a, b: np.add(a, True)],
                         ids=["add", "multiply", "maximum", "minimum", "plus", "times",
                              "convolve", "add-scalar"])
def test_add_and_multiply_of_booleans_are_or_and_and(fn):
    check_values(fn, *BOOLEANS, backends=("cpu",))


@pytest.mark.parametrize("name", ["add", "mul", "maximum", "minimum"])
def test_tensor_add_and_multiply_of_booleans_are_torchs(name):
    want = getattr(torch, name)(*(torch.tensor(b) for b in BOOLEANS))
    got = getattr(gradjit, name)(*(gradjit.tensor(b) for b in BOOLEANS))
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_a_reshape_that_does_not_hold_the_elements_is_numpys_value_error_with_its_line():
    for shape in ((0, 3), (2, 3)):
        with pytest.raises(ValueError):
            np.reshape(np.zeros(shape), (4,))
        with pytest.raises(ValueError, match=r"invalid for input of size(.|\n)*at .*\.py:\d+"):
            gradjit.jit(lambda a: np.reshape(a, (4,)))(np.zeros(shape))
    with pytest.raises(RuntimeError, match="is invalid for input of size 6"):  # torch's words
        gradjit.zeros(2, 3).reshape(4)


@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((3,), (2,)), ((2, 3), (2,)),
                                    ((4, 2, 3), (2, 5))])
def test_matmul_of_unequal_contracted_sizes_is_numpys_value_error(shapes):
    for fn in (np.matmul, np.linalg.matmul):
        raises_as_numpy(fn, ValueError, *(np.ones(s) for s in shapes))


@pytest.mark.parametrize("a, v", [(np.float64(2.0), np.array([1.0, 2.0])),
                                  (np.array([1j, 2]), np.complex128(1j)),
                                  (np.float64(2.0), np.float64(3.0))])
def test_convolve_takes_0d_operands_as_1d_and_correlate_refuses_them(a, v):
    check_values(np.convolve, a, v, backends=("cpu",))
    check_grad(np.convolve, np.real(a), np.real(v), argnums=(0, 1), backends=("cpu",))
    raises_as_numpy(np.correlate, ValueError, a, v)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8, np.bool_, np.float32])
def test_rint_of_integers_is_the_float_numpy_picks(dtype):
    x = np.array([1, 0, 1], dtype=dtype)
    check_values(np.rint, x, backends=("interpreter",))


def test_average_with_weights_that_sum_to_zero_raises_zero_division():
    fn = gradjit.jit(lambda a, w: np.average(a, axis=0, weights=w))
    np.testing.assert_allclose(fn(np.ones((2, 2)), np.array([1.0, 2.0])), np.ones(2))
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
        np.average(np.ones((2, 2)), axis=0, weights=np.array([1.0, -1.0]))
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
        fn(np.ones((2, 2)), np.array([1.0, -1.0]))


@pytest.mark.parametrize("kwargs", [{"nan": np.array([11, 12, -9999, 13, 14])},
                                    {"posinf": np.arange(5.0), "neginf": np.arange(5)}])
def test_nan_to_num_writes_array_replacements_in_xs_dtype(kwargs):
    x = np.array([np.inf, -np.inf, np.nan, -128, 128], np.float32)
    check_values(lambda x: np.nan_to_num(x, **kwargs), x, backends=("interpreter",))
    check_grad(lambda x: np.nan_to_num(x, **kwargs), np.array([1.0, -2.0, 0.5, 3.0, 4.0]))


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0)])
@pytest.mark.parametrize("fn", [lambda x: np.linalg.norm(x, np.inf),
                                lambda x: np.linalg.vector_norm(x, ord=np.inf),
                                lambda x: np.linalg.norm(x, np.inf, axis=0),
                                lambda x: np.linalg.norm(x, np.inf, axis=-1, keepdims=True)])
def test_inf_norms_of_empty_arrays_are_0_as_numpys_max_starts_from_0(shape, fn):
    check_values(fn, np.zeros(shape), backends=("interpreter",))


@pytest.mark.parametrize("ord", [1, np.inf])
def test_induced_matrix_norms_of_empty_matrices_are_0(ord):
    for shape in ((0, 3), (3, 0)):
        check_values(lambda x: np.linalg.matrix_norm(x, ord=ord), np.zeros(shape),
                     backends=("interpreter",))


def test_tensor_inf_norm_of_an_empty_vector_refuses_as_torch():
    with pytest.raises(RuntimeError):
        torch.linalg.vector_norm(torch.zeros(0), float("inf"))
    with pytest.raises(RuntimeError):
        gradjit.linalg.vector_norm(gradjit.zeros(0), float("inf"))
