"""A program's native entry point: one function, called from Python as a builtin
(METH_FASTCALL), that checks its array arguments, points the buffer table at them, runs the
kernels in order and checks the guards, so a small cached call crosses into native code once."""
from __future__ import annotations

from llvmlite import ir

from gradjit.codegen.body import I8, I32, I64
from gradjit.codegen.cpu import PTR
from gradjit.runtime.native import ARRAY_FIELDS, C_CONTIGUOUS
from gradjit.runtime.steps import ARGUMENTS_DIFFER, ENTRY_SLOTS, KernelCall


def emit_entry(module: ir.Module, symbol: str, steps, array_slots, table_size: int,
               param_shapes) -> None:
    """`PyObject *symbol(PyObject *table, PyObject *const *arrays, Py_ssize_t n)`: `table` is a
    uint64 numpy array of `table_size` buffer pointers followed by ENTRY_SLOTS and each
    parameter's dtype object; `arrays[i]`'s data becomes buffer `array_slots[i]`. Returns
    None, or `table` with a status: ARGUMENTS_DIFFER unless there are as many arrays as slots
    and each parameter is a C-contiguous numpy array of its shape and dtype (no kernel ran
    then), else the failed guard's position + 1 (a new reference either way)."""
    fn = ir.Function(module, ir.FunctionType(PTR, [PTR, PTR, I64]), symbol)
    fn.attributes.add("nounwind")
    self_, arrays, count = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    differ = fn.append_basic_block("arguments_differ")

    def field(obj, name, typ):
        return b.load(b.gep(obj, [I64(ARRAY_FIELDS[name])], source_etype=I8), typ=typ)

    def slot(n):
        return b.gep(table, [I64(n)], source_etype=PTR)

    def expect(holds):
        b.position_at_start(_branch(b, holds, differ))

    table = field(self_, "data", PTR)
    expect(b.icmp_signed("==", count, I64(len(array_slots))))
    array_type = b.load(slot(table_size + ENTRY_SLOTS["array_type"]), typ=I64)
    for i, shape in enumerate(param_shapes):
        array = b.load(b.gep(arrays, [I64(i)], source_etype=PTR), typ=PTR)
        expect(b.icmp_unsigned("==", field(array, "type", I64), array_type))
        descr = b.load(slot(table_size + len(ENTRY_SLOTS) + i), typ=I64)
        expect(b.icmp_unsigned("==", field(array, "descr", I64), descr))
        expect(b.icmp_signed("==", field(array, "ndim", I32), I32(len(shape))))
        flags = b.and_(field(array, "flags", I32), I32(C_CONTIGUOUS))
        expect(b.icmp_unsigned("!=", flags, I32(0)))
        dims = field(array, "shape", PTR)
        for axis, extent in enumerate(shape):
            size = b.load(b.gep(dims, [I64(axis)], source_etype=I64), typ=I64)
            expect(b.icmp_signed("==", size, I64(extent)))
    for i, buffer in enumerate(array_slots):
        array = b.load(b.gep(arrays, [I64(i)], source_etype=PTR), typ=PTR)
        b.store(field(array, "data", PTR), slot(buffer))
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
    b.position_at_start(differ)
    b.store(I64(ARGUMENTS_DIFFER), slot(table_size + ENTRY_SLOTS["status"]))
    _return(b, table, table_size, self_)


def _branch(b: ir.IRBuilder, holds, otherwise) -> ir.Block:
    """Go on in a new block where `holds`, else to `otherwise` (unlikely); the new block."""
    then = b.function.append_basic_block()
    b.cbranch(holds, then, otherwise).set_weights([1000, 1])
    return then


def _return(b: ir.IRBuilder, table, table_size: int, obj) -> None:
    """Return `obj` as a new reference: Py_IncRef's address is in the table, so the object
    code names no symbol of the interpreter."""
    incref_type = ir.FunctionType(ir.VoidType(), [PTR]).as_pointer()
    where = b.gep(table, [I64(table_size + ENTRY_SLOTS["incref"])], source_etype=PTR)
    b.call(b.load(where, typ=incref_type), [obj])
    b.ret(obj)
