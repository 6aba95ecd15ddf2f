"""A compiled program as a Python callable: checks its arguments, lays out buffers (results
from np.empty, temporaries in a reused workspace), then runs kernel calls, BLAS calls and
guard/index checks in order; a program of kernels and guards alone runs in one native call."""
from __future__ import annotations

import ctypes
import sys
import threading

import numpy as np

from gradjit.ir.structural import GuardFailed, check_index_range
from gradjit.runtime import blas
from gradjit.runtime.native import INCREF, NativeCode
from gradjit.runtime.steps import (ARGUMENTS_DIFFER, ENTRY_SLOTS, NEGATIVE_POWER, CheckExponent,
                                   CheckIndex, Fail, Guard, KernelCall, LibraryCall, Matmul)
from gradjit.runtime.threads import run_chunks

# Results this large are recycled once their caller drops them: fresh memory costs a page
# fault per page (milliseconds for tens of megabytes), more than the work on it.
RECYCLED_MIN = 1 << 20
SPARES = 2  # per result: a caller that rebinds `g = f(x)` frees the one before last


class ArgumentsDiffer(GuardFailed):
    """The arguments of a lean call are not arrays of the parameters' types and layout: the
    entry point checked them and ran nothing; the caller's general path takes the call."""


class Param:
    """What a caller must pass: a name, a shape and a numpy dtype."""

    def __init__(self, name, shape, dtype, type_text):
        self.name, self.shape, self.dtype, self.type_text = name, shape, dtype, type_text
        self.strides = np.empty(shape, dtype).strides  # those of a C-contiguous array


class CompiledProgram:
    """Call it with numpy arrays; it returns a list of new arrays (or fills `out=[...]`,
    C-contiguous arrays of the result shapes and dtypes, and returns those)."""

    def __init__(self, name, params, result_types, buffers, steps, results, constants,
                 native: NativeCode, workspace: int, entry: str | None = None):
        self.name, self.params, self.result_types = name, params, result_types
        self.buffers, self.steps, self.results, self.constants = buffers, steps, results, constants
        self.native, self.workspace_bytes = native, workspace
        # Filled in by the compiler: the printable program, its LLVM IR, how it was built, its
        # disk cache key and whether its entry there carries the plan that rebuilds it.
        self.text, self.kernels, self.llvm_ir = "", [], ""  # llvm_ir: see the property
        self.compile_seconds, self.from_disk = 0.0, False
        self.cache_key, self.planned = "", False
        self._calls = [RUNNERS[type(s)](self, s) for s in steps]
        self._param_slots = [b.id for b in sorted((b for b in buffers if b.kind == "param"),
                                                  key=lambda b: b.index)]
        self._result_slots = [b.id for b in sorted((b for b in buffers if b.kind == "result"),
                                                   key=lambda b: b.index)]
        self._free = threading.Lock()  # held while a call uses the cached workspace
        self._workspace = np.empty(workspace, np.uint8)
        self._table = self._new_table(self._workspace)
        # The entry point takes the arguments, then the outputs. It holds the GIL throughout,
        # so calls into it never overlap and a program that has one always runs through it.
        self._enter = entry and native.builtin(entry, self._table)
        self.checks_arguments = bool(self._enter)  # fast_call's runs check them natively
        self._expected = [(p.shape, p.dtype, p.strides) for p in params]
        self._status = len(buffers) + ENTRY_SLOTS["status"]
        self._spares = [[] if int(np.prod(shape)) * np.dtype(dtype).itemsize >= RECYCLED_MIN
                        else None for shape, dtype in result_types]
        self._spares_lock = threading.Lock()

    def __str__(self) -> str:
        return self.text

    @property
    def llvm_ir(self) -> str:
        """The LLVM IR of its kernels; a program from the disk cache has it packed until it
        is first read (programs.packed_text)."""
        if not isinstance(self._llvm_ir, str):
            self._llvm_ir = self._llvm_ir.text()
        return self._llvm_ir

    @llvm_ir.setter
    def llvm_ir(self, text) -> None:
        self._llvm_ir = text

    def _new_table(self, workspace):
        """Buffer pointers (uint64), then the entry point's slots and parameter dtypes."""
        end = len(self.buffers) + len(ENTRY_SLOTS)
        table = np.zeros(end + len(self.params), np.uint64)
        table[end:] = [id(p.dtype) for p in self.params]  # held by self.params
        base = workspace.ctypes.data
        for b in self.buffers:
            if b.kind == "temp":
                table[b.id] = base + b.offset
            elif b.kind == "const":
                table[b.id] = self.constants[b.index].ctypes.data
        table[len(self.buffers) + ENTRY_SLOTS["none"]] = id(None)
        table[len(self.buffers) + ENTRY_SLOTS["incref"]] = INCREF
        table[len(self.buffers) + ENTRY_SLOTS["array_type"]] = id(np.ndarray)
        return table

    def _arguments(self, args):
        if len(args) != len(self.params):
            raise TypeError(f"@{self.name} takes {len(self.params)} arguments, got {len(args)}")
        arrays = []
        for p, a in zip(self.params, args):
            if type(a) is np.ndarray and a.dtype is p.dtype and a.strides == p.strides \
                    and a.shape == p.shape:
                arrays.append(a)  # the common case, checked fast
                continue
            if type(a) is not np.ndarray:
                a = np.asarray(a)
            if a.shape != p.shape or a.dtype != p.dtype:
                raise TypeError(f"@{self.name}: argument %{p.name} must be {p.type_text}, got "
                                f"{_type_text(a)}")
            if not a.flags.c_contiguous:
                a = np.ascontiguousarray(a)
            if a.dtype is not p.dtype:  # an equal dtype object: the entry compares identity
                a = a.view(p.dtype)
            arrays.append(a)
        return arrays

    def _outputs(self, out, arrays):
        if out is None:
            with self._spares_lock:
                return [self._fresh(i, shape, dtype)
                        for i, (shape, dtype) in enumerate(self.result_types)]
        if len(out) != len(self.results):
            raise TypeError(f"@{self.name} has {len(self.results)} results, out= holds {len(out)}")
        for i, (o, (shape, dtype)) in enumerate(zip(out, self.result_types)):
            if (not isinstance(o, np.ndarray) or o.shape != shape or o.dtype != dtype
                    or not o.flags.c_contiguous or not o.flags.writeable):
                raise TypeError(f"@{self.name}: out[{i}] must be a writeable C-contiguous "
                                f"{dtype}{list(shape)} array, got {_describe(o)}")
            if any(np.may_share_memory(o, a) for a in list(arrays) + list(out[:i])):
                raise ValueError(f"@{self.name}: out[{i}] overlaps an argument or another "
                                 "output")
        return list(out)

    def _fresh(self, i, shape, dtype):
        """A new result array, or a large one returned earlier that nothing references
        any more (no caller, no view): nobody can tell it from new memory."""
        spares = self._spares[i]
        if spares is None:
            return np.empty(shape, dtype)
        for k in range(len(spares)):
            if sys.getrefcount(spares[k]) == 2:  # the list's reference and the argument's
                spare = spares.pop(k)
                spares.append(spare)
                return spare
        spares.append(np.empty(shape, dtype))
        if len(spares) > SPARES:
            del spares[0]
        return spares[-1]

    def __call__(self, *args, out=None):
        if self._enter and out is None and len(args) == len(self._expected):
            for a, (shape, dtype, strides) in zip(args, self._expected):
                if type(a) is not np.ndarray or a.dtype is not dtype or a.shape != shape \
                        or a.strides != strides:
                    break
            else:
                return self._entered(args)
        return self._call(args, out)

    def _entered(self, args, outputs=None):
        """The whole program in one native call (arguments and outputs checked)."""
        if outputs is None:
            outputs = [np.empty(shape, dtype) for shape, dtype in self.result_types]
        if self._enter(*args, *outputs) is not None:
            self._guard_failed()
        return outputs

    def _guard_failed(self):
        status = int(self._table[self._status])
        if status == ARGUMENTS_DIFFER:
            raise ArgumentsDiffer(None, None)
        guard = self.steps[status - 1]
        raise GuardFailed(guard.site, guard.expected)

    def fast_call(self, discard=(), pick=None):
        """`run(arrays) -> results`: one native call when the program has an entry point,
        which checks the arrays (ArgumentsDiffer unless they are C-contiguous arrays of the
        parameters' shapes and dtypes), else the checked call. Results at the positions in
        `discard`, which the caller drops, go to scratch memory instead of new arrays; with
        `pick`, run returns the result at that position alone."""
        if not self._enter:
            return (lambda arrays: self(*arrays)) if pick is None else \
                (lambda arrays: self(*arrays)[pick])
        enter, empty = self._enter, np.empty
        template = [np.empty(shape, dtype) if i in discard else None
                    for i, (shape, dtype) in enumerate(self.result_types)]
        fresh = [(i, shape, dtype) for i, (shape, dtype) in enumerate(self.result_types)
                 if i not in discard]
        if pick is not None and [i for i, _, _ in fresh] == [pick]:
            # One new array, the result itself (grad of one array): no list to build or index.
            shape, dtype = fresh[0][1:]
            before, after = template[:pick], template[pick + 1:]

            def run_one(arrays):
                out = empty(shape, dtype)
                if enter(*arrays, *before, out, *after) is not None:  # scratch: GIL held
                    self._guard_failed()
                return out
            return run_one

        def run(arrays):
            outputs = template.copy()
            for i, shape, dtype in fresh:
                outputs[i] = empty(shape, dtype)
            if enter(*arrays, *outputs) is not None:  # holds the GIL: scratch is not shared
                self._guard_failed()
            return outputs
        return run if pick is None else (lambda arrays: run(arrays)[pick])

    def _call(self, args, out):
        arrays = self._arguments(args)
        outputs = self._outputs(out, arrays)
        if self._enter:
            return self._entered(arrays, outputs)
        owned = self._free.acquire(blocking=False)
        try:
            if owned:
                run = _Run(self, arrays, outputs, self._workspace, self._table)
            else:  # another thread is inside this program: use memory of our own
                workspace = np.empty(self.workspace_bytes, np.uint8)
                run = _Run(self, arrays, outputs, workspace, self._new_table(workspace))
            table = run.pointers
            for slot, a in zip(self._param_slots, arrays):
                table[slot] = address(a)
            for slot, o in zip(self._result_slots, outputs):
                table[slot] = address(o)
            for call in self._calls:
                call(run)
        finally:
            if owned:
                self._free.release()
        return outputs


class _Run:
    """One call's memory: the pointer table kernels read, and numpy arrays for the buffers
    that runtime steps read (made on demand)."""

    def __init__(self, program, arrays, outputs, workspace, pointers):
        self.program, self.arrays, self.outputs = program, arrays, outputs
        self.workspace, self.pointers, self.table = workspace, pointers, pointers.ctypes.data

    def array(self, buffer_id):
        b = self.program.buffers[buffer_id]
        if b.kind == "param":
            return self.arrays[b.index]
        if b.kind == "result":
            return self.outputs[b.index]
        if b.kind == "const":
            return self.program.constants[b.index]
        return self.workspace[b.offset:b.offset + b.nbytes].view(b.dtype.numpy)

    def operand(self, operand):
        base = self.array(operand.buffer)
        if 0 in operand.shape:  # no element to read; the offset may lie past an empty buffer
            return np.empty(operand.shape, base.dtype)
        size = base.itemsize
        return np.ndarray(operand.shape, base.dtype, base.reshape(-1), operand.offset * size,
                          tuple(s * size for s in operand.strides))


def _array_data_address():
    """The fastest way to read an array's data pointer: numpy's array struct keeps it right
    after the object header; checked here on live arrays, else the documented (slower) way."""
    offset = 2 * ctypes.sizeof(ctypes.c_void_p)
    read = ctypes.c_void_p.from_address
    probes = [np.empty(n, np.float32) for n in (1, 100, 100000)] + [np.ones(7)[2:]]
    if all(read(id(a) + offset).value == a.ctypes.data for a in probes):
        return lambda a: read(id(a) + offset).value
    return lambda a: a.ctypes.data


address = _array_data_address()


def _kernel(program, step: KernelCall):
    fn, n_chunks = program.native.functions[step.symbol], step.n_chunks
    if not step.threaded:
        return lambda run: fn(0, n_chunks, run.table)
    return lambda run: run_chunks(fn, n_chunks, run.table)


def _matmul(program, step: Matmul):
    shape = step.a.shape[:-1] + step.b.shape[-1:]
    rows = blas.rows_per_block(shape, step.a.shape[-1])

    if step.partials is not None:
        parts = program.buffers[step.partials].size // max(1, int(np.prod(shape)))

        def summed(run):
            partials = run.array(step.partials).reshape((parts, *shape))
            blas.matmul(run.operand(step.a), run.operand(step.b),
                        run.array(step.out).reshape(shape), rows, partials)
        return summed

    if step.tail is not None or step.next is not None:
        start_tail = _tail(program, step, rows)

        def call_and_tail(run):
            then, finish = start_tail(run)
            blas.matmul(run.operand(step.a), run.operand(step.b),
                        run.array(step.out).reshape(shape), rows, then=then)
            finish()
        return call_and_tail

    def call(run):
        out = run.array(step.out).reshape(shape)
        blas.matmul(run.operand(step.a), run.operand(step.b), out, rows)
    return call


def _tail(program, step: Matmul, rows: int):
    """run -> (then, finish): `then(k)` runs on block k of the product's rows once BLAS has
    written it (the tail kernel's chunk k, then the next product's rows of block k or its
    partial product k), `finish()` once every block is done (the sum of those partials)."""
    kernel = step.tail and program.native.functions[step.tail.symbol]
    after = step.next
    shape = after and after.a.shape[:-1] + after.b.shape[-1:]
    slices = after and after.partials is not None and \
        program.buffers[after.partials].size // max(1, int(np.prod(shape)))

    def start(run):
        table = run.table
        if after is not None:
            a, b = run.operand(after.a), run.operand(after.b)
            out = run.array(after.out).reshape(shape)
            partials = slices and run.array(after.partials).reshape((slices, *shape))

        def then(block):
            if kernel is not None:
                kernel(block, block + 1, table)
            i = block * rows
            if slices:  # the next product sums over these rows: its slice k
                np.matmul(a[..., i:i + rows], b[..., i:i + rows, :], out=partials[block])
            elif after is not None:
                np.matmul(a[..., i:i + rows, :], b, out=out[..., i:i + rows, :])

        def finish():
            if slices:
                blas.sum_slices(partials, out)
        return then, finish
    return start


def _library(program, step: LibraryCall):
    def call(run):
        with np.errstate(all="ignore"):
            result = step.evaluate(*map(run.operand, step.operands), **step.params)
        np.copyto(run.array(step.out).reshape(step.shape), result, casting="unsafe")
    return call


def _guard(program, step: Guard):
    def call(run):
        if bool(run.operand(step.pred)) != step.expected:
            raise GuardFailed(step.site, step.expected)
    return call


def _check_index(program, step: CheckIndex):
    def call(run):
        check_index_range(run.operand(step.index), bound=step.bound, low=step.low,
                          error=step.error, words=step.words)
    return call


def _check_exponent(program, step: CheckExponent):
    def call(run):
        if run.operand(step.exponent).min(initial=0) < 0:
            raise ValueError(NEGATIVE_POWER)
    return call


def _fail(program, step: Fail):
    def call(run):
        raise {"ValueError": ValueError}[step.error](step.message)
    return call


RUNNERS = {KernelCall: _kernel, Matmul: _matmul, LibraryCall: _library, Guard: _guard,
           CheckIndex: _check_index, CheckExponent: _check_exponent, Fail: _fail}


def _type_text(a: np.ndarray) -> str:
    return f"{a.dtype}[{','.join(map(str, a.shape))}]"


def _describe(o) -> str:
    return _type_text(o) if isinstance(o, np.ndarray) else type(o).__name__
