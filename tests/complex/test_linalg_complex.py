"""np.linalg and torch.linalg on complex matrices: values against numpy and PyTorch, gradients
of gauge-invariant losses against jax (traced numpy, JAX's convention), torch (Tensors, its
conjugate) and central differences, tangents against jax.jvp."""
import numpy as np
import pytest
import torch as T

import gradjit
import gradjit as torch

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(11)


def complex_normal(*shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


TALL = complex_normal(4, 3)
WIDE = complex_normal(3, 5)
SQUARE = complex_normal(2, 3, 3)
TALL_RHS = complex_normal(4, 2)
_root = complex_normal(3, 3)
HERMITIAN = _root @ _root.conj().T + 3 * np.eye(3)
W = rng.uniform(0.5, 1.5, (5, 5))


def _weights(x):
    return W[tuple(slice(0, n) for n in x.shape[-2:])]


def _lower_hermitian(xp, a):
    """The Hermitian matrix of a's lower triangle, which numpy's eigh and cholesky read (jax
    reads both triangles)."""
    return xp.tril(a) + xp.conj(xp.swapaxes(xp.tril(a, -1), -1, -2))


def _losses(xp, hermitian):
    """Real losses of gauge-invariant quantities: |U|^2, singular values, eigenvalues,
    projectors, and of the factors that have no gauge (R, L, inverse, determinant)."""
    la = xp.linalg

    def svd(a):
        u, s, vh = la.svd(a, full_matrices=False)
        return (xp.sum(xp.abs(u) ** 2 * _weights(u)) + xp.sum(s * xp.arange(1, s.shape[-1] + 1))
                + xp.sum(xp.abs(vh) ** 2 * _weights(vh))
                + xp.sum(xp.abs((u * s[..., None, :]) @ vh) ** 2 * _weights(a)))

    def eigh(a):
        w, v = la.eigh(hermitian(a))
        projector = v[..., :, :1] @ xp.conj(v[..., :, :1]).T
        return (xp.sum(w * xp.arange(3)) + xp.sum(xp.abs(v) ** 2 * _weights(v))
                + xp.real(xp.sum(projector * (1 + 2j) * _weights(a))))

    def qr(a):
        q, r = la.qr(a)
        return xp.sum(xp.abs(q) ** 2 * _weights(q)) + xp.real(xp.sum(r * (1 + 2j) * _weights(r)))

    def slogdet(a):
        sign, logabsdet = la.slogdet(a)
        return xp.sum(logabsdet + xp.imag(sign) + 2 * xp.real(sign))

    return {
        "svd-tall": (svd, TALL), "svd-wide": (svd, WIDE),
        "svdvals": (lambda a: xp.sum(la.svd(a, compute_uv=False) ** 2 * xp.arange(3)), TALL),
        "norms": (lambda a: la.norm(a, "nuc") + la.norm(a, 2) + la.norm(a, -2), TALL),
        "eigh": (eigh, HERMITIAN),
        "eigvalsh": (lambda a: xp.sum(la.eigvalsh(hermitian(a)) ** 3), HERMITIAN),
        "cholesky": (lambda a: xp.real(xp.sum(la.cholesky(hermitian(a)) * (2 - 1j)
                                              * _weights(a))), HERMITIAN),
        "qr-tall": (qr, TALL), "qr-wide": (qr, WIDE),
        "inv": (lambda a: xp.real(xp.sum(la.inv(a) * (1 + 1j) * _weights(a))), SQUARE),
        "solve": (lambda a: xp.imag(xp.sum(la.solve(a, _weights(a) + 0j))), SQUARE),
        "det": (lambda a: xp.sum(xp.abs(la.det(a)) ** 2 + xp.real(la.det(a))), SQUARE),
        "slogdet": (slogdet, SQUARE),
        "pinv": (lambda a: xp.real(xp.sum(la.pinv(a) * (1 - 1j) * _weights(a.T))), TALL),
        "lstsq": (lambda a: (lambda x, residuals, *_: xp.sum(residuals)
                             + xp.real(xp.sum(x * (1 + 1j))))(*la.lstsq(a, TALL_RHS)), TALL),
    }


OURS = _losses(np, lambda a: _lower_hermitian(np, a))
JAX = _losses(jnp, lambda a: _lower_hermitian(jnp, a))


@pytest.mark.parametrize("name", sorted(OURS))
def test_values_as_numpy(name):
    fn, a = OURS[name]
    for backend in ("cpu", "interpreter"):
        np.testing.assert_allclose(gradjit.jit(fn, backend=backend)(a), fn(a), rtol=1e-10)


def test_result_types_as_numpy():
    def parts(a, h):
        return (*np.linalg.svd(a), *np.linalg.eigh(h), *np.linalg.slogdet(h),
                *np.linalg.qr(a), np.linalg.cholesky(h), np.linalg.det(h))
    for dt in (np.complex64, np.complex128):
        got = gradjit.jit(parts)(TALL.astype(dt), HERMITIAN.astype(dt))
        want = parts(TALL.astype(dt), HERMITIAN.astype(dt))
        assert [g.dtype for g in got] == [w.dtype for w in want]


@pytest.mark.parametrize("name", sorted(OURS))
def test_gradients_match_jax(name):
    fn, a = OURS[name]
    want = jax.grad(JAX[name][0])(a)
    for backend in ("cpu", "interpreter"):
        got = gradjit.grad(fn, backend=backend)(a)
        assert got.dtype == a.dtype
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("name", sorted(OURS))
def test_tangents_match_jax(name):
    fn, a = OURS[name]
    tangent = complex_normal(*a.shape)
    _, got = gradjit.jvp(fn, (a,), (tangent,))
    _, want = jax.jvp(JAX[name][0], (a,), (tangent,))
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("name", ["svd-tall", "eigh", "cholesky", "qr-wide", "slogdet"])
def test_gradients_match_central_differences(name):
    """JAX's convention: the gradient of a real f is df/dx - i df/dy."""
    fn, a = OURS[name]
    got = gradjit.grad(fn)(a)
    eps = 1e-6
    for idx in [(0, 0), (1, 0), (2, 1)]:
        idx = (0,) * (a.ndim - 2) + idx
        for step, part in ((1, got[idx].real), (1j, -got[idx].imag)):
            plus, minus = a.copy(), a.copy()
            plus[idx] += eps * step
            minus[idx] -= eps * step
            np.testing.assert_allclose(part, (fn(plus) - fn(minus)) / (2 * eps), rtol=1e-6,
                                       atol=1e-8)


# ---- torch.linalg on complex Tensors ----

def _gram(t, x):
    """A Hermitian positive definite matrix made in the graph, as PyTorch's own tests make
    it."""
    return x @ x.mH + 3 * t.eye(x.shape[-1], dtype=x.dtype)


TORCH = {
    "svd": (lambda t, a: (lambda u, s, vh: (u.abs() ** 2).sum() + (s * t.arange(1, 4)).sum()
                          + ((u * s.unsqueeze(-2)) @ vh).real.sum())(
        *t.linalg.svd(a, full_matrices=False)), TALL),
    "svdvals": (lambda t, a: (t.linalg.svdvals(a) ** 2).sum(), WIDE),
    "eigh": (lambda t, a: (lambda w, v: (w * t.arange(3)).sum() + (v.abs() ** 4).sum())(
        *t.linalg.eigh(_gram(t, a))), SQUARE[0]),
    "eigvalsh": (lambda t, a: (t.linalg.eigvalsh(_gram(t, a)) ** 2).sum(), SQUARE),
    "cholesky": (lambda t, a: (t.linalg.cholesky(_gram(t, a)) * (1 + 2j)).real.sum(),
                 SQUARE[1]),
    # PyTorch's gradient of a Hermitian input keeps a skew-Hermitian part: matched as it is
    "cholesky-hermitian": (lambda t, a: (t.linalg.cholesky(a) * t.tensor(W[:3, :3] + 2j)).real
                           .sum(), HERMITIAN),
    "cholesky-upper": (lambda t, a: (t.linalg.cholesky(a, upper=True) * (1 - 3j)).imag.sum(),
                       HERMITIAN),
    "qr": (lambda t, a: (lambda q, r: (q.abs() ** 2 * t.arange(3.0)).sum()
                         + (r * (1 - 1j)).real.sum())(*t.linalg.qr(a)), TALL),
    "inv": (lambda t, a: (t.linalg.inv(a) * (1 + 1j)).real.sum(), SQUARE),
    "solve": (lambda t, a: t.linalg.solve(a, t.ones(3, 2, dtype=a.dtype)).imag.sum(), SQUARE),
    "det": (lambda t, a: t.linalg.det(a).abs().sum(), SQUARE),
    "slogdet": (lambda t, a: (lambda s, l: (l + s.imag).sum())(*t.linalg.slogdet(a)), SQUARE),
    "pinv": (lambda t, a: (t.linalg.pinv(a) * (1 - 1j)).real.sum(), TALL),
    "norms": (lambda t, a: t.linalg.matrix_norm(a, "nuc") + t.linalg.matrix_norm(a, 2), TALL),
    "lstsq": (lambda t, a: (lambda r: r.residuals.sum() + (r.solution * (1 + 1j)).real.sum())(
        t.linalg.lstsq(a, t.tensor(TALL_RHS), driver="gelsd")), TALL),
}


@pytest.mark.parametrize("name", sorted(TORCH))
def test_torch_linalg_as_torch(name):
    fn, a = TORCH[name]
    results = []
    for t in (torch, T):
        x = t.tensor(a, requires_grad=True)
        loss = fn(t, x)
        loss.backward()
        results.append((loss.item(), x.grad.numpy()))
    (got, got_grad), (want, want_grad) = results
    np.testing.assert_allclose(got, want, rtol=1e-10)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("fn", [
    lambda t, a: t.linalg.svd(a, full_matrices=False), lambda t, a: t.linalg.eigh(a @ a.mH),
    lambda t, a: t.linalg.qr(a), lambda t, a: t.linalg.slogdet(a[:3]),
    lambda t, a: t.linalg.cholesky(a[:3] @ a[:3].mH + t.eye(3)),
    lambda t, a: t.linalg.svdvals(a), lambda t, a: t.linalg.det(a[:3])])
def test_torch_result_dtypes_and_grad_fns(fn):
    results = []
    for t in (torch, T):
        out = fn(t, t.tensor(TALL.astype(np.complex64), requires_grad=True))
        out = out if isinstance(out, tuple) else (out,)
        results.append([(str(o.dtype), o.grad_fn.name()) for o in out])
    assert results[0] == results[1]


def test_conjugate_transposes_conjugate_complex_tensors():
    results = []
    for t in (torch, T):
        a = t.tensor(TALL, requires_grad=True)
        outs = [a.mH, a.adjoint(), a.H, a.mT]
        sum(((o * (1 + 2j)).real ** 2).sum() for o in outs).backward()
        results.append(([o.detach().resolve_conj().numpy() for o in outs],
                        [o.grad_fn.name() for o in outs], a.grad.numpy()))
    (got, got_names, got_grad), (want, want_names, want_grad) = results
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert got_names == want_names
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-12)


# ---- HIPS autograd's complex linear-algebra checks: both modes, to order 2 ----

def _hips_svd(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.abs(u), s, np.abs(vh)


def _hips_eigh(uplo):
    def fun(a):
        w, v = np.linalg.eigh(a, uplo)
        return w, np.abs(v)
    return fun


HIPS = {
    "norm-nuclear": (lambda a: np.linalg.norm(a, ord="nuc"), (6, 5)),
    "norm-nuclear-axis": (lambda a: np.linalg.norm(a, ord="nuc", axis=(0, 1)), (6, 5, 4)),
    "eigh-lower": (_hips_eigh("L"), (6, 6)), "eigh-upper": (_hips_eigh("U"), (6, 6)),
    "svd-wide-2d": (_hips_svd, (3, 5)), "svd-wide-3d": (_hips_svd, (4, 3, 5)),
    "svd-square-2d": (_hips_svd, (4, 4)), "svd-tall-3d": (_hips_svd, (4, 5, 3)),
    "svd-only-s-3d": (lambda a: np.linalg.svd(a, compute_uv=False), (4, 3, 5)),
}


@pytest.mark.parametrize("name", sorted(HIPS))
def test_hips_autograd_complex_checks(name):
    from gradjit.test_util import check_grads
    fun, shape = HIPS[name]
    check_grads(fun)(complex_normal(*shape))


# ---- products that conjugate their first operand ----

VECTORS = complex_normal(2, 3), complex_normal(2, 3)
CONJUGATING = {
    "vdot": (lambda a, b: np.vdot(a, b), lambda a, b: jnp.vdot(a, b)),
    "vecdot": (lambda a, b: np.linalg.vecdot(a, b), lambda a, b: jnp.linalg.vecdot(a, b)),
    "vecmat": (lambda a, b: np.vecmat(a, b.T), lambda a, b: jnp.vecmat(a, b.T)),
}


@pytest.mark.parametrize("name", sorted(CONJUGATING))
def test_conjugating_products_as_numpy_and_jax(name):
    ours, theirs = CONJUGATING[name]
    np.testing.assert_allclose(gradjit.jit(ours)(*VECTORS), ours(*VECTORS), rtol=1e-12)
    got = gradjit.grad(lambda a, b: np.real(np.sum(ours(a, b) * (1 + 2j))), (0, 1))(*VECTORS)
    want = jax.grad(lambda a, b: jnp.real(jnp.sum(theirs(a, b) * (1 + 2j))), (0, 1))(*VECTORS)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_torch_vdot_and_vecdot_conjugate_as_torch():
    results = []
    for t in (torch, T):
        x, y = (t.tensor(v, requires_grad=True) for v in VECTORS)
        dot, vec = t.vdot(x[0], y[0]), t.linalg.vecdot(x, y)
        (dot.imag + (vec * (2 - 1j)).real.sum()).backward()
        results.append((dot.detach().numpy(), vec.detach().numpy(), x.grad.numpy(),
                        y.grad.numpy(), dot.grad_fn.name(), vec.grad_fn.name()))
    for got, want in zip(*results):
        if isinstance(want, str):
            assert got == want
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12)
