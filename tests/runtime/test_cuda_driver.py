"""The CUDA runtime without a GPU: a stand-in libcuda (device memory in host memory, each
launch running the kernel's host build) checks how the runtime calls the driver: memory,
copies, kernel parameters, the status of every call, frees; and the error without a GPU."""
import ctypes

import numpy as np
import pytest

import gradjit
from gradjit.codegen import compile_function
from gradjit.codegen.ptx import compile as ptx_compile
from gradjit.codegen.ptx.grid import emit_module
from gradjit.codegen.ptx.target import compile_host
from gradjit.ir import PRIMITIVES as P
from gradjit.ir import Builder, TensorType, interpret
from gradjit.ir import dtype as resolve
from gradjit.runtime import cuda_driver
from gradjit.runtime.cuda_driver import CudaDevice, CudaError, CudaUnavailable, Driver
from gradjit.runtime.native import NativeCode

ERRORS = {1: b"CUDA_ERROR_INVALID_VALUE", 2: b"CUDA_ERROR_OUT_OF_MEMORY",
          218: b"CUDA_ERROR_INVALID_PTX", 500: b"CUDA_ERROR_NOT_FOUND"}


class FakeCuda:
    """libcuda's calls as the runtime makes them; `host` holds the kernels' host build."""

    def __init__(self, limit=1 << 30):
        self.memory, self.limit, self.host, self.launches = {}, limit, None, []
        self.functions, self.current, self.ptx = {}, None, []

    def _set(self, ref, value):
        ref._obj.value = value
        return 0

    def _inside(self, pointer, nbytes):
        return any(p <= pointer and pointer + nbytes <= p + a.nbytes
                   for p, a in self.memory.items())

    def cuGetErrorName(self, status, name):
        return self._set(name, ERRORS[status]) if status in ERRORS else 1

    def cuGetErrorString(self, status, text):
        return self._set(text, ERRORS[status].decode()[11:].lower().replace("_", " ").encode())

    def cuDeviceGetCount(self, count):
        return self._set(count, 1)

    def cuDeviceGet(self, device, ordinal):
        return self._set(device, ordinal)

    def cuDeviceGetName(self, buffer, size, device):
        buffer.value = b"Stand-in GPU"
        return 0

    def cuDevicePrimaryCtxRetain(self, context, device):
        return self._set(context, 0xC0)

    def cuCtxSetCurrent(self, context):
        self.current = context.value
        return 0

    def cuCtxSynchronize(self):
        return 0

    def cuModuleLoadDataEx(self, module, image, count, options, values):
        if b".entry" not in image:
            ctypes.memmove(values[0], b"ptxas: no kernel\0", 17)
            return 218
        self.ptx.append(image)
        return self._set(module, 0x40 + len(self.ptx))

    def cuModuleGetFunction(self, function, module, name):
        if name.decode() not in self.host.functions:
            return 500
        self.functions[0x1000 + len(self.functions)] = name.decode()
        return self._set(function, 0x1000 + len(self.functions) - 1)

    def cuMemAlloc_v2(self, pointer, nbytes):
        if nbytes > self.limit or nbytes < 1 or self.current != 0xC0:
            return 2 if nbytes > self.limit else 1
        storage = np.zeros(nbytes, np.uint8)
        self.memory[storage.ctypes.data] = storage
        return self._set(pointer, storage.ctypes.data)

    def cuMemFree_v2(self, pointer):
        return 0 if self.memory.pop(pointer, None) is not None else 1

    def cuMemcpyHtoD_v2(self, dst, src, nbytes):
        if not self._inside(dst, nbytes):
            return 1
        ctypes.memmove(dst, src, nbytes)
        return 0

    def cuMemcpyDtoH_v2(self, dst, src, nbytes):
        if not self._inside(src, nbytes):
            return 1
        ctypes.memmove(dst, src, nbytes)
        return 0

    def cuLaunchKernel(self, function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        if (gy, gz, by, bz, shared, stream, extra) != (1, 1, 1, 1, 0, None, None):
            return 1
        symbol = self.functions[function.value]
        count = len(params)
        values = [ctypes.c_uint64.from_address(params[n]).value for n in range(count)]
        if not all(self._inside(v, 1) for v in values):
            return 1
        self.launches.append((symbol, gx, bx))
        args = (ctypes.c_uint64 * (2 + count))(gx, bx, *values)
        self.host.functions[symbol](0, gx, args)
        return 0


@pytest.fixture
def fake(monkeypatch):
    """The 'cuda' target on the stand-in driver: its PTX step also builds the host code."""
    lib = FakeCuda()
    device = CudaDevice(Driver(lib))

    def build(name, kernels):
        symbols = [k.name for k in kernels]
        lib.host = NativeCode(compile_host(str(emit_module(name, kernels, False))), symbols)
        ptx = "".join(f".visible .entry {s}()\n" for s in symbols)
        return ptx, ptx
    monkeypatch.setitem(ptx_compile.TARGETS, "cuda", (lambda: device, build))
    monkeypatch.setattr(ptx_compile, "_memory", {})
    return lib


def function(shapes, body, dt="f64"):
    with Builder("g") as b:
        xs = [b.param(TensorType(s, resolve(dt)), f"x{i}") for i, s in enumerate(shapes)]
        outs = body(*xs)
    return b.build(list(outs))


def test_programs_run_through_the_driver_calls(fake):
    a, w = np.random.default_rng(0).normal(size=(2, 37, 300))
    fn = function([a.shape, w.shape], lambda a, w: [
        P["reduce_sum"](P["tanh"](P["mul"](a, w)), axes=(1,), keepdims=False),
        P["matmul"](a, P["transpose"](w, perm=(1, 0)))])
    program = compile_function(fn, target="cuda")
    got = program(a, w)
    for g, want in zip(got, interpret(fn, a, w)):
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12)
    assert [s for s, _, _ in fake.launches] == [k.name for k in program.kernels]
    live = len(fake.memory)
    program(a, w)
    assert len(fake.memory) == live  # every call frees what it allocated


def test_guards_and_index_checks_read_device_memory(fake):
    with Builder("checks") as b:
        x = b.param(TensorType((3,), resolve("f64")), "x")
        i = b.param(TensorType((2,), resolve("i64")), "i")
        ok = b.param(TensorType((), resolve("bool")), "ok")
        P["guard"](ok, expected=True, site="f.py:3")
        out = P["gather"](x, i, axis=0)
    program = compile_function(b.build([out]), target="cuda")
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(program(x, np.array([2, -3]), np.array(True))[0], [3.0, 1.0])
    with pytest.raises(IndexError, match="index 3 is out of bounds"):
        program(x, np.array([0, 3]), np.array(True))
    with pytest.raises(gradjit.ir.GuardFailed, match="f.py:3"):
        program(x, np.array([0, 1]), np.array(False))


def test_a_failing_call_names_the_call_and_the_error():
    drv = Driver(FakeCuda(limit=100))
    device = CudaDevice(drv)
    with pytest.raises(CudaError, match=r"cuMemAlloc_v2 failed with CUDA_ERROR_OUT_OF_MEMORY "
                                        r"\(out of memory\)"):
        device.alloc(1000)
    with pytest.raises(CudaError, match="cuMemFree_v2 failed with CUDA_ERROR_INVALID_VALUE"):
        device.free(12345)
    with pytest.raises(CudaError, match="CUDA_ERROR_INVALID_PTX.*ptxas: no kernel"):
        device.load("// nothing", [])
    assert Driver(FakeCuda()).describe(999) == "CUresult 999"


def test_without_a_gpu_asking_for_cuda_says_so(monkeypatch):
    monkeypatch.setattr(cuda_driver, "driver", lambda: None)
    fn = function([(3,)], lambda x: [P["exp"](x)])
    with pytest.raises(CudaUnavailable, match="no CUDA device is available"):
        compile_function(fn, target="cuda")
    with pytest.raises(CudaUnavailable, match="no CUDA device is available"):
        gradjit.grad(lambda x: np.sum(x * x), backend="cuda")(np.ones(3))
    assert not gradjit.cuda.is_available()
