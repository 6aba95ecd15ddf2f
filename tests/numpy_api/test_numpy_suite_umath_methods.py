"""After numpy's test_ufunc: the methods at, reduce, accumulate, reduceat and outer, the
reductions' keepdims/initial/where/dtype and their empty and 0-d cases, the call arguments
where=, out=, dtype=, signature= and casting=, and numpy's errors and their messages;
compiled and on Tensors against numpy."""
import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import raises_as_numpy
from tests.numpy_api.jax_suite import case, check_eager, check_grad, check_jit

inf = np.inf
A10 = np.arange(10)
GRID = np.arange(9.).reshape(3, 3)
WHERES = (np.array([False, True, True]), np.array([[True], [False], [True]]),
          np.array([[True, False, False], [False, True, False], [False, True, True]]))


def _at(ufunc, indices, *b):
    """ufunc.at on a copy (numpy's in-place write; a traced copy takes the new value)."""
    def apply(a):
        a = np.copy(a)
        ufunc.at(a, indices, *b)
        return a
    return apply


def _copy_then(fn):
    """fn writing into a copy of its first argument through out=, which it returns."""
    def apply(a, *rest):
        a = np.copy(a)
        fn(a, *rest)
        return a
    return apply


AT_CASES = [
    case("at-add", _at(np.add, [2, 5, 2], 1), A10),
    case("at-add-array", _at(np.add, [2, 5, 2], np.array([100, 100, 100])), A10),
    case("at-negative", _at(np.negative, [2, 5, 3]), A10),
    case("at-missing-operand", _at(np.add, [2, 5, 3]), A10),
    case("at-extra-operand", _at(np.negative, [2, 5, 3], [1, 2, 3]), A10),
    case("at-slice", _at(np.add, slice(None), np.ones(5)), np.zeros(5)),
    case("at-2d", _at(np.add, (slice(None), [1, 2, 1]), np.array([[100] * 3, [200] * 3,
                                                                  [300] * 3])),
         np.arange(9).reshape(3, 3)),
    case("at-3d", _at(np.add, (slice(None), slice(None), [1, 2, 1]), np.array([100, 200, 300])),
         np.arange(27).reshape(3, 3, 3)),
    case("at-0d", _at(np.add, (), 1), np.array(0)),
    case("at-0d-index", _at(np.add, 0, 1), np.array(0)),
    case("at-power-float-into-int", _at(np.power, [1, 2, 3, 2], 3.5), A10),
    case("at-invert", _at(np.invert, [2, 5, 2]), np.arange(10, dtype="u4")),
    case("at-two-outputs", _at(np.modf, [1]), np.arange(10.)),
    case("at-maximum", _at(np.maximum, [0], 0), np.array([1, 2, 3])),
    case("at-equal-casts", _at(np.equal, [0], [0]), np.array([-1])),
    *(case(f"at-negative-indices-{u.__name__}-{d}",
           _at(u, np.array([-1, 1, -1, 2]), np.array([1, 5, 2, 10], d)), np.arange(10).astype(d))
      for u in (np.add, np.subtract, np.multiply, np.minimum, np.maximum, np.floor_divide,
                np.fmax, np.fmin, np.divide) for d in ("i4", "u1", "f4", "f8")
      if not (u is np.divide and d[0] in "iu")),
    *(case(f"at-complex-{u.__name__}-{d}",
           _at(u, np.repeat([1, 4], [6, 18]), np.dtype(d).type(1j)), np.ones(10, d))
      for u in (np.add, np.subtract, np.multiply) for d in ("c8", "c16")),
]

REDUCE_CASES = [
    case("reduce-minimum-axes", lambda a: tuple(np.minimum.reduce(a, axis=ax) for ax in (
        None, (0, 1), (0, 2), (1, 2), 0, 1, 2, ())),
         np.where(np.arange(60).reshape(3, 4, 5) == 17, 0.0, 1.0)),
    case("reduce-initial", lambda e, f: (np.maximum.reduce(e, initial=0),
                                         np.minimum.reduce(e, initial=inf),
                                         np.maximum.reduce(e, initial=-inf),
                                         np.minimum.reduce(f, initial=4),
                                         np.maximum.reduce(f, initial=6),
                                         np.add.reduce(e, initial=np._NoValue)),
         np.array([]), np.array([5])),
    case("reduce-initial-none", lambda e: np.minimum.reduce(e, initial=None), np.array([])),
    case("add-reduce-initial-none", lambda e: np.add.reduce(e, initial=None), np.array([])),
    case("reduce-initial-none-nonempty", lambda x: (np.add.reduce(x, initial=None),
                                                    np.multiply.reduce(x, axis=1, initial=None)),
         GRID),
    case("divide-reduce-over-nonempty", lambda a: np.true_divide.reduce(a, axis=1),
         np.zeros((0, 5))),
    case("divide-reduce-over-empty", lambda a: np.true_divide.reduce(a, axis=0),
         np.zeros((0, 5))),
    case("divide-reduce-empty-result", lambda a: np.true_divide.reduce(a, axis=1),
         np.zeros((0, 0, 5))),
    case("divide-reduce-initial", lambda a: np.true_divide.reduce(a, axis=1, initial=1),
         np.zeros((0, 0, 5))),
    *(case(f"add-reduce-where-{axis}-{i}", lambda a, w, axis=axis: np.add.reduce(
        a, axis=axis, where=w), GRID, w) for axis in (0, 1, None) for i, w in enumerate(WHERES)),
    *(case(f"maximum-reduce-where-initial-{axis}-{initial}", lambda a, w, axis=axis,
           initial=initial: np.maximum.reduce(a, axis=axis, where=w, initial=initial), GRID, w)
      for axis, w in ((0, np.array([True, False, True])), (1, np.array([True, True, False])),
                      (None, np.array(True))) for initial in (-inf, 5.)),
    case("maximum-reduce-where-needs-initial", lambda a: np.maximum.reduce(
        a, where=np.array([False, True, False])), GRID),
    case("divide-reduce-one-axis", lambda a: (np.divide.reduce(a, axis=0),
                                              np.divide.reduce(a, axis=1),
                                              np.divide.reduce(a, axis=())),
         np.array([[8.0, 2.0, 2.0], [1.0, 0.5, 0.25]])),
    case("divide-reduce-two-axes", lambda a: np.divide.reduce(a, axis=(0, 1)), GRID),
    *(case(f"{u.__name__}-reduce-zero-size-{shape}-{axis}",
           lambda a, u=u, axis=axis: u.reduce(a, axis=axis), np.zeros(shape))
      for u in (np.maximum, np.add) for shape, axis in (((30, 0), 1), ((0, 30), 0), ((0, 0), 1),
                                                        ((0, 30), 1), ((4, 0, 3), (0, 1)),
                                                        ((0, 0), ()))),
    *(case(f"accumulate-zero-size-{shape}", lambda a: (np.maximum.accumulate(a, axis=0),
                                                       np.add.accumulate(a, axis=0)),
           np.zeros(shape)) for shape in ((30, 0), (0, 30), (0, 0))),
    case("reduce-positional-arguments", lambda d: (
        np.add.reduce(d), np.add.reduce(d, 0), np.add.reduce(d, 0, "i"),
        np.add.reduce(d, 0, None, None, True), np.add.reduce(d, 0, None, None, False, 0),
        np.add.reduce(d, 0, None, None, False, 0, True)), np.ones((5, 2), int)),
    case("reduce-too-many-arguments", lambda d: np.add.reduce(d, 0, None, None, False, 0, True,
                                                              1), np.ones((5, 2), int)),
    case("reduce-axis-not-an-integer", lambda d: np.add.reduce(d, "invalid"),
         np.ones((5, 2), int)),
    case("reduce-unknown-keyword", lambda d: np.add.reduce(d, axis=0, invalid=0),
         np.ones((5, 2), int)),
    case("reduce-axis-out-of-range", lambda a: np.logical_and.reduce(a, axis=1),
         np.array([False, False])),
    case("reduce-0d", lambda a: (np.sum(a, axis=0), np.prod(a, axis=0), np.max(a, axis=0),
                                 np.power.reduce(a), np.maximum.reduce(a, axis=-1)),
         np.array(3.5)),
    case("reduce-zero-size", lambda a: (np.sum(a), np.prod(a), np.any(a), np.all(a)),
         np.array([])),
    case("max-of-zero-size", np.max, np.array([])),
    case("sum-initial", lambda a, b: (np.sum(a, initial=2), np.sum(b, axis=(0, 2), initial=2)),
         np.array([3]), np.ones((2, 3, 5), np.int64)),
    case("sum-where", lambda a: (np.sum(a, where=[True, False]),
                                 np.sum(a, axis=0, initial=5., where=[True, False])),
         np.array([[1., 2.], [3., 4.]])),
    case("reduce-keepdims", lambda a: (np.add.reduce(a, axis=1, keepdims=True),
                                       np.maximum.reduce(a, axis=None, keepdims=True),
                                       np.minimum.reduce(a, axis=(0, 2), keepdims=True),
                                       np.subtract.reduce(a, axis=2, keepdims=True),
                                       np.logaddexp.reduce(a, axis=0, keepdims=True)),
         np.arange(24.).reshape(2, 3, 4)),
    case("reduce-accumulate-dtype", lambda a: (np.add.reduce(a, dtype=np.float32),
                                               np.multiply.reduce(a, axis=1, dtype=np.int8),
                                               np.add.accumulate(a, dtype=np.float32),
                                               np.multiply.accumulate(a, axis=1, dtype=np.int8),
                                               np.add.reduce(a > 2)),
         np.arange(1, 7).reshape(2, 3)),
    case("reduce-small-ints", lambda a, b, c: (np.add.reduce(a), np.add.reduce(b),
                                               np.multiply.reduce(c)),
         np.arange(1, 7, dtype=np.int8), np.arange(250, 256, dtype=np.uint8),
         np.arange(1, 7, dtype=np.int16)),
    case("logical-bitwise-reduce", lambda a: (np.logical_and.reduce(a), np.logical_or.reduce(
        a, axis=1), np.logical_xor.reduce(a, axis=0), np.bitwise_and.reduce(a),
        np.bitwise_or.reduce(a, axis=0), np.bitwise_xor.reduce(a, axis=1)),
         np.array([[True, False, True], [True, True, False]])),
    case("bitwise-reduce-identities", lambda a: (np.bitwise_and.reduce(a[:0]),
                                                 np.bitwise_or.reduce(a[:0]),
                                                 np.bitwise_xor.reduce(a, axis=0)),
         np.array([[5, 6, 7], [1, 2, 3]], "i2")),
    case("reduceat-shifting-sum", lambda x: np.add.reduceat(x, [0, 2, 1, 3, 2, 4, 3, 5])[::2],
         np.arange(6)),
    case("reduceat", lambda x: (np.add.reduceat(x, [0, 4, 1, 5]),
                                np.multiply.reduceat(x, [0, 3, 6]),
                                np.maximum.reduceat(x, [0, 2, 2, 7]),
                                np.subtract.reduceat(x, [0, 3]),
                                np.logaddexp.reduceat(x, [1, 3, 3]),
                                np.add.reduceat(x, [0., 2]), np.add.reduceat(x, []),
                                np.add.reduceat(x, [0, 2], dtype=np.float32)), np.arange(1., 9.)),
    case("reduceat-int-bool", lambda x: (np.add.reduceat(x, [0, 2]),
                                         np.multiply.reduceat(x > 2, [0, 2])),
         np.arange(1, 7, dtype=np.int8)),
    case("reduceat-axes", lambda x: (np.add.reduceat(x, [0, 2], axis=1),
                                     np.add.reduceat(x, [1, 0], axis=0),
                                     np.add.reduceat(x, [0, 0, 3], axis=-1)),
         np.arange(12.).reshape(3, 4)),
    *(case(f"reduceat-bad-indices-{i}", lambda x, i=i: np.add.reduceat(x, i), np.arange(6.))
      for i in (2, [[0, 2]], [0, 6], [-1, 2])),
    case("reduceat-0d", lambda x: np.add.reduceat(x, [0]), np.array(5.)),
    case("reduceat-of-empty", lambda x: np.add.reduceat(x, [0]), np.zeros((0,))),
    case("fold-reduce-where", lambda x: (
        np.logaddexp.reduce(x, axis=1, where=np.array([True, False, True]), initial=-inf),
        np.subtract.reduce(x, axis=1, where=[True, False, True], initial=0.0),
        np.hypot.reduce(x, axis=0, where=np.array([[True], [False]]))), GRID[:2]),
    case("fold-reduce-where-needs-initial", lambda x: np.subtract.reduce(
        x, where=np.array([True, False, True])), GRID),
    case("reduce-out", lambda x: (np.add.reduce(x, axis=1, out=np.zeros_like(x[:, 0])),
                                  np.subtract.reduce(x, axis=1, out=np.zeros_like(x[:, 0])),
                                  np.multiply.reduce(x, axis=1, keepdims=True,
                                                     out=np.zeros_like(x[:, :1]))), GRID),
    case("accumulate-out", lambda x: (np.add.accumulate(x, axis=1, out=np.zeros_like(x)),
                                      np.logaddexp.accumulate(x, out=np.zeros_like(x))), GRID),
    case("accumulate-types", lambda x: (np.add.accumulate(x > 2),
                                        np.logical_or.accumulate(x > 2, axis=1),
                                        np.maximum.accumulate(x > 2),
                                        np.divide.accumulate(x + 1, axis=0),
                                        np.power.accumulate(np.array([2, 3, 2]))), GRID),
    case("accumulate-0d", np.add.accumulate, np.array(3.0)),
    case("accumulate-axis-none", lambda x: np.add.accumulate(x, axis=None), GRID),
    case("fold-accumulate-0d", np.subtract.accumulate, np.array(3.0)),
    case("reduce-with-nans", lambda x: (np.maximum.reduce(x, axis=0), np.fmax.reduce(x, axis=1),
                                        np.minimum.accumulate(x, axis=1)),
         np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, 0.0]])),
    case("reduce-complex", lambda z: (np.add.reduce(z), np.multiply.reduce(z, axis=0),
                                      np.add.accumulate(z)),
         np.array([[1 + 2j, 3 - 1j], [0.5j, 2.0]])),
    case("reduce-initial-cast", lambda x: (np.add.reduce(x, initial=0.5),
                                           np.maximum.reduce(x, initial=2.7),
                                           np.minimum.reduce(x, where=x > 2, initial=100)),
         np.arange(6)),
    case("outer", lambda a, b: (np.add.outer(a, b), np.multiply.outer(a, b),
                                np.subtract.outer(a, 2), np.power.outer(a, b),
                                np.maximum.outer(a, b), np.divmod.outer(a, b),
                                np.equal.outer(a, b), np.add.outer(a, b, dtype=np.float32)),
         np.arange(3.), np.arange(1, 5).reshape(2, 2)),
    case("outer-of-unary", lambda a: np.negative.outer(a, a), np.arange(3.)),
    case("reduce-of-unary", lambda a: np.sin.accumulate(a), np.arange(3.)),
]

CALL_CASES = [
    case("where-out", lambda a, b: np.add(a, b, out=np.zeros_like(b), where=(a % 2 == 1)),
         np.arange(7), np.ones(7)),
    case("where-out-in-place", _copy_then(lambda a: (
        np.power(a, [2, 3], out=a, where=np.array([[0, 1], [1, 0]], bool)),
        np.subtract(a, 2, out=a, where=[True, False]))), np.arange(4).reshape(2, 2) + 2),
    case("where-out-casts", lambda a, c: np.add(a, a, out=np.copy(c), where=np.array(
        [1, 0, 0, 1, 0, 0, 1, 1, 1, 0], bool)), np.ones(10, np.int64), 1.5 * np.ones(10)),
    case("where-out-none", lambda a: np.sqrt(a, where=np.array([True]), out=None),
         np.array([1], np.int64)),
    case("where-broadcast", lambda a, b: np.less(a, b, where=a > 0.3, out=np.zeros_like(a)),
         np.random.default_rng(0).random((50, 4)), np.random.default_rng(1).random((50, 1))),
    case("out-casts", lambda a, c: (np.add(a, a, out=np.copy(c)),
                                    np.subtract(c, 0, out=np.zeros_like(c, np.float32))),
         np.ones((3, 4), np.int64), np.ones((3, 4))),
    case("out-same-kind-refuses", lambda a, c: np.add(c, c, out=np.copy(a)),
         np.ones(3, np.int64), np.ones(3)),
    case("out-unsafe", lambda a, c: np.add(c, c, out=np.copy(a), casting="unsafe"),
         np.ones(3, np.int64), np.ones(3) * 1.7),
    case("casting-no", lambda a, c: np.add(a, c, casting="no"), np.ones(3, np.int64),
         np.ones(3)),
    case("casting-equiv", lambda a: np.add(a, a, casting="equiv"), np.ones(3, np.int64)),
    case("dtype-safe-refuses", lambda c: np.add(c, c, dtype=np.int64, casting="safe"),
         np.ones(3)),
    case("dtype-and-signature", lambda a, b: (np.add(a, b, dtype=np.float32),
                                              np.multiply(a, b, dtype="f8"),
                                              np.true_divide(a, b, dtype=np.float16),
                                              np.sqrt(a, dtype=np.float32),
                                              np.add(a, b, signature=(None, None, np.float32))),
         np.arange(1, 4), np.arange(2, 5)),
    case("out-broadcasts-inputs", lambda a: np.add(a, a, out=np.zeros((5, 4, 3)) + a[0, 0]),
         np.arange(3.).reshape(1, 3)),
    *(case(f"out-too-small-{shape}-{out}", lambda a, out=out: (
        np.positive(a, out=np.zeros(out) + a.ravel()[:1]),
        np.add(np.ones(()), a, out=np.zeros(out) + a.ravel()[:1])), np.ones(shape))
      for shape, out in (((2,), (1,)), ((4, 3), (4, 1)))),
    case("shapes-do-not-broadcast", np.add, np.ones(3), np.ones(4)),
    case("out-tuples", lambda a: (np.frexp(a, out=(np.copy(a), np.zeros_like(a, np.int32))),
                                  np.modf(a, out=(np.copy(a), None)),
                                  np.divmod(a, 3, out=(None, np.copy(a)))),
         np.array([3.0, -0.0, 8.0, 0.3])),
    case("out-wrong-count", lambda a: np.add(a, a, out=(a, a)), np.array([7., -7.])),
    *(case(f"true-divide-{t}", lambda x, y: (np.true_divide(x, y), np.true_divide(y, x)),
           np.array(10, t), np.array(20, t)) for t in "bhilqBHILQefdFD"),
    *(case(f"true-divide-{t}-as-{o}", lambda x, y, o=o: np.true_divide(x, y, dtype=np.dtype(o)),
           np.array(10, t), np.array(20, t)) for t in "bhqBQefdFD" for o in "bqefdFD"),
]
ALL_CASES = AT_CASES + REDUCE_CASES + CALL_CASES
# numpy's behaviour of Python-level numpy arrays that a Tensor, following PyTorch, lacks
ON_TENSORS = [c for c in ALL_CASES if c.name not in (
    "out-broadcasts-inputs", "out-too-small-(2,)-(1,)", "out-too-small-(4, 3)-(4, 1)")]


@pytest.mark.parametrize("c", ALL_CASES, ids=lambda c: c.id)
def test_compiled(c):
    check_jit(c)


@pytest.mark.parametrize("c", ON_TENSORS, ids=lambda c: c.id)
def test_on_tensors(c):
    check_eager(c)


def test_reduceat_gradient():
    check_grad(case("reduceat", lambda x: np.add.reduceat(x, [0, 2, 2, 4], axis=1) *
                    np.maximum.reduceat(x, [1, 0], axis=1)[:, :1], np.arange(1., 13.).reshape(
                        2, 6) ** 1.5))


def test_reduceat_needs_indices_known_when_tracing():
    with pytest.raises(TypeError, match=r"np\.add\.reduceat needs indices known when tracing"):
        gradjit.jit(lambda x, i: np.add.reduceat(x, i))(np.arange(6.), np.array([0, 2]))


@pytest.mark.parametrize("call, args", [
    (lambda a, b: np.add(a, b), (np.ones(3), np.ones(4))),
    (lambda a, b: a * b, (np.ones((2, 3)), np.ones((3, 2)))),
    (lambda a: np.positive(a, out=np.zeros((4, 1)) + a[:, :1]), (np.ones((4, 3)),)),
    (lambda a: np.max(a), (np.zeros((0, 3)),)),
    (lambda a: np.minimum.reduce(a, axis=0), (np.zeros((0, 3)),)),
    (lambda a: np.floor_divide(a, 7), (np.array([.9 + 1j]),)),
    (lambda a: a % 2, (np.array([.9 + 1j]),)),
    (lambda a: np.add.reduceat(a, [0, 6]), (np.arange(6.),)),
    (lambda a: np.add.reduceat(a, [0]), (np.array(5.),)),
    (lambda a: np.subtract.accumulate(a), (np.array(5.),)),
    (lambda a: np.logaddexp.accumulate(a, axis=None), (GRID,)),
    (lambda a: np.subtract.reduce(a, where=a > 2), (GRID,)),
    (_at(np.add, [0, 1], [1, 2, 3]), (A10,)),
    (lambda a: -a, (np.array([True]),)),
    (lambda a: a - True, (np.array([True]),)),
], ids=["broadcast", "broadcast-operator", "out-shape", "max-empty", "minimum-reduce-empty",
        "complex-floor-divide", "complex-remainder", "reduceat-index", "reduceat-0d",
        "accumulate-0d", "accumulate-axes", "fold-where-without-initial", "at-broadcast",
        "bool-negative", "bool-subtract"])
def test_numpys_messages(call, args):
    raises_as_numpy(call, Exception, *args)
