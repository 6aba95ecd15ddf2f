"""The reverse-mode pass: gradients against central differences, pruning of inactive and
non-differentiable paths, fan-out, symbolic zeros, and its errors."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradjit.ir import Builder, TensorType, dtype, interpret, parse, verify
from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.autodiff import DifferentiationError, differentiate
from gradjit.ir.passes import optimize
from gradjit.fuzz.programs import programs, sample_arguments

F64, F32 = dtype("f64"), dtype("f32")


def central_differences(fn, arrays, index, eps=1e-6):
    grad = np.zeros_like(arrays[index])
    for i in np.ndindex(grad.shape):
        plus = [a.copy() for a in arrays]
        minus = [a.copy() for a in arrays]
        plus[index][i] += eps
        minus[index][i] -= eps
        with np.errstate(invalid="ignore"):  # inf - inf where the program overflows
            grad[i] = (interpret(fn, *plus)[0] - interpret(fn, *minus)[0]) / (2 * eps)
    return grad


def scalar_function(body, *shapes):
    with Builder("f") as b:
        params = [b.param(TensorType(s, F64), f"x{i}") for i, s in enumerate(shapes)]
        out = body(*params)
    return b.build([out])


def test_gradients_match_central_differences():
    def body(x, w):
        h = E.tanh(S.matmul(x, w))
        return S.reduce_sum(E.mul(h, E.exp(E.neg(h))), axes=(0, 1), keepdims=False)
    fn = scalar_function(body, (2, 3), (3, 4))
    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=(2, 3)), rng.normal(size=(3, 4))]
    grad_fn = verify(differentiate(fn, [0, 1]))
    value, gx, gw = interpret(grad_fn, *arrays)
    assert value == pytest.approx(interpret(fn, *arrays)[0])
    np.testing.assert_allclose(gx, central_differences(fn, arrays, 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gw, central_differences(fn, arrays, 1), rtol=1e-6, atol=1e-8)


def test_fan_out_is_accumulated():
    fn = scalar_function(lambda x: S.reduce_sum(E.mul(E.mul(x, x), x), axes=(0,),
                                                 keepdims=False), (3,))
    x = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(interpret(differentiate(fn, [0]), x)[1], 3 * x * x)


def test_inactive_and_non_differentiable_paths_emit_no_gradient_ops():
    fn = parse("""func @f(%x: f64[3], %y: f64[3], %k: i64[3]) -> (f64[]) {
      %0 = gt(%x, %y) : bool[3]
      %1 = stop_gradient(%x) : f64[3]
      %2 = cast(%k) {dtype=f64} : f64[3]
      %3 = mul(%1, %2) : f64[3]
      %4 = where(%0, %3, %y) : f64[3]
      %5 = reduce_sum(%4) {axes=[0], keepdims=false} : f64[]
      return %5
    }""")
    grad_fn = verify(differentiate(fn, [0]))
    added = [op.prim.name for op in grad_fn.ops[len(fn.ops):]]
    assert added == ["full"]  # d/dx is a symbolic zero: one full for the result, no VJP
    value, gx = interpret(grad_fn, np.ones(3), np.zeros(3), np.arange(3))
    np.testing.assert_array_equal(gx, np.zeros(3))
    # only the path through %y carries a cotangent, and no VJP runs for %0..%3
    grad_y = verify(differentiate(fn, [1]))
    vjp_prims = {op.prim.name for op in grad_y.ops[len(fn.ops):]}
    assert not vjp_prims & {"stop_gradient", "cast", "gt"}
    _, gy = interpret(grad_y, np.array([1.0, -1, 1]), np.zeros(3), np.arange(3))
    np.testing.assert_array_equal(gy, [0, 1, 0])


def test_results_keep_forward_values_and_grads_follow():
    fn = parse("""func @f(%x: f32[2]) -> (f32[], f32[2]) {
      %0 = exp(%x) : f32[2]
      %1 = reduce_sum(%0) {axes=[0], keepdims=false} : f32[]
      return %1, %0
    }""")
    grad_fn = verify(differentiate(fn, [0]))
    assert [str(t) for t in grad_fn.result_types] == ["f32[]", "f32[2]", "f32[2]"]
    assert grad_fn.ops[:2] == fn.ops  # the forward ops are reused, not recomputed
    x = np.array([0.0, 1.0], np.float32)
    np.testing.assert_allclose(interpret(grad_fn, x)[2], np.exp(x), rtol=1e-6)


@pytest.mark.parametrize("text, message", [
    ("func @f(%x: f64[2]) -> (f64[2]) {\n return %x\n}", "must be a float scalar"),
    ("func @f(%x: i64[]) -> (i64[]) {\n return %x\n}", "must be a float scalar"),
])
def test_non_scalar_or_integer_outputs_are_refused(text, message):
    with pytest.raises(DifferentiationError, match=message):
        differentiate(parse(text), [0])


def test_integer_parameters_are_refused():
    fn = parse("""func @f(%x: f64[], %k: i64[]) -> (f64[]) {
      %0 = cast(%k) {dtype=f64} : f64[]
      %1 = mul(%x, %0) : f64[]
      return %1
    }""")
    with pytest.raises(DifferentiationError, match="parameter 1 of type i64"):
        differentiate(fn, [1])


def test_guards_are_kept_and_not_differentiated():
    fn = parse("""func @f(%x: f64[]) -> (f64[]) {
      %0 = full() {value=0.0, shape=[], dtype=f64} : f64[]
      %1 = gt(%x, %0) : bool[]
      guard(%1) {expected=true, site="m.py:3"}
      %2 = mul(%x, %x) : f64[]
      return %2
    }""")
    grad_fn = verify(differentiate(fn, [0]))
    assert sum(op.prim.name == "guard" for op in grad_fn.ops) == 1
    assert interpret(grad_fn, np.float64(3.0))[1] == 6.0


def _differences_apply(fn):
    """No stop_gradient (a zero gradient by design) and no f32 value, whose rounding central
    differences would measure."""
    return all(op.prim.name != "stop_gradient" and (op.out is None or op.out.type.dtype != F32)
               for op in fn.ops)


@settings(max_examples=40, deadline=None)
@given(programs(max_ops=8, dtype="f64", guards=False, empty=False, float_results=True).filter(
    _differences_apply), st.integers(0, 3))
def test_random_programs_against_central_differences(fn, seed):
    """Random programs, summed to a scalar: the gradient matches central differences wherever
    the function is smooth (two step sizes agree), before and after optimization."""
    f64 = _summed(fn)
    arrays = sample_arguments(f64, seed)
    grad_fn = verify(differentiate(f64, range(len(f64.params))))
    optimized = verify(optimize(grad_fn))
    exact = interpret(grad_fn, *arrays)
    for got, want in zip(interpret(optimized, *arrays), exact):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    for i in range(len(arrays)):
        coarse = central_differences(f64, arrays, i, 1e-5)
        fine = central_differences(f64, arrays, i, 1e-6)
        smooth = np.isclose(coarse, fine, rtol=1e-4, atol=1e-6)
        # differences of a function in the 1e15s lose small components to cancellation: the
        # absolute tolerance grows with the gradient's largest component
        noise = 1e-10 * np.max(np.abs(fine), initial=0.0)
        np.testing.assert_allclose(exact[1 + i][smooth], fine[smooth], rtol=1e-4,
                                   atol=1e-5 + noise)


def _summed(fn):
    """The random function with its first result summed to a scalar."""
    with Builder("g") as b:
        params = [b.param(p.type, p.name) for p in fn.params]
        env = dict(zip(fn.params, params))
        for op in fn.ops:
            env[op.out] = op.prim(*[env[v] for v in op.inputs], **op.params)
        out = env[fn.results[0]]
        total = S.reduce_sum(out, axes=tuple(range(out.type.rank)), keepdims=False)
    return b.build([total])
