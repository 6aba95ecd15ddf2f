"""Programs from JAX's tutorials (the autodiff cookbook, custom derivative rules), written
once and run twice with only the imports changed (`jax`/`jax.numpy` or `gradjit`/numpy as
`gj`/`np`); the two runs' results are compared leaf by leaf."""
import pytest

from tests.transforms.jax_side_by_side import assert_agrees_with_jax

jax = pytest.importorskip("jax")

IMPORTS = {
    "jax": "import jax as gj\nimport jax.numpy as np\nfrom jax import lax\n",
    "gradjit": "import gradjit as gj\nimport numpy as np\nfrom gradjit import lax\n",
}

PROGRAMS = {
    # Hessian-vector products three ways, and against the Hessian itself.
    "hvp": """
        def f(x):
            return np.sum(np.sin(x) * np.cos(x[::-1]) + x ** 3)
        def hvp_fwd_rev(x, v):
            return gj.jvp(gj.grad(f), (x,), (v,))[1]
        def hvp_rev_rev(x, v):
            return gj.grad(lambda x: np.vdot(gj.grad(f)(x), v))(x)
        def hvp_rev_fwd(x, v):
            return gj.grad(lambda x: gj.jvp(f, (x,), (v,))[1])(x)
        x, v = numpy.linspace(0.1, 1, 5), numpy.arange(5.0)
        result = (hvp_fwd_rev(x, v), hvp_rev_rev(x, v), hvp_rev_fwd(x, v),
                  gj.jit(hvp_fwd_rev)(x, v), gj.hessian(f)(x) @ v)
    """,
    # Jacobians of functions from and to pytrees, in both modes, and a Hessian of a dict.
    "jacobians-of-pytrees": """
        def f(p, x):
            return {"a": np.tanh(p["w"] @ x + p["b"]), "b": (np.sum(p["w"] ** 2), x * p["b"][0])}
        p = {"w": numpy.arange(6.0).reshape(2, 3) / 5, "b": numpy.array([0.1, -0.2])}
        x = numpy.array([0.3, -0.4, 0.5])
        result = (gj.jacrev(f)(p, x), gj.jacfwd(f)(p, x), gj.jacrev(f, argnums=(0, 1))(p, x),
                  gj.hessian(lambda p: np.sum(f(p, x)["a"] ** 2))(p))
    """,
    # A Jacobian built from jvps of the basis and its transpose from vjps, both vmapped.
    "jacobian-by-vmapped-jvp-and-vjp": """
        def f(x):
            return np.stack([x[0] * x[1], np.exp(x[2]), np.sum(x ** 2)])
        x, basis = numpy.array([1.0, 2.0, 0.5]), numpy.eye(3)
        result = (gj.vmap(lambda v: gj.jvp(f, (x,), (v,))[1], out_axes=1)(basis),
                  gj.vmap(lambda c: gj.vjp(f, x)[1](c)[0])(basis))
    """,
    # Real-valued functions of complex inputs, and holomorphic ones.
    "complex-differentiation": """
        z = 3.0 + 4.0j
        zs = numpy.array([0.5 + 0.25j, 1j])
        holomorphic = lambda z: np.sin(z) * z ** 2
        result = (gj.grad(lambda z: np.real(z) ** 2 + np.imag(z) ** 2)(z),
                  gj.grad(lambda z: np.abs(np.sin(z)) ** 2)(z),
                  gj.grad(holomorphic, holomorphic=True)(zs[0]),
                  gj.jacfwd(holomorphic, holomorphic=True)(zs),
                  gj.jacrev(holomorphic, holomorphic=True)(zs))
    """,
    # Compositions: forward over reverse, a jitted Hessian, and vmaps of both.
    "compositions": """
        def f(x):
            return np.sum(np.tanh(x) ** 2 * np.log1p(x ** 2))
        def g(w, x):
            return np.tanh(np.dot(w, x))
        x, w, xs = numpy.array([0.3, -1.2, 2.0]), numpy.array([0.5, -0.3]), numpy.arange(8.0)
        xs = xs.reshape(4, 2) / 4
        result = (gj.jacfwd(gj.jacrev(f))(x), gj.jacrev(gj.jacfwd(f))(x), gj.jit(gj.hessian(f))(x),
                  gj.hessian(gj.jit(f))(x),
                  gj.grad(lambda w: np.sum(gj.vmap(g, (None, 0))(w, xs)))(w),
                  gj.vmap(gj.hessian(g), (None, 0))(w, xs))
    """,
    # The cookbook's TD(0) update: stop_gradient on the target, per-example under vmap.
    "stop-gradient": """
        def v(theta, s):
            return np.tanh(np.dot(theta, s))
        def td_loss(theta, s_tm1, r_t, s_t):
            target = r_t + v(theta, s_t)
            return -0.5 * ((lax.stop_gradient(target) - v(theta, s_tm1)) ** 2)
        def straight_through_round(x):
            return x - lax.stop_gradient(x) + lax.stop_gradient(np.round(x))
        theta = numpy.array([0.1, -0.1, 0.0])
        s_tm1, s_t = numpy.array([[1.0, 2.0, -1.0]] * 3), numpy.array([[2.0, 1.0, 0.0]] * 3)
        r_t = numpy.array([1.0, 0.5, 0.0])
        batched = gj.jit(gj.vmap(gj.grad(td_loss), in_axes=(None, 0, 0, 0)))
        result = (batched(theta, s_tm1, r_t, s_t), gj.grad(straight_through_round)(3.2))
    """,
    # custom_jvp: a numerically stable rule, nondiff_argnums with a function, defjvps.
    "custom-jvp": """
        from functools import partial
        @gj.custom_jvp
        def log1pexp(x):
            return np.log(1.0 + np.exp(x))
        @log1pexp.defjvp
        def log1pexp_jvp(primals, tangents):
            (x,), (x_dot,) = primals, tangents
            return log1pexp(x), x_dot * (1 - 1 / (1 + np.exp(x)))
        @partial(gj.custom_jvp, nondiff_argnums=(0,))
        def app(f, x):
            return f(x)
        @app.defjvp
        def app_jvp(f, primals, tangents):
            return f(primals[0]), 2.0 * tangents[0]
        @gj.custom_jvp
        def sin_times(x, y):
            return np.sin(x) * y
        sin_times.defjvps(lambda x_dot, out, x, y: np.cos(x) * x_dot * y,
                          lambda y_dot, out, x, y: np.sin(x) * y_dot)
        xs = numpy.array([0.0, 1.0, 10.0, 100.0])
        result = (gj.jit(gj.vmap(gj.grad(log1pexp)))(xs), gj.grad(gj.grad(log1pexp))(2.0),
                  gj.grad(lambda x: app(lambda y: 3 * y, x))(1.0),
                  gj.jvp(lambda x: app(np.sin, x), (1.0,), (2.0,)),
                  gj.grad(sin_times, (0, 1))(2.0, 3.0), gj.jvp(sin_times, (2.0, 3.0), (1.0, 0.5)))
    """,
    # A dataclass registered as a tree, with a static field, through jit of grad.
    "register-dataclass": """
        import dataclasses
        @dataclasses.dataclass
        class Layer:
            w: object
            b: object
            power: int = dataclasses.field(default=3, metadata={"static": True})
        gj.tree_util.register_dataclass(Layer)
        layer = Layer(numpy.arange(3.0), numpy.float64(1.0))
        g = gj.jit(gj.grad(lambda p: np.sum(p.w ** p.power) + p.b))(layer)
        result = (g.w, g.b, g.power, gj.tree_util.tree_leaves(layer))
    """,
    # Key paths of every kind of node.
    "key-paths": """
        import collections
        import dataclasses
        Point = collections.namedtuple("Point", "x y")
        @gj.tree_util.register_pytree_node_class
        class Affine:
            def __init__(self, w, b):
                self.w, self.b = w, b
            def tree_flatten(self):
                return (self.w, self.b), None
            @classmethod
            def tree_unflatten(cls, aux, children):
                return cls(*children)
        @dataclasses.dataclass
        class Scale:
            s: object
        gj.tree_util.register_dataclass(Scale, data_fields=["s"], meta_fields=[])
        params = {"a": [1.0, (2.0, None)], "f": Affine(3.0, 4.0), "p": Point(5.0, 6.0),
                  "s": Scale(7.0), "o": collections.OrderedDict([("z", 8.0), ("y", 9.0)])}
        def loss(params):
            return sum(leaf ** 2 for leaf in gj.tree_util.tree_leaves(params))
        paths = gj.tree_util.tree_leaves_with_path(params)
        result = ([(gj.tree_util.keystr(path), leaf) for path, leaf in paths],
                  gj.tree_util.tree_leaves(gj.grad(loss)({k: params[k] for k in "afps"})),
                  gj.tree_util.tree_map_with_path(lambda path, x: len(path) * x, params)["a"])
    """,
    # custom_jvp with an integer nondiff argument, which grad and vmap receive as well.
    "custom-jvp-nondiff-number": """
        from functools import partial
        @partial(gj.custom_jvp, nondiff_argnums=(1,))
        def power(x, n):
            return x ** n
        @power.defjvp
        def power_jvp(n, primals, tangents):
            (x,), (t,) = primals, tangents
            return power(x, n), n * x ** (n - 1) * t
        xs = numpy.linspace(0.5, 2, 4)
        result = (gj.grad(power)(2.0, 3), gj.vmap(gj.grad(power), (0, None))(xs, 3),
                  gj.jacfwd(lambda x: power(x, 4))(xs),
                  gj.vmap(gj.hessian(power), (0, None))(xs, 3))
    """,
    # custom_vjp of a function with a default argument: fwd and bwd get it filled in.
    "custom-vjp-default-argument": """
        @gj.custom_vjp
        def scaled(x, scale=2.0):
            return x * scale
        scaled.defvjp(lambda x, scale: (scaled(x, scale), scale), lambda s, g: (g * s, None))
        result = (gj.grad(scaled)(1.0), gj.grad(lambda x: scaled(x, scale=3.0))(1.0),
                  gj.vmap(gj.grad(scaled))(numpy.arange(3.0)))
    """,
    # custom_vjp: clipping gradients, per example and compiled.
    "custom-vjp-clip-gradient": """
        @gj.custom_vjp
        def clip_gradient(lo, hi, x):
            return x
        def clip_gradient_fwd(lo, hi, x):
            return x, (lo, hi)
        def clip_gradient_bwd(res, g):
            lo, hi = res
            return (None, None, np.clip(g, lo, hi))
        clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)
        def clip_sin(x):
            return np.sin(clip_gradient(-0.75, 0.75, x))
        t = numpy.linspace(0, 10, 20)
        result = (gj.vmap(gj.grad(clip_sin))(t), gj.jit(gj.grad(lambda x: np.sum(clip_sin(x))))(t))
    """,
    # custom_vjp: the gradient of a fixed point by implicit differentiation, twice.
    "custom-vjp-fixed-point": """
        from functools import partial
        @partial(gj.custom_vjp, nondiff_argnums=(0,))
        def fixed_point(f, a, x_guess):
            def cond_fun(carry):
                x_prev, x = carry
                return np.abs(x_prev - x) > 1e-6
            def body_fun(carry):
                return carry[1], f(a, carry[1])
            return lax.while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))[1]
        def fixed_point_fwd(f, a, x_init):
            x_star = fixed_point(f, a, x_init)
            return x_star, (a, x_star)
        def rev_iter(f, packed, u):
            a, x_star, x_star_bar = packed
            _, vjp_x = gj.vjp(lambda x: f(a, x), x_star)
            return x_star_bar + vjp_x(u)[0]
        def fixed_point_rev(f, res, x_star_bar):
            a, x_star = res
            _, vjp_a = gj.vjp(lambda a: f(a, x_star), a)
            a_bar, = vjp_a(fixed_point(partial(rev_iter, f), (a, x_star, x_star_bar),
                                       x_star_bar))
            return a_bar, np.zeros_like(x_star)
        fixed_point.defvjp(fixed_point_fwd, fixed_point_rev)
        def newton_sqrt(a):
            return fixed_point(lambda a, x: 0.5 * (x + a / x), a, a)
        result = (newton_sqrt(2.0), gj.grad(newton_sqrt)(2.0), gj.grad(gj.grad(newton_sqrt))(2.0))
    """,
    # custom_vjp around a linear solve: its rule solves the transposed system, and the
    # function fails on zeros (np.linalg.solve raises on a singular matrix).
    "custom-vjp-implicit-solve": """
        @gj.custom_vjp
        def solve(A, b):
            return np.linalg.solve(A, b)
        def solve_fwd(A, b):
            x = np.linalg.solve(A, b)
            return x, (A, x)
        def solve_bwd(res, g):
            A, x = res
            lam = np.linalg.solve(A.T, g)
            return (-np.outer(lam, x), lam)
        solve.defvjp(solve_fwd, solve_bwd)
        A, b = numpy.array([[3.0, 1.0], [0.5, 2.0]]), numpy.array([1.0, -1.0])
        loss = lambda A, b: np.sum(solve(A, b) ** 2)
        result = (gj.grad(loss, argnums=(0, 1))(A, b), gj.jit(gj.grad(loss))(A, b),
                  gj.vmap(gj.grad(loss, 1), (None, 0))(A, numpy.stack([b, 2 * b])))
    """,
    # A hidden Markov model's log-likelihood by the forward algorithm: its gradients are the
    # expected counts; the observations are a static tuple of ints read by the inner grad.
    "hmm-forward-algorithm": """
        def log_likelihood(log_pi, log_A, log_B, obs):
            alpha = log_pi + log_B[:, obs[0]]
            for o in obs[1:]:
                alpha = gj.nn.logsumexp(alpha[:, None] + log_A, axis=0) + log_B[:, o]
            return gj.nn.logsumexp(alpha)
        log_pi = numpy.log(numpy.array([0.6, 0.4]))
        log_A = numpy.log(numpy.array([[0.7, 0.3], [0.2, 0.8]]))
        log_B = numpy.log(numpy.array([[0.5, 0.4, 0.1], [0.1, 0.3, 0.6]]))
        obs = (0, 1, 2, 2, 1, 0)
        expected_counts = gj.jit(gj.grad(log_likelihood, (0, 1, 2)), static_argnums=3)
        result = (gj.grad(log_likelihood, (0, 1, 2))(log_pi, log_A, log_B, obs),
                  expected_counts(log_pi, log_A, log_B, obs))
    """,
}


@pytest.mark.parametrize("program", PROGRAMS)
def test_program_agrees_with_jax(program):
    assert_agrees_with_jax(PROGRAMS[program], IMPORTS, rtol=1e-9, atol=1e-12)


def test_grad_of_an_integer_argument_names_the_argument_before_the_output():
    """JAX checks the arguments first: grad of x * 2 at 3 is refused for the integer input,
    not for the integer result it would have."""
    import gradjit
    with pytest.raises(TypeError, match="requires real- or complex-valued inputs"):
        jax.grad(lambda x: x * 2)(3)
    with pytest.raises(TypeError, match="argument 0 has dtype int64"):
        gradjit.grad(lambda x: x * 2)(3)


def test_register_dataclass_needs_both_field_lists_or_a_dataclass():
    import gradjit
    with pytest.raises(TypeError, match="int is not a dataclass, so data_fields and"):
        gradjit.tree_util.register_dataclass(int)
    with pytest.raises(TypeError, match="given together or not at all"):
        gradjit.tree_util.register_dataclass(int, data_fields=["a"])
