"""numpy's _core/tests/test_function_base.py scenarios: linspace, logspace and geomspace with
traced ends (0-d and arrays, int8/uint16/complex), num, endpoint, retstep, dtype, axis and
base arrays, complex and negative geometric ends, NaN interiors and numpy's refusals; eager,
compiled and differentiated against numpy."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import case, suite_tests

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

S = np.array  # a 0-d array: an end traced under jit


def _linspace_cases():
    return [
        case("lin-basic", lambda a, b: np.linspace(a, b), S(0.0), S(10.0)),
        case("lin-num", lambda a, b: np.linspace(a, b, num=100), S(2.0), S(10.0)),
        case("lin-no-endpoint", lambda a, b: np.linspace(a, b, endpoint=False), S(2.0), S(10.0)),
        case("lin-negative-num", lambda a, b: np.linspace(a, b, num=-1), S(0.0), S(10.0)),
        case("lin-one", lambda a, b: np.linspace(a, b, 1), S(0.0), S(1.0)),
        case("lin-float-num", lambda a, b: np.linspace(a, b, num=2.5), S(0.0), S(1.0)),
        case("lin-zero", lambda a, b: np.linspace(a, b, 0), S(0.0), S(1.0)),
        case("lin-int-ends", lambda a, b: [np.linspace(a, b, n) for n in (0, 1, 2)],
             S(0), S(1)),
        case("lin-dtype", lambda a, b: [np.linspace(a, b, dtype=d) for d in ("f4", "f8", "i4")],
             S(0.0), S(6.0)),
        case("lin-int8-scalars", lambda a: np.linspace(a[0], a[1], 5),
             np.array([-120, 100], np.int8)),
        case("lin-int8-reversed", lambda a: np.linspace(a[0], a[1], 5),
             np.array([120, -100], np.int8)),
        case("lin-uint16", lambda a: np.linspace(a[0], a[1], 5),
             np.array([1200, 1000], np.uint16)),
        case("lin-arrays-int8", lambda a, b: np.linspace(a, b, 5),
             np.array([-120, 120], np.int8), np.array([100, -100], np.int8)),
        case("lin-array-scalar", lambda a, b: np.linspace(a, b[0], 5),
             np.array([-120, 120], np.int8), np.array([100, -100], np.int8)),
        case("lin-arrays-axis", lambda a, b: np.linspace(a, b, 5, axis=-1),
             np.array([-1.5, 2.0]), np.array([1.0, -1.0])),
        case("lin-arrays-2d-axis1", lambda a, b: np.linspace(a, b, 4, axis=1),
             np.array([[0.0, 1.0], [2.0, 3.0]]), np.array([5.0, 7.0])),
        case("lin-f32-ends", lambda a, b: np.linspace(a, b, 5), S(0.0).astype("f4"), S(1.0)),
        case("lin-mixed-ends", lambda a, b: np.linspace(a, b, 5),
             S(0).astype("i1"), S(1.0).astype("f4")),
        case("lin-f16-ends", lambda a, b: np.linspace(a, b, 5),
             S(0.0).astype("f2"), S(1.0).astype("f2")),
        case("lin-complex", lambda a, b: np.linspace(a, b, 5), S(1 + 2j), S(3 + 4j)),
        case("lin-complex-real", lambda a, b: np.linspace(a, b, 5), S(1j), S(10.0)),
        case("lin-denormal", lambda b: np.linspace(0, b, 10, endpoint=False),
             S(np.nextafter(0.0, 1.0) * 5)),
        case("lin-denormal-f32", lambda b: np.linspace(0, b, 10, endpoint=False, dtype="f4"),
             S(np.nextafter(np.float32(0), np.float32(1)) * 5)),
        case("lin-arange", lambda b: [np.linspace(0, b + j, j + 1, dtype=int)
                                      for j in (0, 1, 7, 99)], S(0)),
        case("lin-round-negative", lambda a, b: np.linspace(a, b, num=8, dtype=int),
             S(-1), S(3)),
        case("lin-zero-step", lambda a, b: np.linspace(a, b, 3),
             np.array([0.0, 1.0]), np.array([2.0, 1.0])),
        case("lin-bad-axis", lambda a, b: np.linspace(a, b, 3, axis=2),
             np.array([0.0, 1.0]), np.array([2.0, 1.0])),
        case("lin-shape-mismatch", lambda a, b: np.linspace(a, b, 3),
             np.array([0.0, 1.0]), np.array([2.0, 1.0, 3.0])),
    ] + [case(f"lin-retstep-{num}-{ept}", lambda a, b, n=num, e=ept:
              np.linspace(a, b, n, endpoint=e, retstep=True), S(0.0), S(1.0),
              grad=() if num < 2 and ept else None)
         for num in (0, 1, 2, 5) for ept in (False, True)]


def _logspace_cases():
    out = [
        case("log-basic", lambda a, b: np.logspace(a, b), S(0.0), S(6.0)),
        case("log-num", lambda a, b: np.logspace(a, b, num=100), S(0.0), S(6.0)),
        case("log-no-endpoint", lambda a, b: np.logspace(a, b, endpoint=False), S(0.0), S(6.0)),
        case("log-seven", lambda a, b: np.logspace(a, b, num=7), S(0.0), S(6.0)),
        case("log-arrays", lambda a, b: np.logspace(a, b, 6),
             np.array([0.0, 1.0]), np.array([6.0, 7.0])),
        case("log-array-scalar", lambda a, b: np.logspace(a, b[0], 6),
             np.array([0.0, 1.0]), np.array([6.0, 7.0])),
        case("log-arrays-axis", lambda a, b: np.logspace(a, b, 6, axis=-1),
             np.array([0.0, 1.0]), np.array([6.0, 7.0])),
        case("log-dtype", lambda a, b: [np.logspace(a, b, dtype=d) for d in ("f4", "f8", "i4")],
             S(0.0), S(6.0)),
        case("log-int-ends", lambda a, b: np.logspace(a, b, 4), S(0), S(3)),
        case("log-f32-ends", lambda a, b: np.logspace(a, b, 4),
             S(0.0).astype("f4"), S(2.0).astype("f4")),
        case("log-base-traced", lambda a, b, base: np.logspace(a, b, 5, base=base),
             S(0.5), S(1.5), S(2.5)),
        case("log-complex", lambda a, b: np.logspace(a, b, 4), S(1j), S(1 + 1j)),
    ]
    for axis in (0, 1, -1):
        out += [
            case(f"log-base-array-{axis}", lambda base, x=axis:
                 np.logspace(1, 2, num=6, base=base, axis=x), np.array([1.0, 2.0])),
            case(f"log-stop-base-array-{axis}", lambda stop, base, x=axis:
                 np.logspace(1, stop, num=6, base=base, axis=x),
                 np.array([2.0, 3.0]), np.array([1.0, 2.0])),
        ]
    return out


def _geomspace_cases():
    out = [
        case("geom-basic", lambda a, b: np.geomspace(a, b), S(1.0), S(1e6),
             grad=()),
        case("geom-num", lambda a, b: np.geomspace(a, b, num=100), S(1.0), S(1e6),
             grad=()),
        case("geom-no-endpoint", lambda a, b: np.geomspace(a, b, endpoint=False), S(1.0), S(1e6),
             grad=()),
        case("geom-seven", lambda a, b: np.geomspace(a, b, num=7), S(1.0), S(1e6),
             grad=()),
        case("geom-decreasing", lambda a, b: np.geomspace(a, b, num=3), S(8.0), S(2.0)),
        case("geom-negative", lambda a, b: np.geomspace(a, b, num=3), S(-1.0), S(-100.0)),
        case("geom-negative-up", lambda a, b: np.geomspace(a, b, num=3), S(-100.0), S(-1.0)),
        case("geom-exact-ends", lambda a, b: [np.geomspace(a, b, num=n, endpoint=e)
                                              for n in (1, 3) for e in (True, False)],
             S(0.3), S(20.3)),
        case("geom-nan-interior", lambda a, b: np.geomspace(a, b, num=4), S(-3.0), S(3.0)),
        case("geom-nan-interior-open", lambda a, b: np.geomspace(a, b, num=4, endpoint=False),
             S(-3.0), S(3.0)),
        case("geom-imaginary", lambda a, b: np.geomspace(a, b, num=5), S(1j), S(16j)),
        case("geom-negative-imaginary", lambda a, b: np.geomspace(a, b, num=5), S(-4j), S(-324j)),
        case("geom-diagonal", lambda a, b: np.geomspace(a, b, num=4), S(1 + 1j), S(1000 + 1000j)),
        case("geom-diagonal-neg", lambda a, b: np.geomspace(a, b, num=4),
             S(-1 + 1j), S(-1000 + 1000j)),
        case("geom-complex-dtype", lambda a, b: np.geomspace(a, b, num=3, dtype=complex),
             S(-1.0), S(1.0)),
        case("geom-quarter", lambda a, b: np.geomspace(a, b, 3), S(3j), S(-3 + 0j)),
        case("geom-quarter-2", lambda a, b: np.geomspace(a, b, 3), S(3j), S(3 + 0j)),
        case("geom-quarter-3", lambda a, b: np.geomspace(a, b, 3), S(-3 + 0j), S(-3j)),
        case("geom-spiral", lambda a, b: np.geomspace(a, b, 7), S(-2 - 3j), S(5 + 7j)),
        case("geom-mixed-two", lambda a, b: np.geomspace(a, b, 2), S(3j), S(-5.0)),
        case("geom-mixed-two-2", lambda a, b: np.geomspace(a, b, 2), S(-5.0), S(3j)),
        case("geom-shortest-path", lambda a: np.geomspace(a, np.exp(1j * (np.pi - .1)) * a, 5),
             S(1.2 + 3.4j)),
        case("geom-dtype", lambda a, b: [np.geomspace(a, b, dtype=d)
                                         for d in ("f4", "f8", "i4", float, complex)],
             S(1.0), S(1e6)),
        case("geom-int8", lambda a: np.geomspace(a[0], a[1], 5), np.array([120, 100], np.int8)),
        case("geom-int8-negative", lambda a: np.geomspace(a[0], a[1], 5),
             np.array([-120, -100], np.int8)),
        case("geom-uint16", lambda a: np.geomspace(a[0], a[1], 5),
             np.array([1200, 1000], np.uint16)),
        case("geom-arrays", lambda a, b: np.geomspace(a, b, 5),
             np.array([1.0, 32.0, 1j, -4j, 1 + 1j, -1]),
             np.array([1e4, 2.0, 16j, -324j, 10000 + 10000j, 1])),
        case("geom-array-scalar", lambda a, b: np.geomspace(a, b[0], 5),
             np.array([1.0, 32.0, 1j, -4j, 1 + 1j, -1]),
             np.array([1e4, 2.0, 16j, -324j, 10000 + 10000j, 1])),
        case("geom-arrays-axis", lambda a, b: np.geomspace(a, b, 5, axis=-1),
             np.array([1.0, 32.0, 2.0]), np.array([1e4, 2.0, 0.5])),
        case("geom-real-arrays", lambda a, b: np.geomspace(a, b, 4),
             np.array([1.0, -2.0, 3.0]), np.array([5.0, -0.5, 0.25])),
        # ends near 1e6 leave central differences too coarse: these differentiate smaller ones
        case("geom-grad", lambda a, b: np.geomspace(a, b, 6), S(1.5), S(40.0)),
        case("geom-grad-negative", lambda a, b: np.geomspace(a, b, 6), S(-0.5), S(-7.0)),
        case("geom-f32", lambda a, b: np.geomspace(a, b, 4),
             S(1.0).astype("f4"), S(9.0).astype("f4")),
    ]
    for name, start, stop in (("zero-start", 0.0, 10.0), ("zero-stop", 10.0, 0.0),
                              ("zeros", 0.0, 0.0)):
        out.append(case(f"geom-bounds-{name}", lambda a, b: np.geomspace(a, b),
                        S(start), S(stop)))
    out.append(case("geom-bounds-array", lambda a, b: np.geomspace(a, b, 3),
                    np.array([1.0, 0.0]), np.array([2.0, 3.0])))
    return out


CASES = _linspace_cases() + _logspace_cases() + _geomspace_cases()


test_eager, test_jit, test_grad = suite_tests(CASES)
