"""The implementations each workload is timed with: gradjit (plain and into a caller buffer),
numpy by hand, PyTorch eager, torch.compile, JAX jit(grad) and numba loops fused by hand.
A builder takes the inputs and returns `run` (the timed call) and `fetch` (its result as
numpy arrays); a peer that is not installed, or cannot run a workload, raises Skip."""
from __future__ import annotations

import functools
import importlib
import math

import numpy as np

from benchmarks import workloads as W
from examples import seed as tutorial


class Skip(Exception):
    """This implementation does not run here; the message says why."""


def _need(module):
    try:
        return importlib.import_module(module)
    except Exception as error:  # an import can fail in many ways; any of them means skip
        raise Skip(f"{module} is not installed ({type(error).__name__})") from None


# ---- gradjit and numpy ----

def gradjit_plain(w, args):
    w.gradjit(*args)  # trace and compile outside the timing
    return lambda: w.gradjit(*args), W.as_list


def gradjit_into(w, args):
    out = [np.empty_like(g) for g in W.as_list(w.gradjit(*args))]
    out = out[0] if len(out) == 1 else tuple(out)
    return lambda: w.gradjit.into(out, *args), W.as_list


def numpy_by_hand(w, args):
    return lambda: w.numpy(*args), W.as_list


# ---- PyTorch ----

def _torch_loss(wid, torch):
    F = torch.nn.functional

    def seed(a):
        b = a * 2
        while b.norm() < 1000:
            b = b * 2
        return (b if b.sum() > 0 else 100 * b).sum()
    return {
        "W1": lambda x: (torch.sin(x) * torch.exp(-x * x) + torch.tanh(x)).sum(),
        "W2": tutorial.f,
        "W3": lambda w1, w2, x, y: ((torch.tanh(x @ w1) @ w2 - y) ** 2).mean(),
        "W4": lambda z, onehot: F.cross_entropy(z, onehot),
        "W4i": lambda z, labels: (torch.logsumexp(z, 1) - z[torch.arange(z.shape[0]), labels])
        .mean(),
        "W5": seed,
        "W6": lambda x: (x * x).sum(),
    }[wid]


WRT = {"W3": (0, 1)}


def _torch_args(torch, args):
    return [torch.from_numpy(a) for a in args]


def torch_eager(w, args):
    torch = _need("torch")
    loss, wrt = _torch_loss(w.id, torch), WRT.get(w.id, (0,))
    tensors = _torch_args(torch, args)

    def run():
        inputs = [t.requires_grad_() if i in wrt else t
                  for i, t in enumerate(t.detach() for t in tensors)]
        return torch.autograd.grad(loss(*inputs), [inputs[i] for i in wrt])
    return run, W.as_list


def torch_compile(w, args):
    torch = _need("torch")
    grad = torch.func.grad(_torch_loss(w.id, torch), argnums=WRT.get(w.id, 0))
    compiled = torch.compile(grad)
    tensors = _torch_args(torch, args)
    compiled(*tensors)
    return lambda: compiled(*tensors), W.as_list


def _torch_transform(wid, torch):
    """The workloads that are function transformations, as torch.func writes them."""
    func = torch.func

    def mlp_loss(w1, b1, w2, x, y):
        return torch.mean((torch.tanh(x @ w1 + b1) @ w2 - y) ** 2)

    def energy(x, a):
        return torch.nn.functional.softplus(a @ x).sum() + (x ** 4).sum() / 4
    return {
        "W9": func.vmap(func.grad(mlp_loss, argnums=(0, 1, 2)),
                        in_dims=(None, None, None, 0, 0)),
        "W10": func.hessian(energy),
        "W11": lambda x, t: func.jvp(_torch_loss("W1", torch), (x,), (t,))[1],
    }.get(wid)


def torch_func(w, args):
    torch = _need("torch")
    fn = _torch_transform(w.id, torch)
    if fn is None:
        raise Skip("a plain gradient: see torch eager and torch.compile")
    tensors = _torch_args(torch, args)
    fn(*tensors)
    return lambda: fn(*tensors), W.as_list


# ---- JAX ----

def _jax_loss(wid, jnp):
    def seed(a):
        b = a * 2
        while jnp.linalg.norm(b) < 1000:
            b = b * 2
        return (b if b.sum() > 0 else 100 * b).sum()
    return {
        "W1": lambda x: jnp.sum(jnp.sin(x) * jnp.exp(-x * x) + jnp.tanh(x)),
        "W2": tutorial.f,
        "W3": lambda w1, w2, x, y: jnp.mean((jnp.tanh(x @ w1) @ w2 - y) ** 2),
        "W4": lambda z, onehot: -jnp.sum(_jax().nn.log_softmax(z, -1) * onehot) / z.shape[0],
        "W4i": lambda z, labels: jnp.mean(_jax().nn.logsumexp(z, 1)
                                          - z[jnp.arange(z.shape[0]), labels]),
        "W5": seed,
        "W6": lambda x: jnp.sum(x * x),
    }[wid]


def _jax():
    jax = _need("jax")
    jax.config.update("jax_enable_x64", True)  # W10 is float64; float32 arrays stay float32
    return jax


def _jax_transform(wid, jax):
    """The workloads that are function transformations, as JAX writes them."""
    jnp = jax.numpy

    def mlp_loss(w1, b1, w2, x, y):
        return jnp.mean((jnp.tanh(x @ w1 + b1) @ w2 - y) ** 2)

    def energy(x, a):
        return jnp.sum(jnp.logaddexp(0, a @ x)) + jnp.sum(x ** 4) / 4
    return {
        "W9": jax.vmap(jax.grad(mlp_loss, argnums=(0, 1, 2)), in_axes=(None, None, None, 0, 0)),
        "W10": jax.hessian(energy),
        "W11": lambda x, t: jax.jvp(_jax_loss("W1", jnp), (x,), (t,))[1],
    }.get(wid)


def jax_jit_grad(w, args):
    jax = _jax()
    jnp = jax.numpy
    transform = _jax_transform(w.id, jax)
    fn = jax.jit(transform if transform is not None else
                 jax.grad(_jax_loss(w.id, jnp), argnums=WRT.get(w.id, 0)))
    arrays = [jax.device_put(a) for a in args]
    try:
        jax.block_until_ready(fn(*arrays))
    except jax.errors.JAXTypeError as error:
        raise Skip(f"jax.jit cannot compile it ({type(error).__name__})") from None

    def run():
        return jax.block_until_ready(fn(*arrays))
    return run, W.as_list


# ---- numba loops fused by hand ----

@functools.cache
def _numba_kernels(numba):
    njit, prange = numba.njit, numba.prange

    @njit(parallel=True, fastmath=False)
    def w1(x, out):
        for i in prange(x.size):
            v = x[i]
            e = math.exp(-v * v)
            t = math.tanh(v)
            out[i] = math.cos(v) * e - 2 * v * math.sin(v) * e + (1 - t * t)
        return out

    @njit(parallel=True, fastmath=False)
    def w2(x, out):
        k = np.float32(6 / x.size)
        for i in prange(x.size):
            out[i] = (x[i] + np.float32(2)) * k
        return out

    @njit(parallel=True, fastmath=False)
    def w4(z, onehot, out):
        n, m = z.shape
        k = np.float32(1 / n)
        for r in prange(n):
            top = z[r, 0]
            for j in range(m):
                top = max(top, z[r, j])
            total = np.float32(0)
            for j in range(m):
                e = math.exp(z[r, j] - top)
                out[r, j] = e
                total += e
            for j in range(m):
                out[r, j] = (out[r, j] / total - onehot[r, j]) * k
        return out

    @njit(parallel=True, fastmath=False)
    def w4i(z, labels, out):
        n, m = z.shape
        k = np.float32(1 / n)
        for r in prange(n):
            top = z[r, 0]
            for j in range(m):
                top = max(top, z[r, j])
            total = np.float32(0)
            for j in range(m):
                e = math.exp(z[r, j] - top)
                out[r, j] = e
                total += e
            for j in range(m):
                out[r, j] = out[r, j] / total * k
            out[r, labels[r]] -= k
        return out

    @njit
    def w5(a, out):
        scale = 2.0
        while np.sqrt(np.sum((a * scale) ** 2)) < 1000:
            scale *= 2
        out[:] = scale if np.sum(a * scale) > 0 else 100 * scale
        return out

    @njit
    def w6(x, out):
        for i in range(x.size):
            out[i] = 2 * x[i]
        return out
    return {"W1": w1, "W2": w2, "W4": w4, "W4i": w4i, "W5": w5, "W6": w6}


def numba_by_hand(w, args):
    """Each loop writes into an array from np.empty, as the other implementations' results
    are allocated (numba's own allocator takes no huge pages: a page fault per 4 KiB)."""
    numba = _need("numba")
    kernel = _numba_kernels(numba).get(w.id)
    if kernel is None:
        raise Skip("no loop to fuse by hand (BLAS calls)")
    kernel(*args, np.empty_like(args[0]))
    return lambda: kernel(*args, np.empty_like(args[0])), W.as_list


PEERS = {
    "gradjit": gradjit_plain,
    "gradjit into buffer": gradjit_into,
    "numpy by hand": numpy_by_hand,
    "torch eager": torch_eager,
    "torch.compile": torch_compile,
    "torch.func": torch_func,
    "jax jit(grad)": jax_jit_grad,
    "numba by hand": numba_by_hand,
}
OURS = ("gradjit", "gradjit into buffer")
