"""The CUDA driver API through ctypes on libcuda: the primary context of device 0, PTX
modules, device memory, copies and launches. Every call's status is checked; a failure
raises CudaError naming the call and the driver's description of the error."""
from __future__ import annotations

import ctypes
import functools
import threading

import numpy as np

_c = ctypes
# Prototypes of the calls used: (name, argument types). All return CUresult (int).
PROTOTYPES = {
    "cuInit": [_c.c_uint],
    "cuDeviceGetCount": [_c.POINTER(_c.c_int)],
    "cuDeviceGet": [_c.POINTER(_c.c_int), _c.c_int],
    "cuDeviceGetName": [_c.c_char_p, _c.c_int, _c.c_int],
    "cuDevicePrimaryCtxRetain": [_c.POINTER(_c.c_void_p), _c.c_int],
    "cuCtxSetCurrent": [_c.c_void_p],
    "cuCtxSynchronize": [],
    "cuModuleLoadDataEx": [_c.POINTER(_c.c_void_p), _c.c_char_p, _c.c_uint,
                           _c.POINTER(_c.c_int), _c.POINTER(_c.c_void_p)],
    "cuModuleGetFunction": [_c.POINTER(_c.c_void_p), _c.c_void_p, _c.c_char_p],
    "cuModuleUnload": [_c.c_void_p],
    "cuMemAlloc_v2": [_c.POINTER(_c.c_uint64), _c.c_size_t],
    "cuMemFree_v2": [_c.c_uint64],
    "cuMemcpyHtoD_v2": [_c.c_uint64, _c.c_void_p, _c.c_size_t],
    "cuMemcpyDtoH_v2": [_c.c_void_p, _c.c_uint64, _c.c_size_t],
    "cuLaunchKernel": [_c.c_void_p, _c.c_uint, _c.c_uint, _c.c_uint, _c.c_uint, _c.c_uint,
                       _c.c_uint, _c.c_uint, _c.c_void_p, _c.POINTER(_c.c_void_p),
                       _c.POINTER(_c.c_void_p)],
    "cuGetErrorName": [_c.c_int, _c.POINTER(_c.c_char_p)],
    "cuGetErrorString": [_c.c_int, _c.POINTER(_c.c_char_p)],
}
JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 5, 6
LOG_BYTES = 1 << 14


class CudaError(RuntimeError):
    """A CUDA driver call failed."""


class CudaUnavailable(RuntimeError):
    """No CUDA driver, or no device."""


def open_library(path="libcuda.so.1"):
    """libcuda with the prototypes set, or None where it is not installed."""
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return None
    for name, argtypes in PROTOTYPES.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = argtypes, ctypes.c_int
    return lib


class Driver:
    """Checked calls into a driver library (libcuda, or a stand-in with its functions)."""

    def __init__(self, lib):
        self.lib = lib

    def call(self, name: str, *args) -> None:
        status = getattr(self.lib, name)(*args)
        if status != 0:
            raise CudaError(f"{name} failed with {self.describe(status)}")

    def describe(self, status: int) -> str:
        name, text = ctypes.c_char_p(), ctypes.c_char_p()
        if self.lib.cuGetErrorName(status, ctypes.byref(name)) != 0 or not name.value:
            return f"CUresult {status}"
        self.lib.cuGetErrorString(status, ctypes.byref(text))
        return f"{name.value.decode()} ({(text.value or b'').decode()})"

    def device_count(self) -> int:
        count = ctypes.c_int(0)
        self.call("cuDeviceGetCount", ctypes.byref(count))
        return count.value


@functools.cache
def driver() -> Driver | None:
    """The initialized driver, or None where libcuda is missing or cuInit fails (no GPU)."""
    lib = open_library()
    if lib is None or lib.cuInit(0) != 0:
        return None
    return Driver(lib)


def device_count() -> int:
    found = driver()
    try:
        return found.device_count() if found is not None else 0
    except CudaError:
        return 0


class CudaDevice:
    """Device 0 through its primary context: the calls a GpuProgram makes."""

    def __init__(self, drv: Driver, ordinal: int = 0):
        self.driver = drv
        handle = ctypes.c_int()
        drv.call("cuDeviceGet", ctypes.byref(handle), ordinal)
        name = ctypes.create_string_buffer(256)
        drv.call("cuDeviceGetName", name, len(name), handle.value)
        self.name = name.value.decode(errors="replace")
        self.context = ctypes.c_void_p()
        drv.call("cuDevicePrimaryCtxRetain", ctypes.byref(self.context), handle.value)
        self._local = threading.local()

    def _current(self):
        """The context is current per thread; make it so on the calling thread."""
        if getattr(self._local, "set", False) is False:
            self.driver.call("cuCtxSetCurrent", self.context)
            self._local.set = True
        return self.driver

    def alloc(self, nbytes: int) -> int:
        pointer = ctypes.c_uint64()
        self._current().call("cuMemAlloc_v2", ctypes.byref(pointer), max(int(nbytes), 1))
        return pointer.value

    def free(self, pointer: int) -> None:
        self._current().call("cuMemFree_v2", pointer)

    def upload(self, pointer: int, array: np.ndarray) -> None:
        if array.nbytes:
            array = np.ascontiguousarray(array)
            self._current().call("cuMemcpyHtoD_v2", pointer, array.ctypes.data, array.nbytes)

    def download(self, pointer: int, array: np.ndarray) -> None:
        if array.nbytes:
            self._current().call("cuMemcpyDtoH_v2", array.ctypes.data, pointer, array.nbytes)

    def load(self, ptx: str, symbols) -> dict:
        """Load a PTX module (the driver compiles it for this GPU); its kernels by name."""
        drv = self._current()
        module = ctypes.c_void_p()
        log = ctypes.create_string_buffer(LOG_BYTES)
        options = (ctypes.c_int * 2)(JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
        values = (ctypes.c_void_p * 2)(ctypes.addressof(log), LOG_BYTES)
        try:
            drv.call("cuModuleLoadDataEx", ctypes.byref(module), ptx.encode(), 2, options,
                     values)
        except CudaError as error:
            raise CudaError(f"{error}: {log.value.decode(errors='replace')}") from None
        functions = {}
        for symbol in symbols:
            fn = ctypes.c_void_p()
            drv.call("cuModuleGetFunction", ctypes.byref(fn), module, symbol.encode())
            functions[symbol] = fn
        return {"module": module, "functions": functions}

    def launch(self, module: dict, symbol: str, grid: int, block: int, pointers) -> None:
        values = (ctypes.c_uint64 * max(len(pointers), 1))(*pointers)
        base, size = ctypes.addressof(values), ctypes.sizeof(ctypes.c_uint64)
        params = (ctypes.c_void_p * max(len(pointers), 1))(
            *[base + n * size for n in range(len(pointers))])
        self._current().call("cuLaunchKernel", module["functions"][symbol], grid, 1, 1, block,
                             1, 1, 0, None, params, None)

    def synchronize(self) -> None:
        self._current().call("cuCtxSynchronize")


@functools.cache
def default_device() -> CudaDevice:
    """Device 0, or CudaUnavailable saying why there is none."""
    drv = driver()
    if drv is None:
        raise CudaUnavailable("no CUDA device is available: the NVIDIA driver (libcuda) is "
                              "not installed or found no GPU; use the 'cpu' target, or "
                              "'cuda-emulator' to run the GPU kernels on the CPU")
    if drv.device_count() == 0:
        raise CudaUnavailable("no CUDA device is available: the NVIDIA driver reports no GPU")
    return CudaDevice(drv)
