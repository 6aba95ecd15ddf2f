"""How a Tensor's elements sit in storage and how other views of them are made: strides,
storage offset, device queries, sliding windows (unfold), unflatten/ravel/sum_to_size, and
the in-place forms of the triangle, cumulative and diagonal operations."""
from __future__ import annotations

import math

import numpy as np

from gradjit import ops
from gradjit.tensor import memory_format as MF
from gradjit.tensor.arith import apply, kernel
from gradjit.tensor.base import _check_dim, _check_sized_dim
from gradjit.tensor.dtypes import Size, bool_
from gradjit.tensor.shape import _shape_args


def _storage_of(array):
    """The numpy array that owns `array`'s memory."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def _view_storage(t, out, storage, size, stride, offset):
    """Make `out`, as_strided of t, a view of t's storage where the tensor that owns it lays
    it out whole (row-major from its start): writes through either show in the other."""
    base = t._base if t._base is not None else t
    value = base._value
    if storage is None or type(out._value) is not np.ndarray or out._value.dtype != value.dtype \
            or not (storage.flags.c_contiguous and value.flags.c_contiguous) \
            or value.size != storage.size or base.storage_offset():
        return
    item = storage.itemsize

    def cut(array):  # the base's elements (its positions, for autograd) laid out as out's
        flat = np.ascontiguousarray(array).reshape(-1)
        return np.ndarray(tuple(size), flat.dtype, buffer=flat, offset=offset * flat.itemsize,
                          strides=tuple(s * flat.itemsize for s in stride))
    out._value = np.ndarray(tuple(size), storage.dtype, buffer=storage.reshape(-1),
                            offset=offset * item, strides=tuple(s * item for s in stride))
    out._share(base, cut)


def _positions(offset, size, stride):
    """offset + sum(i_k * stride_k) for every index of `size`."""
    out = np.full(size, offset, np.int64)
    for k, (n, s) in enumerate(zip(size, stride)):
        out += (np.arange(n) * s).reshape((n,) + (1,) * (len(size) - k - 1))
    return out


class layout:
    """How a tensor's elements are stored: strided (dense), or sparse_coo / sparse_csr
    (gradjit.sparse)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return f"{self.name}"


strided, sparse_coo, sparse_csr = layout("strided"), layout("sparse_coo"), layout("sparse_csr")
jagged = layout("jagged")


def _no(self) -> bool:
    return False


class LayoutMixin:
    """Tensor methods about layout and views, with PyTorch's names and errors."""

    # storage kinds and devices gradjit does not have
    is_sparse = is_sparse_csr = is_quantized = is_meta = is_nested = property(_no)
    is_mkldnn = is_mps = is_xpu = is_ipu = is_xla = is_vulkan = is_maia = is_mtia = property(_no)
    is_pinned = is_distributed = _no
    _sparse_layout = False  # True in gradjit.sparse's tensors, COO and CSR alike
    output_nr, name = 0, None

    @property
    def layout(self):
        return strided

    def dim_order(self, *, ambiguity_check=False):
        """The dimensions from the outermost in memory to the innermost. ambiguity_check:
        True, or formats exactly one of which must hold where a size-1 dimension or a repeated
        stride leaves more than one order."""
        formats = ambiguity_check if isinstance(ambiguity_check, list) else []
        if not isinstance(ambiguity_check, (bool, list)) or \
                not all(isinstance(f, MF.memory_format) for f in formats):
            raise TypeError("The ambiguity_check argument must be a bool or a list of memory "
                            "formats.")
        strides = self.stride()
        if ambiguity_check is not False and (1 in self.shape or any(
                a == b for a, b in zip(strides, strides[1:]))) and \
                sum(self.is_contiguous(memory_format=f) for f in formats) != 1:
            raise RuntimeError("The tensor does not have unique dim order, or cannot map to "
                               "exact one of the given memory formats.")
        return MF.dense_order(tuple(self.shape), strides)

    def is_set_to(self, other) -> bool:
        """Whether both view the same storage with the same offset, sizes and strides."""
        return (self.data_ptr() == other.data_ptr() and tuple(self.shape) == tuple(other.shape)
                and self.stride() == other.stride())

    def to_dense(self, dtype=None, *, masked_grad=None):
        return self if dtype is None else self.to(dtype)

    def to_sparse(self, *args, **kwargs):
        from gradjit.sparse.tensor import to_sparse  # the sparse layout sits above Tensor
        return to_sparse(self, *args, **kwargs)

    def to_sparse_coo(self):
        return self.to_sparse()

    def to_sparse_csr(self, dense_dim=None):
        from gradjit.sparse.csr import to_sparse_csr
        return to_sparse_csr(self)

    def sparse_mask(self, mask):
        from gradjit.sparse.tensor import sparse_mask
        return sparse_mask(self, mask)

    def share_memory_(self):
        from gradjit.tensor import shared_memory
        shared_memory.share(self)
        return self

    def is_shared(self) -> bool:
        from gradjit.tensor import shared_memory
        return shared_memory.is_shared(self)

    def pin_memory(self, device=None):
        raise RuntimeError("Cannot access accelerator device when none is available.")

    def resize_(self, *sizes, memory_format=None):
        """A new row-major shape over the elements in the order they lie in memory: cut
        short, or grown with zeros."""
        if self.requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        shape = _shape_args(sizes)
        if tuple(shape) == tuple(self.shape) and memory_format is None:
            return self  # torch keeps the layout of a tensor resized to its own size
        flat = np.ravel(self._concrete(), order="K")  # the elements in the storage's order
        kept = np.zeros(math.prod(shape), flat.dtype)
        kept[:min(flat.size, kept.size)] = flat[:kept.size]
        self._value = kept.reshape(shape)
        if memory_format not in (None, MF.contiguous_format, MF.preserve_format):
            order = MF.order_of(memory_format, len(shape))
            self._value = kept.reshape([shape[d] for d in order]).transpose(np.argsort(order))
        self._counter.value += 1
        return self

    def resize_as_(self, the_template, memory_format=None):
        return self.resize_(tuple(the_template.shape), memory_format=memory_format)

    def apply_(self, callable):
        """callable on each element, in place (PyTorch runs it on the CPU, element by
        element)."""
        return self._write_elements("apply_", np.vectorize(callable,
                                                             otypes=[self.dtype.ir.numpy]), self)

    def map_(self, tensor, callable):
        """callable(self element, tensor element) into self, tensor broadcast to self."""
        other = tensor.expand(tuple(self.shape))._concrete()  # torch's expand errors
        return self._write_elements("map_", np.vectorize(callable,
                                                           otypes=[self.dtype.ir.numpy]),
                                    self, other)

    def _write_elements(self, name, fn, *tensors):
        if self.requires_grad:
            raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                               f"var.detach().{name}() instead.")
        arrays = [t if isinstance(t, np.ndarray) else t._concrete() for t in tensors]
        self._concrete()[...] = fn(*arrays)
        self._counter.value += 1
        return self

    def new(self, *args, **kwargs):
        """The legacy constructor: new(sizes...) uninitialized, new(data) a copy of data,
        new() empty; in self's dtype."""
        if not args:
            return self.new_empty((0,))
        if all(isinstance(a, int) for a in args) or isinstance(args[0], Size):
            return self.new_empty(_shape_args(args))
        data = args[0]
        return data.to(self.dtype) if hasattr(data, "_edge") else \
            self.new_tensor(data, dtype=self.dtype)

    def stride(self, dim=None):
        """Steps in elements between neighbours along each dimension (0 along a broadcast
        dimension), read from the numpy storage."""
        value = self._layout()
        if isinstance(value, np.ndarray) and (value.size or all(
                s or n == 1 for s, n in zip(value.strides, value.shape))):
            steps = tuple(s // value.itemsize for s in value.strides)
        else:  # a traced value, or numpy's empty one (steps 0), is laid out contiguously
            shape = tuple(max(n, 1) for n in self.shape)
            steps = tuple(math.prod(shape[i + 1:]) for i in range(len(shape)))
        return steps if dim is None else steps[_check_sized_dim(dim, self.dim())]

    def storage_offset(self) -> int:
        """Elements between the start of the storage and this view's first element."""
        value = self._layout()
        if not isinstance(value, np.ndarray):  # a traced value is laid out on its own
            return 0
        root = value
        while isinstance(root.base, np.ndarray):
            root = root.base
        start = value.__array_interface__["data"][0]
        return (start - root.__array_interface__["data"][0]) // value.itemsize

    def as_strided(self, size, stride, storage_offset=None):
        """The elements of this tensor's storage at offset + sum(i_k * stride_k), in elements:
        read as a new tensor, the gradient going back to the elements read (summed where
        several positions read one)."""
        size, stride = tuple(size), tuple(stride)
        if any(s < 0 for s in stride):  # positions before the storage would wrap around it
            raise RuntimeError("as_strided: Negative strides are not supported at the moment, "
                               f"got strides: {list(stride)}")
        if storage_offset is not None and storage_offset < 0:
            raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
        value = self._value
        storage = _storage_of(value) if isinstance(value, np.ndarray) else None
        start = self.storage_offset() if storage is not None else 0
        offset = start if storage_offset is None else storage_offset
        length = storage.size if storage is not None else self.numel()
        needed = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 \
            if all(size) else 0
        if needed > length:
            item = self.element_size()
            raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, "
                               f"storage offset {offset}, and itemsize {item} requiring a "
                               f"storage size of {needed * item} are out of bounds for storage "
                               f"of size {length * item}")
        positions = _positions(offset, size, stride)
        mine = _positions(start, tuple(self.shape), self.stride())
        owner = np.full(length, -1, np.int64)  # which of this tensor's elements each one is
        owner[mine.reshape(-1)] = np.arange(mine.size)
        index = owner[positions]
        outside = None if (index >= 0).all() else storage.reshape(-1)[positions]

        def read(x):
            got = ops.take(ops.reshape(x, (-1,)), np.maximum(index, 0))
            return got if outside is None else ops.where(index >= 0, got, outside)
        out = apply("AsStridedBackward0", read, self)
        _view_storage(self, out, storage, size, stride, offset)
        return out

    @property
    def is_cpu(self) -> bool:
        return self.device.type == "cpu"

    def get_device(self) -> int:
        """-1 on the CPU, the device index on a GPU."""
        return -1 if self.device.type == "cpu" else self.device.index or 0

    def is_nonzero(self) -> bool:
        count = self.numel()
        if count == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if count > 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def is_same_size(self, other) -> bool:
        return tuple(self.shape) == tuple(other.shape)

    def ravel(self):
        return self.contiguous().view(-1)

    def unflatten(self, dim, sizes):
        """Dimension `dim` split into `sizes` (one of them may be -1)."""
        dim = _check_dim(dim, self.dim())
        shape, sizes = tuple(self.shape), [int(s) for s in sizes]
        known = math.prod(s for s in sizes if s != -1)
        if -1 in sizes and known and shape[dim] % known == 0:
            sizes_out = [shape[dim] // known if s == -1 else s for s in sizes]
        else:
            sizes_out = sizes
        if math.prod(sizes_out) != shape[dim]:
            raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the "
                               f"size of dim {dim} ({shape[dim]}) in the input tensor")
        return self.reshape(shape[:dim] + tuple(sizes_out) + shape[dim + 1:])

    @kernel("UnfoldBackward0")
    def unfold(self, dimension, size, step):
        """Windows of `size` elements every `step` along `dimension`, as a new last dimension."""
        dim = _check_dim(dimension, self.dim())
        length = self.shape[dim] if self.dim() else 1
        if size > length:
            raise RuntimeError(f"maximum size for tensor at dimension {dim} is {length} but "
                               f"size is {size}")
        if step <= 0:
            raise RuntimeError(f"step is {step} but must be > 0")
        if self.dim() == 0:  # as a 1-d tensor of one element, without the windows' dimension
            return self.reshape(1).narrow(0, 0, size)
        from gradjit.tensor.shape import stack
        count = (length - size) // step + 1
        windows = [self.narrow(dim, i * step, size) for i in range(count)]
        out = stack(windows, dim).movedim(dim + 1, -1)
        if isinstance(self._value, np.ndarray):  # PyTorch's unfold is a view of the storage
            shape, strides = tuple(self.shape), self.stride()
            _view_storage(self, out, _storage_of(self._value),
                          shape[:dim] + (count,) + shape[dim + 1:] + (size,),
                          strides[:dim] + (strides[dim] * step,) + strides[dim + 1:]
                          + (strides[dim],), self.storage_offset())
        return out

    def sum_to_size(self, *size):
        """The sum over the dimensions that `size` broadcasts along, giving shape `size`."""
        size, shape = tuple(_shape_args(size)), tuple(self.shape)
        lead = len(shape) - len(size)
        if lead < 0 or any(s not in (1, t) for s, t in zip(size, shape[lead:])):
            raise RuntimeError(f"size {{{list(size)}}} is not expandable to size "
                               f"{{{list(shape)}}}.")
        if not size:  # as PyTorch's sum_to: a full sum, even of a 0-d tensor
            return self.sum()
        summed = tuple(range(lead)) + tuple(lead + i for i, (s, t) in
                                            enumerate(zip(size, shape[lead:])) if s == 1 != t)
        out = self.sum(summed, keepdim=True) if summed else self
        return out.view(size) if lead else out

    def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
        from gradjit.tensor.strided import empty_strided
        return empty_strided(tuple(size), tuple(stride), dtype=dtype or self.dtype,
                             device=device, requires_grad=requires_grad)

    # ---- in-place forms ----

    def tril_(self, diagonal=0):
        return self._update(lambda: self.tril(diagonal))

    def triu_(self, diagonal=0):
        return self._update(lambda: self.triu(diagonal))

    def cumsum_(self, dim, *, dtype=None):
        return self._update(lambda: self.cumsum(dim, dtype=dtype))

    def cumprod_(self, dim, *, dtype=None):
        return self._update(lambda: self.cumprod(dim, dtype=dtype))

    def swapaxes_(self, axis0, axis1):
        return self.transpose_(axis0, axis1)

    swapdims_ = swapaxes_

    def fill_diagonal_(self, fill_value, wrap=False):
        """Write fill_value on the main diagonal (of a matrix, or of a cube of equal sides);
        `wrap`: a tall matrix's diagonal starts again every columns + 1 rows, as numpy's."""
        if self.dim() < 2:
            raise RuntimeError("dimensions must larger than 1")
        if self.dim() > 2 and len(set(self.shape)) != 1:
            raise RuntimeError("all dimensions of input must be of equal length")
        mask = np.zeros(tuple(self.shape), bool)
        np.fill_diagonal(mask, True, wrap=wrap)
        keep = self.new_tensor(~mask, dtype=bool_)
        return self._update(lambda: self.where(keep, self.new_full((), fill_value)))

    def split_with_sizes(self, split_sizes, dim=0):
        return self.split(list(split_sizes), dim)
