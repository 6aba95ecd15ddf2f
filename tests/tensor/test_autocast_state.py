"""torch.autocast's state against PyTorch 2.13: the context manager and decorator, nesting and
enabled=False inside, the torch.* state functions and their deprecated forms, torch.cpu.amp,
'cuda' without a GPU, unsupported dtypes and the errors."""
import warnings

import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")


def _dtype_of_mm(lib):
    return str(lib.mm(lib.ones(2, 2), lib.ones(2, 2)).dtype)


def test_nesting_and_enabled_false_inside():
    seen = {}
    for lib in (gradjit, torch):
        log = [lib.is_autocast_enabled("cpu"), _dtype_of_mm(lib)]
        with lib.autocast("cpu"):
            log += [lib.is_autocast_enabled("cpu"), str(lib.get_autocast_dtype("cpu")),
                    _dtype_of_mm(lib)]
            with lib.autocast("cpu", enabled=False):
                log += [lib.is_autocast_enabled("cpu"), _dtype_of_mm(lib)]
                with lib.autocast("cpu", dtype=lib.float16):
                    log += [_dtype_of_mm(lib), lib.autocast_increment_nesting()]
                    lib.autocast_decrement_nesting()
            log += [_dtype_of_mm(lib), lib.is_autocast_enabled()]
        log += [lib.is_autocast_enabled("cpu"), _dtype_of_mm(lib)]
        seen[lib] = log
    assert seen[gradjit] == seen[torch]


def test_decorator_and_state_restored_after_an_error():
    for lib in (gradjit, torch):
        @lib.autocast("cpu")
        def product(a, b):
            """Doc."""
            return a @ b
        assert str(product(lib.ones(2, 2), lib.ones(2, 2)).dtype) == "torch.bfloat16"
        assert product.__name__ == "product" and product.__doc__ == "Doc."
        with pytest.raises(ZeroDivisionError):
            with lib.amp.autocast("cpu"):
                lib.ones(1) / 0 and 1 // 0
        assert not lib.is_autocast_enabled("cpu") and _dtype_of_mm(lib) == "torch.float32"


def test_state_functions_match_torch():
    for lib in (gradjit, torch):
        lib.set_autocast_enabled("cpu", True)
        lib.set_autocast_dtype("cpu", lib.float16)
        assert _dtype_of_mm(lib) == "torch.float16"
        lib.set_autocast_dtype("cpu", lib.bfloat16)
        lib.set_autocast_enabled("cpu", False)
        assert _dtype_of_mm(lib) == "torch.float32"
        assert str(lib.get_autocast_dtype("cuda")) == "torch.float16"
        assert lib.is_autocast_cache_enabled() and lib.amp.is_autocast_available("cpu")
        lib.set_autocast_cache_enabled(False)
        assert not lib.is_autocast_cache_enabled()
        lib.set_autocast_cache_enabled(True)


@pytest.mark.parametrize("name, args", [("is_autocast_cpu_enabled", ()),
                                        ("get_autocast_cpu_dtype", ()),
                                        ("get_autocast_gpu_dtype", ()),
                                        ("set_autocast_cpu_enabled", (False,)),
                                        ("set_autocast_cpu_dtype", ("bfloat16",))])
def test_deprecated_per_device_functions_warn_as_torch(name, args):
    results = []
    for lib in (gradjit, torch):
        with pytest.warns(DeprecationWarning) as record:
            values = [getattr(lib, a) if isinstance(a, str) else a for a in args]
            results.append(str(getattr(lib, name)(*values)))
        results.append(str(record[0].message).split(" (Triggered")[0])
    assert results[:2] == results[2:]


def test_cpu_amp_autocast_is_deprecated_and_works():
    for lib in (gradjit, torch):
        with pytest.warns(FutureWarning, match=r"torch.amp.autocast\('cpu', args...\)"):
            region = lib.cpu.amp.autocast()
        with region:
            assert _dtype_of_mm(lib) == "torch.bfloat16"
        assert region.device == "cpu" and region.fast_dtype is lib.bfloat16


def _warning_and_state(lib, *args, **kwargs):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with lib.autocast(*args, **kwargs) as region:
            state = [region._enabled, _dtype_of_mm(lib)]
    return [str(w.message) for w in record] + state


@pytest.mark.parametrize("args", [("cuda",), ("cpu", "float32"), ("cpu", "float64"),
                                  ("cpu", "int64")])
def test_unavailable_device_and_unsupported_dtypes_warn_and_disable(args):
    def make(lib):
        dtype = getattr(lib, args[1]) if len(args) > 1 else None
        return _warning_and_state(lib, args[0], dtype=dtype)
    assert not gradjit.cuda.is_available()
    assert make(gradjit) == make(torch)


@pytest.mark.parametrize("call", [
    lambda L: L.autocast(3),
    lambda L: L.autocast("cpu")(3),
    lambda L: L.set_autocast_enabled("cpu", "yes"),
    lambda L: L.amp.custom_fwd(device_type=3),
    lambda L: L.amp.custom_bwd(device_type=3),
])
def test_errors_match_torch(call):
    same_error(lambda: call(gradjit), lambda: call(torch))


def test_an_unknown_device_type_is_refused():
    for lib in (gradjit, torch):
        with pytest.raises(RuntimeError, match="device type at start of device string: foo"):
            lib.autocast("foo")


def test_custom_fwd_casts_inputs_and_backward_sees_forward_state():
    results = {}
    for lib in (gradjit, torch):
        class Square(lib.autograd.Function):
            @staticmethod
            @lib.amp.custom_fwd(device_type="cpu", cast_inputs=lib.float32)
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x, str(x.dtype), _dtype_of_mm(lib)

            @staticmethod
            @lib.amp.custom_bwd(device_type="cpu")
            def backward(ctx, grad, *unused):
                (x,) = ctx.saved_tensors
                return 2 * x * grad

        x = lib.ones(3, dtype=lib.bfloat16, requires_grad=True)
        with lib.autocast("cpu"):
            y, seen, mm = Square.apply(x)
        y.sum().backward()
        results[lib] = (str(y.dtype), seen, mm, x.grad.tolist(), str(x.grad.dtype))
    assert results[gradjit] == results[torch]
