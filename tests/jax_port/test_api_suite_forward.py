"""JAX's API scenarios for jvp, vjp, linearize, jacfwd, jacrev, hessian and eval_shape
(pytree inputs and outputs, argnums tuples, has_aux, holomorphic, compositions, error
types), each run with jax and with gradjit and the results compared."""
import numpy as np
import pytest

from tests.jax_port.api_suite import agree

SCENARIOS = {}
R = np.random.RandomState(0).randn
A43, X3, A44, X4 = R(4, 3), R(3), R(4, 4), R(4)


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


@scenario
def jacobian_linear(jax, jnp, lax):
    f = lambda x: jnp.dot(A43, x)  # noqa: E731
    return jax.jacfwd(f)(X3), jax.jacrev(f)(X3)


@scenario
def jacobian_tanh(jax, jnp, lax):
    f = lambda x: jnp.tanh(jnp.dot(A43, x))  # noqa: E731
    return jax.jacfwd(f)(X3), jax.jacrev(f)(X3)


@scenario
def hessian_quadratic(jax, jnp, lax):
    return jax.hessian(lambda x: jnp.dot(x, jnp.dot(A44, x)))(X4)


@pytest.mark.parametrize("kind", ["jacfwd", "jacrev"])
def test_jacobian_on_pytrees(kind):
    def run(jax, jnp, lax):
        jac = getattr(jax, kind)
        x, y = X4[:2], X3
        return (jac(lambda x, y: (x, y))(0.0, 1.0),
                jac(lambda x, y: (x, y), 1)(0.0, 1.0),
                jac(lambda x, y: (x, y), (0, 1))(0.0, 1.0),
                jac(lambda x: x[:2])((1.0, 2.0, 3.0)),
                jac(lambda x, y: {"x": x, "xy": jnp.outer(x, y)})(x, y),
                jac(lambda p: {"s": jnp.sum(p["a"] * p["b"]), "v": p["a"] ** 2})(
                    {"a": x, "b": x[::-1]}))
    agree(run)


@scenario
def hessian_on_pytrees(jax, jnp, lax):
    return jax.hessian(lambda x: jnp.array(x) ** 2)((1.0, 2.0))


@scenario
def hessian_argnums_has_aux(jax, jnp, lax):
    def f(x, y):
        return jnp.sum(jnp.sin(x) * y ** 2), {"y": y}
    return jax.hessian(f, argnums=(0, 1), has_aux=True)(X3, X3[::-1])


@scenario
def jacfwd_jacrev_has_aux(jax, jnp, lax):
    def f(x):
        return jnp.sin(x) * 2, (x.sum(), [x ** 2])
    return jax.jacfwd(f, has_aux=True)(X3), jax.jacrev(f, has_aux=True)(X3)


@pytest.mark.parametrize("outer", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("inner", ["jacfwd", "jacrev"])
def test_nested_jacobians_issue1372(outer, inner):
    def run(jax, jnp, lax):
        def f(x, u):
            return jnp.dot(x, x) + jnp.dot(u, u) * jnp.sum(x)
        x, u = np.ones(5), np.arange(2.0)
        fo, fi = getattr(jax, outer), getattr(jax, inner)
        return [fo(fi(f, a), b)(x, u) for a in (0, 1) for b in (0, 1)]
    agree(run)


@scenario
def jacrev_nonholomorphic(jax, jnp, lax):
    zs = 0.5j * np.arange(5) + np.arange(5)
    f = lambda z: jnp.cos(jnp.linalg.norm(2 * z))  # noqa: E731
    return jax.jacrev(f)(zs), jax.grad(f)(zs)


@scenario
def jacrev_complex_output(jax, jnp, lax):
    return jax.jacrev(lambda x: jnp.sin(x))(1 + 2j)


@scenario
def jacfwd_complex_input(jax, jnp, lax):
    return jax.jacfwd(lambda x: jnp.sin(x))(1 + 2j)


@scenario
def jacrev_holomorphic(jax, jnp, lax):
    z = np.array([1 + 2j, 0.5 - 1j])
    f = lambda z: jnp.sin(z) * z  # noqa: E731
    return jax.jacrev(f, holomorphic=True)(z), jax.jacfwd(f, holomorphic=True)(z)


@scenario
def jacrev_holomorphic_of_float(jax, jnp, lax):
    return jax.jacrev(lambda x: x ** 2, holomorphic=True)(3.0)


@scenario
def jacfwd_holomorphic_of_float(jax, jnp, lax):
    return jax.jacfwd(lambda x: x ** 2, holomorphic=True)(3.0)


@scenario
def jvp_basic(jax, jnp, lax):
    return jax.jvp(lambda x, y: jnp.sin(x) * y, (1.0, 2.0), (0.5, -1.0))


@scenario
def jvp_pytrees(jax, jnp, lax):
    def f(p):
        return {"out": p["w"] @ p["x"], "n": (jnp.sum(p["x"]),)}
    p = {"w": A43, "x": X3}
    t = {"w": np.ones_like(A43), "x": np.arange(3.0)}
    return jax.jvp(f, (p,), (t,))


@scenario
def jvp_has_aux(jax, jnp, lax):
    return jax.jvp(lambda x: (jnp.sin(x), {"c": jnp.cos(x)}), (X3,), (np.ones(3),),
                   has_aux=True)


@scenario
def jvp_mismatched_structure(jax, jnp, lax):
    return jax.jvp(lambda x, y: x * y, (np.float32(2),), ())


@scenario
def jvp_tuple_and_list(jax, jnp, lax):
    return jax.jvp(lambda x, y: x * y, (np.float32(2),), [np.float32(2)])


@scenario
def jvp_mismatched_dtypes(jax, jnp, lax):
    return jax.jvp(lambda x: -x, (np.float16(2),), (np.float32(4),))


@scenario
def jvp_non_tuple_primals(jax, jnp, lax):
    return jax.jvp(lambda x, y: x + y, 0.0, (1.0,))


@scenario
def jvp_non_tuple_tangents(jax, jnp, lax):
    return jax.jvp(lambda x, y: x + y, (0.0,), np.array([1.0, 2.0]))


@scenario
def jvp_of_grad(jax, jnp, lax):
    return jax.jvp(jax.grad(lambda x: jnp.sum(jnp.sin(x) ** 2)), (X3,), (np.ones(3),))


@scenario
def grad_of_jvp(jax, jnp, lax):
    return jax.grad(lambda x: jax.jvp(jnp.sin, (x,), (x ** 2,))[1])(0.4)


@scenario
def vjp_basic(jax, jnp, lax):
    out, pullback = jax.vjp(lambda x, y: {"a": x * y, "b": jnp.sin(x)}, X3, 2.0)
    return out, pullback({"a": np.ones(3), "b": np.arange(3.0)})


@scenario
def vjp_has_aux(jax, jnp, lax):
    out, pullback, aux = jax.vjp(lambda x: (x ** 2, [x + 1]), X3, has_aux=True)
    return out, pullback(np.ones(3)), aux


@scenario
def vjp_mismatched_cotangent_structure(jax, jnp, lax):
    _, pullback = jax.vjp(lambda x, y: x * y, np.float32(3), np.float32(4))
    return pullback((np.float32(7), np.float32(100)))


@scenario
def vjp_cotangent_of_wrong_shape(jax, jnp, lax):
    _, pullback = jax.vjp(lambda x: x * 2, np.ones(3))
    return pullback(np.ones(2))


@scenario
def vjp_complex_cotangent_for_real_output(jax, jnp, lax):
    _, pullback = jax.vjp(lambda x: x * 2, np.ones(3))
    return pullback(np.ones(3, complex))


@scenario
def vjp_of_jit_closure(jax, jnp, lax):
    def f(x):
        scale = jnp.sum(x)
        return jax.jit(lambda y: y * scale)(x)
    out, pullback = jax.vjp(f, X3)
    return out, pullback(np.arange(3.0))


@scenario
def linearize_basic(jax, jnp, lax):
    y, f_jvp = jax.linearize(lambda x: jnp.sin(x) * jnp.sum(x), X3)
    return y, f_jvp(np.ones(3)), f_jvp(np.arange(3.0))


@scenario
def linearize_pytree_and_many_primals(jax, jnp, lax):
    y, f_jvp = jax.linearize(lambda p, s: {"o": p["a"] * s}, {"a": X3}, 2.0)
    return y, f_jvp({"a": np.ones(3)}, 0.5)


@scenario
def linearize_has_aux(jax, jnp, lax):
    y, f_jvp, aux = jax.linearize(lambda x: (x ** 3, x.sum()), X3, has_aux=True)
    return y, f_jvp(np.ones(3)), aux


@scenario
def linearize_inconsistent_tangent(jax, jnp, lax):
    _, f_jvp = jax.linearize(jnp.sum, np.array([1.0, 2.0, 3.0]))
    return f_jvp(np.arange(6.0).reshape(3, 2))


@scenario
def eval_shape_basic(jax, jnp, lax):
    out = jax.eval_shape(lambda x, y: jnp.tanh(jnp.dot(x, y) + 3.0), np.ones((2, 3)),
                         np.ones((3, 4)))
    return out.shape, str(out.dtype)


@scenario
def eval_shape_constants(jax, jnp, lax):
    return jax.eval_shape(lambda: jnp.tanh(jnp.dot(jnp.ones((2, 3)), jnp.ones((3, 4))))).shape


@scenario
def eval_shape_tuple_in_dict_out(jax, jnp, lax):
    out = jax.eval_shape(lambda x, y: {"hi": x[0] + x[1] + y}, (np.ones(2), np.ones(2)), 3.0)
    return {k: v.shape for k, v in out.items()}


@scenario
def eval_shape_duck_typing(jax, jnp, lax):
    class Spec:
        def __init__(self, shape, dtype):
            self.shape, self.dtype = shape, dtype
    out = jax.eval_shape(lambda a, b, x: jnp.dot(a, x) + b, Spec((3, 4), np.float64),
                         Spec((5,), np.float64), Spec((4, 5), np.float64))
    return out.shape


@scenario
def eval_shape_shape_dtype_struct(jax, jnp, lax):
    s = jax.ShapeDtypeStruct((2, 3), np.float32)
    out = jax.eval_shape(lambda x: x.sum(0), s)
    return out.shape, str(out.dtype), s.shape, s.ndim, s.size


@scenario
def eval_shape_of_grad(jax, jnp, lax):
    return jax.eval_shape(jax.grad(lambda x: jnp.sum(jnp.sin(x))), np.ones((2, 3))).shape


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(name):
    agree(SCENARIOS[name])
