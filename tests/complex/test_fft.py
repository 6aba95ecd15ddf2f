"""numpy.fft on traced values: numpy's values and dtypes on every backend, gradients against
jax and, as HIPS autograd's tests/test_fft.py checks them, against central differences (here
in both modes, to second order)."""
from functools import partial

import numpy as np
import pytest

import gradjit
import gradjit.numpy as gnp
from gradjit.test_util import check_grads

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(1)
check_grads = partial(check_grads, modes=["fwd", "rev"])
X = rng.standard_normal((4, 6))
Z = X + 1j * rng.standard_normal((4, 6))
F = np.fft

VALUES = [
    lambda a: F.fft(a), lambda a: F.ifft(a, n=8, norm="ortho"),
    lambda a: F.fft2(a, norm="forward"), lambda a: F.fftn(a, s=(3, 5), axes=(0, 1)),
    lambda a: F.ifftn(a, axes=(0,)), lambda a: F.ifft2(a, s=(5, 3)),
    lambda a: F.rfft(a.real, n=5), lambda a: F.irfft(a), lambda a: F.irfft(a, n=7, norm="ortho"),
    lambda a: F.rfft2(a.real), lambda a: F.irfft2(a, norm="forward"),
    lambda a: F.rfftn(a.real, s=(3, 4), axes=(0, 1)), lambda a: F.irfftn(a, s=(5, 6), axes=(0, 1)),
    lambda a: F.hfft(a), lambda a: F.hfft(a, n=5, norm="ortho"), lambda a: F.ihfft(a.real),
    lambda a: F.ihfft(a.real, n=9, norm="forward"), lambda a: F.fftshift(a),
    lambda a: F.ifftshift(a, axes=1), lambda a: F.fftn(a, axes=(0, 0)),
    lambda a: F.fft(a.real.astype(np.float32)), lambda a: F.rfft(a.real.astype(np.float32)),
    lambda a: F.irfft(a.astype(np.complex64)), lambda a: F.fft(np.round(a.real * 3).astype(int)),
    lambda a: F.fft(a, axis=0) * F.fftfreq(4)[:, None], lambda a: F.rfft(a.real) * F.rfftfreq(6),
]


@pytest.mark.parametrize("backend", ["cpu", "interpreter"])
@pytest.mark.parametrize("index", range(len(VALUES)))
def test_values_and_dtypes_as_numpy(index, backend):
    fn = VALUES[index]
    want = fn(Z)
    got = gradjit.jit(fn, backend=backend)(Z)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 if want.dtype.itemsize <= 8
                               else 1e-12)


LOSSES = {
    "fft": (lambda a: gnp.abs(gnp.fft.fft(a, n=8)) ** 2,
            lambda a: jnp.abs(jnp.fft.fft(a, n=8)) ** 2),
    "ifft2": (lambda a: gnp.real(gnp.fft.ifft2(a, norm="ortho") * a),
              lambda a: jnp.real(jnp.fft.ifft2(a, norm="ortho") * a)),
    "fftn": (lambda a: gnp.imag(gnp.fft.fftn(a, s=(3, 7))), lambda a: jnp.imag(
        jnp.fft.fftn(a, s=(3, 7)))),
    "rfft": (lambda a: gnp.abs(gnp.fft.rfft(gnp.real(a), n=5)),
             lambda a: jnp.abs(jnp.fft.rfft(jnp.real(a), n=5))),
    "irfft": (lambda a: gnp.fft.irfft(a, n=7) ** 2, lambda a: jnp.fft.irfft(a, n=7) ** 2),
    "irfft_even": (lambda a: gnp.sin(gnp.fft.irfft(a)), lambda a: jnp.sin(jnp.fft.irfft(a))),
    "irfftn": (lambda a: gnp.fft.irfftn(a, norm="forward") * gnp.arange(40).reshape(4, 10),
               lambda a: jnp.fft.irfftn(a, norm="forward") * jnp.arange(40).reshape(4, 10)),
    "rfft2": (lambda a: gnp.abs(gnp.fft.rfft2(gnp.imag(a))),
              lambda a: jnp.abs(jnp.fft.rfft2(jnp.imag(a)))),
    "hfft": (lambda a: gnp.fft.hfft(a) ** 3, lambda a: jnp.fft.hfft(a) ** 3),
    "shift": (lambda a: gnp.abs(gnp.fft.fftshift(a) * gnp.arange(24).reshape(4, 6)),
              lambda a: jnp.abs(jnp.fft.fftshift(a) * jnp.arange(24).reshape(4, 6))),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_gradients_match_jax(name):
    ours, theirs = LOSSES[name]
    got = gradjit.grad(lambda a: gnp.sum(ours(a)))(Z)
    want = jax.grad(lambda a: jnp.sum(theirs(a)))(Z)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


# HIPS autograd's tests/test_fft.py, on gradjit's check_grads
def _hermitian(fft_fun, mat):
    name = fft_fun.__name__
    return getattr(np.fft, name[1:])(mat) if name.startswith("ir") else mat


@pytest.mark.parametrize("fft_fun,D,n", [
    (gnp.fft.fft, 5, -2), (gnp.fft.fft, 5, 2), (gnp.fft.ifft, 5, -2), (gnp.fft.ifft, 5, 2),
    (gnp.fft.rfft, 4, -2), (gnp.fft.rfft, 4, 2), (gnp.fft.irfft, 4, -2), (gnp.fft.irfft, 4, 2)])
def test_fft_n(fft_fun, D, n):
    mat = _hermitian(fft_fun, rng.standard_normal((D, D)))
    check_grads(lambda x: fft_fun(x, D + n))(mat)


@pytest.mark.parametrize("fft_fun,D", [
    (gnp.fft.fft2, 5), (gnp.fft.ifft2, 5), (gnp.fft.fftn, 5), (gnp.fft.ifftn, 5),
    (gnp.fft.rfft2, 4), (gnp.fft.irfft2, 4), (gnp.fft.rfftn, 4), (gnp.fft.irfftn, 4)])
def test_fft_s(fft_fun, D):
    mat = rng.standard_normal((D, D, D)) / 10.0
    if fft_fun.__name__.startswith("ir"):
        mat = getattr(np.fft, fft_fun.__name__[1:])(mat, axes=[0, 2])
    check_grads(lambda x: fft_fun(x, s=[D + 2, D - 2], axes=[0, 2]))(mat)


@pytest.mark.parametrize("fun,D", [
    (lambda x: gnp.fft.fft(x), 5), (lambda x: gnp.fft.fft(x, norm="ortho"), 5),
    (lambda x: gnp.fft.fft(x, axis=0), 5), (lambda x: gnp.fft.ifft(x), 5),
    (lambda x: gnp.fft.fft2(x), 5), (lambda x: gnp.fft.ifft2(x), 5),
    (lambda x: gnp.fft.fftn(x), 5), (lambda x: gnp.fft.ifftn(x), 5),
    (lambda x: gnp.fft.rfft(x), 4), (lambda x: gnp.fft.rfft(x, norm="ortho"), 4),
    (lambda x: gnp.fft.rfft(x, axis=0), 4), (lambda x: gnp.fft.rfft2(x), 4),
    (lambda x: gnp.fft.fftshift(x), 5), (lambda x: gnp.fft.fftshift(x), 4),
    (lambda x: gnp.fft.fftshift(x, axes=1), 5), (lambda x: gnp.fft.ifftshift(x), 5),
    (lambda x: gnp.fft.ifftshift(x), 4), (lambda x: gnp.fft.ifftshift(x, axes=1), 5),
    (lambda x: gnp.fft.ihfft(x), 5), (lambda x: gnp.fft.fftn(x, axes=(1, 1)), 4)])
def test_transforms(fun, D):
    check_grads(fun)(rng.standard_normal((D, D)) / 10.0)


@pytest.mark.parametrize("fun,inverse_of", [
    (lambda x: gnp.fft.irfft(x), np.fft.rfft), (lambda x: gnp.fft.irfft(x, norm="ortho"),
                                               np.fft.rfft),
    (lambda x: gnp.fft.irfft2(x), np.fft.rfft2), (lambda x: gnp.fft.irfftn(x), np.fft.rfftn),
    (lambda x: gnp.fft.irfftn(x)[(0, 1, 0), (3, 3, 2)], np.fft.rfftn),
    (lambda x: gnp.fft.hfft(x), np.fft.ihfft)])
def test_inverse_real_transforms(fun, inverse_of):
    check_grads(fun)(inverse_of(rng.standard_normal((4, 4, 4)) / 10.0))


@pytest.mark.parametrize("D", [4, 5])  # HIPS autograd has no gradient for odd sizes
def test_rfftn(D):
    check_grads(lambda x: gnp.fft.rfftn(x))(rng.standard_normal((D, D, D)) / 10.0)
    check_grads(lambda x: gnp.fft.rfftn(x, axes=(0, 2)))(rng.standard_normal((D, D, D)))
    check_grads(lambda x: gnp.fft.rfftn(x)[(0, 1, 0), (3, 3, 2)])(
        rng.standard_normal((D, D, D)))


@pytest.mark.parametrize("fn,error,message", [
    (lambda a: F.fft(a, n=0), ValueError, r"Invalid number of FFT data points \(0\)"),
    (lambda a: F.irfft(a, n=-1), ValueError, r"Invalid number of FFT data points \(-1\)"),
    (lambda a: F.fft(a, norm="bad"), ValueError, "Invalid norm value bad"),
    (lambda a: F.fftn(a, s=(2,), axes=(0, 1)), ValueError, "Shape and axes have different"),
    (lambda a: F.fft(a, axis=3), IndexError, "out of"),
])
def test_errors_as_numpy(fn, error, message):
    with pytest.raises(error, match=message):
        fn(Z)
    with pytest.raises(error, match=message):
        gradjit.jit(fn)(Z)


@pytest.mark.parametrize("name,operand,params,message", [
    ("fft", X, {"axes": (0,), "inverse": False}, "needs a complex operand"),
    ("fft", Z, {"axes": (0, 0), "inverse": False}, "must be distinct axes"),
    ("rfft", Z, {"axis": 0}, "needs a real floating point operand"),
    ("rfft", X[:, :0], {"axis": 1}, "must be a nonempty axis"),
    ("irfft", Z, {"axis": 1, "n": 6}, r"must hold n // 2 \+ 1 = 4 frequencies"),
])
def test_primitives_refuse_bad_operands(name, operand, params, message):
    from gradjit.ir import PRIMITIVES, ShapeError
    with pytest.raises(ShapeError, match=message):
        PRIMITIVES[name](operand, **params)
