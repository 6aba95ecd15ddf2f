"""A program's native entry point: one function, called from Python as a builtin
(METH_FASTCALL), that points the buffer table at its array arguments, runs the kernels in
order and checks the guards, so a small cached call crosses into native code once."""
from __future__ import annotations

from llvmlite import ir

from gradjit.codegen.body import I8, I64
from gradjit.codegen.cpu import PTR
from gradjit.runtime.steps import ENTRY_SLOTS, KernelCall

# offsetof(PyArrayObject, data): the data pointer follows the refcount and the type pointer.
# The runtime checks this on live arrays before it calls an entry.
ARRAY_DATA = 16


def emit_entry(module: ir.Module, symbol: str, steps, array_slots, table_size: int) -> None:
    """`PyObject *symbol(PyObject *table, PyObject *const *arrays, Py_ssize_t n)`: `table` is a
    uint64 numpy array of `table_size` buffer pointers followed by ENTRY_SLOTS; `arrays[i]`'s
    data becomes buffer `array_slots[i]`. Returns None, or, when a guard fails, `table` with
    the guard's position + 1 in the status slot (a new reference either way)."""
    fn = ir.Function(module, ir.FunctionType(PTR, [PTR, PTR, I64]), symbol)
    fn.attributes.add("nounwind")
    self_, arrays, _ = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))

    def data(obj):
        return b.load(b.gep(obj, [I64(ARRAY_DATA)], source_etype=I8), typ=PTR)

    def slot(n):
        return b.gep(table, [I64(n)], source_etype=PTR)

    table = data(self_)
    for i, buffer in enumerate(array_slots):
        array = b.load(b.gep(arrays, [I64(i)], source_etype=PTR), typ=PTR)
        b.store(data(array), slot(buffer))
    status = slot(table_size + ENTRY_SLOTS["status"])
    kernel_type = ir.FunctionType(ir.VoidType(), [I64, I64, PTR])
    for position, step in enumerate(steps):
        if isinstance(step, KernelCall):
            kernel = module.globals.get(step.symbol) or ir.Function(module, kernel_type,
                                                                   step.symbol)
            b.call(kernel, [I64(0), I64(step.n_chunks), table])
            continue
        pred = step.pred
        where = b.gep(b.load(slot(pred.buffer), typ=PTR), [I64(pred.offset)], source_etype=I8)
        holds = b.icmp_unsigned("==", b.load(where, typ=I8), I8(int(step.expected)))
        with b.if_then(b.not_(holds), likely=False):
            b.store(I64(position + 1), status)
            _return(b, table, table_size, self_)
    none = b.load(slot(table_size + ENTRY_SLOTS["none"]), typ=PTR)
    _return(b, table, table_size, none)


def _return(b: ir.IRBuilder, table, table_size: int, obj) -> None:
    """Return `obj` as a new reference: Py_IncRef's address is in the table, so the object
    code names no symbol of the interpreter."""
    incref_type = ir.FunctionType(ir.VoidType(), [PTR]).as_pointer()
    where = b.gep(table, [I64(table_size + ENTRY_SLOTS["incref"])], source_etype=PTR)
    b.call(b.load(where, typ=incref_type), [obj])
    b.ret(obj)
