"""The benchmark workloads: inputs at a given scale, gradjit's function, the numpy gradient
written by hand (the reference every implementation is checked against), and the bytes and
flops that bound each one from below."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

import gradjit
from examples import seed
from gradjit import ops as G


@dataclass
class Workload:
    id: str
    title: str
    inputs: Callable  # scale in (0, 1] -> tuple of numpy arrays (scale 1: the full size)
    gradjit: Callable  # a gradjit-transformed function of the inputs -> the gradient(s)
    numpy: Callable  # the gradient by hand in numpy: the reference
    traffic: Callable = lambda args: 0  # bytes a gradient pass must read and write
    flops: Callable = lambda args: 0  # matmul flops
    per_call: bool = False  # tiny inputs: the time is the per-call overhead
    target: str = ""
    peers: tuple = ()  # when set, only these peers run it (the others have no such transform)


def _rng():
    return np.random.default_rng(2024)


def _size(n, scale):
    return max(16, int(n * scale))


# ---- W1: transcendentals, 10M f32 ----

def w1_function(x):
    return np.sum(np.sin(x) * np.exp(-x * x) + np.tanh(x))


w1_gradjit = gradjit.grad(w1_function)


def w1_numpy(x):
    e = np.exp(-x * x)
    t = np.tanh(x)
    return np.cos(x) * e - 2 * x * np.sin(x) * e + (1 - t * t)


# ---- W2: the seeds' mean of 3(x+2)^2, 10M f32 ----

w2_gradjit = gradjit.grad(seed.f)


def w2_numpy(x):
    return (x + np.float32(2)) * np.float32(6 / x.size)


# ---- W3: an MLP's loss, x 4096x512, W1 512x512, W2 512x10 ----

@gradjit.grad(argnums=(0, 1))
def w3_gradjit(w1, w2, x, y):
    return np.mean((np.tanh(x @ w1) @ w2 - y) ** 2)


def w3_numpy(w1, w2, x, y):
    h = np.tanh(x @ w1)
    d = (h @ w2 - y) * np.float32(2 / y.size)
    dh = (d @ w2.T) * (1 - h * h)
    return x.T @ dh, h.T @ d


def w3_inputs(scale):
    rng = _rng()
    n = _size(4096, scale)
    return ((rng.standard_normal((512, 512)) / 22).astype(np.float32),
            (rng.standard_normal((512, 10)) / 22).astype(np.float32),
            rng.standard_normal((n, 512)).astype(np.float32),
            rng.standard_normal((n, 10)).astype(np.float32))


def w3_flops(args):
    w1, w2, x, _ = args
    n = x.shape[0]
    return 2 * (2 * n * 512 * 512 + 3 * n * 512 * w2.shape[1])


# ---- W4: softmax cross-entropy, 8192x1000 ----

@gradjit.grad
def w4_gradjit(z, onehot):
    return -np.sum(G.log_softmax(z, -1) * onehot) / z.shape[0]


def w4_numpy(z, onehot):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True) - onehot) * np.float32(1 / z.shape[0])


def w4_inputs(scale):
    rng = _rng()
    n = _size(8192, scale)
    z = rng.standard_normal((n, 1000)).astype(np.float32)
    onehot = np.eye(1000, dtype=np.float32)[rng.integers(0, 1000, n)]
    return z, onehot


# ---- W4i: the same loss as tutorials write it, the labels picking one logit per row ----

@gradjit.grad
def w4i_gradjit(z, labels):
    return np.mean(G.logsumexp(z, 1) - z[np.arange(z.shape[0]), labels])


def w4i_numpy(z, labels):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    out = e / e.sum(axis=1, keepdims=True)
    out[np.arange(z.shape[0]), labels] -= 1
    return out * np.float32(1 / z.shape[0])


def w4i_inputs(scale):
    rng = _rng()
    n = _size(8192, scale)
    return rng.standard_normal((n, 1000)).astype(np.float32), rng.integers(0, 1000, n)


# ---- W5: the seeds' while/if function ----

def seed_function(a):
    b = a * 2
    while np.linalg.norm(b) < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c


w5_gradjit = gradjit.grad(lambda a: np.sum(seed_function(a)))


def w5_numpy(a):
    scale = 2.0
    while np.linalg.norm(a * scale) < 1000:
        scale *= 2
    return np.full_like(a, scale if (a * scale).sum() > 0 else 100 * scale)


# ---- W6: per-call overhead ----

@gradjit.grad
def w6_gradjit(x):
    return np.sum(x * x)


def w6_numpy(x):
    return 2 * x


# ---- W9: per-example gradients of an MLP, batch 256, through vmap(grad) ----

def mlp_loss(w1, b1, w2, x, y):
    return np.mean((np.tanh(x @ w1 + b1) @ w2 - y) ** 2)


w9_gradjit = gradjit.vmap(gradjit.grad(mlp_loss, argnums=(0, 1, 2)),
                          in_axes=(None, None, None, 0, 0))


def w9_numpy(w1, b1, w2, x, y):
    h = np.tanh(x @ w1 + b1)
    d = (h @ w2 - y) * np.float32(2 / y.shape[1])
    dh = (d @ w2.T) * (1 - h * h)
    return x[:, :, None] * dh[:, None, :], dh, h[:, :, None] * d[:, None, :]


def w9_inputs(scale):
    rng = _rng()
    n = _size(256, scale)
    return ((rng.standard_normal((32, 64)) / 6).astype(np.float32),
            rng.standard_normal(64).astype(np.float32) / 10,
            (rng.standard_normal((64, 10)) / 8).astype(np.float32),
            rng.standard_normal((n, 32)).astype(np.float32),
            rng.standard_normal((n, 10)).astype(np.float32))


def w9_flops(args):
    w1, _, w2, x, _ = args
    return 2 * x.shape[0] * (2 * w1.size + 3 * w2.size)


# ---- W10: the Hessian of a 100-parameter function ----

def softplus_energy(x, a):
    return np.sum(np.logaddexp(0, a @ x)) + np.sum(x ** 4) / 4


w10_gradjit = gradjit.jit(gradjit.hessian(softplus_energy))


def w10_numpy(x, a):
    s = 1 / (1 + np.exp(-(a @ x)))
    return (a.T * (s * (1 - s))) @ a + np.diag(3 * x * x)


def w10_inputs(scale):
    rng = _rng()
    return rng.standard_normal(100) / 3, rng.standard_normal((200, 100)) / 10


# ---- W11: the JVP of W1's function along a tangent, 10M f32 ----

@gradjit.jit
def w11_gradjit(x, t):
    return gradjit.jvp(w1_function, (x,), (t,))[1]


def w11_numpy(x, t):
    return np.sum(w1_numpy(x) * t)


def w11_inputs(scale):
    rng = _rng()
    n = _size(10_000_000, scale)
    return (rng.standard_normal(n).astype(np.float32),
            rng.standard_normal(n).astype(np.float32))


def _vector(n):
    return lambda scale: (_rng().standard_normal(_size(n, scale)).astype(np.float32),)


def _streams(count):
    """Bytes of `count` passes over the arguments' size (reads plus writes)."""
    return lambda args: count * args[0].nbytes


WORKLOADS = [
    Workload("W1", "grad of sum(sin(x)*exp(-x*x)+tanh(x)), 10M f32", _vector(10_000_000),
             w1_gradjit, w1_numpy, _streams(2), target="<= 0.35x the best peer"),
    Workload("W2", "grad of mean(3*(x+2)**2), 10M f32", _vector(10_000_000), w2_gradjit,
             w2_numpy, _streams(2), target="<= 1.0x numba; <= 1.3x roofline into a buffer"),
    Workload("W3", "grad of MLP loss, x 4096x512, W1 512x512, W2 512x10", w3_inputs, w3_gradjit,
             w3_numpy, lambda a: 2 * a[2].nbytes + 2 * a[0].nbytes, w3_flops,
             target="<= 1.1x roofline, ahead of every peer; into() <= the plain call"),
    Workload("W4", "grad of softmax cross-entropy, 8192x1000", w4_inputs, w4_gradjit, w4_numpy,
             _streams(3), target="<= 0.5x the best peer; <= 2x the roofline"),
    Workload("W4i", "grad of mean(logsumexp(z, 1) - z[arange(B), labels]), 8192x1000",
             w4i_inputs, w4i_gradjit, w4i_numpy, lambda a: 2 * a[0].nbytes,
             target="<= 0.5x the best peer; <= 2x the roofline"),
    Workload("W5", "the seeds' while/if function, a of shape (3,)",
             lambda scale: (np.array([0.3, -0.2, 0.4]),), w5_gradjit, w5_numpy, per_call=True,
             target="<= 5 us per call, no re-trace"),
    Workload("W6", "grad of sum(x*x), 16 f32: per-call overhead",
             lambda scale: (_rng().standard_normal(16).astype(np.float32),), w6_gradjit,
             w6_numpy, per_call=True, target="<= 3 us per call"),
    Workload("W9", "per-example gradients of an MLP 32-64-10 through vmap(grad), batch 256 "
             "f32", w9_inputs, w9_gradjit, w9_numpy,
             lambda a: 2 * sum(x.nbytes for x in w9_numpy(*a)), w9_flops,
             target="<= 1.0x the best of torch.func and JAX",
             peers=("numpy by hand", "torch.func", "jax jit(grad)")),
    Workload("W10", "Hessian of a 100-parameter function (softplus of 200 features + x^4/4) "
             "through jit(hessian), f64", w10_inputs, w10_gradjit, w10_numpy,
             lambda a: a[1].nbytes + 100 * 100 * 8, lambda a: 2 * a[1].size * 100,
             target="<= 1.0x the best of torch.func and JAX",
             peers=("numpy by hand", "torch.func", "jax jit(grad)")),
    Workload("W11", "jvp of W1's function along a tangent, 10M f32", w11_inputs, w11_gradjit,
             w11_numpy, lambda a: a[0].nbytes + a[1].nbytes,
             target="<= 1.0x the best of torch.func and JAX",
             peers=("numpy by hand", "torch.func", "jax jit(grad)")),
]
BY_ID = {w.id: w for w in WORKLOADS}


def as_list(result) -> list[np.ndarray]:
    """A gradient or a tuple of gradients as a list of numpy arrays."""
    items = result if isinstance(result, (tuple, list)) else (result,)
    return [np.asarray(r) for r in items]
