"""torch.save / torch.load in PyTorch's own file format: a zip archive holding a protocol-2
pickle of the object, whose tensors are references to raw little-endian storages beside it.
Files go both ways between gradjit and PyTorch. Loading is restricted by default, as in
PyTorch 2.6+: only tensors, dtypes and Python containers and numbers are rebuilt, so a file
cannot run code; `weights_only=False` unpickles anything (trusted files only)."""
from __future__ import annotations

import _compat_pickle
import collections
import io
import os
import pickle
import secrets
import zipfile

import numpy as np

from gradjit.ir import types as T
from gradjit.tensor import dtypes
from gradjit.tensor.layout import _storage_of, layout, sparse_coo, sparse_csr, strided
from gradjit.tensor.strided import strided_view

_LAYOUTS = {str(kind): kind for kind in (strided, sparse_coo, sparse_csr)}  # "torch.strided"

# PyTorch's storage class of each dtype, as its pickles name them
_STORAGES = {"float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
             "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage",
             "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage",
             "bool": "BoolStorage", "complex64": "ComplexFloatStorage",
             "complex128": "ComplexDoubleStorage"}
_DTYPE_OF_STORAGE = {storage: name for name, storage in _STORAGES.items()}
_DTYPE_NAMES = {d.ir.torch_name for d in vars(dtypes).values() if isinstance(d, dtypes.dtype)}
_safe_globals: dict = {}


class _Global:
    """A name in PyTorch's namespace that a pickle refers to (torch._utils._rebuild_tensor_v2,
    torch.FloatStorage, torch.Size), written as that global whether or not torch is here;
    calling it calls what the name is here (pickle wants a callable)."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):
        return _local(self.module, self.name)(*args)


class _Pickler(pickle._Pickler):
    """The pure-Python pickler: only it lets save_global write a name that is not imported."""

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages: dict = {}  # id(owner of the memory) -> (key, its elements)

    def reducer_override(self, obj):
        from gradjit.nn import Parameter
        if isinstance(obj, _Global):
            return obj.name  # a string: pickle calls save_global
        if isinstance(obj, Parameter):
            hooks = collections.OrderedDict()
            return _Global("torch._utils", "_rebuild_parameter"), (obj.detach(),
                                                                   obj.requires_grad, hooks)
        if getattr(obj, "_sparse_layout", False):  # its index and value tensors, as torch's
            return _Global("torch._utils", "_rebuild_sparse_tensor"), (obj.layout,
                                                                       _sparse_parts(obj))
        if _is_tensor(obj):
            if not isinstance(obj._value, np.ndarray):
                raise RuntimeError("torch.save: a tensor being traced inside gradjit.grad/jit "
                                   "has no data to save; save it outside the traced function")
            owner, elements, offset, strides = _storage_of_tensor(obj)
            key = self.storages.setdefault(owner, (str(len(self.storages)), elements))[0]
            device = obj.device
            location = "cpu" if device.type == "cpu" else f"cuda:{device.index or 0}"
            typed = _STORAGES.get(obj.dtype.ir.torch_name)
            if typed is None:  # no typed storage class: bytes, and the dtype after the hooks
                ident = ("storage", _Global("torch.storage", "UntypedStorage"), key, location,
                         elements.size * obj.dtype.itemsize)
                rebuild, dtype = "_rebuild_tensor_v3", (obj.dtype,)
            else:
                ident = ("storage", _Global("torch", typed), key, location, elements.size)
                rebuild, dtype = "_rebuild_tensor_v2", ()
            args = (_Persistent(ident), offset, tuple(obj.shape), strides, obj.requires_grad,
                    collections.OrderedDict(), *dtype)
            return _Global("torch._utils", rebuild), args
        if isinstance(obj, dtypes.dtype):
            return obj.ir.torch_name
        if isinstance(obj, layout):  # as torch writes a layout
            return _Global("torch.serialization", "_get_layout"), (str(obj),)
        if isinstance(obj, dtypes.Size):
            return _Global("torch", "Size"), (tuple(obj),)
        if isinstance(obj, dtypes.device):
            return _Global("torch", "device"), (str(obj),)
        return NotImplemented

    def save_global(self, obj, name=None):
        if isinstance(obj, dtypes.dtype):
            obj = _Global("torch", name)
        if not isinstance(obj, _Global):
            return super().save_global(obj, name)
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
        self.memoize(obj)

    def persistent_id(self, obj):
        return obj.ident if isinstance(obj, _Persistent) else None


def _sparse_parts(t) -> tuple:
    """What torch pickles of a sparse tensor: COO indices, values, size and whether
    coalesced; CSR row pointers, columns, values and size."""
    if t.layout is sparse_csr:
        return t.crow_indices(), t.col_indices(), t.values().detach(), t.shape
    return t._indices(), t._values(), t.shape, t.is_coalesced()


def _rebuild_sparse_tensor(kind, data):
    from gradjit.sparse import sparse_coo_tensor, sparse_csr_tensor
    if kind is sparse_csr:
        return sparse_csr_tensor(*data)
    indices, values, size, *coalesced = data
    return sparse_coo_tensor(indices, values, size, is_coalesced=(coalesced or [None])[0])


class _Persistent:
    def __init__(self, ident):
        self.ident = ident


def _is_tensor(obj) -> bool:
    return hasattr(obj, "_edge") and hasattr(obj, "_value")


def _storage_of_tensor(t):
    """(identity, elements, offset, strides) of the storage t is saved over: the array that
    owns t's memory, shared by the views of it as in PyTorch's files; t's own elements where
    that array holds another dtype."""
    value = t._concrete()
    root = _storage_of(value)
    # numpy's dtype equality ignores the metadata that marks bfloat16 and complex32 storage
    same = root.dtype == value.dtype and root.dtype.metadata == value.dtype.metadata
    if same and root.flags.c_contiguous:
        return id(root), root.reshape(-1), t.storage_offset(), t.stride()
    shape = tuple(t.shape)
    return id(t), value, 0, tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))


def _storage_bytes(elements) -> bytes:
    array = np.ascontiguousarray(elements)
    if T.is_complex32(array.dtype):  # held as complex64: its real and imaginary float16s
        array = array.view(np.float32).astype(np.float16)
    elif T.is_bfloat16(array.dtype):  # the high half of each float32 is the bfloat16
        array = (array.view(np.uint32) >> 16).astype(np.uint16)
    return array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Write `obj` (tensors, state_dicts, optimizer state, nested containers of them, or any
    picklable object) to a path or a binary file object, as torch.save does."""
    data = io.BytesIO()
    pickler = _Pickler(data, pickle_protocol)
    pickler.dump(obj)
    name = "archive"
    if isinstance(f, (str, os.PathLike)):
        name = os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
    with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(f"{name}/data.pkl", data.getvalue())
        archive.writestr(f"{name}/.format_version", "1")
        archive.writestr(f"{name}/.storage_alignment", "64")
        archive.writestr(f"{name}/byteorder", "little")
        for key, elements in pickler.storages.values():
            archive.writestr(f"{name}/data/{key}", _storage_bytes(elements))
        archive.writestr(f"{name}/version", "3\n")
        archive.writestr(f"{name}/.data/serialization_id", str(secrets.randbits(128)))


def add_safe_globals(safe_globals):
    """Allow these classes or functions in files loaded with weights_only=True."""
    for obj in safe_globals:
        _safe_globals[(obj.__module__, obj.__qualname__)] = obj


def get_safe_globals():
    return list(_safe_globals.values())


def clear_safe_globals():
    _safe_globals.clear()


class safe_globals:
    """A with-block during which add_safe_globals(these) holds; the allowlist is restored
    after it."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        self._before = dict(_safe_globals)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        _safe_globals.clear()
        _safe_globals.update(self._before)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    return _over(storage, storage.as_dtype(storage.dtype), storage_offset, size, stride,
                 requires_grad)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    """A tensor over an untyped (byte) storage, which it reads as `dtype`."""
    return _over(storage, storage.as_dtype(dtype), storage_offset, size, stride, requires_grad)


def _over(storage, elements, storage_offset, size, stride, requires_grad):
    """A leaf viewing `elements`, so the tensors saved over one storage load sharing one."""
    from gradjit.tensor.tensor import Tensor
    t = Tensor._wrap(strided_view(elements, size, stride, storage_offset))  # exact: no rounding
    if storage.device is not None:
        t = t.to(storage.device)
    return t.requires_grad_(requires_grad) if requires_grad else t


def _decoded(raw: np.ndarray, dtype) -> np.ndarray:
    """A storage's little-endian bytes as the array numpy holds `dtype` in; bfloat16 and
    complex32 widen (exactly) into the float32 and complex64 they are stored as."""
    if dtype is dtypes.bfloat16:
        wide = raw.view("<u2").astype(np.uint32) << 16
        return wide.view(np.float32).astype(T.BFLOAT16_STORAGE)
    if dtype is dtypes.complex32:
        return T.round_complex32(raw.view("<f2").astype(np.float32).view(np.complex64))
    return raw.view(dtype.ir.numpy.newbyteorder("<")).astype(dtype.ir.numpy, copy=False)


class _LoadedStorage:
    """A storage read from the archive: its bytes, where its tensors go, and its elements as
    each dtype its tensors read (a typed storage's own dtype; any, for an untyped one)."""

    def __init__(self, raw, dtype, device):
        self.raw, self.dtype, self.device = raw, dtype, device
        self.elements: dict = {}

    def as_dtype(self, dtype):
        if dtype not in self.elements:
            self.elements[dtype] = _decoded(self.raw, dtype)
        return self.elements[dtype]


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from gradjit.nn import Parameter
    return Parameter(data, requires_grad)


def _torch_global(name):
    """What a pickle's torch.<name> becomes here (None: not a name gradjit rebuilds)."""
    if name in _DTYPE_OF_STORAGE:
        return _StorageType(_DTYPE_OF_STORAGE[name])
    if name == "Size":
        return dtypes.Size
    if name == "device":
        return dtypes.device
    return dtypes.to_dtype(name) if name in _DTYPE_NAMES else None  # pickled as torch.float32


class _StorageType:
    def __init__(self, dtype_name):
        self.dtype_name = dtype_name


_ALLOWED = {("collections", "OrderedDict"): collections.OrderedDict,
            ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
            ("torch._utils", "_rebuild_tensor_v3"): _rebuild_tensor_v3,
            ("torch.storage", "UntypedStorage"): _StorageType("uint8"),  # read by v3's dtype
            ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
            ("torch._utils", "_rebuild_sparse_tensor"): _rebuild_sparse_tensor,
            ("torch.serialization", "_get_layout"): lambda name: _LAYOUTS[name],
            ("builtins", "set"): set, ("builtins", "frozenset"): frozenset,
            ("builtins", "complex"): complex, ("builtins", "slice"): slice}


def _local(module, name):
    """What a pickle's global is here, None for one that weights_only loading refuses."""
    # protocol 2 writes Python 2 names (__builtin__.set), which pickle maps back on loading
    module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
    module = _compat_pickle.IMPORT_MAPPING.get(module, module)
    found = _ALLOWED.get((module, name)) or _safe_globals.get((module, name))
    if found is not None or module.split(".")[0] != "torch":
        return found
    if module == "torch" and _torch_global(name) is not None:
        return _torch_global(name)
    here = _here(module, name)  # a whole model saved by PyTorch names torch's classes
    return here if any(here is g for g in _safe_globals.values()) else None


def _here(module, name):
    """gradjit's object at PyTorch's path module.name (torch.nn.modules.dropout.Dropout), None
    where gradjit has none."""
    import gradjit
    found = gradjit
    for part in module.split(".")[1:] + name.split("."):
        found = getattr(found, part, None)
    return found


def _global_path(module, name):
    """A pickle global's name in PyTorch's refusal: builtins by their bare name, protocol 2's
    Python 2 names mapped back."""
    module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
    module = _compat_pickle.IMPORT_MAPPING.get(module, module)
    return name if module == "builtins" else f"{module}.{name}"


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, archive, prefix, weights_only, location_of):
        super().__init__(file, encoding="utf-8")
        self.archive, self.prefix = archive, prefix
        self.weights_only, self.location_of = weights_only, location_of
        self.loaded: dict = {}

    def find_class(self, module, name):
        found = _local(module, name)
        if found is not None:
            return found
        if self.weights_only:
            path = _global_path(module, name)
            raise pickle.UnpicklingError(
                "Weights only load failed. This file can still be loaded, to do so you have two "
                "options, \033[1mdo those steps only if you trust the source of the checkpoint"
                "\033[0m. \n\t(1) In PyTorch 2.6, we changed the default value of the "
                "`weights_only` argument in `torch.load` from `False` to `True`. Re-running "
                "`torch.load` with `weights_only` set to `False` will likely succeed, but it can "
                "result in arbitrary code execution. Do it only if you got the file from a "
                "trusted source.\n\t(2) Alternatively, to load with `weights_only=True` please "
                "check the recommended steps in the following error message.\n\tWeightsUnpickler "
                f"error: Unsupported global: GLOBAL {path} was not an allowed global by default. "
                f"Please use `torch.serialization.add_safe_globals([{path}])` or the "
                f"`torch.serialization.safe_globals([{path}])` context manager to allowlist this "
                "global if you trust this class/function.\n\nCheck the documentation of "
                "torch.load to learn more about types accepted by default with weights_only "
                "https://pytorch.org/docs/stable/generated/torch.load.html.")
        here = _here(module, name) if module.split(".")[0] == "torch" else None
        return here if here is not None else super().find_class(module, name)

    def persistent_load(self, pid):
        _, storage_type, key, location, _ = pid  # ("storage", type, key, location, numel)
        if key not in self.loaded:
            raw = np.frombuffer(self.archive.read(f"{self.prefix}data/{key}"), np.uint8).copy()
            self.loaded[key] = _LoadedStorage(raw, dtypes.to_dtype(storage_type.dtype_name),
                                              self.location_of(location))
        return self.loaded[key]


def _location_mapper(map_location):
    def location_of(saved):
        if map_location is None:
            target = saved
        elif isinstance(map_location, dict):
            target = map_location.get(saved, saved)
        elif callable(map_location) and not isinstance(map_location, (str, dtypes.device)):
            target = "cpu"  # a function of (storage, location): storages here are all on CPU
        else:
            target = str(map_location)
        target = str(target)
        return None if target == "cpu" else target
    return location_of


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Read what save (or PyTorch's torch.save) wrote. weights_only (the default, True) rebuilds
    tensors, dtypes, OrderedDict and plain Python data and refuses any other global with
    pickle.UnpicklingError; weights_only=False unpickles anything."""
    weights_only = True if weights_only is None else weights_only
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as file:
            return load(file, map_location, weights_only=weights_only)
    if not zipfile.is_zipfile(f):
        raise RuntimeError("torch.load: the file is not a zip archive written by torch.save "
                           "(PyTorch's legacy pre-1.6 format is not read by gradjit)")
    f.seek(0)
    with zipfile.ZipFile(f) as archive:
        pickles = [n for n in archive.namelist() if n.endswith("data.pkl") and
                   n.count("/") == 1]
        if not pickles:
            raise RuntimeError("torch.load: the archive holds no data.pkl")
        prefix = pickles[0][:-len("data.pkl")]
        unpickler = _Unpickler(io.BytesIO(archive.read(pickles[0])), archive, prefix,
                               weights_only, _location_mapper(map_location))
        return unpickler.load()

