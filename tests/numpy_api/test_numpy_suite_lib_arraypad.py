"""numpy's lib/tests/test_arraypad.py scenarios: every mode of np.pad (constant, edge,
linear_ramp, maximum, mean, median, minimum, reflect and symmetric even and odd, wrap, empty)
with pad widths as numbers, pairs, per-axis pairs, arrays and dicts; stat_length, end_values
and constant_values; widths larger than the array, empty axes, every numeric dtype, numpy's
refusals; eager, compiled and differentiated against numpy."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import arg, case, check_eager, check_grad, check_jit

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

MODES = {"constant": {"constant_values": 0}, "edge": {},
         "linear_ramp": {"end_values": 0}, "maximum": {"stat_length": None},
         "mean": {"stat_length": None}, "median": {"stat_length": None},
         "minimum": {"stat_length": None}, "reflect": {"reflect_type": "even"},
         "symmetric": {"reflect_type": "even"}, "wrap": {}, "empty": {}}
STATS = ("maximum", "mean", "median", "minimum")
GRID = np.arange(30).reshape(6, 5)
FGRID = arg((6, 5))
NUMBERS = ("b", "B", "h", "H", "i", "I", "l", "L", "q", "Q", "e", "f", "d", "F", "D")


def _mode_cases():
    out = []
    for mode in MODES:
        if mode == "empty":  # numpy leaves the padding uninitialized: only shapes compare
            out.append(case("empty-shape", lambda a: np.pad(a, ((2, 3), (1, 0)),
                                                            "empty")[2:-3, 1:], FGRID))
            continue
        out += [
            case(f"{mode}-widths", lambda a, m=mode: np.pad(a, ((2, 3), (3, 2)), m), FGRID),
            case(f"{mode}-int", lambda a, m=mode: np.pad(a, ((2, 3), (3, 2)), m), GRID),
            case(f"{mode}-scalar-width", lambda a, m=mode: np.pad(a, 2, m), FGRID),
            case(f"{mode}-pair-width", lambda a, m=mode: np.pad(a, (1, 4), m), FGRID),
            case(f"{mode}-one-tuple", lambda a, m=mode: np.pad(a, ((2,), (0,)), m), FGRID),
            case(f"{mode}-array-width", lambda a, m=mode: np.pad(a, np.array(((2, 3), (3, 2))),
                                                                 m), FGRID),
            case(f"{mode}-dict-width", lambda a, m=mode: np.pad(a, {-1: (1, 3)}, m), FGRID),
            case(f"{mode}-large", lambda a, m=mode: np.pad(a, ((8, 13), (11, 7)), m), FGRID),
            case(f"{mode}-1d-large", lambda a, m=mode: np.pad(a, (25, 20), m), arg(10)),
            case(f"{mode}-one-element", lambda a, m=mode: np.pad(a, (3, 2), m), np.array([1.5])),
            case(f"{mode}-3d", lambda a, m=mode: np.pad(a, ((1, 0), (2, 1), (0, 3)), m),
                 arg((2, 3, 4))),
            case(f"{mode}-zero-width", lambda a, m=mode: [np.pad(a, w, m)
                                                          for w in (0, (0, 0), ((0, 0), (0, 0)))],
                 FGRID),
            case(f"{mode}-non-contiguous", lambda a, m=mode: np.pad(a[::2, ::2], (2, 3), m),
                 arg((4, 6))),
            case(f"{mode}-nonempty-axes", lambda a, m=mode: np.pad(a, ((3,), (0,), (1,)), m),
                 np.ones((2, 0, 2))),
            case(f"{mode}-negative-width", lambda a, m=mode: np.pad(a, ((5, 2), (-2, 3)), m),
                 GRID),
            case(f"{mode}-misshaped-width", lambda a, m=mode: np.pad(a, (4, 5, 6, 7), m), GRID),
            case(f"{mode}-misshaped-width-3", lambda a, m=mode: np.pad(a, ((1, 2), (3, 4),
                                                                           (5, 6)), m), GRID),
            case(f"{mode}-deep-width", lambda a, m=mode: np.pad(
                a, (((3,), (4,), (5,)), ((0,), (1,), (2,))), m), GRID),
            case(f"{mode}-float-width", lambda a, m=mode: np.pad(a, 3.4, m), GRID),
            case(f"{mode}-string-width", lambda a, m=mode: np.pad(a, "3", m), GRID),
            case(f"{mode}-float-pair-width", lambda a, m=mode: np.pad(a, ((-2.1, 3), (3, 2)), m),
                 GRID),
        ]
        if mode not in ("constant",):
            out.append(case(f"{mode}-empty-axis", lambda a, m=mode: np.pad(a, ((1,), (0,)), m),
                            np.zeros((0, 3))))
        for dtype in NUMBERS:
            out.append(case(f"{mode}-dtype-{dtype}", lambda a, m=mode: np.pad(a, 1, m),
                            np.arange(6).reshape(3, 2, 1).astype(dtype)))
        for key, value in {k: v for kw in MODES.values() for k, v in kw.items()}.items():
            if key not in MODES[mode]:
                out.append(case(f"{mode}-bad-kwarg-{key}", lambda a, m=mode, k=key, v=value:
                                np.pad(a, 1, m, **{k: v}), np.array([1.0, 2.0, 3.0])))
    return out


def _stat_cases():
    out = []
    for mode in STATS:
        out += [
            case(f"{mode}-stat-length", lambda a, m=mode: np.pad(a, ((2, 3), (3, 2)), m,
                                                                 stat_length=(3,)), GRID),
            case(f"{mode}-stat-length-pairs", lambda a, m=mode: np.pad(
                a, ((2, 3), (3, 2)), m, stat_length=((1, 2), (3, 1))), FGRID),
            case(f"{mode}-stat-length-long", lambda a, m=mode: np.pad(a, 2, m, stat_length=50),
                 FGRID),
            case(f"{mode}-stat-length-negative", lambda a, m=mode: np.pad(a, 2, m,
                                                                          stat_length=(3, -1)),
                 GRID),
            case(f"{mode}-prepend-append", lambda a, m=mode: np.pad(a, (1, 1), m),
                 np.array([-1, 2, -1]) + np.array([0, 1e-12, 0])),
            case(f"{mode}-int-rounding", lambda a, m=mode: np.pad(a, 3, m, stat_length=2),
                 np.array([1, 2, 4, 7], np.int32)),
        ]
    for mode in ("mean", "median"):
        out.append(case(f"{mode}-stat-length-zero", lambda a, m=mode: np.pad(a, (1, 2), m,
                                                                             stat_length=0),
                        np.array([1.0, 2.0])))
    for mode in ("minimum", "maximum"):
        for width, length in ((0, 0), (0, (1, 0)), (1, 0), (1, (1, 0))):
            out.append(case(f"{mode}-stat-length-zero-{width}-{length}",
                            lambda a, m=mode, w=width, n=length: np.pad(a, w, m, stat_length=n),
                            np.array([1.0, 2.0])))
    return out


def _value_cases():
    return [
        case("constant-values", lambda a: np.pad(a, ((2, 3), (3, 2)), "constant",
                                                 constant_values=((10, 20), (30, 40))), FGRID),
        case("constant-float-into-int", lambda a: np.pad(a, 2, "constant",
                                                         constant_values=1.1), GRID),
        case("constant-values-traced", lambda a, v: np.pad(a, 2, "constant", constant_values=v),
             FGRID, np.array(-1.5)),
        case("constant-large-int", lambda a: np.pad(a, 1, "constant",
                                                    constant_values=2 ** 62),
             np.array([1, 2], np.int64)),
        case("constant-default", lambda a: np.pad(a, 2), np.array([1, 1])),
        case("constant-empty-axis", lambda a: np.pad(a, ((0,), (2,)), "constant"),
             np.zeros((3, 0))),
        case("linear-ramp-end-values", lambda a: np.pad(a, ((2, 3), (3, 2)), "linear_ramp",
                                                        end_values=((0, 5), (-4, 0))), FGRID),
        case("linear-ramp-exact-ends", lambda a: np.pad(a, (223, 123), "linear_ramp"),
             np.ones((2, 5))),
        case("linear-ramp-int", lambda a: np.pad(a, (2, 3), "linear_ramp", end_values=(0, 9)),
             GRID),
        case("reflect-odd", lambda a: np.pad(a, ((2, 3), (3, 2)), "reflect",
                                             reflect_type="odd"), FGRID),
        case("symmetric-odd", lambda a: np.pad(a, ((2, 3), (3, 2)), "symmetric",
                                               reflect_type="odd"), FGRID),
        case("reflect-odd-large", lambda a: np.pad(a, (9, 11), "reflect", reflect_type="odd"),
             arg(4)),
        case("symmetric-odd-large", lambda a: np.pad(a, (9, 11), "symmetric",
                                                     reflect_type="odd"), arg(4)),
        case("reflect-single", lambda a: [np.pad(a, (n, 0), "reflect") for n in (2, 3, 4)],
             np.array([1.0, 2.0])),
        case("reflect-bad-type", lambda a: np.pad(a, 2, "reflect", reflect_type="mirror"),
             arg(4)),
        case("wrap-repeated", lambda a: np.pad(a, (7, 5), "wrap"), np.arange(3.0) + 1),
        case("wrap-multiple-origin", lambda a: np.pad(a, ((1, 3), (4, 7)), "wrap"),
             arg((2, 3))),
        case("wrap-zero-width-side", lambda a: np.pad(a, ((0, 2), (3, 0)), "wrap"), FGRID),
        case("unsupported-mode", lambda a: np.pad(a, 4, mode="const"), np.array([1, 2, 3])),
        case("unsupported-mode-none", lambda a: np.pad(a, 4, mode=None), np.array([1, 2, 3])),
    ] + [case(f"linear-ramp-negative-{d}", lambda a, b: (
        np.pad(a, 3, "linear_ramp", end_values=0), np.pad(b, 3, "linear_ramp", end_values=3)),
        np.array([3], d), np.array([0], d)) for d in NUMBERS]


def _grad_relevant(c):
    # linear_ramp's and the statistics' padding depends on the values, reflect's and
    # symmetric's on their differences; the empty mode's padding is garbage: nothing there
    return c.name.startswith("empty") is False


CASES = [c if _grad_relevant(c) else c._replace(grad=())
         for c in _mode_cases() + _stat_cases() + _value_cases()]
# maximum, minimum and median pick elements: ties among the picked ones have no derivative
NO_GRAD = {c.name for c in CASES if c.name.split("-")[0] in ("maximum", "minimum", "median")
           and "one-element" not in c.name}


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_eager(c):
    check_eager(c)


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)


@pytest.mark.parametrize("c", [c for c in CASES if c.grad and c.name not in NO_GRAD],
                         ids=lambda c: c.id)
def test_grad(c):
    check_grad(c)
