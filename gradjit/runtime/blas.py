"""gradjit's calls into numpy's BLAS and LAPACK (matrix products, linear algebra; compiled and
eager) with its OpenBLAS held at one thread; a compiled program's large products split into
blocks of rows, or of the summed axis, that gradjit's own thread pool shares out."""
from __future__ import annotations

import ctypes
import functools
import math
import threading

import numpy as np

from gradjit.runtime.threads import run_chunks

# On shared cores OpenBLAS's own threads cost more than they save: a product waits for the
# slowest of its fixed shares, and a thread woken from sleep waits for a core (a 256x512 @
# 512x512 product took 18 ms on two threads, 0.7 ms on one). gradjit's pool instead hands out
# blocks to whichever thread is free, and the calling thread starts at once.
# Each block packs all of b again: 16 blocks of 256 rows cost x @ w1 (4096x512 @ 512x512)
# 10.4 ms of CPU against 9.5 in one call, 4 blocks 9.8. Up to MAX_ROW_BLOCKS blocks of at
# least BLOCK_ROWS rows keep two threads busy, and a thread that the OS preempts holds up a
# quarter of the product, not a half.
BLOCK_ROWS = 256
MAX_ROW_BLOCKS = 4
ROW_ALIGN = 16  # blocks start on the BLAS kernels' row tiles
SPLIT_MIN = 1 << 24  # multiply-adds: below this a product runs as one call
# A product of few rows (x.T @ dh in an MLP's gradient: 512 rows summing over 4096) splits its
# summed axis instead: partial products over slices of DEPTH_BLOCK terms, summed in order. Two
# row blocks leave a thread waiting for the other's whole half when the OS preempts it, and
# each block packs all of b again where a slice packs its own part. Each slice writes and the
# sum reads a partial product: 8 slices cost x.T @ dh 10.8 ms of CPU, 4 slices 10.5, one
# call 10.2.
DEPTH_BLOCK = 512
MAX_PARTS = 4
MIN_ROW_BLOCKS = 4
MAX_PARTIALS = 1 << 22  # elements of partial products in all (16 MB of float32)
# OpenBLAS runs a product of at most this many multiply-adds on the calling thread itself:
# such products skip setting its thread count (4 us a product, as much as a 32x32 one takes).
OWN_THREAD_MAX = 1 << 18

# What OpenBLAS builds export to read and set their thread count: numpy's wheels bundle
# scipy-openblas (64- or 32-bit integers); other builds link plain OpenBLAS.
_THREAD_COUNT_SYMBOLS = (
    ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
    ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
    ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
    ("openblas_get_num_threads", "openblas_set_num_threads"))


def _numpys_openblas():
    """(get, set) of the thread count of the OpenBLAS that numpy's matmul calls, or None
    (another BLAS). dlsym on numpy's extension module searches the libraries it links."""
    try:
        from numpy._core import _multiarray_umath as extension
    except ImportError:  # numpy 1.x
        from numpy.core import _multiarray_umath as extension
    try:
        library = ctypes.CDLL(extension.__file__)
    except OSError:
        return None
    for get_name, set_name in _THREAD_COUNT_SYMBOLS:
        get, set_ = getattr(library, get_name, None), getattr(library, set_name, None)
        if get is not None and set_ is not None:
            get.argtypes, get.restype = [], ctypes.c_int
            set_.argtypes, set_.restype = [ctypes.c_int], None
            return get, set_
    return None


class _OneThread:
    """A context in which numpy's OpenBLAS runs on one thread. The count it had is read when
    the first of the overlapping contexts (gradjit calls on several threads) opens and set back
    when the last one closes, under a lock, so gradjit's calls never leave it changed. While
    one is open, a numpy product that another thread of the caller runs also gets one thread,
    and a count set meanwhile (threadpoolctl) is replaced by the one read at the start."""

    def __init__(self, controls):
        self.controls, self.open, self.saved = controls, 0, 1
        self.lock = threading.Lock()

    def __enter__(self):
        with self.lock:
            if self.open == 0:
                get, set_ = self.controls
                self.saved = get()
                if self.saved != 1:
                    set_(1)
            self.open += 1

    def __exit__(self, *exc):
        with self.lock:
            self.open -= 1
            if self.open == 0 and self.saved != 1:
                self.controls[1](self.saved)


class _Unchanged:
    """Another BLAS than OpenBLAS: its thread count is left as it is."""

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        pass


_controls = _numpys_openblas()
one_thread = _OneThread(_controls) if _controls else _Unchanged()


def rows_per_block(shape, depth: int) -> int:
    """Rows per BLAS call of a product of this shape summing over `depth`: all of them under
    SPLIT_MIN multiply-adds, else up to MAX_ROW_BLOCKS blocks of at least BLOCK_ROWS rows, as
    even as the row tiles allow. The blocks depend on the shapes alone: BLAS's sums can
    depend on the rows of a call (OpenBLAS's Haswell kernels), never on the thread count."""
    m = shape[-2]
    if math.prod(shape) * depth < SPLIT_MIN or m < 2 * BLOCK_ROWS:
        return max(m, 1)
    blocks = min(MAX_ROW_BLOCKS, m // BLOCK_ROWS)
    return -(-m // (blocks * ROW_ALIGN)) * ROW_ALIGN


def depth_parts(shape, depth: int) -> int:
    """How many slices of the summed axis a product of this shape splits into (1: none): a
    large product with fewer than MIN_ROW_BLOCKS row blocks, in slices of at least
    DEPTH_BLOCK terms, its partial products MAX_PARTIALS elements at most. Like the row
    blocks, the slices depend on the shapes alone."""
    size = math.prod(shape)
    if size * depth < SPLIT_MIN or -(-shape[-2] // BLOCK_ROWS) >= MIN_ROW_BLOCKS:
        return 1
    parts = min(MAX_PARTS, depth // DEPTH_BLOCK, MAX_PARTIALS // max(size, 1))
    return parts if parts > 1 else 1


def matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray, rows: int,
           partials: np.ndarray | None = None, then=None) -> None:
    """out = a @ b (numpy's matmul, broadcasting leading axes) with BLAS on one thread, in
    blocks of `rows` rows that the calling thread and gradjit's pool take in turn, each
    followed by `then(block number)` when given; or, given `partials` (depth_parts(...)
    arrays of out's shape), as that many partial products over consecutive slices of the
    summed axis, summed in order."""
    if partials is not None:
        _summed_slices(a, b, out, partials)
        return
    blocks = -(-out.shape[-2] // rows)

    def part(lo, hi, _):
        # One call per block, however many a thread takes: BLAS's values depend on m.
        for block in range(lo, hi):
            i = block * rows
            np.matmul(a[..., i:i + rows, :], b, out=out[..., i:i + rows, :])
            if then is not None:
                then(block)
    if out.size * a.shape[-1] <= OWN_THREAD_MAX:
        part(0, blocks, None)
        return
    with one_thread:
        run_chunks(part, blocks, None)


def _summed_slices(a, b, out, partials) -> None:
    parts, depth = len(partials), a.shape[-1]
    edges = [depth * i // parts for i in range(parts + 1)]

    def product(lo, hi, _):
        for i in range(lo, hi):
            np.matmul(a[..., edges[i]:edges[i + 1]], b[..., edges[i]:edges[i + 1], :],
                      out=partials[i])

    with one_thread:
        run_chunks(product, parts, None)
    sum_slices(partials, out)


def sum_slices(partials: np.ndarray, out: np.ndarray) -> None:
    """out = the sum of `partials` (products over consecutive slices of the summed axis) in
    their order, in blocks of rows that gradjit's pool shares out."""
    def total(lo, hi, _):
        rows = slice(lo * BLOCK_ROWS, hi * BLOCK_ROWS)
        np.sum(partials[..., rows, :], axis=0, out=out[..., rows, :])
    run_chunks(total, -(-out.shape[-2] // BLOCK_ROWS), None)


def single_threaded(evaluate):
    """`evaluate` run with numpy's OpenBLAS on one thread: a primitive's evaluation, eager or
    in a compiled program, that calls BLAS or LAPACK (which waits for BLAS's threads too: a
    256x256 solve and eigh took 362 ms on two threads, 27 ms on one, on busy cores)."""
    @functools.wraps(evaluate)
    def run(*args, **params):
        with one_thread:
            return evaluate(*args, **params)
    return run


def product(a, b):
    """np.matmul(a, b) with numpy's OpenBLAS on one thread: the matmul primitive's evaluation,
    so that eager tensors' products do not wait for its threads either."""
    if type(a) is np.ndarray and type(b) is np.ndarray and a.ndim > 1 and b.ndim > 1 and \
            a.size * b.shape[-1] <= OWN_THREAD_MAX:
        return np.matmul(a, b)
    with one_thread:
        return np.matmul(a, b)
