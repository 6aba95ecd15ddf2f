"""PyTorch's type-promotion suite, side by side with torch: promote_types, can_cast and
result_type over every pair of dtypes, tensor / 0-d tensor / Python scalar categories for
the binary, comparison and in-place operations, division modes, out= dtypes, alpha, and the
gradients of mixed-dtype operations."""
import itertools

import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]
VALUES = {"bool": [True, True], "uint8": [3, 250], "int8": [-3, 5], "int16": [700, -2],
          "int32": [70000, -9], "int64": [2 ** 40, -7], "float16": [1.5, -2.25],
          "bfloat16": [0.75, 3.5], "float32": [1.25, -0.5], "float64": [2.5, -1.75],
          "complex64": [1 + 2j, -0.5 + 1j], "complex128": [-1.5 - 2j, 0.25 + 1j]}
SCALARS = {"bool": True, "int": 3, "float": 2.5, "complex": 1 - 2j}


def make(lib, name, zero_dim=False):
    values = VALUES[name][0] if zero_dim else VALUES[name]
    return lib.tensor(values, dtype=getattr(lib, name))


def summary(x):
    """A result as its dtype and its values widened (numpy has no bfloat16)."""
    if not hasattr(x, "is_complex"):
        return x
    x = x.detach()
    return str(x.dtype), x.cdouble() if x.is_complex() else x.double()


def outcome_of(fn):
    """fn()'s summary, or its error's type and message."""
    try:
        return summary(fn())
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return type(error).__name__, str(error).partition("\n  at ")[0]


def with_default(lib, dtype, fn):
    """fn() with lib's default dtype set to `dtype` (restored after)."""
    before = lib.get_default_dtype()
    lib.set_default_dtype(getattr(lib, dtype))
    try:
        return fn()
    finally:
        lib.set_default_dtype(before)


@scenario
def promote_types_of_every_pair(lib):
    return [str(lib.promote_types(getattr(lib, a), getattr(lib, b)))
            for a, b in itertools.product(DTYPES, DTYPES)]


@scenario
def can_cast_of_every_pair(lib):
    return [lib.can_cast(getattr(lib, a), getattr(lib, b))
            for a, b in itertools.product(DTYPES, DTYPES)]


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_result_type_categories(default):
    """Tensors of each dtype against tensors, 0-d tensors and Python scalars of each kind."""
    def call(lib):
        def kinds(name):
            return [make(lib, name), make(lib, name, zero_dim=True)]
        out = []
        for a, b in itertools.product(DTYPES, DTYPES):
            for x, y in itertools.product(kinds(a), kinds(b)):
                out.append(str(lib.result_type(x, y)))
        for a in DTYPES:
            for s in SCALARS.values():
                out += [str(lib.result_type(x, s)) for x in kinds(a)]
                out.append(str(lib.result_type(s, make(lib, a))))
        out += [str(lib.result_type(s, t)) for s in SCALARS.values() for t in SCALARS.values()]
        return out
    check(lambda lib: with_default(lib, default, lambda: call(lib)))


BINARY = {
    "add": lambda lib, x, y: lib.add(x, y),
    "sub": lambda lib, x, y: lib.sub(x, y),
    "rsub": lambda lib, x, y: lib.rsub(x, y),
    "mul": lambda lib, x, y: x * y,
    "div": lambda lib, x, y: x / y,
    "div_trunc": lambda lib, x, y: lib.div(x, y, rounding_mode="trunc"),
    "div_floor": lambda lib, x, y: lib.div(x, y, rounding_mode="floor"),
    "true_divide": lambda lib, x, y: lib.true_divide(x, y),
    "floor_divide": lambda lib, x, y: x // y,
    "remainder": lambda lib, x, y: x % y,
    "fmod": lambda lib, x, y: lib.fmod(x, y),
    "pow": lambda lib, x, y: lib.pow(x, y),
    "atan2": lambda lib, x, y: lib.atan2(x, y),
    "maximum": lambda lib, x, y: lib.maximum(x, y),
    "fmin": lambda lib, x, y: lib.fmin(x, y),
    "bitwise_and": lambda lib, x, y: x & y,
    "bitwise_xor": lambda lib, x, y: x ^ y,
    "logical_or": lambda lib, x, y: lib.logical_or(x, y),
    "eq": lambda lib, x, y: x == y,
    "lt": lambda lib, x, y: lib.lt(x, y),
    "ge": lambda lib, x, y: x >= y,
    "hypot": lambda lib, x, y: lib.hypot(x, y),
    "copysign": lambda lib, x, y: lib.copysign(x, y),
}


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_op_over_dtype_pairs(op):
    """The op of tensors (and of a tensor with a 0-d tensor) of every pair of dtypes: the
    result's dtype and values, or PyTorch's error."""
    def call(lib):
        fn = BINARY[op]
        return [outcome_of(lambda: fn(lib, make(lib, a), make(lib, b, zero_dim=zero)))
                for a, b in itertools.product(DTYPES, DTYPES) for zero in (False, True)
                if not complex_half(a, b, zero)]
    check(call, rtol=1e-2)


def complex_half(a, b, zero_dim):
    """float16 with a 0-d complex tensor computes in complex32 (see complex_half_kernels)."""
    return a == "float16" and zero_dim and b.startswith("complex")


@scenario
def complex_half_kernels(lib):
    x, y = make(lib, "float16"), make(lib, "complex64", zero_dim=True)
    return [outcome_of(lambda: fn(lib, x, z)) for fn in (BINARY["div"], BINARY["pow"],
                                                         BINARY["logical_or"]) for z in (y, 1j)]


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_op_with_python_scalars(op):
    def call(lib):
        fn = BINARY[op]
        return [outcome_of(lambda: f(lib, make(lib, a), s)) for a in DTYPES
                for s in SCALARS.values() if not complex_half(a, type(s).__name__, True)
                for f in (fn, lambda lib, x, y: fn(lib, lib.tensor(y), x) if op in (
                    "pow", "atan2", "hypot", "copysign", "fmin", "maximum", "logical_or",
                    "fmod") else fn(lib, y, x) if op not in ("rsub", "div_trunc", "div_floor",
                                                              "true_divide") else fn(lib, x, y))]
    check(call, rtol=1e-2)


INPLACE = ["add_", "sub_", "mul_", "div_", "true_divide_", "floor_divide_", "remainder_",
           "pow_", "bitwise_or_", "logical_and_", "lt_", "atan2_"]


@pytest.mark.parametrize("method", INPLACE)
def test_inplace_casts_refused(method):
    """self.op_(other) keeps self's dtype: a result of another category is refused."""
    def call(lib):
        out = []
        for a, b in itertools.product(DTYPES, DTYPES):
            x = make(lib, a)
            out.append(outcome_of(lambda: getattr(x, method)(make(lib, b))))
        for a in DTYPES:
            for s in SCALARS.values():
                x = make(lib, a)
                out.append(outcome_of(lambda: getattr(x, method)(s)))
        return out
    check(call, rtol=1e-2)


@scenario
def inplace_examples(lib):
    int_tensor = lib.ones([4, 4], dtype=lib.int32)
    int_tensor.add_(lib.ones([4, 4], dtype=lib.int64))
    int_tensor.add_(1)
    uint8_tensor = lib.tensor([1, 2, 3], dtype=lib.uint8)
    uint8_tensor *= lib.tensor([1, -1, 200], dtype=lib.int16)
    return summary(int_tensor), summary(uint8_tensor)


@scenario
def unsigned_and_wrapped_numbers(lib):
    u = lib.tensor([0, 0, 1], dtype=lib.uint8)
    a = lib.tensor([1.0, 2.0, 3.0])
    other = lib.tensor(5.5, dtype=lib.float64)
    c = lib.tensor([1 + 1j, 2j], dtype=lib.complex64)
    return [summary(v) for v in (u + 5, u + 1000, u - 24, u + 5.5, u + other, a * 5, a + other,
                                 c * 5, c + other, 1j * lib.ones(2) + 1j,
                                 lib.ones(2, dtype=lib.int32) + 1)]


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_default_dtype_decides_scalar_results(default):
    def call(lib):
        u = lib.tensor([1, 2], dtype=lib.uint8)
        return [summary(v) for v in (u + 5.5, u / 2, lib.true_divide(u, 2.0), u * (1 + 1j),
                                     lib.arange(False, True, 0.5), lib.scalar_tensor(False),
                                     lib.tensor(2) * 1.5, lib.linspace(False, True, 3))]
    check(lambda lib: with_default(lib, default, lambda: call(lib)))


@scenario
def out_of_another_dtype(lib):
    f = lib.tensor([1.0, 2.0, 3.0])
    d = lib.zeros(3, dtype=lib.float64)
    lib.add(f, f, out=d)
    i = lib.zeros(3, dtype=lib.int32)
    lib.add(lib.tensor([1, 2, 3], dtype=lib.int8), lib.tensor([4, 5, 6], dtype=lib.int16), out=i)
    b = lib.zeros(3, dtype=lib.float16)
    lib.mul(f, 2, out=b)
    return summary(d), summary(i), summary(b)


@pytest.mark.parametrize("case", ["add_float_into_long", "add_complex_into_float",
                                  "neg_into_double", "lerp_mixed", "abs_complex_into_long",
                                  "true_divide_into_int", "div_floor_into_bool", "lt_into_float",
                                  pytest.param("sum_into_int", marks=pytest.mark.xfail(
                                      reason="a reduction refuses an out= of a lower category, "
                                             "where PyTorch sums in the out's dtype",
                                      strict=True))])
def test_out_dtype_refusals_and_casts(case):
    def call(lib):
        f, c = lib.tensor([1.0, -2.0]), lib.tensor([1 + 1j, -2j])
        i = lib.tensor([3, -4])
        return summary({
            "add_float_into_long": lambda: lib.add(f, f, out=lib.empty(2, dtype=lib.long)),
            "add_complex_into_float": lambda: lib.add(c, f, out=lib.empty(2)),
            "neg_into_double": lambda: lib.neg(f, out=lib.empty(2, dtype=lib.float64)),
            "lerp_mixed": lambda: lib.lerp(f.double(), f, 1),
            "abs_complex_into_long": lambda: lib.abs(c, out=lib.empty(0, dtype=lib.long)),
            "true_divide_into_int": lambda: lib.true_divide(i, 2, out=lib.empty(2, dtype=lib.long)),
            "div_floor_into_bool": lambda: lib.div(i, i, rounding_mode="floor",
                                                   out=lib.empty(2, dtype=lib.bool)),
            "lt_into_float": lambda: lib.lt(i, 0, out=lib.empty(2)),
            "sum_into_int": lambda: lib.sum(f, 0, out=lib.empty((), dtype=lib.int32)),
        }[case]())
    check(call)


@scenario
def abs_of_complex_into_real_outs(lib):
    t = lib.tensor([3 + 4j, -1 - 1j, 0j], dtype=lib.complex128)
    float_out = lib.empty(3, dtype=lib.float64)
    lib.abs(t, out=float_out)
    resized = lib.empty(1, dtype=lib.float64)
    lib.abs(t, out=resized)
    complex_out = lib.empty(3, dtype=lib.complex128)
    lib.abs(t, out=complex_out)
    return summary(float_out), summary(resized), summary(complex_out)


@scenario
def abs_in_place_of_complex(lib):
    return lib.tensor([3 + 4j]).abs_()


@pytest.mark.parametrize("case", ["int_float", "bool_float", "bool_int"])
def test_alpha_of_another_category(case):
    def call(lib):
        x = lib.ones(4, dtype=lib.bool if case.startswith("bool") else lib.int32)
        return lib.add(x, x, alpha=1.1 if case.endswith("float") else 2)
    check(call)


@scenario
def booleans(lib):
    onedim = lib.tensor([True])
    t = lib.tensor(True)
    return [summary(v) for v in (onedim + onedim, onedim + True, lib.add(t, t, alpha=True),
                                 lib.add(lib.tensor([1, 2]), lib.tensor([3, 4]), alpha=True))]


@scenario
def boolean_alpha_of_numbers(lib):
    return lib.add(lib.tensor(1), lib.tensor(1.5), alpha=True)


@scenario
def complex_alpha_of_reals(lib):
    return lib.add(lib.ones(2), lib.ones(2), alpha=1j)


@scenario
def bool_arange_and_spaces(lib):
    return [summary(v) for v in (lib.arange(False, True), lib.arange(True),
                                 lib.arange(False, False), lib.logspace(False, True, 3))]


@scenario
def comparisons_of_every_pair(lib):
    big = {"bool": 1, "uint8": 1 << 5, "int8": 1 << 5, "int16": 1 << 10, "int32": 1 << 20,
           "int64": 1 << 35, "float16": 1 << 10, "bfloat16": 1 << 12, "float32": 1 << 20,
           "float64": 1 << 35}
    out = []
    for a, b in itertools.product(big, big):
        for zero in (False, True):
            x = lib.tensor(big[a] if zero else [big[a]], dtype=getattr(lib, a))
            y = lib.tensor(big[b] if zero else [big[b]], dtype=getattr(lib, b))
            out += [outcome_of(lambda: op(x, y)) for op in (lib.lt, lib.le, lib.eq, lib.ne)]
            out.append(outcome_of(lambda: lib.gt(x, y, out=lib.empty(1, dtype=lib.bool))))
        out += [outcome_of(lambda: lib.tensor([0], dtype=getattr(lib, a)) < 0.5),
                outcome_of(lambda: lib.tensor(0, dtype=getattr(lib, a)) < lib.tensor(0.5))]
    return out


@scenario
def transposed_bool_comparison(lib):
    a = lib.tensor([[True, True], [False, True]])
    return summary(a.t() == 0), summary(a.t() == False)  # noqa: E712


@scenario
def uint8_mask_in_arithmetic(lib):
    tmp = lib.ones(3, 3)
    mask = lib.ones(4, 4, dtype=lib.uint8)
    return summary(tmp + mask[1:, 1:])


@scenario
def setitem_value_of_another_dtype_through_list_index(lib):
    a = lib.ones(5, 2, dtype=lib.float64)
    a[:, [1]] = lib.zeros(5, dtype=lib.int32).unsqueeze(-1)


@pytest.mark.parametrize("name", ["add", "sub", "rsub", "mul", "div"])
def test_mixed_dtype_gradients(name):
    """Gradients keep the dtype of the input they are for."""
    def call(lib):
        out = []
        for a, b in itertools.product(["float32", "float64"],
                                      ["float32", "float64", "int32", "int64"]):
            x = lib.tensor([1.5, -2.0, 3.0], dtype=getattr(lib, a), requires_grad=True)
            y = lib.tensor([2, 4, -1], dtype=getattr(lib, b))
            getattr(lib, name)(x, y).sum().backward()
            out += [summary(x.grad)]
        f = lib.ones(3, 3, requires_grad=True)
        tens = f * lib.tensor([10.0], dtype=lib.float64)
        (tens + 2).sum().backward()
        return out + [summary(f.grad), summary(tens)]
    check(call)


@scenario
def cat_and_stack_promote(lib):
    parts = [lib.tensor([1], dtype=lib.uint8), lib.tensor([2], dtype=lib.int8),
             lib.tensor([True]), lib.tensor([0.5], dtype=lib.float16)]
    return [summary(lib.cat(parts)), summary(lib.cat(parts[:3])),
            summary(lib.stack([parts[2], parts[1]])),
            summary(lib.cat([lib.tensor([1.0]), lib.tensor([1j], dtype=lib.complex64)]))]


@scenario
def where_and_ternary_promotion(lib):
    cond = lib.tensor([True, False])
    return [summary(v) for v in (
        lib.where(cond, lib.tensor([1, 2], dtype=lib.int8), lib.tensor([0.5, 1.5])),
        lib.where(cond, 1, lib.tensor([1, 2], dtype=lib.uint8)),
        lib.where(cond, 1.5, 2), lib.addcmul(lib.tensor([1, 2]), lib.tensor([1, 2]),
                                            lib.tensor([0.5, 1.0])),
        lib.clamp(lib.tensor([1, 5], dtype=lib.int16), 0.5, 3.5))]


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64",
                                   "float32", "float64"])
def test_true_divide_out_and_in_place(dtype):
    def call(lib):
        dividend = lib.tensor([-7, 3, 100, 0, 5]).to(getattr(lib, dtype))
        divisor = lib.arange(1, 6).to(getattr(lib, dtype))
        quotient = lib.empty(5, dtype=getattr(lib, dtype))
        return [outcome_of(lambda: lib.true_divide(dividend, divisor, out=quotient)),
                outcome_of(lambda: lib.true_divide(dividend, 2, out=quotient)),
                outcome_of(lambda: dividend.clone().true_divide_(divisor)),
                outcome_of(lambda: dividend.clone().true_divide_(2)),
                outcome_of(lambda: lib.true_divide(dividend, divisor))]
    check(call)


@pytest.mark.parametrize("mode", [None, "trunc", "floor"])
def test_division_modes(mode):
    """div's rounding modes over integer and float dtypes, with negative operands, zeros
    and their results' dtypes."""
    def call(lib):
        out = []
        for a, b in itertools.product(["int64", "int32", "uint8", "float32", "float64", "bool"],
                                      repeat=2):
            x = lib.tensor([-7, 7, 5, 0] if a != "uint8" else [7, 9, 5, 0])
            x = x.to(getattr(lib, a))
            y = lib.tensor([2, -2, 3, 4] if b != "uint8" else [2, 4, 3, 4]).to(getattr(lib, b))
            out.append(outcome_of(lambda: lib.div(x, y, rounding_mode=mode)))
            out.append(outcome_of(lambda: lib.div(x, 2, rounding_mode=mode)))
            out.append(outcome_of(lambda: x.clone().div_(y, rounding_mode=mode)))
        return out
    check(call)


@scenario
def unknown_rounding_mode(lib):
    return lib.div(lib.tensor([1.0]), 2, rounding_mode="round")


@scenario
def integer_division_by_zero(lib):
    return lib.div(lib.tensor([1, 2]), lib.tensor([0, 1]), rounding_mode="trunc")


@scenario
def unary_ops_promote_integers(lib):
    i = lib.tensor([1, 4, 9], dtype=lib.int32)
    b = lib.tensor([True, False, True])
    return [summary(v) for v in (lib.sqrt(i), lib.exp(b), lib.sin(i.to(lib.uint8)),
                                 lib.sigmoid(i.to(lib.int16)), lib.abs(i), lib.neg(i),
                                 lib.ceil(i), lib.sign(b), lib.reciprocal(i), lib.rsqrt(i),
                                 lib.mean(i.double()), lib.sum(b), lib.prod(i.to(lib.int8)),
                                 lib.cumsum(b, 0), lib.sum(i.to(lib.int16)))]


@pytest.mark.parametrize("case", ["mean_of_int", "neg_of_bool", "sqrt_into_int",
                                  "exp_inplace_int"])
def test_unary_refusals(case):
    def call(lib):
        i = lib.tensor([1, 4, 9], dtype=lib.int32)
        return summary({"mean_of_int": lambda: lib.mean(i),
                        "neg_of_bool": lambda: -lib.tensor([True]),
                        "sqrt_into_int": lambda: lib.sqrt(i, out=lib.empty(3, dtype=lib.int32)),
                        "exp_inplace_int": lambda: i.exp_()}[case]())
    check(call)


DIFFERENCES = {
    "complex_half_kernels": "complex32 results of float16 with complex operands are computed; "
                            "PyTorch has no CPU kernel for them",
}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_promotion_like_torch(name):
    check(SCENARIOS[name])
