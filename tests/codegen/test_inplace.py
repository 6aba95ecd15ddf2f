"""Results computed in place: a stored temporary that becomes a result at the same elements
is the result's memory from the start; anything else keeps its own memory."""
import numpy as np

import gradjit
from gradjit.codegen import compile_function
from gradjit.ir import interpret
from gradjit import ops as G
from gradjit.runtime.steps import Matmul


def _full_size_writes(program, shape):
    """The buffers that kernels over `shape` store into."""
    size = int(np.prod(shape))
    return {o.access.buffer for k in program.kernels for o in k.outputs
            if int(np.prod(k.extents)) == size and o.kind == "store"}


def test_a_cross_entropy_gradient_writes_its_exp_into_the_result():
    rng = np.random.default_rng(0)
    z, labels = rng.standard_normal((300, 200)), rng.integers(0, 200, 300)

    def loss(z, labels):
        return np.mean(G.logsumexp(z, 1) - z[np.arange(300), labels])
    fn = gradjit.lower(gradjit.grad(loss), z, labels).optimized
    compiled = compile_function(fn, cache_dir=False)
    assert _full_size_writes(compiled, z.shape) == {compiled.results[-1]}, compiled.text
    np.testing.assert_allclose(compiled(z, labels)[-1], interpret(fn, z, labels)[-1],
                               rtol=1e-12, atol=1e-15)


def test_a_temporary_read_at_other_elements_keeps_its_memory():
    x = np.random.default_rng(1).standard_normal((40, 40))

    def f(x):
        e = np.exp(x)
        return e.T * np.sum(e, 1)  # e is read transposed: not the result's elements
    fn = gradjit.lower(gradjit.jit(f), x).optimized
    compiled = compile_function(fn, cache_dir=False)
    np.testing.assert_allclose(compiled(x)[0], f(x), rtol=1e-12)


def test_an_mlp_gradient_computes_tanh_and_its_derivative_in_the_products_outputs():
    rng = np.random.default_rng(2)
    w1, w2 = rng.standard_normal((64, 64)) / 8, rng.standard_normal((64, 3)) / 8
    x, y = rng.standard_normal((256, 64)), rng.standard_normal((256, 3))  # BLAS products

    def loss(w1, w2, x, y):
        return np.mean((np.tanh(x @ w1) @ w2 - y) ** 2)
    fn = gradjit.lower(gradjit.grad(loss, argnums=(0, 1)), w1, w2, x, y).optimized
    compiled = compile_function(fn, cache_dir=False)
    products = {s.out for s in compiled.steps if isinstance(s, Matmul)}
    # tanh(x @ w1) and (d @ w2.T) * (1 - h * h) are stored where their products were
    assert _full_size_writes(compiled, (256, 64)) <= products, compiled.text
    full = [b for b in compiled.buffers if b.kind == "temp" and b.size == 256 * 64]
    assert len({b.offset for b in full}) == 2, compiled.text
    for got, expected in zip(compiled(w1, w2, x, y), interpret(fn, w1, w2, x, y)):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


def test_a_temporary_read_again_later_is_not_overwritten():
    x = np.random.default_rng(3).standard_normal((64, 64))  # a BLAS product

    def f(x):
        p = x @ x
        return np.tanh(p), p * 2  # p is still read after tanh is stored
    fn = gradjit.lower(gradjit.jit(f), x).optimized
    compiled = compile_function(fn, cache_dir=False)
    for got, expected in zip(compiled(x), f(x)):
        np.testing.assert_allclose(got, expected, rtol=1e-12)
