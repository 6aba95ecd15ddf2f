"""A tensor's storage as PyTorch shows it: UntypedStorage (its bytes) and TypedStorage with
the legacy FloatStorage, LongStorage, ... kinds (its elements), both sharing the tensor's
memory, plus Tensor.storage/untyped_storage/storage_type and set_."""
from __future__ import annotations

import warnings

import numpy as np

from gradjit.tensor import dtypes
from gradjit.tensor.layout import _storage_of
from gradjit.tensor.legacy_types import _ALL
from gradjit.tensor.strided import strided_view


def _bytes_of(array):
    """The bytes of the memory that owns `array`, as a flat uint8 array sharing it."""
    return _storage_of(array).reshape(-1).view(np.uint8)


def _warn_typed_storage_removal():
    warnings.warn("TypedStorage is deprecated. It will be removed in the future and "
                  "UntypedStorage will be the only storage class. This should only matter to "
                  "you if you are using storages directly.  To access UntypedStorage directly, "
                  "use tensor.untyped_storage() instead of tensor.storage()", UserWarning,
                  stacklevel=3)


class _Storage:
    """What both kinds share: `_array`, a flat numpy array over the memory, read as bytes
    (untyped) or as elements of the storage's dtype (typed)."""

    def size(self) -> int:
        return self._array.size

    def __len__(self) -> int:
        return self._array.size

    def nbytes(self) -> int:
        return self._array.nbytes

    def element_size(self) -> int:
        return self._array.itemsize

    def data_ptr(self) -> int:
        return self._array.__array_interface__["data"][0]

    @property
    def device(self):
        return dtypes.CPU

    @property
    def is_cuda(self) -> bool:
        return False

    def tolist(self) -> list:
        return self._array.tolist()

    def __iter__(self):
        return iter(self.tolist())

    def _index(self, idx):
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} out of range for storage of size {len(self)}")
        return idx

    def _byte(self, idx):
        """UntypedStorage wraps a negative index once before checking it."""
        idx = idx + len(self) if idx < 0 else idx
        if not 0 <= idx < len(self):
            raise IndexError(f"index {idx} out of range for storage of size {len(self)}")
        return idx

    def __setitem__(self, idx, value):
        self._array[idx if isinstance(idx, slice) else self._index(idx)] = value

    def fill_(self, value):
        self._array[...] = value
        return self

    def copy_(self, source, non_blocking=None):
        self._array[...] = source._array
        return self

    def is_shared(self) -> bool:
        return False

    def cpu(self):
        return self

    def _repr(self, info):
        return " " + "\n ".join(str(v) for v in self.tolist()) + f"\n[{info} of size {len(self)}]"


class UntypedStorage(_Storage):
    """Bytes: UntypedStorage(n) is n zero bytes, UntypedStorage(sequence) holds those."""

    def __init__(self, *args, device=None):
        data = args[0] if args else 0
        self._array = np.zeros(data, np.uint8) if isinstance(data, int) else \
            np.array(list(data), np.uint8)

    @classmethod
    def _over(cls, array):
        storage = object.__new__(cls)
        storage._array = array
        return storage

    @property
    def dtype(self):
        return dtypes.uint8

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return UntypedStorage._over(self._array[idx])
        return int(self._array[self._byte(idx)])

    def clone(self):
        return UntypedStorage._over(self._array.copy())

    def type(self, dtype=None, non_blocking=False):
        return "torch.UntypedStorage" if dtype is None else self

    def __repr__(self):
        return self._repr(f"torch.storage.UntypedStorage(device={self.device})")


class TypedStorage(_Storage):
    """Elements of one dtype over an UntypedStorage: TypedStorage(n, dtype=...) or
    TypedStorage(sequence, dtype=...), or wrap_storage= to read existing bytes."""

    dtype = None  # fixed by the legacy kinds

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None):
        _warn_typed_storage_removal()
        dtype = self.dtype or dtype or dtypes.get_default_dtype()
        if wrap_storage is not None:
            self._untyped = wrap_storage
        else:
            data = args[0] if args else 0
            values = np.zeros(data, dtype.ir.numpy) if isinstance(data, int) else \
                np.array(list(data), dtype.ir.numpy)
            self._untyped = UntypedStorage._over(values.view(np.uint8))
        self.dtype = dtype

    @property
    def _array(self):
        return self._untyped._array.view(self.dtype.ir.numpy)

    def untyped(self):
        return self._untyped

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        return self._array[self._index(idx)].item()

    def clone(self):
        return type(self)(wrap_storage=self._untyped.clone(), dtype=self.dtype)

    def type(self, dtype=None, non_blocking=False):
        return f"torch.{self.dtype.legacy}Storage" if dtype is None else self

    def pickle_storage_type(self) -> str:
        return f"{self.dtype.legacy}Storage"

    def __repr__(self):
        return self._repr(f"torch.storage.TypedStorage(dtype={self.dtype}, "
                          f"device={self.device})")


LEGACY_STORAGES = {f"{d.legacy}Storage": type(f"{d.legacy}Storage", (TypedStorage,), {
    "dtype": d, "__module__": "torch"}) for d in _ALL}
globals().update(LEGACY_STORAGES)


class StorageMixin:
    """The Tensor methods that reach its storage."""

    def const_data_ptr(self) -> int:
        return self.data_ptr()

    def untyped_storage(self):
        return UntypedStorage._over(_bytes_of(self._concrete()))

    def storage(self):
        _warn_typed_storage_removal()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.storage_type()(wrap_storage=self.untyped_storage())

    def storage_type(self):
        return LEGACY_STORAGES[f"{self.dtype.legacy}Storage"]

    def set_(self, source=None, storage_offset=0, size=None, stride=None):
        """Make this tensor view `source`: another tensor's memory with its layout, or a
        storage's from storage_offset with `size` and `stride` (default: all of it, 1-D);
        set_() empties it."""
        self._check_inplace()
        numpy = self.dtype.ir.numpy
        if source is None:
            value = strided_view(np.zeros(0, numpy), (0,), (1,))
        elif hasattr(source, "_edge"):
            if source.dtype != self.dtype:
                raise RuntimeError(f"Could not set tensor of type "
                                   f"{dtypes.CPP_NAMES[source.dtype.legacy]} to a tensor of "
                                   f"type {dtypes.CPP_NAMES[self.dtype.legacy]}")
            value = source._concrete().view()
        else:
            elements = source._untyped._array if isinstance(source, TypedStorage) else \
                source._array
            root = elements.view(numpy)
            size = (root.size - storage_offset,) if size is None else tuple(size)
            if stride is None:
                stride = tuple(int(np.prod(size[i + 1:])) for i in range(len(size)))
            value = strided_view(root, size, stride, storage_offset)
        self._value, self._base, self._view_fn = value, None, None
        self._counter.value += 1
        return self


__all__ = ["TypedStorage", "UntypedStorage", *LEGACY_STORAGES]
