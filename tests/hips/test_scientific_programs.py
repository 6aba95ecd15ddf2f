"""Scientific numpy programs (an ODE integrator, a Gaussian process, classifiers, stencils,
option greeks, log densities, a fluid simulation, optimal control) under grad, jit, vmap,
jacfwd/jacrev and hessian, each written once and run twice: with numpy, scipy.special and
gradjit (`gj`), and with jax.numpy and jax.scipy; the two runs' results are compared."""
import numpy
import pytest

from tests.transforms.jax_side_by_side import assert_agrees_with_jax

jax = pytest.importorskip("jax")

IMPORTS = {
    "jax": "import jax as gj\nimport jax.numpy as np\nimport jax.scipy.special as sp\n"
           "import jax.scipy.stats as stats\nfrom jax.scipy.linalg import expm\n",
    "gradjit": "import gradjit as gj\nimport numpy as np\nimport scipy.special as sp\n"
               "import gradjit.scipy.stats as stats\nfrom gradjit.scipy.linalg import expm\n",
}

PROGRAMS = {
    # Lotka-Volterra by fourth-order Runge-Kutta in a Python loop.
    "runge-kutta": """
        def lotka(y, a):
            return np.stack([a[0] * y[0] - a[1] * y[0] * y[1],
                             -a[2] * y[1] + a[3] * y[0] * y[1]])
        def rk4(y, a, dt=0.05, n=8):
            for _ in range(n):
                k1 = lotka(y, a)
                k2 = lotka(y + dt / 2 * k1, a)
                k3 = lotka(y + dt / 2 * k2, a)
                k4 = lotka(y + dt * k3, a)
                y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            return y
        def loss(a, y0):
            return np.sum(rk4(y0, a) ** 2)
        a, y0 = numpy.array([1.0, 0.5, 0.8, 0.3]), numpy.array([1.0, 0.5])
        result = (gj.jit(gj.grad(loss, argnums=(0, 1)))(a, y0),
                  gj.jacfwd(lambda a: rk4(y0, a))(a),
                  gj.vmap(gj.grad(loss), (None, 0))(a, numpy.array([[1.0, 0.5], [0.5, 1.0]])))
    """,
    # A Gaussian process's negative log marginal likelihood in its log hyperparameters.
    "gaussian-process": """
        def nll(params, x, y):
            ls, var, noise = np.exp(params[0]), np.exp(params[1]), np.exp(params[2])
            K = var * np.exp(-0.5 * ((x[:, None] - x[None, :]) / ls) ** 2)
            K = K + noise * np.eye(x.shape[0])
            L = np.linalg.cholesky(K)
            alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
            sign, logdet = np.linalg.slogdet(K)
            return 0.5 * y @ alpha + 0.5 * logdet + np.sum(np.log(np.diag(L))) - 0.5 * logdet
        x = numpy.linspace(0, 3, 7)
        y, p = numpy.sin(x), numpy.array([0.1, -0.2, -2.0])
        result = (gj.jit(gj.value_and_grad(nll))(p, x, y), gj.hessian(nll)(p, x, y),
                  gj.vmap(gj.grad(nll), (0, None, None))(numpy.stack([p, p * 0.5]), x, y))
    """,
    # Logistic regression with logaddexp: Hessian, and per-example gradients two ways.
    "logistic-regression": """
        def per_example(w, x, t):
            return np.logaddexp(0.0, -(x @ w[:-1] + w[-1]) * (2 * t - 1))
        def loss(w, X, y):
            return np.mean(per_example(w, X, y)) + 0.01 * np.sum(w ** 2)
        rng = numpy.random.default_rng(0)
        X, y, w = rng.normal(size=(20, 3)), (rng.uniform(size=20) > 0.5) * 1.0, rng.normal(size=4)
        result = (gj.grad(loss)(w, X, y), gj.hessian(loss)(w, X, y),
                  gj.vmap(gj.grad(per_example), (None, 0, 0))(w, X, y),
                  gj.jacrev(gj.vmap(per_example, (None, 0, 0)))(w, X, y))
    """,
    # Softmax cross-entropy, the labels picked by advanced indexing.
    "softmax-cross-entropy": """
        def log_softmax(z):
            return z - sp.logsumexp(z, axis=-1, keepdims=True)
        def loss(W, b, X, labels):
            return -np.mean(log_softmax(X @ W + b)[np.arange(X.shape[0]), labels])
        def one(W, b, x, label):
            return -log_softmax(x @ W + b)[label]
        rng = numpy.random.default_rng(1)
        W, b, X = rng.normal(size=(4, 3)), rng.normal(size=3), rng.normal(size=(5, 4))
        labels = numpy.array([0, 2, 1, 1, 0])
        result = (gj.grad(loss, argnums=(0, 1))(W, b, X, labels),
                  gj.vmap(gj.grad(one), (None, None, 0, 0))(W, b, X, labels),
                  gj.jit(gj.hessian(loss, argnums=1))(W, b, X, labels))
    """,
    # One k-means step: the assignment by argmin, the loss's gradient in the centers.
    "k-means": """
        def distances(C, X):
            return np.sum((X[:, None, :] - C[None, :, :]) ** 2, axis=-1)
        def loss(C, X):
            d2 = distances(C, X)
            return np.sum(np.min(d2, axis=1)), np.argmin(d2, axis=1)
        def step(C, X):
            assign = np.argmin(distances(C, X), axis=1)
            onehot = (assign[:, None] == np.arange(C.shape[0])[None, :]).astype(X.dtype)
            return (onehot.T @ X) / np.maximum(onehot.sum(0), 1)[:, None]
        rng = numpy.random.default_rng(2)
        X = rng.normal(size=(30, 2))
        C = X[:3] + 0.1
        result = (gj.grad(loss, has_aux=True)(C, X), gj.jit(step)(C, X),
                  gj.jacfwd(lambda C: loss(C, X)[0])(C))
    """,
    # Explicit heat-equation steps: periodic (np.roll) and Dirichlet (slices, concatenate).
    "heat-equation": """
        def periodic(u, kappa, steps=4, dx=0.1, dt=0.001):
            for _ in range(steps):
                u = u + dt * kappa * (np.roll(u, 1) - 2 * u + np.roll(u, -1)) / dx ** 2
            return u
        def dirichlet(u, kappa, steps=4, dx=0.1, dt=0.001):
            for _ in range(steps):
                interior = u[1:-1] + dt * kappa * (u[2:] - 2 * u[1:-1] + u[:-2]) / dx ** 2
                u = np.concatenate([u[:1], interior, u[-1:]])
            return u
        def loss(kappa, u0):
            return np.sum(periodic(u0, kappa) ** 2) + np.sum(dirichlet(u0, kappa) ** 3)
        x = numpy.linspace(0, 1, 16)
        u0 = numpy.sin(numpy.pi * x) + 0.3 * x
        result = (gj.grad(loss, (0, 1))(0.7, u0), gj.jacrev(periodic)(u0, 0.7),
                  gj.vmap(gj.grad(loss), (0, None))(numpy.array([0.5, 0.7, 0.9]), u0),
                  gj.hessian(loss)(0.7, u0))
    """,
    # Black-Scholes greeks: delta and gamma per strike, vega, a jitted Hessian.
    "black-scholes": """
        def call(S, K, T, r, sigma):
            d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
            d2 = d1 - sigma * np.sqrt(T)
            return S * sp.ndtr(d1) - K * np.exp(-r * T) * sp.ndtr(d2)
        def call_by_erf(S, K, T, r, sigma):
            d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
            d2 = d1 - sigma * np.sqrt(T)
            N = lambda x: 0.5 * (1 + sp.erf(x / np.sqrt(2.0)))
            return S * N(d1) - K * np.exp(-r * T) * N(d2)
        S, K, T, r, sigma = numpy.array([90.0, 100.0, 110.0]), 100.0, 0.5, 0.02, 0.25
        per_spot = (0, None, None, None, None)
        result = (gj.vmap(gj.grad(call), per_spot)(S, K, T, r, sigma),
                  gj.vmap(gj.grad(gj.grad(call)), per_spot)(S, K, T, r, sigma),
                  gj.vmap(gj.grad(call_by_erf, 4), per_spot)(S, K, T, r, sigma),
                  gj.jacfwd(call, argnums=(0, 2, 3, 4))(100.0, K, T, r, sigma),
                  gj.jit(gj.hessian(call_by_erf, argnums=(0, 4)))(100.0, K, T, r, sigma))
    """,
    # A Beta model's log posterior (gammaln, xlogy, a normal prior) and Langevin steps.
    "mcmc-log-density": """
        def log_beta_pdf(x, a, b):
            return ((a - 1) * np.log(x) + (b - 1) * np.log1p(-x)
                    - (sp.gammaln(a) + sp.gammaln(b) - sp.gammaln(a + b)))
        def log_post(theta, data):
            a, b = np.exp(theta[0]), np.exp(theta[1])
            return (np.sum(log_beta_pdf(data, a, b)) + sp.xlogy(2.0, a) - a
                    + np.sum(stats.norm.logpdf(theta, 0.0, 3.0)))
        def langevin(theta, eps=0.01, n=4):
            for _ in range(n):
                theta = theta + 0.5 * eps * gj.grad(log_post)(theta, data)
            return theta
        data, theta = numpy.array([0.2, 0.35, 0.5, 0.61, 0.8]), numpy.array([0.3, 0.6])
        result = (gj.grad(log_post, (0, 1))(theta, data), gj.hessian(log_post)(theta, data),
                  gj.jit(langevin)(theta),
                  gj.vmap(gj.grad(log_post), (0, None))(numpy.array([[0.1, 0.2], [0.3, -0.2]]),
                                                         data))
    """,
    # A mixture of Gaussians' log-likelihood, parameters in a tuple, per-example gradients.
    "gaussian-mixture": """
        def log_normal(x, mu, log_sigma):
            z = (x - mu) / np.exp(log_sigma)
            return -0.5 * np.sum(z ** 2 + 2 * log_sigma + np.log(2 * np.pi), axis=-1)
        def log_likelihood(params, X):
            logits, mus, log_sigmas = params
            log_w = logits - sp.logsumexp(logits)
            lp = np.stack([log_normal(X, mus[k], log_sigmas[k]) for k in range(mus.shape[0])],
                          axis=1)
            return np.sum(sp.logsumexp(lp + log_w, axis=1))
        rng = numpy.random.default_rng(4)
        X = rng.normal(size=(12, 2))
        params = (numpy.array([0.1, -0.2, 0.3]), rng.normal(size=(3, 2)),
                  0.1 * rng.normal(size=(3, 2)))
        result = (gj.jit(gj.grad(log_likelihood))(params, X),
                  gj.vmap(gj.grad(log_likelihood), (None, 0))(params, X[:, None, :]))
    """,
    # Maximum-likelihood ICA: logcosh sources, slogdet of the unmixing matrix.
    "ica": """
        def log_likelihood(W, X):
            logcosh = lambda s: np.logaddexp(s, -s) - np.log(2.0)
            sign, logdet = np.linalg.slogdet(W)
            return -np.mean(np.sum(logcosh(X @ W.T), axis=1)) + logdet
        rng = numpy.random.default_rng(8)
        X = rng.laplace(size=(40, 3)) @ rng.normal(size=(3, 3))
        W = numpy.eye(3) + 0.1 * rng.normal(size=(3, 3))
        result = (gj.jit(gj.grad(log_likelihood))(W, X),
                  gj.hessian(log_likelihood)(W, X).reshape(9, 9))
    """,
    # HIPS autograd's fluid simulation, small: pressure projection by np.roll, advection by
    # bilinear interpolation through index arrays computed from the velocities.
    "fluid-simulation": """
        def project(vx, vy):
            h = 1.0 / vx.shape[0]
            div = -0.5 * h * (np.roll(vx, -1, axis=0) - np.roll(vx, 1, axis=0)
                              + np.roll(vy, -1, axis=1) - np.roll(vy, 1, axis=1))
            p = np.zeros(vx.shape)
            for _ in range(3):
                p = (div + np.roll(p, 1, axis=0) + np.roll(p, -1, axis=0)
                     + np.roll(p, 1, axis=1) + np.roll(p, -1, axis=1)) / 4.0
            return (vx - 0.5 * (np.roll(p, -1, axis=0) - np.roll(p, 1, axis=0)) / h,
                    vy - 0.5 * (np.roll(p, -1, axis=1) - np.roll(p, 1, axis=1)) / h)
        def advect(f, vx, vy):
            rows, cols = f.shape
            cell_ys, cell_xs = np.meshgrid(np.arange(rows), np.arange(cols))
            xs, ys = (cell_xs - vx).ravel(), (cell_ys - vy).ravel()
            left, top = np.floor(xs).astype(int), np.floor(ys).astype(int)
            rw, bw = xs - left, ys - top
            left, top = np.mod(left, rows), np.mod(top, cols)
            right, bottom = np.mod(left + 1, rows), np.mod(top + 1, cols)
            flat = ((1 - rw) * ((1 - bw) * f[left, top] + bw * f[left, bottom])
                    + rw * ((1 - bw) * f[right, top] + bw * f[right, bottom]))
            return np.reshape(flat, (rows, cols))
        def simulate(vx, vy, smoke, steps=2):
            for _ in range(steps):
                vx, vy = project(vx, vy)
                vx, vy = advect(vx, vx, vy), advect(vy, vx, vy)
                smoke = advect(smoke, vx, vy)
            return smoke
        rng = numpy.random.default_rng(7)
        vx, vy = 0.5 * rng.normal(size=(6, 6)), 0.5 * rng.normal(size=(6, 6))
        smoke, target = rng.uniform(size=(6, 6)), rng.uniform(size=(6, 6))
        def loss(vx, vy, smoke):
            return np.mean((simulate(vx, vy, smoke) - target) ** 2)
        result = gj.jit(gj.grad(loss, (0, 1, 2)))(vx, vy, smoke)
    """,
    # A linear system's matrix exponential (scipy.linalg.expm), to second order and per
    # example.
    "matrix-exponential": """
        def f(A, x0):
            return np.sum(np.tanh(expm(0.5 * A) @ x0))
        A = numpy.array([[0.1, 0.7, 0.0], [-0.3, -0.1, 0.2], [0.0, 0.2, 0.1]])
        x0 = numpy.array([1.0, -0.5, 0.25])
        result = (gj.jit(gj.grad(f))(A, x0), gj.jacfwd(f)(A, x0), gj.hessian(f)(A, x0),
                  gj.vmap(gj.grad(f), (0, None))(numpy.stack([A, A.T]), x0))
    """,
    # Single shooting: a double integrator's controls optimized by compiled gradient steps.
    "shooting": """
        def cost(u, dt=0.1):
            pos, vel, effort = 0.0, 0.0, 0.0
            for t in range(u.shape[0]):
                pos, vel = pos + dt * vel, vel + dt * u[t]
                effort = effort + 0.01 * u[t] ** 2
            return effort + (pos - 1.0) ** 2 + vel ** 2
        def optimize(u, steps=3, lr=0.5):
            for _ in range(steps):
                u = u - lr * gj.grad(cost)(u)
            return u
        u = numpy.zeros(6)
        result = (gj.grad(cost)(u + 0.1), gj.jit(optimize)(u), gj.hessian(cost)(u))
    """,
}


@pytest.mark.parametrize("program", PROGRAMS)
def test_program_agrees_with_jax(program):
    assert_agrees_with_jax(PROGRAMS[program], IMPORTS, rtol=1e-8, atol=1e-10)


def test_newton_iteration_with_a_data_dependent_while_loop():
    """A Python while loop on a traced value (JAX's jit refuses it): each call's path is
    traced and compiled; the gradient of the iterate is that of sqrt, 1 / (2 sqrt(a))."""
    import gradjit

    def sqrt_newton(a):
        x = a
        while numpy.abs(x * x - a) > 1e-12:
            x = 0.5 * (x + a / x)
        return x
    compiled = gradjit.jit(gradjit.grad(sqrt_newton))
    for a in (2.0, 3.0, 50.0, 2.0):
        numpy.testing.assert_allclose(compiled(a), 0.5 / numpy.sqrt(a), rtol=1e-9)
    info = compiled.cache_info()  # 2.0 again follows a path already compiled
    assert info.traces <= 3 and info.hits >= 1
