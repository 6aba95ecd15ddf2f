"""PyTorch's tensor-creation suite side by side with torch: arange/range/linspace/logspace,
full/empty/zeros/ones and their _like forms, eye, tensor() from nested lists, numpy arrays and
scalars, as_tensor/asarray/from_numpy sharing, complex and polar, tril/triu_indices,
cartesian_prod, combinations, meshgrid, vander, and randperm under a seed."""
import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()


def described(t):
    """What a creation gave, beyond its values: dtype, shape, requires_grad."""
    return t, str(t.dtype).split(".")[-1], tuple(t.shape), t.requires_grad


@scenario
def arange_forms(lib):
    return [described(t) for t in (
        lib.arange(5), lib.arange(2, 7), lib.arange(1, 2, 0.3), lib.arange(5.0),
        lib.arange(0, -3, -1),
        lib.arange(1, 4, dtype=lib.float64), lib.arange(0.0, 1.0, 0.1),
        lib.arange(10, 0, -3), lib.arange(3, dtype=lib.int8), lib.arange(0, 1, 1 / 3),
        lib.arange(lib.tensor(3)), lib.arange(lib.tensor(1.5), 4), lib.arange(5, 5),
        lib.arange(-1.0, 1.0, 0.25, dtype=lib.float16), lib.arange(0, 10, 3, dtype=lib.uint8),
        lib.arange(1, 2, 0.1, dtype=lib.float64), lib.arange(1e9, 1e9 + 4),
        lib.arange(4, requires_grad=False), lib.arange(0.0, 2.0, requires_grad=True))]


@scenario
def arange_bf16_and_double_rounding(lib):
    return (lib.arange(0, 1.1, 0.1, dtype=lib.float32), lib.arange(-4.0, 4.0, 0.01).numel(),
            lib.arange(0, 1, 0.01, dtype=lib.float64).numel(), lib.arange(2, 8, 2.5))


@scenario
def arange_out(lib):
    out = lib.empty(0, dtype=lib.int64)
    r = lib.arange(3, 9, 2, out=out)
    return r is out, out


@scenario
def arange_zero_step(lib):
    return lib.arange(0, 5, 0)


@scenario
def arange_wrong_sign(lib):
    return lib.arange(0, 5, -1)


@scenario
def arange_infinite(lib):
    return lib.arange(0, float("inf"))


@scenario
def arange_nan(lib):
    return lib.arange(0, float("nan"))


@scenario
def arange_bool_dtype(lib):
    return lib.arange(3, dtype=lib.bool)


@scenario
def range_forms(lib):
    with __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("ignore")
        return [described(t) for t in (lib.range(0, 3), lib.range(1, 2, 0.25),
                                       lib.range(5, 1, -2), lib.range(0, 4, dtype=lib.int32))]


@scenario
def linspace_forms(lib):
    return [described(t) for t in (
        lib.linspace(0, 1, 5), lib.linspace(-2, 2, 1), lib.linspace(3, 1, 0),
        lib.linspace(0, 10, 4),
        lib.linspace(0, 10, 4, dtype=lib.int64), lib.linspace(1, 5, 5, dtype=lib.int8),
        lib.linspace(0, 1, 7, dtype=lib.float64), lib.linspace(1 + 1j, 3 - 2j, 4),
        lib.linspace(lib.tensor(0.0), lib.tensor(2.0), 3),
        lib.linspace(-1, 1, 2, requires_grad=True),
        lib.linspace(0, 100, 11, dtype=lib.float16), lib.linspace(10, -10, 6, dtype=lib.int32))]


@scenario
def linspace_negative_steps(lib):
    return lib.linspace(0, 1, -1)


@scenario
def linspace_missing_steps(lib):
    return lib.linspace(0, 1)


@scenario
def linspace_out(lib):
    out = lib.empty(0, dtype=lib.float64)
    lib.linspace(0, 2, 5, out=out)
    return out


@scenario
def logspace_forms(lib):
    return [described(t) for t in (
        lib.logspace(0, 2, 3), lib.logspace(0, 3, 4, base=2),
        lib.logspace(-1, 1, 5, dtype=lib.float64),
        lib.logspace(0, 4, 5, base=2, dtype=lib.int64), lib.logspace(1, 1, 1),
        lib.logspace(0, 1, 0), lib.logspace(2, 0, 3, base=0.5), lib.logspace(0, 2, 3, 10.0))]


@scenario
def linspace_complex_into_real_raises(lib):
    return lib.linspace(0, 1 + 1j, 3, dtype=lib.float32)


@scenario
def linspace_out_dtype_mismatch(lib):
    return lib.linspace(0, 1, 3, dtype=lib.float32, out=lib.empty(0, dtype=lib.float64))


@scenario
def logspace_and_eye_out(lib):
    a, b = lib.empty(0), lib.empty(0, dtype=lib.int64)
    lib.logspace(0, 1, 3, out=a)
    lib.eye(2, 3, out=b)
    return a, b


@scenario
def logspace_negative_steps(lib):
    return lib.logspace(0, 1, -2)


@scenario
def full_dtype_inference(lib):
    return [described(t) for t in (
        lib.full((2, 3), 1), lib.full((2,), 1.5), lib.full((1,), True), lib.full((2,), 1 + 2j),
        lib.full((2, 2), 7, dtype=lib.float64), lib.full([3], -1, dtype=lib.uint8),
        lib.full((), 4.0), lib.full((0, 3), 2), lib.full((2,), float("inf")),
        lib.full((2,), lib.tensor(3.5)), lib.full((2,), 3, requires_grad=False))]


@scenario
def full_like_forms(lib):
    x = lib.tensor([[1, 2, 3]], dtype=lib.int16)
    f = lib.tensor([1.5, 2.5])
    return [described(t) for t in (
        lib.full_like(x, 2.7), lib.full_like(f, 7), lib.full_like(x, 5, dtype=lib.float64),
        lib.zeros_like(x), lib.ones_like(f, dtype=lib.complex64), lib.empty_like(x).shape and
        lib.zeros_like(lib.empty_like(x)), lib.zeros_like(f, requires_grad=True),
        lib.ones_like(lib.tensor(True)), lib.full_like(f, True))]


@scenario
def full_like_overflow(lib):
    return lib.full_like(lib.tensor([1], dtype=lib.uint8), 300)


@scenario
def unsigned_fills_and_python_ints(lib):
    x = lib.tensor([1, 7], dtype=lib.uint8)
    return (x + 200, x * 255, x - 2, x + 300, lib.where(x > 2, x, 250), x.clamp(max=200),
            x.clone().fill_(-1), lib.full((2,), -255, dtype=lib.uint8),
            lib.full((2,), 2.7, dtype=lib.int8), lib.zeros(2, dtype=lib.int16).fill_(-3.9))


def fill_overflow(name, value, dtype):
    def run(lib):
        return lib.full((2,), value, dtype=getattr(lib, dtype))
    run.__name__ = f"full_overflow_{name}"
    scenario(run)


for _args in (("uint8_256", 256, "uint8"), ("uint8_neg_256", -256, "uint8"),
              ("int8_128", 128, "int8"), ("uint8_neg_float", -1.5, "uint8"),
              ("int32_big_float", 1e10, "int32"), ("int64_nan", float("nan"), "int64"),
              ("float32_1e300", 1e300, "float32"), ("float32_complex", 1 + 1j, "float32"),
              ("float16_1e5", 1e5, "float16")):
    fill_overflow(*_args)


@scenario
def fill_inplace_overflow(lib):
    return lib.zeros(2, dtype=lib.uint8).fill_(300)


@scenario
def full_requires_grad_int(lib):
    return lib.full((2,), 1, requires_grad=True)


@scenario
def zeros_ones_empty_sizes(lib):
    return [described(t) for t in (
        lib.zeros(2, 3), lib.zeros((2, 3)), lib.zeros([2, 3]), lib.ones(()), lib.zeros(0),
        lib.ones(2, dtype=lib.bool), lib.zeros(lib.Size([1, 2])), lib.ones(3, dtype=lib.int8),
        lib.zeros(2, 0, 3), lib.empty(2, 3).fill_(0))] + [lib.empty(0, 4).shape]


@scenario
def zeros_negative_size(lib):
    return lib.zeros(2, -1)


@scenario
def empty_negative_size(lib):
    return lib.empty(-3)


@scenario
def zeros_float_size(lib):
    return lib.zeros(2.5)


@scenario
def new_factories(lib):
    x = lib.tensor([1, 2], dtype=lib.int32)
    return [described(t) for t in (
        x.new_zeros(3), x.new_ones((2, 2)), x.new_full((2,), 7.9), x.new_empty(0),
        x.new_tensor([1.5, 2.5]), x.new_zeros(2, dtype=lib.float64), x.new_ones(1,
                                                                                requires_grad=False))]


@scenario
def eye_forms(lib):
    return [described(t) for t in (
        lib.eye(3), lib.eye(2, 4), lib.eye(4, 2), lib.eye(0), lib.eye(3, 0), lib.eye(1, 1),
        lib.eye(3, dtype=lib.int64), lib.eye(2, dtype=lib.bool),
        lib.eye(2, 3, dtype=lib.complex64))]


@scenario
def eye_negative(lib):
    return lib.eye(-1)


@scenario
def eye_negative_columns(lib):
    return lib.eye(2, -3)


@scenario
def eye_out(lib):
    out = lib.empty(0)
    lib.eye(2, 3, out=out)
    return out


@scenario
def tensor_from_nested_lists(lib):
    return [described(t) for t in (
        lib.tensor([[1, 2], [3, 4]]), lib.tensor([[1, 2.5], [3, 4]]), lib.tensor([True, False]),
        lib.tensor([1, True]), lib.tensor([1.0, True]), lib.tensor([1, 2j]), lib.tensor([]),
        lib.tensor([[]]), lib.tensor([[], []]), lib.tensor(3), lib.tensor(3.5), lib.tensor(True),
        lib.tensor(2 + 1j), lib.tensor([[1, 2]], dtype=lib.float16), lib.tensor((1, 2, 3)),
        lib.tensor([(1, 2), [3, 4]]), lib.tensor([lib.tensor(1.5), 2]),
        lib.tensor([lib.tensor(1), lib.tensor(2)]), lib.tensor(2 ** 40),
        lib.tensor([1.5], dtype=lib.int32), lib.tensor([-1], dtype=lib.uint8),
        lib.tensor([[1.0]], requires_grad=True), lib.tensor([float("nan"), float("-inf")]),
        lib.tensor(range(4)), lib.tensor([[0] * 3] * 2, dtype=lib.bool))]


@scenario
def tensor_ragged(lib):
    return lib.tensor([[1, 2], [3]])


@scenario
def tensor_ragged_deeper(lib):
    return lib.tensor([[1, 2], 3])


@scenario
def tensor_from_string(lib):
    return lib.tensor("abc")


@scenario
def tensor_from_none(lib):
    return lib.tensor(None)


@scenario
def tensor_from_strings_list(lib):
    return lib.tensor(["a"])


@scenario
def tensor_int_overflow(lib):
    return lib.tensor(2 ** 64)


@scenario
def tensor_int64_overflow_in_list(lib):
    return lib.tensor([1, 2 ** 63])


@scenario
def tensor_big_ints_into_floats(lib):
    return (lib.tensor(2 ** 63, dtype=lib.float64), lib.tensor([2 ** 64], dtype=lib.float32),
            lib.tensor([2 ** 63, 1.5]))


@scenario
def tensor_empty_first_rows(lib):
    return lib.tensor([[], [1]]), lib.tensor([[], []], dtype=lib.int64)


@scenario
def tensor_ragged_empty_second(lib):
    return lib.tensor([[1], []])


@scenario
def tensor_list_where_number_goes(lib):
    return lib.tensor([1, [2]])


@scenario
def tensor_list_where_float_goes(lib):
    return lib.tensor([1.5, [2]])


@scenario
def tensor_requires_grad_int(lib):
    return lib.tensor([1, 2], requires_grad=True)


@scenario
def tensor_of_multi_element_tensors(lib):
    return lib.tensor([lib.tensor([1, 2]), lib.tensor([3, 4])])


@scenario
def tensor_from_numpy_values(lib):
    outs = []
    for dt in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
               "float64", "complex64", "complex128"):
        outs.append(described(lib.tensor(np.arange(6).reshape(2, 3).astype(dt))))
    outs += [described(lib.tensor(np.float64(2.5))), described(lib.tensor(np.int32(3))),
             described(lib.tensor([np.float32(1.5), np.float32(2)])),
             described(lib.tensor(np.arange(6.0).reshape(2, 3)[:, ::2])),
             described(lib.tensor(np.array([[1, 2]]), dtype=lib.float32)),
             described(lib.tensor(np.bool_(True)))]
    return outs


@scenario
def tensor_from_numpy_copies(lib):
    a = np.arange(3.0)
    t = lib.tensor(a)
    a[0] = 100.0
    return t


@scenario
def as_tensor_sharing(lib):
    a = np.arange(4.0)
    shared, cast = lib.as_tensor(a), lib.as_tensor(a, dtype=lib.float32)
    t = lib.tensor([1.0, 2.0])
    same, other = lib.as_tensor(t), lib.as_tensor(t, dtype=lib.float64)
    a[0] = -5.0
    return (shared, cast, same is t, other is t, described(lib.as_tensor([1, 2])),
            described(lib.as_tensor(3.5)), described(lib.as_tensor((1, 2.5))))


@scenario
def asarray_sharing(lib):
    a = np.arange(4.0)
    shared = lib.asarray(a)
    copied = lib.asarray(a, copy=True)
    t = lib.tensor([1.0, 2.0])
    alias, cast = lib.asarray(t), lib.asarray(t, dtype=lib.int64)
    a[1] = -7.0
    return (shared, copied, alias is t, cast, described(lib.asarray([1, 2])),
            described(lib.asarray(2.0)), described(lib.asarray([[1.5]], dtype=lib.float64)),
            lib.asarray(t, requires_grad=True).requires_grad)


@scenario
def asarray_copy_false_with_cast(lib):
    return lib.asarray(np.arange(3.0), dtype=lib.float32, copy=False)


@scenario
def from_numpy_sharing(lib):
    a = np.arange(6, dtype=np.int16).reshape(2, 3)
    t = lib.from_numpy(a)
    a[0, 0] = 42
    t[1, 1] = -1
    return t, a.tolist(), described(lib.from_numpy(np.zeros((0, 2), np.float32))), described(
        lib.from_numpy(np.array(1.5)))


@scenario
def from_numpy_negative_strides(lib):
    return lib.from_numpy(np.arange(4)[::-1])


@scenario
def from_numpy_not_array(lib):
    return lib.from_numpy([1, 2])


@scenario
def from_numpy_object_dtype(lib):
    return lib.from_numpy(np.array(["a"], dtype=object))


@scenario
def complex_and_polar(lib):
    re, im = lib.tensor([1.0, 0.0, -2.0]), lib.tensor([0.5, -1.0, 3.0])
    a = lib.tensor([1.0, 2.0]).double()
    return (described(lib.complex(re, im)), described(lib.complex(a, a)),
            lib.polar(lib.tensor([2.0, 1.0]), lib.tensor([0.0, 1.5707963267948966])),
            described(lib.polar(a, a)), lib.view_as_complex(lib.tensor([[1.0, 2.0], [3.0, -4.0]])),
            lib.view_as_real(lib.tensor([1 + 2j, 3 - 1j])))


@scenario
def complex_gradients(lib):
    re = lib.tensor([1.0, 2.0], requires_grad=True)
    im = lib.tensor([0.5, -1.0], requires_grad=True)
    z = lib.complex(re, im)
    (z.abs() + z.angle()).sum().backward()
    r = lib.tensor([1.0, 2.0], requires_grad=True)
    th = lib.tensor([0.3, -1.0], requires_grad=True)
    lib.view_as_real(lib.polar(r, th)).sum().backward()
    return re.grad, im.grad, r.grad, th.grad


@scenario
def complex_mixed_dtypes(lib):
    return lib.complex(lib.tensor([1.0]), lib.tensor([1.0], dtype=lib.float64))


@scenario
def complex_integer_inputs(lib):
    return lib.complex(lib.tensor([1]), lib.tensor([2]))


@scenario
def tril_triu_indices(lib):
    return [described(t) for t in (
        lib.tril_indices(3, 3), lib.tril_indices(4, 3, 1), lib.tril_indices(3, 5, -1),
        lib.triu_indices(3, 3), lib.triu_indices(4, 3, -1), lib.triu_indices(3, 5, 2),
        lib.tril_indices(0, 3), lib.triu_indices(3, 0), lib.tril_indices(3, 3, 10),
        lib.triu_indices(3, 3, 10), lib.tril_indices(3, 3, -10),
        lib.tril_indices(3, 4, dtype=lib.int32))]


@scenario
def tril_indices_float_dtype(lib):
    return lib.tril_indices(3, 3, dtype=lib.float32)


@scenario
def triu_indices_negative_row(lib):
    return lib.triu_indices(-1, 3)


@scenario
def cartesian_prod_forms(lib):
    a, b, c = lib.tensor([1, 2]), lib.tensor([3, 4, 5]), lib.tensor([6.5])
    return (lib.cartesian_prod(a, b), lib.cartesian_prod(a), lib.cartesian_prod(a, b, c),
            lib.cartesian_prod(a, lib.tensor([], dtype=lib.int64)))


@scenario
def cartesian_prod_gradient(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0, 5.0], requires_grad=True)
    out = lib.cartesian_prod(a, b)
    (out * lib.arange(1.0, 13.0).reshape(6, 2)).sum().backward()
    return out, a.grad, b.grad


@scenario
def cartesian_prod_2d_raises(lib):
    return lib.cartesian_prod(lib.ones(2, 2))


@scenario
def combinations_forms(lib):
    a = lib.tensor([1, 2, 3, 4])
    return (lib.combinations(a), lib.combinations(a, 3), lib.combinations(a, with_replacement=True),
            lib.combinations(a, 0), lib.combinations(a, 5), lib.combinations(a, 1),
            lib.combinations(lib.tensor([]), 2), lib.combinations(lib.tensor([1.5, 2.5]), 2, True))


@scenario
def combinations_gradient(lib):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = lib.combinations(a, 2, with_replacement=True)
    (out * lib.arange(1.0, out.numel() + 1).reshape(out.shape)).sum().backward()
    return out, a.grad


@scenario
def combinations_negative_r(lib):
    return lib.combinations(lib.tensor([1, 2]), -1)


@scenario
def combinations_2d_raises(lib):
    return lib.combinations(lib.ones(2, 2))


@scenario
def meshgrid_indexing(lib):
    x, y, z = lib.tensor([1, 2, 3]), lib.tensor([4, 5]), lib.tensor(7)
    return (lib.meshgrid(x, y, indexing="ij"), lib.meshgrid(x, y, indexing="xy"),
            lib.meshgrid([x, y, x], indexing="xy"), lib.meshgrid(x, indexing="xy"),
            lib.meshgrid(z, x, indexing="ij"), lib.meshgrid((x, y), indexing="ij"))


@scenario
def meshgrid_default_indexing(lib):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lib.meshgrid(lib.tensor([1, 2]), lib.tensor([3]))


MESHGRID_WARNINGS = """
import warnings, {lib} as lib
for _ in range(2):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.meshgrid(lib.tensor([1, 2]), lib.tensor([3]))
    print([str(w.message).partition(" (Triggered internally")[0] for w in caught])
"""


def test_meshgrid_warns_once_per_process_as_torch():
    import subprocess
    import sys
    said = [subprocess.run([sys.executable, "-c", MESHGRID_WARNINGS.format(lib=lib)],
                           capture_output=True, text=True, check=True).stdout
            for lib in ("gradjit", "torch")]
    assert said[0] == said[1] and said[1].count("indexing argument") == 1, said


@scenario
def meshgrid_bad_indexing(lib):
    return lib.meshgrid(lib.tensor([1]), indexing="ji")


@scenario
def meshgrid_2d_raises(lib):
    return lib.meshgrid(lib.ones(2, 2), indexing="ij")


@scenario
def meshgrid_mixed_dtypes_raises(lib):
    return lib.meshgrid(lib.tensor([1]), lib.tensor([1.0]), indexing="ij")


@scenario
def meshgrid_empty(lib):
    return lib.meshgrid([], indexing="ij")


@scenario
def meshgrid_gradient(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = lib.tensor([4.0, 5.0], requires_grad=True)
    gx, gy = lib.meshgrid(x, y, indexing="xy")
    (gx * lib.arange(6.0).reshape(2, 3) + gy * gy).sum().backward()
    return x.grad, y.grad


@scenario
def vander_forms(lib):
    x = lib.tensor([1, 2, 3, 5])
    return (lib.vander(x), lib.vander(x, 2), lib.vander(x, 0), lib.vander(x, increasing=True),
            lib.vander(lib.tensor([1.5, -2.0]), 3), lib.vander(lib.tensor([]), 0),
            lib.vander(lib.tensor([True, False])), lib.vander(lib.tensor([1j, 2.0]), 3, True))


@scenario
def vander_negative_n(lib):
    return lib.vander(lib.tensor([1, 2]), N=-1)


@scenario
def vander_2d_raises(lib):
    return lib.vander(lib.ones(2, 2))


@scenario
def randperm_seeded(lib):
    lib.manual_seed(0)
    a = lib.randperm(10)
    b = lib.randperm(5, dtype=lib.float32)
    return described(a), described(b), described(lib.randperm(0)), described(lib.randperm(1))


@scenario
def randperm_is_permutation(lib):
    lib.manual_seed(3)
    return lib.randperm(300).sort().values, lib.randperm(7, dtype=lib.int16).dtype


@scenario
def randperm_bool(lib):
    return lib.randperm(3, dtype=lib.bool)


@scenario
def randperm_negative(lib):
    return lib.randperm(-1)


@scenario
def randperm_out(lib):
    lib.manual_seed(1)
    out = lib.empty(0, dtype=lib.int64)
    lib.randperm(6, out=out)
    return out.sort().values


@scenario
def default_dtype_changes_creation(lib):
    old = lib.get_default_dtype()
    lib.set_default_dtype(lib.float64)
    try:
        return [described(t) for t in (
            lib.tensor([1.5]), lib.arange(0.5, 2), lib.linspace(0, 1, 3), lib.zeros(2),
            lib.full((1,), 2.0), lib.tensor([1j]), lib.eye(1), lib.tensor(np.float32(1.0)))]
    finally:
        lib.set_default_dtype(old)


@scenario
def set_default_dtype_int_raises(lib):
    return lib.set_default_dtype(lib.int64)


@scenario
def block_diag_forms(lib):
    return (lib.block_diag(lib.tensor([[1, 2], [3, 4]]), lib.tensor([[5]]), lib.tensor([6, 7])),
            lib.block_diag(lib.tensor(2.5), lib.ones(2, 3)), lib.block_diag(),
            lib.block_diag(lib.tensor([1]), lib.tensor([1.5j])), lib.block_diag(lib.zeros(0, 2)))


@scenario
def block_diag_3d_raises(lib):
    return lib.block_diag(lib.ones(2, 2, 2))


@scenario
def complex_float16_and_int_refusal(lib):
    return lib.complex(lib.tensor([1.0], dtype=lib.float16), lib.tensor([2.0], dtype=lib.float16))


@scenario
def polar_mixed_dtypes_raises(lib):
    return lib.polar(lib.tensor([1.0]), lib.tensor([2.0], dtype=lib.float64))


@scenario
def polar_out(lib):
    out = lib.empty(0, dtype=lib.complex64)
    r = lib.polar(lib.tensor([1.0, 2.0]), lib.tensor([0.5, -1.0]), out=out)
    return r is out, out


@scenario
def polar_out_dtype_raises(lib):
    return lib.polar(lib.tensor([1.0]), lib.tensor([2.0]), out=lib.empty(0))


@scenario
def polar_integer_raises(lib):
    return lib.polar(lib.tensor([1]), lib.tensor([2]))


@scenario
def empty_strided_and_like(lib):
    e = lib.empty_strided((2, 3), (1, 2))
    z = lib.zeros_like(e)
    return (tuple(e.shape), e.stride(), tuple(z.shape), z.stride(), z,
            lib.empty_like(e).stride(), lib.ones_like(e.t()).stride())


@scenario
def roll_bool_and_complex(lib):
    b = lib.tensor([True, False, False, True, False, False])
    c = lib.tensor([1 + 0.5j, 2 + 1j, 3.5, 4.0, 5j, 6.0])
    return b.roll(1, 0), c.roll(1, 0), c.view(2, 3).roll((1, -1), (0, 1))


@scenario
def tril_triu_batches(lib):
    x = lib.full((2, 3, 4), 2.0)
    outs = []
    for d in (-2, -1, 0, 1, 2):
        outs += [x.tril(d), x.triu(d), x.transpose(1, 2).triu(d),
                 x.expand(2, 2, 3, 4).tril(d), lib.full((3, 3, 0, 0), 1.0).triu(d)]
    return outs


@scenario
def vander_dtypes(lib):
    outs = []
    for dt, values in (("uint8", [1, 2, 3, 5]), ("int8", [1, -2, 3]), ("int64", [2, 3]),
                       ("float32", [1.5, -2.0]), ("float64", [0.5, 3.0]),
                       ("complex64", [1 + 1j, 2.0]), ("bool", [True, False])):
        x = lib.tensor(values, dtype=getattr(lib, dt))
        outs += [lib.vander(x), lib.vander(x, 3, True), lib.vander(x, 0), lib.vander(x, 1)]
    return outs


@scenario
def fill_every_dtype(lib):
    outs = []
    for dt in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
               "float32", "float64", "complex64", "complex128"):
        x = lib.empty(4, dtype=getattr(lib, dt))
        outs += [x.fill_(1).clone(), x.fill_(0).clone(), x.zero_().clone()]
    return outs


DIFFERENCES = {
    "linspace_missing_steps": "Python's TypeError for a missing argument, not the list of "
                              "torch's overloads",
    "zeros_float_size": "a float size fails in Python's words, not torch's argument parser's",
    "meshgrid_2d_raises": "torch's message prints the tensor in its legacy format; gradjit "
                          "names its rank",
    "tensor_of_multi_element_tensors": "gradjit stacks a list of equal-shaped tensors where "
                                       "torch refuses tensors of more than one element",
}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_creation_scenario_matches_torch(name):
    check(SCENARIOS[name])
