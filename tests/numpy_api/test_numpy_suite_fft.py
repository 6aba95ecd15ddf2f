"""numpy's fft/tests/test_pocketfft.py and test_helper.py scenarios: every transform's round
trip at lengths shorter and longer than the input, each norm, n and s with axes (-1 and None in
s, permuted axes), real and Hermitian transforms, float32/complex64 and integer or bool
inputs, out=, numpy's refusals; fftshift/ifftshift/fftfreq/rfftfreq; eager, compiled and
differentiated (through real views of the complex results) against numpy."""
import numpy as np
import pytest

import gradjit

from tests.numpy_api.jax_suite import arg, case, check_eager, check_grad, check_jit

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning",
                                        "ignore::RuntimeWarning")

F = np.fft
NORMS = (None, "backward", "ortho", "forward")
X = arg(16, "c16")
XR = arg(16)
X3 = arg((6, 5, 4))
C3 = arg((6, 5, 4), "c16")
HERM = np.array([1, 2, 3, 4, 3, 2], complex)


def _round_trip_cases():
    out = []
    for dtype in ("f4", "f8"):
        x = X.astype("c8" if dtype == "f4" else "c16")
        xr = XR.astype(dtype)
        # float32 rounding leaves the padding of a longer transform near, not at, zero
        for n in (1, 5, 16) + ((17, 32) if dtype == "f8" else ()):
            out += [
                case(f"fft-ifft-{dtype}-{n}", lambda x, n=n: F.ifft(F.fft(x, n=n), n=n), x),
                case(f"irfft-rfft-{dtype}-{n}", lambda x, n=n: F.irfft(F.rfft(x, n=n), n=n), xr),
                case(f"fft-of-ifft-{dtype}-{n}", lambda x, n=n: F.fft(F.ifft(x, n=n), n=n), x),
                case(f"rfft-of-irfft-{dtype}-{n}", lambda x, n=n: F.rfft(F.irfft(x, n=n), n=n),
                     x),
            ]
    for norm in NORMS:
        out += [
            case(f"ifft-norm-{norm}", lambda x, m=norm: F.ifft(F.fft(x, norm=m), norm=m), X),
            case(f"fft-norm-{norm}", lambda x, m=norm: F.fft(x, norm=m), X),
            case(f"rfft-norm-{norm}", lambda x, m=norm: F.rfft(x, norm=m), XR),
            case(f"irfft-norm-{norm}", lambda x, m=norm: F.irfft(x, norm=m), X),
            case(f"hfft-norm-{norm}", lambda x, m=norm: F.hfft(x, norm=m), HERM),
            case(f"ihfft-norm-{norm}", lambda x, m=norm: F.ihfft(x, norm=m), XR),
            case(f"fftn-norm-{norm}", lambda x, m=norm: F.fftn(x, norm=m), C3),
            case(f"irfftn-norm-{norm}", lambda x, m=norm: F.irfftn(x, norm=m), C3),
            case(f"empty-ifft-{norm}", lambda x, m=norm: F.ifft(x, norm=m), np.zeros(0, complex)),
        ]
        for n in (16, 32):
            for forward, back in ((F.fft, F.ifft), (F.rfft, F.irfft), (F.ihfft, F.hfft)):
                out.append(case(f"norm-preserving-{forward.__name__}-{n}-{norm}",
                                lambda x, f=forward, b=back, n=n, m=norm:
                                np.linalg.norm(b(f(x, n=n, norm=m), n=n, norm=m)), XR))
    return out


def _multi_axis_cases():
    out = [
        case("fft2", F.fft2, arg((6, 5), "c16")),
        case("fft2-as-two-ffts", lambda x: F.fft(F.fft(x, axis=1), axis=0), arg((6, 5), "c16")),
        case("ifft2", F.ifft2, arg((6, 5), "c16")),
        case("fftn", F.fftn, C3),
        case("ifftn", F.ifftn, C3),
        case("rfft2", F.rfft2, arg((6, 5))),
        case("irfft2", F.irfft2, arg((6, 5), "c16")),
        case("rfftn", F.rfftn, X3),
        case("irfftn", F.irfftn, C3),
        case("rfftn-s", lambda x: F.rfftn(x, s=(4, 6, 8)), X3),
        case("irfftn-s", lambda x: F.irfftn(x, s=(4, 6, 8)), C3),
        case("hfft", F.hfft, HERM),
        case("hfft-n", lambda x: F.hfft(x, n=10), np.arange(5) * (1 + 1j)),
        case("ihfft", F.ihfft, arg(7)),
        case("fft-axis0", lambda x: F.fft(x, axis=0), C3),
        case("rfft-axis1", lambda x: F.rfft(x, axis=1), X3),
        case("irfft-n-1", lambda x: F.irfft(x, n=1), np.arange(10.0)),
        case("hfft-n-1", lambda x: F.hfft(x, n=1), np.arange(10.0)),
        case("irfft-n-10-of-1", lambda x: F.irfft(x, n=10), np.array([0j])),
        case("fftn-s-minus-one", lambda x: F.fftn(x, s=(-1, 5), axes=(0, 1)),
             np.arange(100.0).reshape(10, 10)),
        case("fft2-s-minus-one", lambda x: F.fft2(x, s=(-1, 5), axes=(0, 1)),
             np.arange(100.0).reshape(10, 10)),
        case("fftn-s-none", lambda x: F.fftn(x, s=(4, None, 3), axes=(0, 1, 2)), C3),
        case("irfftn-s-minus-one", lambda x: F.irfftn(x, s=(3, -1), axes=(0, 2)), C3),
        case("irfftn-s-none", lambda x: F.irfftn(x, s=(None, 3, None), axes=(0, 1, 2)), C3),
        case("fft-n-half", lambda x: F.fft(x, 0.5), np.array([1.0, 2.0, 3.0])),
        case("fftn-s-no-axes", lambda x: F.fftn(x, s=(-1, 5)), np.arange(100.0).reshape(10, 10)),
        case("fftn-repeated-axes", lambda x: F.fftn(x, axes=(0, 0)), arg((4, 3), "c16")),
        case("fftn-axes-s-mismatch", lambda x: F.fftn(x, s=(4,), axes=(0, 1)),
             arg((4, 3), "c16")),
        case("fft-n-zero", lambda x: F.fft(x, 0), np.array([1.0, 2.0, 3.0])),
        case("fft-n-negative", lambda x: F.fft(x, -2), np.array([1.0, 2.0, 3.0])),
        case("fft-n-float", lambda x: F.fft(x, 2.5), np.array([1.0, 2.0, 3.0])),
        case("fft-bad-axis", lambda x: F.fft(x, axis=2), arg((3, 4))),
        case("fft-bad-norm", lambda x: F.fft(x, norm="nope"), arg(4)),
        case("irfft-empty", F.irfft, np.zeros(0, complex)),
        case("fft-0d", F.fft, np.array(1.0)),
    ]
    perms = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    for op in (F.fftn, F.ifftn, F.rfftn, F.irfftn):
        for p in perms:
            out.append(case(f"axes-{op.__name__}-{''.join(map(str, p))}",
                            lambda x, f=op, p=p: np.transpose(f(x, axes=p), p), X3))
    for op in (F.fft, F.ifft, F.rfft, F.irfft):
        for data in (np.array([False, True, False]), np.arange(10, dtype=np.uint8),
                     np.arange(5, dtype=np.int16)):
            out.append(case(f"int-input-{op.__name__}-{data.dtype}", op, data))
    return out


def _out(f, x, out, **kwargs):
    result = f(x, out=out, **kwargs)
    return result, out


def _out_cases():
    return [
        case("fft-out", lambda x, o: _out(F.fft, x, o), X, np.zeros(16, complex)),
        case("fft-out-axis", lambda x, o: _out(F.fft, x, o, axis=0), C3, np.zeros_like(C3)),
        case("fftn-out", lambda x, o: _out(F.fftn, x, o, axes=(0, 2)), C3, np.zeros_like(C3)),
        case("rfft-out", lambda x, o: _out(F.rfft, x, o), XR, np.zeros(9, complex)),
        case("irfftn-out", lambda x, o: _out(F.irfftn, x, o, s=(3, 3, 3), axes=(0, 1, 2)),
             C3, np.zeros((3, 3, 3))),
        case("fft-out-cannot-cast", lambda x, o: _out(F.fft, x, o), XR, np.zeros(16)),
        case("irfft-out-int", lambda x, o: _out(F.irfft, x, o), X, np.zeros(30, int)),
        case("fft-out-wrong-shape", lambda x, o: _out(F.fft, x, o), XR, np.zeros((4, 4), complex)),
        case("fftn-out-s-wrong-shape", lambda x, o: _out(F.fftn, x, o, s=(3, 3, 3),
                                                         axes=(0, 1, 2)), C3, np.zeros_like(C3)),
    ]


def _helper_cases():
    out = [
        case("fftshift", F.fftshift, np.array([0.0, 1, 2, 3, 4, -4, -3, -2, -1])),
        case("ifftshift", F.ifftshift, np.array([0.0, 1, 2, 3, 4, -4, -3, -2, -1])),
        case("fftshift-odd", F.fftshift, np.array([0.0, 1, 2, 3, 4, -5, -4, -3, -2, -1])),
        case("fftshift-2d", F.fftshift, arg((3, 4))),
        case("fftshift-axis", lambda x: F.fftshift(x, axes=1), arg((3, 5))),
        case("fftshift-axes", lambda x: F.fftshift(x, axes=(0, 1)), arg((3, 5))),
        case("ifftshift-axis", lambda x: F.ifftshift(x, axes=(1,)), arg((3, 5))),
        case("shift-inverse", lambda x: F.ifftshift(F.fftshift(x)), arg((5, 4))),
        case("fftshift-int", F.fftshift, np.arange(7)),
        case("fftshift-empty", F.fftshift, np.zeros((0, 3))),
    ]
    for n in (1, 8, 9, 10):
        for d in (1.0, 0.3):
            out += [
                case(f"fftfreq-{n}-{d}", lambda x, n=n, d=d: F.fftfreq(n, d) + x, np.zeros(n)),
                case(f"rfftfreq-{n}-{d}", lambda x, n=n, d=d: F.rfftfreq(n, d) + x,
                     np.zeros(n // 2 + 1)),
            ]
    return out + [
        case("fftfreq-traced-d", lambda d: F.fftfreq(9, d), np.array(0.25)),
        case("rfftfreq-traced-d", lambda d: F.rfftfreq(10, d), np.array(0.25)),
        case("fftfreq-float-n", lambda x: F.fftfreq(9.0) + x, np.zeros(9)),
    ]


def _grad_cases():
    def parts(z):
        return np.real(z), np.imag(z)
    return [
        case("grad-fft", lambda x: parts(F.fft(x, n=6)), arg(5)),
        case("grad-fft-complex-in", lambda a, b: parts(F.fft(a + 1j * b)), arg(6), arg(6)),
        case("grad-ifft-ortho", lambda x: parts(F.ifft(x, norm="ortho")), arg(7)),
        case("grad-rfft", lambda x: parts(F.rfft(x, n=9)), arg(8)),
        case("grad-irfft", lambda a, b: F.irfft(a + 1j * b, n=8), arg(5), arg(5)),
        case("grad-hfft", lambda a, b: F.hfft(a + 1j * b, norm="forward"), arg(4), arg(4)),
        case("grad-ihfft", lambda x: parts(F.ihfft(x)), arg(6)),
        case("grad-fftn", lambda x: parts(F.fftn(x, s=(4, 3), axes=(0, 2))), arg((3, 2, 4))),
        case("grad-rfftn", lambda x: parts(F.rfftn(x)), arg((3, 4))),
        case("grad-irfftn", lambda a, b: F.irfftn(a + 1j * b, s=(3, 4)), arg((3, 3)),
             arg((3, 3))),
        case("grad-fftshift", lambda x: F.fftshift(x, axes=0), arg((5, 2))),
        case("grad-fftfreq", lambda d: F.fftfreq(8, d), np.array(0.3)),
        case("grad-power-spectrum", lambda x: np.abs(F.rfft(x)) ** 2, arg(10)),
    ]


CASES = _round_trip_cases() + _multi_axis_cases() + _out_cases() + _helper_cases()
GRAD = _grad_cases()


@pytest.mark.parametrize("c", CASES + GRAD, ids=lambda c: c.id)
def test_eager(c):
    check_eager(c)


@pytest.mark.parametrize("c", CASES + GRAD, ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)


@pytest.mark.parametrize("c", [c for c in CASES + GRAD if c.grad], ids=lambda c: c.id)
def test_grad(c):
    check_grad(c)


@pytest.mark.parametrize("call, match", [
    (lambda x: F.fftn(x, s=(-1, 5)), "`axes` should not be `None`"),
    (lambda x: F.rfftn(x, s=(4, None), axes=(0, 1)), "containing `None` values"),
])
def test_deprecated_s_warns_as_numpy(call, match):
    x = np.arange(100.0).reshape(10, 10)
    with pytest.warns(DeprecationWarning, match=match):
        numpy_result = call(x)
    with pytest.warns(DeprecationWarning, match=match):
        got = gradjit.jit(call)(x)
    np.testing.assert_allclose(got, numpy_result, rtol=1e-12, atol=1e-12)
