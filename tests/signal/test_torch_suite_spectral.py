"""PyTorch's test_spectral_ops.py scenarios for torch.fft, run side by side in gradjit and in
PyTorch: reference transforms over n/s, dim and norm, round trips, dtype promotion, empty and
invalid inputs, helper functions (fftfreq, fftshift) and non-contiguous inputs."""
import itertools

import numpy as np
import pytest

import gradjit
from tests.signal.side_by_side import same, torch

rng = np.random.default_rng(0)
NORMS = (None, "forward", "backward", "ortho")
ONE_D = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
N_D = ("fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn")
TWO_D = ("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2")
REAL_INPUT = {"rfft", "ihfft", "rfftn", "ihfftn", "rfft2", "ihfft2"}


def draw(shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
@pytest.mark.parametrize("op", ONE_D)
def test_reference_1d(op, dtype):
    cases = [*itertools.product([(67,), (80,), (12, 14), (9, 6, 3)], (None, 50, 6), (-1, 0),
                                NORMS),
             *itertools.product([(4, 5, 6, 7)], (None,), (1, 2, -2), NORMS)]
    for shape, n, dim, norm in cases:
        same(f"t.fft.{op}(x, {n}, {dim}, {norm!r})", x=draw(shape, dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_fft_round_trip(dtype):
    pairs = [("fft", "ifft")] + ([] if np.dtype(dtype).kind == "c" else
                                 [("rfft", "irfft"), ("ihfft", "hfft")])
    for (forward, backward), shape, dim, norm in itertools.product(
            pairs, [(67,), (80,), (12, 14), (9, 6, 3)], (-1, 0), NORMS):
        x = draw(shape, dtype)
        kwargs = f"n=x.size({dim}), dim={dim}, norm={norm!r}"
        back = same(f"t.fft.{backward}(t.fft.{forward}(x, {kwargs}), {kwargs})", x=x)
        np.testing.assert_allclose(back.numpy(), x, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("op", ONE_D + TWO_D + N_D)
@pytest.mark.parametrize("dtype", ["float16", "float32", "complex32", "complex64"])
def test_empty_input_refused(op, dtype):
    same(f"t.fft.{op}(t.empty(1, 0, dtype=t.{dtype}))")


@pytest.mark.parametrize("op", ["irfft", "irfft2", "irfftn", "hfft", "hfft2", "hfftn"])
def test_one_frequency_gives_no_points(op):
    same(f"t.fft.{op}(t.empty(2, 1, dtype=t.complex64))")


@pytest.mark.parametrize("op", ["rfft", "rfftn", "ihfft", "rfft2", "ihfftn", "ihfft2"])
def test_real_transforms_refuse_complex(op):
    same(f"t.fft.{op}(x)", x=draw(64, np.complex128))


@pytest.mark.parametrize("dtype", ["int8", "int64", "bool", "float16", "bfloat16", "float32",
                                   "float64", "complex32", "complex64", "complex128"])
@pytest.mark.parametrize("op", ONE_D + TWO_D + N_D)
def test_dtype_promotion_and_half_refusals(op, dtype):
    """Integers transform in the default float type; half and bfloat16 have no CPU kernel."""
    x = rng.integers(-2, 2, (8, 8)) if dtype.startswith(("int", "bool")) else \
        rng.standard_normal((8, 8))
    same(f"t.fft.{op}(t.tensor(x).to(t.{dtype}))", x=x)


TRANSFORMS_ND = [
    *itertools.product(range(2, 5), (None,), (None, (0,), (0, -1))),
    *itertools.product(range(2, 5), (None, (4, 10)), (None,)),
    (6, None, None), (5, None, (1, 3, 4)), (3, None, (1,)), (1, None, (0,)),
    (4, (10, 10), None), (4, (10, 10), (0, 1)),
]


def _shape(rank, sizes=range(4, 9)):
    return tuple(itertools.islice(itertools.cycle(sizes), rank))


@pytest.mark.parametrize("dtype", [np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("op", N_D)
def test_reference_nd(op, dtype):
    for (rank, s, dim), norm in itertools.product(TRANSFORMS_ND, NORMS):
        same(f"t.fft.{op}(x, {s}, {dim}, {norm!r})", x=draw(_shape(rank), dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_fftn_round_trip(dtype):
    pairs = [("fftn", "ifftn")] + ([] if np.dtype(dtype).kind == "c" else
                                   [("rfftn", "irfftn"), ("ihfftn", "hfftn")])
    transforms = [*itertools.product(range(2, 5), (None, (0,), (0, -1))), (7, None),
                  (5, (1, 3, 4)), (3, (1,)), (1, 0)]
    for (forward, backward), (rank, dim), norm in itertools.product(pairs, transforms, NORMS):
        x = draw(_shape(rank), dtype)
        s = list(x.shape) if dim is None else x.shape[dim] if isinstance(dim, int) else \
            [x.shape[d] for d in dim]
        kwargs = f"s={s}, dim={dim}, norm={norm!r}"
        back = same(f"t.fft.{backward}(t.fft.{forward}(x, {kwargs}), {kwargs})", x=x)
        np.testing.assert_allclose(back.numpy(), x, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
@pytest.mark.parametrize("op", N_D + TWO_D)
def test_invalid_dims_and_sizes(op, dtype):
    x = draw((10, 10, 10), dtype)
    for args in ["dim=(0, 1, 0)", "dim=(2, -1)", "s=(1,), dim=(0, 1)", "dim=(3,)",
                 "s=(10, 10, 10, 10)", "dim=(0, 0)", "s=(1,)", "dim=(2, 3)"]:
        same(f"t.fft.{op}(x, {args})", x=x)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("op", ["fftn", "ifftn", "fft2", "ifft2", "rfftn", "irfftn", "hfftn",
                                "ihfftn"])
def test_no_dims_transform_nothing(op, dtype):
    same(f"t.fft.{op}(t.tensor(x).to(t.{dtype}), dim=[])", x=draw((10, 10), np.float64))


HERMITIAN_DIMS = [*itertools.product(range(2, 5), (None, (0,), (0, -1))), (6, None),
                  (5, (1, 3, 4)), (3, (1,)), (1, (0,)), (4, (0, 1))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hfftn_inverts_the_orthonormal_ifftn(dtype):
    for rank, dim in HERMITIAN_DIMS:
        dims = list(range(rank)) if dim is None else list(dim)
        x = draw(_shape(rank), dtype)
        half = f"[tuple(slice(0, x.size({dims[-1]}) // 2 + 1) if d == {dims[-1] % rank} " \
               f"else slice(None) for d in range({rank}))]"
        s = [x.shape[d] for d in dims]
        back = same(f"t.fft.hfftn(t.fft.ifftn(x, dim={dim}, norm='ortho'){half}, s={s}, "
                    f"dim={dim}, norm='ortho')", x=x)
        np.testing.assert_allclose(back.numpy(), x, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ihfftn_is_the_lower_half_of_ifftn(dtype):
    for rank, dim in HERMITIAN_DIMS:
        x = draw(_shape(rank), dtype)
        got = same(f"t.fft.ihfftn(x, dim={dim}, norm='ortho')", x=x)
        last = -1 if dim is None else dim[-1]
        want = np.fft.ifftn(x, axes=dim, norm="ortho")
        cut = [slice(None)] * rank
        cut[last] = slice(0, want.shape[last] // 2 + 1)
        np.testing.assert_allclose(got.resolve_conj().numpy(), want[tuple(cut)], rtol=1e-4,
                                   atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("op", TWO_D)
def test_fft2_against_numpy_and_torch(op, dtype):
    scipy_fft = pytest.importorskip("scipy.fft")
    reference = getattr(scipy_fft if "hfft" in op else np.fft, op)
    for (rank, s), norm in itertools.product(
            itertools.product(range(2, 5), (None, (4, 10))), NORMS):
        x = draw(_shape(rank), dtype)
        for dims in ("", ", (1, 0)"):
            got = same(f"t.fft.{op}(x, {s}{dims}, norm={norm!r})", x=x)
            if got is not None:
                want = reference(x, s, *([(1, 0)] if dims else []), norm=norm)
                np.testing.assert_allclose(got.numpy(), want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
@pytest.mark.parametrize("kind", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_fft2_is_fftn_over_two_dims(kind, dtype):
    transforms = [*itertools.product(range(2, 5), (None, (4, 10)), (None, (1, 0))),
                  (3, None, (0, 2))]
    for (rank, s, dim), norm in itertools.product(transforms, NORMS):
        x = draw(_shape(rank), dtype)
        dims = f", dim={dim}" if dim is not None else ""
        got = same(f"t.fft.{kind}2(x, s={s}, norm={norm!r}{dims})", x=x)
        if got is not None:
            n_dims = dim if dim is not None else (-2, -1)
            want = same(f"t.fft.{kind}n(x, s={s}, dim={n_dims}, norm={norm!r})", x=x)
            np.testing.assert_allclose(got.numpy(), want.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["fftfreq", "rfftfreq"])
def test_frequencies_against_numpy(op, dtype):
    for n, d in itertools.product(range(1, 20), (None, 10.0)):
        args = f"{n}" if d is None else f"{n}, {d}"
        got = same(f"t.fft.{op}({args}, dtype=t.{dtype})")
        np.testing.assert_allclose(got.numpy(), getattr(np.fft, op)(n, d or 1.0), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["fftfreq", "rfftfreq"])
def test_frequencies_into_out_resize_it_with_a_warning(op, dtype):
    for lib in (torch, gradjit):
        out = lib.empty((), dtype=getattr(lib, dtype))
        with pytest.warns(UserWarning, match="out tensor will be resized"):
            result = getattr(lib.fft, op)(n=100, d=0.5, out=out)
        assert result is out
        np.testing.assert_allclose(out.numpy(), getattr(np.fft, op)(100, 0.5), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("op", ["fftshift", "ifftshift"])
def test_shifts_against_numpy(op, dtype):
    cases = [*itertools.product([(11,), (12,)], (None, 0, -1)),
             *itertools.product([(4, 5), (6, 6)], (None, 0, (-1,))),
             *itertools.product([(1, 1, 4, 6, 7, 2)], (None, (3, 4)))]
    for shape, dim in cases:
        x = draw(shape, dtype)
        got = same(f"t.fft.{op}(x, dim={dim})", x=x)
        np.testing.assert_array_equal(got.numpy(), getattr(np.fft, op)(x, axes=dim))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fftshift_sorts_the_frequencies(dtype):
    for n in range(10, 15):
        got = same(f"t.fft.fftshift(t.fft.fftfreq({n}, d=1 / {n}, dtype=t.{dtype}))")
        np.testing.assert_array_equal(got.numpy(), np.arange(-(n // 2), n - n // 2))
        same(f"t.fft.ifftshift(t.fft.fftshift(t.fft.fftfreq({n}, d=1 / {n}, "
             f"dtype=t.{dtype})))")


VIEWS = [((165,), 1, "x.narrow(0, 25, 100)"), ((100, 100, 3), 1, "x[:, :, 0]"),
         ((100, 100), 2, "x.t()"), ((20, 100, 10, 10), 2, "x.view(20, 100, 100)[:, :60]"),
         ((65, 80, 115), 3, "x[10:60, 13:53, 10:80]"),
         ((30, 20, 50, 25), 3, "x.transpose(1, 2).transpose(2, 3)"),
         ((100,), 1, "x"), ((10, 1, 10, 100), 1, "x"), ((2, 2, 5, 80, 60), 2, "x")]
COMPLEX_VIEWS = [((100,), 1, "x.expand(100, 100)"),
                 ((20, 90, 110), 2, "x[:, 5:85].narrow(2, 5, 100)"),
                 ((40, 60, 3, 80), 3, "x.transpose(2, 0).select(0, 2)[5:55, :, 10:]"),
                 ((30, 55, 50, 22), 3, "x[:, 3:53, 15:40, 1:21]"), ((100, 100), 1, "x")]


@pytest.mark.parametrize("shape, ndim, view", VIEWS)
def test_real_round_trips_of_views(shape, ndim, view):
    x = draw(shape, np.float64)
    dims = tuple(range(-ndim, 0))
    for norm in (None, "ortho"):
        same(f"t.fft.irfftn(t.fft.rfftn({view}, dim={dims}, norm={norm!r}), "
             f"s={view}.shape[-{ndim}:], dim={dims}, norm={norm!r})", x=x)
        same(f"t.fft.ifftn(t.fft.fftn({view}, dim={dims}, norm={norm!r}), dim={dims}, "
             f"norm={norm!r})", x=x)


@pytest.mark.parametrize("shape, ndim, view", COMPLEX_VIEWS)
def test_complex_round_trips_of_views(shape, ndim, view):
    x = draw(shape, np.complex128)
    dims = tuple(range(-ndim, 0))
    for norm in (None, "ortho"):
        same(f"t.fft.ifftn(t.fft.fftn({view}, dim={dims}, norm={norm!r}), dim={dims}, "
             f"norm={norm!r})", x=x)
        same(f"t.fft.fftn(t.fft.ifftn({view}, dim={dims}, norm={norm!r}), dim={dims}, "
             f"norm={norm!r})", x=x)


def test_transforms_leave_their_input_unchanged():
    signal = gradjit.ones((2, 2, 2))
    spectrum = gradjit.fft.fftn(signal, dim=(-2, -1))
    half = gradjit.fft.rfftn(signal, dim=(-2, -1))
    kept = spectrum.clone(), half.clone()
    gradjit.fft.ifftn(spectrum, dim=(-2, -1))
    gradjit.fft.irfftn(half, s=(2, 2), dim=(-2, -1))
    assert bool((signal == 1).all())
    for now, before in zip((spectrum, half), kept):
        np.testing.assert_array_equal(now.numpy(), before.numpy())


@pytest.mark.parametrize("n", [2048, 3199, 5999])
def test_repeated_transforms_agree(n):
    for op, dtype in (("fftn", np.complex64), ("rfft", np.float64)):
        x = draw(n, dtype)
        first = same(f"t.fft.{op}(x)", x=x)
        np.testing.assert_array_equal(getattr(gradjit.fft, op)(gradjit.tensor(x)).numpy(),
                                      getattr(gradjit.fft, op)(gradjit.tensor(x).clone())
                                      .numpy())
        assert first is not None


@pytest.mark.parametrize("op", ONE_D + TWO_D + N_D)
def test_out_receives_the_transform(op):
    x = draw((4, 6), np.complex128 if op not in REAL_INPUT else np.float64)
    same(f"(lambda out: (t.fft.{op}(x, out=out), out))(t.empty(0, dtype=t.fft.{op}(x).dtype))",
         x=x)
    same(f"t.fft.{op}(x, out=t.empty(0, dtype=t.int64))", x=x)


@pytest.mark.parametrize("op", ONE_D + TWO_D + N_D)
def test_gradients_as_torch(op):
    x = draw((4, 6), np.complex128 if op not in REAL_INPUT else np.float64)
    grads = []
    for lib in (torch, gradjit):
        leaf = lib.tensor(x, requires_grad=True)
        out = getattr(lib.fft, op)(leaf, norm="ortho")
        weights = lib.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)))
        (out.abs() if out.dtype.is_complex else out).mul(weights).pow(2).sum().backward()
        grads.append(leaf.grad.resolve_conj().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-9, atol=1e-12)
