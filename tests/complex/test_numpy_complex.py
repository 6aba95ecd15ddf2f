"""Complex numbers in traced numpy code: numpy's promotion and values (compiled with host steps,
and interpreted), gradients as JAX and HIPS autograd give them, checked against jax and
against central differences along the real and the imaginary direction."""
import numpy as np
import pytest
import sympy as sp

import gradjit
import gradjit.numpy as gnp
from gradjit.codegen.fuse import fuse
from gradjit.ir import PRIMITIVES, ShapeError
from gradjit.ir.primitive import evaluate
from gradjit.test_util import check_grads

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(0)
BACKENDS = ("cpu", "interpreter", "cuda-emulator")


def crandn(*shape, dtype=np.complex128):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


Z, W = crandn(3, 4), crandn(3, 4)
X = rng.standard_normal((3, 4))


@pytest.mark.parametrize("a,b", [
    (np.float32, np.complex64), (np.float64, np.complex64), (np.float32, np.complex128),
    (np.int64, np.complex64), (np.complex64, np.complex128), (np.bool_, np.complex64)])
def test_arrays_promote_as_numpy(a, b):
    x, y = np.ones(3, a), np.ones(3, b)
    got = gradjit.jit(lambda x, y: x * y)(x, y)
    assert got.dtype == (x * y).dtype


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.float16])
def test_a_python_complex_is_weak(dt):
    x = np.ones(3, dt)
    backend = "interpreter" if dt == np.float16 else "cpu"  # float16 is never compiled
    got = gradjit.jit(lambda x: x * 1j + 2, backend=backend)(x)
    want = x * 1j + 2
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


FUNCTIONS = {
    "add": lambda z, w: z + w, "sub": lambda z, w: z - w, "mul": lambda z, w: z * w,
    "div": lambda z, w: z / w, "neg": lambda z, w: -z, "exp": lambda z, w: np.exp(z),
    "log": lambda z, w: np.log(z), "sqrt": lambda z, w: np.sqrt(z),
    "sin": lambda z, w: np.sin(z), "cos": lambda z, w: np.cos(z),
    "tanh": lambda z, w: np.tanh(z), "pow": lambda z, w: z ** w,
    "pow_int": lambda z, w: z ** 3, "abs": lambda z, w: np.abs(z),
    "conj": lambda z, w: np.conj(z), "conj_method": lambda z, w: z.conj(),
    "real": lambda z, w: np.real(z), "imag": lambda z, w: z.imag,
    "angle": lambda z, w: np.angle(z), "angle_deg": lambda z, w: np.angle(z, deg=True),
    "reciprocal": lambda z, w: np.reciprocal(z), "square": lambda z, w: np.square(z),
    "sum": lambda z, w: np.sum(z, axis=0), "mean": lambda z, w: z.mean(),
    "prod": lambda z, w: np.prod(z, axis=1), "matmul": lambda z, w: z @ w.T,
    "reshape": lambda z, w: z.reshape(2, 6), "transpose": lambda z, w: z.T,
    "index": lambda z, w: z[1:, ::2], "eq": lambda z, w: z == w[0],
    "where": lambda z, w: np.where(np.abs(z) > 1, z, w),
    "with_real": lambda z, w: z * np.abs(w) + 1.5, "scalar": lambda z, w: (2 - 1j) * z,
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_values_as_numpy(name, dt, backend):
    fn = FUNCTIONS[name]
    z, w = Z.astype(dt), W.astype(dt)
    want = fn(z, w)
    got = gradjit.jit(fn, backend=backend)(z, w)
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = 1e-5 if dt == np.complex64 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_compiled_programs_keep_real_kernels_next_to_host_steps():
    fn = gradjit.jit(lambda x, z: np.exp(x) * np.abs(z * 2j))
    np.testing.assert_allclose(fn(X, Z), np.exp(X) * np.abs(Z * 2j), rtol=1e-12)
    program = str(fuse(fn.ir(X, Z)))
    assert "= abs(b" in program and "= mul(b" in program  # host steps on complex values
    assert "kernel @" in program and "exp(%" in program  # the real part stays a kernel


# real-valued functions of complex arguments: the gradient is df/dx - i df/dy (JAX, HIPS)
REAL_LOSSES = {
    "abs2": (lambda z, w: gnp.sum(gnp.abs(z) ** 2), lambda z, w: jnp.sum(jnp.abs(z) ** 2)),
    "real_dot": (lambda z, w: gnp.sum(gnp.real(z * gnp.conj(w))),
                 lambda z, w: jnp.sum(jnp.real(z * jnp.conj(w)))),
    "imag_exp": (lambda z, w: gnp.sum(gnp.imag(gnp.exp(z) / w)),
                 lambda z, w: jnp.sum(jnp.imag(jnp.exp(z) / w))),
    "abs": (lambda z, w: gnp.sum(gnp.abs(gnp.sin(z) * w)),
            lambda z, w: jnp.sum(jnp.abs(jnp.sin(z) * w))),
    "angle": (lambda z, w: gnp.sum(gnp.angle(z * w)), lambda z, w: jnp.sum(jnp.angle(z * w))),
    "log_sqrt": (lambda z, w: gnp.sum(gnp.real(gnp.log(z) + gnp.sqrt(w) * z ** 2)),
                 lambda z, w: jnp.sum(jnp.real(jnp.log(z) + jnp.sqrt(w) * z ** 2))),
    "matmul": (lambda z, w: gnp.sum(gnp.abs(z @ w.T)), lambda z, w: jnp.sum(jnp.abs(z @ w.T))),
    "prod": (lambda z, w: gnp.real(gnp.prod(z[0] * w[1])),
             lambda z, w: jnp.real(jnp.prod(z[0] * w[1]))),
}


@pytest.mark.parametrize("name", sorted(REAL_LOSSES))
def test_gradients_of_real_losses_match_jax(name):
    ours, theirs = REAL_LOSSES[name]
    got = gradjit.grad(ours, argnums=(0, 1))(Z, W)
    want = jax.grad(theirs, argnums=(0, 1))(Z, W)
    for g, w in zip(got, want):
        assert g.dtype == np.complex128
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(REAL_LOSSES))
def test_gradients_match_central_differences_in_both_directions(name):
    loss = REAL_LOSSES[name][0]
    got = gradjit.grad(loss)(Z, W)
    eps = 1e-6
    for idx in [(0, 0), (1, 2), (2, 3)]:
        for step, part in [(1.0, np.real(got[idx])), (1j, -np.imag(got[idx]))]:
            plus, minus = Z.copy(), Z.copy()
            plus[idx] += eps * step
            minus[idx] -= eps * step
            numeric = (loss(plus, W) - loss(minus, W)) / (2 * eps)
            np.testing.assert_allclose(part, numeric, rtol=1e-6, atol=1e-8)


def test_a_real_argument_gets_a_real_gradient():
    fn = lambda x: gnp.sum(gnp.real(x * (1 + 2j)) + gnp.abs(x * 1j) ** 2)
    got = gradjit.grad(fn)(X)
    assert got.dtype == np.float64
    want = jax.grad(lambda x: jnp.sum(jnp.real(x * (1 + 2j)) + jnp.abs(x * 1j) ** 2))(X)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_complex_from_parts_and_back():
    fn = lambda a, b: gnp.sum(gnp.abs(a + 1j * b) ** 3)
    got = gradjit.grad(fn, argnums=(0, 1))(X, X[::-1])
    want = jax.grad(lambda a, b: jnp.sum(jnp.abs(a + 1j * b) ** 3), argnums=(0, 1))(X, X[::-1])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_complex_outputs_need_holomorphic():
    """As JAX and HIPS autograd: grad of a complex output raises; holomorphic=True (HIPS's
    holomorphic_grad) gives the complex derivative."""
    z = np.complex128(0.3 + 0.7j)
    with pytest.raises(TypeError, match="returns a complex scalar"):
        gradjit.grad(lambda x: x * (1.0 + 0.2j))(1.0)
    got = gradjit.grad(lambda z: gnp.sin(z) * z, holomorphic=True)(z)
    want = jax.grad(lambda z: jnp.sin(z) * z, holomorphic=True)(z)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(gradjit.holomorphic_grad(lambda x: x * (1.0 + 0.2j))(1.0 + 0j),
                               1.0 + 0.2j)


def test_vjp_and_jvp_of_complex_functions_match_jax():
    fn = lambda z, w: gnp.exp(z) * gnp.conj(w) + gnp.abs(z)
    jfn = lambda z, w: jnp.exp(z) * jnp.conj(w) + jnp.abs(z)
    ct = crandn(3, 4)
    out, pull = gradjit.vjp(fn, Z, W)
    want_out, jpull = jax.vjp(jfn, Z, W)
    np.testing.assert_allclose(out, want_out, rtol=1e-12)
    for g, w in zip(pull(ct), jpull(ct)):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    tangents = (crandn(3, 4), crandn(3, 4))
    _, got = gradjit.jvp(fn, (Z, W), tangents)
    _, want = jax.jvp(jfn, (Z, W), tangents)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn", [
    lambda z: gnp.exp(z) * gnp.conj(z), lambda z: gnp.abs(z) ** 2 + gnp.angle(z),
    lambda z: gnp.real(z) * gnp.imag(z) * z, lambda z: gnp.sum(z @ gnp.conj(z).T)])
def test_check_grads_to_second_order(fn):
    check_grads(fn, modes=["fwd", "rev"], order=2)(crandn(2, 3))


# HIPS autograd's tests/test_complex.py
def test_real_type():
    df = gradjit.grad(lambda x: gnp.sum(gnp.real(x)))
    assert np.isrealobj(df(2.0))
    assert np.iscomplexobj(df(1.0j))


def test_real_if_close_type():
    df = gradjit.grad(lambda x: gnp.sum(gnp.real(x)))  # as HIPS autograd's test has it
    assert np.isrealobj(df(1.0))
    assert np.iscomplexobj(df(1.0j))
    df = gradjit.grad(lambda x: gnp.sum(gnp.real_if_close(x * (1 + 1e-20j))))
    assert np.iscomplexobj(df(np.complex128(2.0)))


@pytest.mark.parametrize("x", [0.7, 0.4 + 0.6j])
def test_angle(x):
    fun = lambda x: gnp.angle(x)
    check_grads(fun)(x)
    check_grads(lambda x: gradjit.grad(fun)(x))(x)


@pytest.mark.parametrize("x,y", [(1.1, 2.1), (1.1 + 1.2j, 1.1 + 1.3j)])
def test_abs(x, y):
    fun = lambda x: gnp.abs(x)
    check_grads(fun)(x)
    check_grads(lambda x: gradjit.grad(fun)(x))(y)


def test_real_if_close_decides_on_the_data():
    fn = gradjit.jit(lambda z: np.real_if_close(z * 2))
    assert fn(np.array([1 + 1e-20j])).dtype == np.float64
    assert fn(np.array([1 + 1e-3j])).dtype == np.complex128


def test_predicates():
    z = np.array([1 + 0j, 2 + 1j])
    assert gradjit.jit(lambda z: np.iscomplexobj(z) * 1)(z) == 1
    assert gradjit.jit(lambda x: np.iscomplexobj(x) * 1)(X) == 0
    np.testing.assert_array_equal(gradjit.jit(np.iscomplex)(z), np.iscomplex(z))
    np.testing.assert_array_equal(gradjit.jit(np.isreal)(z), np.isreal(z))


def test_complex_comparisons_follow_numpys_order():
    """maximum, max, argmax and sort follow numpy's order (tests/complex/test_complex_order.py),
    and so do the comparison operators."""
    np.testing.assert_array_equal(gradjit.jit(lambda z: (z < 1, z >= Z[::-1]))(Z),
                                  (Z < 1, Z >= Z[::-1]))


def test_the_primitives_refuse_to_order_complex_values():
    """(numpy's order is built from comparisons of the parts)"""
    with pytest.raises(ShapeError, match="complex numbers have no order"):
        PRIMITIVES["lt"](Z, Z)
    with pytest.raises(ShapeError, match="complex numbers have no order"):
        PRIMITIVES["reduce_max"](Z, axes=(0,), keepdims=False)


def test_parts_of_a_real_value_are_refused_by_the_primitive():
    with pytest.raises(ShapeError, match="needs a complex operand"):
        PRIMITIVES["real"](X)
    with pytest.raises(ShapeError, match="needs floating point or complex operands"):
        PRIMITIVES["exp"](np.arange(3))


@pytest.mark.parametrize("name", ["conj", "real", "imag", "complex"])
def test_sympy_forms_over_complex_symbols(name):
    prim = PRIMITIVES[name]
    args = [Z] if name != "complex" else [X, X[::-1]]
    kind = {"real": True} if name == "complex" else {"complex": True}
    symbols = [sp.Symbol(f"a{i}", **kind) for i in range(len(args))]
    fn = sp.lambdify(symbols, prim.sympy(sp, *symbols), "numpy")
    np.testing.assert_allclose(fn(*args), evaluate(prim, args, {}), rtol=1e-14)


def test_complex_constants_round_trip_through_the_ir_text():
    from gradjit.ir import parse
    fn = gradjit.jit(lambda z: z * (2 - 1j) + np.array([1j, np.nan + 1j, -0.0 + 2.5j]))
    text = str(fn.ir(Z[0, :3]))
    assert "complex(2.0,-1.0)" in text and "complex(nan,1.0)" in text
    assert str(parse(text)) == text


# HIPS autograd's tests/test_linalg.py (complex norms) and tests/test_graphs.py
@pytest.mark.parametrize("fun,shape", [
    (lambda x: gnp.linalg.norm(x), (6,)), (lambda x: gnp.linalg.norm(x), (6, 5)),
    (lambda x: gnp.linalg.norm(x, axis=(0, 1)), (6, 5, 4)),
    *[(lambda x, o=o: gnp.linalg.norm(x, ord=o), (6,)) for o in range(2, 5)],
    *[(lambda x, a=a: gnp.linalg.norm(x, axis=a), (6, 5, 4)) for a in range(3)]])
def test_complex_norms(fun, shape):
    x = crandn(*shape)
    np.testing.assert_allclose(gradjit.jit(fun)(x), fun(x), rtol=1e-12)
    check_grads(fun)(x)


def test_complex_mutating_outgrad_from_indexing():
    def fun(a):
        b = a + 1.0j
        c = b[0] + 1.5
        d = a + b
        e = d + c
        return gnp.sum(gnp.sin(gnp.real(e)))
    a = rng.standard_normal(5)
    check_grads(fun)(a)
    check_grads(lambda x: gradjit.grad(fun)(x))(a)


def test_complex_separate_real_and_imaginary():
    def fun(a):
        r, i = gnp.real(a), gnp.imag(a)
        a = gnp.abs(r) ** 1.4 + gnp.abs(i) ** 1.3
        return gnp.sum(gnp.sin(a))
    a = rng.standard_normal((5, 3)) + 0.1j * rng.standard_normal((5, 3))
    check_grads(fun)(a)
    check_grads(lambda x: gradjit.grad(fun)(x))(a)
