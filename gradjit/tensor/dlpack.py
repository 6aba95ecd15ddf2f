"""torch.utils.dlpack: tensors exchanged with numpy, PyTorch and other libraries through the
DLPack protocol; a CPU tensor's storage is a numpy array, so numpy's exchange shares memory."""
from __future__ import annotations

import ctypes
import enum

import numpy as np


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes (the standard's numbering)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


_INVALID = ("from_dlpack received an invalid capsule. Note that DLTensor capsules can be "
            "consumed only once, so you might have already constructed a tensor from it once.")
_valid = ctypes.pythonapi.PyCapsule_IsValid
_valid.restype, _valid.argtypes = ctypes.c_int, (ctypes.py_object, ctypes.c_char_p)


class _Capsule:
    """A capsule offered as an object with __dlpack__, the form numpy's from_dlpack takes."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return DLDeviceType.kDLCPU, 0


class _Writable:
    """The memory of `array` offered writable: numpy reads an unversioned capsule, which has no
    read-only flag, as read-only; PyTorch's tensors from such capsules are written to."""

    def __init__(self, array):
        self.owner = array  # keeps the capsule's memory alive
        self.__array_interface__ = {**array.__array_interface__,
                                    "data": (array.__array_interface__["data"][0], False)}


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """A tensor over the memory of `ext_tensor` (anything with __dlpack__: numpy arrays,
    PyTorch tensors, ...; or a capsule from to_dlpack, consumed once); copy=True copies."""
    from gradjit.tensor.dtypes import device as as_device
    from gradjit.tensor.factories import from_numpy
    if device is not None and as_device(device).type != "cpu":
        raise RuntimeError(f"from_dlpack: gradjit reads DLPack tensors on the CPU, not on "
                           f"{device}")
    if type(ext_tensor).__name__ != "PyCapsule":
        if not hasattr(ext_tensor, "__dlpack__"):
            raise RuntimeError(_INVALID)
        return from_numpy(np.from_dlpack(ext_tensor, copy=copy))
    legacy = _valid(ext_tensor, b"dltensor")
    if not (legacy or _valid(ext_tensor, b"dltensor_versioned")):
        raise RuntimeError(_INVALID)
    array = np.from_dlpack(_Capsule(ext_tensor), copy=copy)
    return from_numpy(np.asarray(_Writable(array)) if legacy and not copy else array)


def to_dlpack(tensor):
    """A capsule over the tensor's memory, for another library's from_dlpack (once)."""
    return tensor.detach().__dlpack__()


class DLPackMixin:
    """Tensor.__dlpack__ and __dlpack_device__."""

    def __dlpack__(self, *, stream=-1, max_version=None, dl_device=None, copy=None):
        if self.requires_grad:
            raise BufferError("Can't export tensors that require gradient, use "
                              "tensor.detach()")
        array = self.numpy()
        if not array.flags.writeable and max_version is None:
            array = array.copy()  # only a versioned capsule can say it is read-only
        return array.__dlpack__(max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        return DLDeviceType.kDLCPU, 0
