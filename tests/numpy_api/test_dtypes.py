"""numpy's dtype queries, real/complex predicates, modf/frexp/i0, diagflat/unstack/
matrix_transpose/empty_like and the index helpers on traced values: compiled results against
numpy (values and dtypes), gradients against central differences, and the functions whose
shape depends on the data refused on run-time values with the user's line."""
import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import raises_as_numpy
from tests.numpy_api.check import check_grad, check_values

rng = np.random.default_rng(5)
X = rng.uniform(0.5, 1.5, (4, 4))
SPECIAL = np.array([0.0, -0.0, 1.5, -2.0, -2.5, np.inf, -np.inf, np.nan, 1e-310, -3e-320,
                    5e-324, 1.7976931348623157e308, 0.5, 1.0, 2.0 ** 52 + 0.5, -7.25])


def _jit_types(fn, *args):
    """Results that are types or Python values, compared directly (check_values needs arrays)."""
    assert gradjit.jit(lambda *a: np.zeros(()) if fn(*a) == fn(*args) else np.ones(()))(
        *args) == 0


@pytest.mark.parametrize("fn", [
    lambda a: np.result_type(a), lambda a: np.result_type(a, np.float32),
    lambda a: np.result_type(a.astype(np.int8), 3), lambda a: np.result_type(a, 1j),
    lambda a: np.result_type(a.astype(np.float32), a[0, 0].astype(np.float64)),
    lambda a: np.common_type(a), lambda a: np.common_type(a.astype(np.int32)),
    lambda a: np.common_type(a.astype(np.float16), a.astype(np.float32)),
    lambda a: np.min_scalar_type(a), lambda a: np.min_scalar_type(a.astype(np.int16)),
    lambda a: np.isrealobj(a), lambda a: np.iscomplexobj(a),
])
def test_dtype_queries(fn):
    want = fn(X)
    got = []
    gradjit.jit(lambda a: got.append(fn(a)) or a)(X)
    assert got == [want]


def test_dtype_query_of_a_traced_python_number():
    got = []
    gradjit.jit(lambda a, s: got.append(np.result_type(a.astype(np.float32), s)) or a)(X, 2.0)
    assert got == [np.result_type(np.float32, 2.0)]


def test_min_scalar_type_of_a_runtime_scalar_is_refused():
    with pytest.raises(TypeError, match=r"np.min_scalar_type is not supported(.|\n)*test_dtypes"):
        gradjit.jit(lambda a: np.min_scalar_type(a.sum()))(X)


def test_common_type_of_bools_is_numpy_error():
    with pytest.raises(TypeError, match="non-numeric"):
        gradjit.jit(lambda a: np.common_type(a > 1))(X)


@pytest.mark.parametrize("fn", [
    lambda a: np.isneginf(a), lambda a: np.isposinf(a), lambda a: np.isreal(a),
    lambda a: np.iscomplex(a), lambda a: np.isreal(a[0, 0]), lambda a: np.iscomplex(a[0]),
    lambda a: np.isposinf(np.int32(3) * (a > 1).astype(np.int32)),
])
def test_predicates(fn):
    x = np.where(X > 1, np.inf, X)
    x[0, :2] = -np.inf, np.nan
    check_values(fn, x, backends=("cpu",))


def test_isneginf_into_a_numpy_array_is_refused():
    out = np.empty((4, 4), bool)  # made outside the function: numpy's own array
    with pytest.raises(TypeError, match="the destination is a numpy array"):
        gradjit.jit(lambda a: np.isneginf(a, out=out))(X)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.int16, np.int64,
                                   np.bool_])
@pytest.mark.parametrize("name", ["modf", "frexp"])
def test_modf_frexp_values_and_dtypes(name, dtype):
    fn = getattr(np, name)
    with np.errstate(invalid="ignore", over="ignore"):
        x = SPECIAL.astype(dtype) if dtype != np.bool_ else SPECIAL > 1
    # the cpu backend compiles no float16 (what numpy gives int8 and bools) or int16
    small = dtype in (np.int8, np.int16, np.bool_)
    check_values(lambda a: fn(a), x, backends=("interpreter",) if small else ("cpu",), rtol=0,
                 atol=0)


def test_modf_frexp_gradients():
    x = rng.uniform(-5, 5, 8)
    check_grad(lambda a: np.modf(a)[0] + 3 * np.modf(a)[1], x, backends=("cpu",))
    check_grad(lambda a: np.frexp(a)[0], x, backends=("cpu",))


def test_i0_values_and_gradient():
    x = np.concatenate([np.linspace(-30, 30, 41), [0.0, 8.0, -8.0, 7.999, 8.001, np.nan]])
    check_values(lambda a: np.i0(a), x, backends=("cpu",), rtol=1e-14)
    check_values(lambda a: np.i0(a), x.astype(np.float32), backends=("cpu",), rtol=2e-6)
    check_values(lambda a: np.i0(a), np.arange(-3, 4), backends=("cpu",), rtol=1e-14)
    smooth = np.array([-20.0, -8.5, -3.0, -0.1, 0.7, 5.0, 7.5, 9.0, 25.0])
    # (central differences of a sum that includes i0(25) ~ 6e9 would be mostly rounding)
    check_grad(lambda a: np.i0(a), smooth[1:-2], backends=("cpu",))
    # d/dx i0 = i1, which scipy has independently
    scipy_special = pytest.importorskip("scipy.special")
    got = gradjit.grad(lambda a: np.i0(a).sum())(smooth)
    np.testing.assert_allclose(got, scipy_special.i1(smooth), rtol=1e-12)


@pytest.mark.parametrize("fn", [
    lambda a: np.diagflat(a), lambda a: np.diagflat(a[0], 2), lambda a: np.diagflat(a[:2], k=-1),
    lambda a: np.unstack(a), lambda a: np.unstack(a, axis=1),
    lambda a: np.unstack(a[None], axis=-1),
    lambda a: np.matrix_transpose(a), lambda a: np.matrix_transpose(a[None] * 2),
    lambda a: np.empty_like(a) * 0 + a, lambda a: np.empty_like(a, dtype=np.float32) * 0,
    lambda a: np.empty_like(a, shape=(2, 3)) * 0,
])
def test_shaping_additions(fn):
    check_values(fn, X, backends=("cpu",))
    if np.asarray(fn(X)[0] if isinstance(fn(X), tuple) else fn(X)).dtype == np.float64:
        check_grad(lambda a: np.stack(fn(a)) if isinstance(fn(X), tuple) else fn(a), X,
                   backends=("cpu",))


@pytest.mark.parametrize("call, error", [
    (lambda a: np.unstack(a[0, 0]), ValueError),
    (lambda a: np.unstack(a, axis=2), np.exceptions.AxisError),
    (lambda a: np.matrix_transpose(a[0]), ValueError),
    (lambda a: np.diag_indices_from(a[0]), ValueError),
    (lambda a: np.diag_indices_from(a[:2]), ValueError),
    (lambda a: np.tril_indices_from(a[None]), ValueError),
], ids=["unstack-0d", "unstack-axis", "matrix-transpose-1d", "diag-indices-1d",
        "diag-indices-unequal", "tril-indices-3d"])
def test_shape_errors_as_numpy(call, error):
    raises_as_numpy(call, error, X)


@pytest.mark.parametrize("fn", [
    lambda a: a[np.diag_indices_from(a)], lambda a: a[np.tril_indices_from(a)],
    lambda a: a[np.triu_indices_from(a, k=1)], lambda a: a[np.tril_indices_from(a, -2)],
    lambda a: a[np.diag_indices_from(a[None].repeat(4, 0))[1:]],
])
def test_index_helpers(fn):
    check_values(fn, X, backends=("cpu",))
    check_grad(fn, X, backends=("cpu",))


CONST = np.array([0.0, 0.0, 2.0, 0.0, 3.0, 0.0])


@pytest.mark.parametrize("fn", [
    lambda a: a[np.nonzero(CONST)], lambda a: a[np.flatnonzero(CONST)],
    lambda a: a[np.argwhere(CONST)[:, 0]], lambda a: a[: len(np.trim_zeros(CONST))],
    lambda a: a[: len(np.trim_zeros(CONST, "b"))],
])
def test_positions_of_constants(fn):
    check_values(fn, rng.standard_normal(6), backends=("cpu",))


@pytest.mark.parametrize("name", ["nonzero", "argwhere", "flatnonzero"])
def test_positions_of_runtime_values_follow_each_pattern(name):
    """Where a value computed at run time is nonzero decides the result's shape: the trace
    holds for that pattern and re-traces for another."""
    fn = getattr(np, name)
    f = gradjit.jit(lambda a: fn(a - 1.0 > 0))
    for a in (X, X[::-1], X):
        got, want = f(a), fn(a - 1.0 > 0)
        for g, w in zip(got if name == "nonzero" else (got,), want if name == "nonzero"
                        else (want,)):
            np.testing.assert_array_equal(g, w)
    assert f.cache_info().traces == 2


def test_trim_zeros_of_runtime_values_follows_each_pattern():
    """Which elements at the ends are zero decides the shape: read from the values, the trace
    holding for that pattern (the gradient reaches the elements kept)."""
    f = gradjit.jit(lambda a, t: np.trim_zeros(a * (a > 1.0), t))
    for a, t in ((X[0], "fb"), (X[0][::-1], "fb"), (X[0], "fb"), (X[1], "f")):
        np.testing.assert_array_equal(f(a, t), np.trim_zeros(a * (a > 1.0), t))
    assert f.cache_info().traces == 3
    check_grad(lambda a: np.trim_zeros(a * (a > 1.0)), X[:, 0], backends=("cpu",))


def test_sort_complex_orders_by_real_then_imaginary_part():
    z = np.array([[2 + 1j, 1 - 1j, 2 - 3j, 1 - 2j], [0j, -1j, 1j, -1 + 0j]])
    np.testing.assert_array_equal(gradjit.jit(lambda a: np.sort_complex(a))(z),
                                  np.sort_complex(z))
    got = gradjit.jit(lambda a: np.sort_complex(a))(X)
    assert got.dtype == np.sort_complex(X).dtype
    np.testing.assert_array_equal(got, np.sort_complex(X))


@pytest.mark.parametrize("fn", [
    lambda a: np.asarray_chkfinite(a) * 2, lambda a: np.asarray_chkfinite(a, np.float32),
    lambda a: np.require(a), lambda a: np.require(a, np.float32, ["F", "W"]),
    lambda a: np.require(a * 2, requirements="CAOE"), lambda a: np.require(a > 1, int),
    lambda a: a * np.isfortran(a), lambda a: a * np.isfortran(a[:, :1].T),
])
def test_converters_keep_the_traced_value(fn):
    check_values(fn, X, backends=("cpu",))
    if np.asarray(fn(X)).dtype == np.float64:
        check_grad(fn, X, backends=("cpu",))


def test_asarray_chkfinite_reads_the_value():
    f = gradjit.jit(lambda a: np.asarray_chkfinite(a) + 1)
    np.testing.assert_array_equal(f(X), X + 1)
    bad = X.copy()
    bad[1, 2] = np.inf
    with pytest.raises(ValueError, match="array must not contain infs or NaNs"):
        f(bad)  # the guard on finiteness fails: re-traced, numpy's error


@pytest.mark.parametrize("call, error", [
    (lambda a: np.require(a, None, "Q"), KeyError),
    (lambda a: np.require(a, None, "CF"), ValueError),
])
def test_require_errors_as_numpy(call, error):
    with pytest.raises(error):
        call(X)
    with pytest.raises(error):
        gradjit.jit(call)(X)


def test_asmatrix_is_refused_with_the_line():
    with pytest.raises(TypeError, match=r"np.asmatrix builds an np.matrix(.|\n)*test_dtypes"):
        gradjit.jit(lambda a: np.asmatrix(a))(X)


# keywords that gradjit once accepted and ignored: now numpy's answers
@pytest.mark.parametrize("fn", [
    lambda a: np.sum(a, where=a > 1), lambda a: np.sum(a, axis=0, initial=2.0),
    lambda a: np.sum(a > 1, axis=1, initial=2.5, where=a < 1.4),
    lambda a: np.mean(a, where=a > 1), lambda a: np.mean(a, axis=0, where=a > 0.8),
    lambda a: np.mean((a * 3).astype(np.int64), axis=1, keepdims=True, where=a > 0.7),
    lambda a: np.clip(a, min=0.7, max=1.2), lambda a: np.clip(a, max=1.0),
    lambda a: np.reshape(a, (2, 8), order="F"), lambda a: np.reshape(a, -1, order="F"),
    lambda a: np.reshape(a, (8, 2), order="A"),
    lambda a: np.prod(a, axis=1, where=a > 1), lambda a: np.max(a, axis=0, where=a < 1.2,
                                                                 initial=0.9),
    lambda a: np.nanmax(np.where(a > 1.3, np.nan, a), axis=0, where=a > 0.9, initial=0.0),
    lambda a: np.nanmean(np.where(a > 1.3, np.nan, a), axis=1, where=a > 0.7),
    lambda a: np.nansum(a, where=a < 1.2), lambda a: np.all(a > 0.6, axis=0, where=a < 1),
    lambda a: np.full_like(a, a[0, 0]), lambda a: np.full_like(a, a[0], dtype=np.float32),
    lambda a: np.full_like(a, a[:, :1], shape=(2, 4, 4)),
    lambda a: np.bincount([0, 1, 1, 3], weights=a[0]),
    lambda a: np.var(a, where=a > 0.8), lambda a: np.std(a, axis=0, where=a > 0.7, ddof=1,
                                                          keepdims=True),
    lambda a: np.var(a, axis=1, mean=np.mean(a, axis=1, keepdims=True) + a[:, :1]),
    lambda a: np.std(a, axis=1, mean=np.mean(a, axis=1, keepdims=True), correction=1),
    lambda a: np.nanvar(np.where(a > 1.3, np.nan, a), axis=0, where=a > 0.7),
    lambda a: np.nanstd(a, where=a > 0.7, ddof=1),
])
def test_keywords_numpy_gives_meaning(fn):
    check_values(fn, X, backends=("cpu",))
    if np.asarray(fn(X)).dtype == np.float64:
        check_grad(fn, X, backends=("cpu",))


@pytest.mark.parametrize("call, error", [
    (lambda a: np.clip(a, 0.2), TypeError), (lambda a: np.clip(a, 0.2, 0.5, min=0.1), ValueError),
    (lambda a: np.reshape(a, 16, order="K"), ValueError),
])
def test_keyword_errors_as_numpy(call, error):
    raises_as_numpy(call, error, X)


P = X + rng.standard_normal((4, 4)) * 1e-6
P[0, 0], P[1, 1], P[2, 2] = np.nan, np.inf, -np.inf
Q = X.copy()
Q[0, 0], Q[1, 1] = np.nan, np.inf


@pytest.mark.parametrize("fn", [
    lambda a: np.isclose(a, P), lambda a: np.isclose(a, P, equal_nan=True),
    lambda a: np.isclose(a, P, rtol=0, atol=1e-7), lambda a: np.isclose(a, 1),
    lambda a: np.isclose(a.astype(np.float32), P.astype(np.float32)),
    lambda a: np.isclose((a > 1).astype(np.int64), 1),
    lambda a: np.isclose(a[0], P),
    lambda a: np.isclose(1.0, a),
])
def test_isclose(fn):
    check_values(fn, Q, backends=("cpu",))


@pytest.mark.parametrize("fn", [
    lambda a: np.allclose(a, P), lambda a: np.allclose(a, P, equal_nan=True, atol=1e-5),
    lambda a: np.allclose(a, Q, equal_nan=True), lambda a: np.array_equal(a, a),
    lambda a: np.array_equal(a, Q, equal_nan=True), lambda a: np.array_equal(a, a[:2]),
    lambda a: np.array_equal(np.nan_to_num(a), np.nan_to_num(Q)),
])
def test_allclose_and_array_equal_read_the_values(fn):
    """Python bools, as numpy's: read from the values under a guard, so a later call with
    other values re-traces and answers for them."""
    seen = []
    call = gradjit.jit(lambda a: seen.append(fn(a)) or a)
    for x in (Q, X):
        call(x)
        assert seen[-1] is fn(x)


@pytest.mark.parametrize("fn", [
    lambda a: np.isin(a, a[0]), lambda a: np.isin(np.round(a), [0.0, 1.0], invert=True),
    lambda a: np.isin(np.round(a[0]), np.round(a)),
], ids=["traced-tests", "listed-tests", "matrix-tests"])
def test_isin(fn):
    check_values(fn, X)


def test_can_cast_reads_the_dtype_and_refuses_python_numbers_as_numpy():
    x = np.array([0.5, 1.5])
    calls = (lambda x: np.can_cast(x, np.float32), lambda x: np.can_cast(x, "f4", "same_kind"),
             lambda x: np.can_cast(x.astype(np.int8), np.int16),
             lambda x: np.can_cast(x, "i4", casting="unsafe"))
    for call in calls:
        assert gradjit.jit(call)(x) == call(x)
    with pytest.raises(TypeError, match="does not support Python ints, floats"):
        np.can_cast(2.0, np.float32)
    with pytest.raises(TypeError, match="does not support Python ints, floats"):
        gradjit.jit(lambda s: np.can_cast(s * 1.0, np.float32))(2.0)
