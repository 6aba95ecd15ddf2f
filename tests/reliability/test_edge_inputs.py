"""Edge inputs where traced numpy code or eager Tensors gave another answer than numpy or
PyTorch: NaN bounds, Python numbers as truth values, complex values, integer reciprocals;
and errors raised inside gradjit while tracing name the user's line."""
import numpy as np
import pytest

import gradjit

torch = pytest.importorskip("torch")

_rng = np.random.default_rng(5)
X = _rng.standard_normal((4, 5))
Z = X + 1j * X[::-1]
SPECIAL = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, -2.0, 3.0])

NUMPY = {
    "clip to a NaN lower bound": (lambda a: np.clip(a, np.nan, 1.0), X),
    "clip to a NaN upper bound": (lambda a: np.clip(a, -0.5, np.nan), X),
    "clip to bounds with NaNs": (lambda a: np.clip(a, np.where(a > 0, np.nan, -0.2), 1.0), X),
    "logical_xor with a float": (lambda a: np.logical_xor(a, 2.5), X),
    "logical_xor with 0 first": (lambda a: np.logical_xor(0, a), X),
    "rint of complex": (np.rint, Z * 3),
    "round of complex": (lambda a: np.round(a * 3), Z),
    "round of complex to decimals": (lambda a: np.round(a, 1), Z),
    "angle of infinities": (np.angle, SPECIAL),
    "average of complex": (lambda a: np.average(a, axis=1), Z),
    "float_power of complex": (lambda a: np.float_power(a, 2.0), Z),
    "float_power to a complex power": (lambda a: np.float_power(2.0, a), Z),
    "cov of complex": (np.cov, Z),
    "reciprocal of int64": (np.reciprocal, np.array([0, 1, -1, 2, -3])),
    "reciprocal of int32": (np.reciprocal, np.array([1, -1, 7], np.int32)),
}


@pytest.mark.parametrize("name", NUMPY)
def test_traced_numpy_gives_numpys_answer(name):
    fn, x = NUMPY[name]
    with np.errstate(all="ignore"):
        want = fn(x)
    got = gradjit.jit(fn)(x)
    assert got.dtype == want.dtype
    assert np.array_equal(got, want, equal_nan=True) or np.allclose(got, want, equal_nan=True)


@pytest.mark.parametrize("fn", [np.floor, np.ceil, np.trunc, np.fix])
def test_complex_values_have_no_floor_or_ceiling(fn):
    """These returned the complex input unchanged."""
    with pytest.raises(TypeError):
        fn(Z)
    with pytest.raises(TypeError, match="not supported for the input types"):
        gradjit.jit(fn)(Z)


TORCH = {
    "clamp to a NaN minimum": lambda t, x: t.clamp(x, min=float("nan")),
    "clamp to a NaN maximum": lambda t, x: t.clamp(x, max=float("nan")),
    "clamp_min of NaN": lambda t, x: x.clamp_min(float("nan")),
    "cov of complex": lambda t, x: t.cov(t.complex(x, x.flip(0))),
    "corrcoef of complex": lambda t, x: t.corrcoef(t.complex(x, x.flip(0))),
}


@pytest.mark.parametrize("name", TORCH)
def test_eager_and_traced_tensors_give_torchs_answer(name):
    fn = TORCH[name]
    want = fn(torch, torch.tensor(X)).numpy()
    eager = fn(gradjit, gradjit.tensor(X)).numpy()
    traced = gradjit.jit(lambda x: fn(gradjit, x))(gradjit.tensor(X)).numpy()
    for got in (eager, traced):
        assert np.allclose(got, want, equal_nan=True)


RAISED_INSIDE = {
    "an axis out of range": (lambda a: np.sum(a, axis=3), IndexError),
    "an empty maximum": (lambda a: np.max(a[:0]), ValueError),
    "a float bitwise_and": (lambda a: np.bitwise_and(a, a), TypeError),
    "a Tensor's dimension": (lambda a: gradjit.tensor(a).softmax(5), IndexError),
    "a Tensor's dtypes": (lambda a: gradjit.tensor(a).mm(gradjit.ones(5, 2)), RuntimeError),
}


@pytest.mark.parametrize("name", RAISED_INSIDE)
def test_an_error_raised_inside_gradjit_while_tracing_names_the_users_line(name):
    """Only ShapeError and NotSupported named it; AxisError, ValueError, PyTorch's
    RuntimeError and the rest ended inside gradjit."""
    fn, kind = RAISED_INSIDE[name]
    with pytest.raises(kind) as info:
        gradjit.jit(fn)(X)
    assert "test_edge_inputs.py:" in str(info.value)


def test_an_error_the_users_line_raises_itself_is_left_as_it_is():
    def fn(a):
        raise ValueError("mine")
    with pytest.raises(ValueError, match="^mine$"):
        gradjit.jit(fn)(X)


def test_corrcoef_of_complex_values_clips_each_part():
    """numpy's corrcoef clips the real and imaginary parts; gradjit's refused complex ones."""
    assert np.allclose(gradjit.jit(np.corrcoef)(Z), np.corrcoef(Z))


REFUSED = {
    "as_strided with a negative stride": lambda t, x: x.as_strided((2,), (-1,)),
    "as_strided before the storage": lambda t, x: x[1:].as_strided((3,), (1,), -1),
    "diff of a negative order": lambda t, x: t.diff(x, -3),
    "pad cropping past the size": lambda t, x: t.nn.functional.pad(x, (-3, -3)),
    "narrow of a negative length": lambda t, x: x.narrow(1, 0, -1),
    "outer of a matrix": lambda t, x: t.outer(x, x[0]),
    "outer with a matrix": lambda t, x: t.outer(x[0], x),
}


@pytest.mark.parametrize("name", REFUSED)
def test_what_torch_refuses_gradjit_refuses(name):
    """Each gave an answer: as_strided wrapped around the storage, diff and pad returned
    the input or an empty one, outer flattened its matrix."""
    from tests.torch_reference import same_error
    fn = REFUSED[name]
    same_error(lambda: fn(gradjit, gradjit.tensor(X)), lambda: fn(torch, torch.tensor(X)))


def test_numpys_diff_of_a_negative_order_is_refused_while_tracing():
    with pytest.raises(ValueError, match="order must be non-negative but got -1"):
        gradjit.jit(lambda a: np.diff(a, n=-1))(X)


@pytest.mark.parametrize("fn", [
    np.fabs, np.deg2rad, np.degrees, np.radians, np.rad2deg, np.frexp,
    lambda a: np.hypot(a, X), lambda a: np.arctan2(a, X), lambda a: np.logaddexp(a, X),
    lambda a: np.copysign(a, X), lambda a: np.nextafter(a, X), lambda a: np.heaviside(a, X),
    lambda a: np.hypot(a.real, 1j)], ids=lambda f: getattr(f, "__name__", "binary"))
def test_ufuncs_without_a_complex_loop_refuse_complex_values(fn):
    """numpy has no complex loop for these; traced, they computed something for them."""
    with pytest.raises(TypeError):
        fn(Z)
    with pytest.raises(TypeError, match="not supported for the input types"):
        gradjit.jit(fn)(Z)


@pytest.mark.parametrize("size", [0, 1, 5])
@pytest.mark.parametrize("parts", [1, 2, 3])
def test_split_and_chunk_of_an_empty_dimension_as_torch(size, parts):
    """An empty dimension split into no pieces (torch: one) and chunked into one (torch:
    `chunks`)."""
    def pieces(t):
        x = t.zeros(3, size, requires_grad=True)
        return [(tuple(p.shape), p.grad_fn.name()) for p in (*x.chunk(parts, 1),
                                                            *x.split(parts, 1))]
    assert pieces(gradjit) == pieces(torch)
