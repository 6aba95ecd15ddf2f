"""PyTorch's type-info suite (test_type_info.py) side by side with torch: finfo and iinfo of
every dtype (complex ones report their real part's limits), the default dtype, Python types,
the values' Python types, equality, printing, and the refusals of non-dtypes and of the wrong
kind of dtype."""
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()
FINFO_FIELDS = ("bits", "eps", "max", "min", "resolution", "smallest_normal", "tiny", "dtype")


def fields(info, names):
    return {name: getattr(info, name) for name in names}


def finfo_of(dt):
    def run(lib):
        return fields(lib.finfo(getattr(lib, dt)), FINFO_FIELDS)
    run.__name__ = f"finfo_{dt}"
    scenario(run)


def iinfo_of(dt):
    def run(lib):
        return fields(lib.iinfo(getattr(lib, dt)), ("bits", "max", "min", "dtype"))
    run.__name__ = f"iinfo_{dt}"
    scenario(run)


for _dt in ("float16", "bfloat16", "float32", "float64", "complex32", "complex64",
            "complex128"):
    finfo_of(_dt)
for _dt in ("uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"):
    iinfo_of(_dt)


@scenario
def finfo_default_dtype(lib):
    before = fields(lib.finfo(), FINFO_FIELDS)
    lib.set_default_dtype(lib.float64)
    try:
        return before, fields(lib.finfo(), FINFO_FIELDS)
    finally:
        lib.set_default_dtype(lib.float32)


@scenario
def info_of_python_types(lib):
    return (fields(lib.finfo(float), FINFO_FIELDS), fields(lib.finfo(type=float), FINFO_FIELDS),
            fields(lib.iinfo(int), ("bits", "max", "min", "dtype")))


@scenario
def info_values_are_python_numbers(lib):
    f, i = lib.finfo(lib.float16), lib.iinfo(lib.uint8)
    return ([type(getattr(f, n)).__name__ for n in FINFO_FIELDS],
            [type(getattr(i, n)).__name__ for n in ("bits", "max", "min", "dtype")])


@scenario
def info_of_a_tensors_dtype(lib):
    return (lib.finfo(lib.ones(2, dtype=lib.float16).dtype).max,
            lib.iinfo(lib.ones(2, dtype=lib.int16).dtype).min)


@scenario
def info_equality(lib):
    f, i = lib.finfo, lib.iinfo
    return (f(lib.float32) == f(lib.float32), f(lib.float32) == f(lib.complex64),
            f(lib.float32) == f(lib.float64), f(lib.float32) != f(lib.float64),
            f(lib.float16) == f(lib.bfloat16), f(lib.float32) == 1,
            i(lib.int8) == i(lib.int8), i(lib.int8) == i(lib.uint8), i(lib.int64) == f())


@scenario
def info_unhashable(lib):
    for info in (lib.finfo(lib.float32), lib.iinfo(lib.int8)):
        with pytest.raises(TypeError, match="unhashable"):
            hash(info)


@scenario
def info_printing(lib):
    return ([repr(lib.finfo(getattr(lib, d))) for d in ("float16", "bfloat16", "float64")],
            [str(lib.iinfo(getattr(lib, d))) for d in ("uint8", "int32", "int64")])


def refusal(name, call):
    def run(lib):
        return call(lib)
    run.__name__ = name
    scenario(run)


for _name, _call in {
        "finfo_of_int": lambda L: L.finfo(L.int32),
        "finfo_of_bool": lambda L: L.finfo(L.bool),
        "finfo_of_python_int": lambda L: L.finfo(int),
        "finfo_of_none": lambda L: L.finfo(None),
        "finfo_of_string": lambda L: L.finfo("float32"),
        "finfo_of_number": lambda L: L.finfo(1),
        "iinfo_of_float": lambda L: L.iinfo(L.float32),
        "iinfo_of_complex": lambda L: L.iinfo(L.complex64),
        "iinfo_of_bool": lambda L: L.iinfo(L.bool),
        "iinfo_of_none": lambda L: L.iinfo(None),
        "iinfo_of_python_float": lambda L: L.iinfo(float)}.items():
    refusal(_name, _call)


@pytest.mark.parametrize("name", cases(SCENARIOS, {}))
def test_type_info_scenario_matches_torch(name):
    check(SCENARIOS[name])
