"""Tensors in shared memory (Tensor.share_memory_): the elements move into a POSIX shared
memory block, which forked processes inherit and which a process that receives the tensor
through multiprocessing (a queue, spawn's arguments) attaches by name, so a write in one
process is seen by every other, as PyTorch's shared storages are."""
from __future__ import annotations

import atexit
import pickle
import sys
import weakref
from multiprocessing import resource_tracker, shared_memory
from multiprocessing.reduction import ForkingPickler

import numpy as np

_created: list = []  # blocks this process made; their names are removed when it exits
# id(tensor) -> (tensor, its block), kept apart from the tensor so that pickle and deepcopy
# copy the elements and not the block
_blocks: dict = {}


def share(tensor) -> None:
    """Move tensor's elements into a new shared block (nothing to do if they are there)."""
    if is_shared(tensor):
        return
    value = np.asarray(tensor._value)
    block = shared_memory.SharedMemory(create=True, size=max(value.nbytes, 1))
    if not _created:
        atexit.register(_remove_names)
        _register_reducers()
    _created.append(block)
    moved = np.ndarray(value.shape, value.dtype, buffer=block.buf)
    moved[...] = value
    tensor._value = moved
    _remember(tensor, block)


def _remember(tensor, block):
    key = id(tensor)
    _blocks[key] = (weakref.ref(tensor, lambda _: _blocks.pop(key, None)), block)


def block_of(tensor):
    entry = _blocks.get(id(tensor))
    return entry[1] if entry is not None and entry[0]() is tensor else None


def is_shared(tensor) -> bool:
    return block_of(tensor) is not None


def _remove_names():
    for block in _created:
        try:
            block.unlink()
        except FileNotFoundError:  # removed by a process that attached it
            pass


def _reduce(tensor):
    if not is_shared(tensor):
        return tensor.__reduce_ex__(pickle.HIGHEST_PROTOCOL)
    value, block = tensor._value, block_of(tensor)
    offset = value.__array_interface__["data"][0] - np.frombuffer(
        block.buf, np.uint8).__array_interface__["data"][0]
    return _attach, (type(tensor), block.name, value.shape, value.dtype.str, value.strides,
                     offset, tensor.requires_grad)


def _attach(cls, name, shape, dtype, strides, offset, requires_grad):
    """The tensor another process shared, over the same memory."""
    import gradjit
    block = _open_untracked(name)
    value = np.ndarray(shape, np.dtype(dtype), buffer=block.buf, offset=offset,
                       strides=strides)
    tensor = gradjit.from_numpy(value)
    if cls is not type(tensor):
        tensor = cls(tensor, requires_grad) if issubclass(cls, gradjit.nn.Parameter) else \
            tensor.as_subclass(cls)
    tensor.requires_grad_(requires_grad)
    _remember(tensor, block)
    return tensor


def _open_untracked(name):
    """The block `name`, not registered with the resource tracker: a child process shares its
    maker's tracker, which keeps one entry per name, so registering and unregistering here
    would drop the maker's entry and its removal at exit would fail in the tracker. Python
    before 3.13 registers every block it opens."""
    if sys.version_info >= (3, 13):
        return shared_memory.SharedMemory(name=name, track=False)
    register = resource_tracker.register
    resource_tracker.register = lambda name, rtype: None
    try:
        return shared_memory.SharedMemory(name=name)
    finally:
        resource_tracker.register = register


def _register_reducers():
    """Pickled by multiprocessing (not by pickle or torch.save), a shared tensor travels as
    the name of its block."""
    import gradjit
    for cls in (gradjit.Tensor, gradjit.nn.Parameter):
        ForkingPickler.register(cls, _reduce)
