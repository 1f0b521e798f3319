"""Run lang-built integer code on the host: a function built with lang
values (and scf control flow), JIT-compiled by MLIR's ExecutionEngine, so
tests compare what the emitted ops compute with what Python computes."""
import ctypes

from mlir import ir
from mlir.dialects import func
from mlir.execution_engine import ExecutionEngine
from mlir.passmanager import PassManager

from mbarrier_dialect.lang import values as V

CTYPES = {"i1": ctypes.c_bool, "i8": ctypes.c_int8, "i16": ctypes.c_int16,
          "i32": ctypes.c_int32, "i64": ctypes.c_int64, "index": ctypes.c_int64,
          "f32": ctypes.c_float, "f64": ctypes.c_double}


def jit(arg_types, fn):
    """fn(*values) built into a host function, JIT-compiled; returns a Python
    callable and the result type name. i1 results come back as 0/1."""
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        types = [V.dtype(t) for t in arg_types]
        with ir.InsertionPoint(module.body):
            # The result type is known after building: build into a scratch function first.
            scratch = func.FuncOp("scratch", ir.FunctionType.get(types, []))
            with ir.InsertionPoint(scratch.add_entry_block()):
                probe = fn(*[V.wrap(a) for a in scratch.entry_block.arguments])
                result_type = probe.type
            scratch.operation.erase()
            f = func.FuncOp("f", ir.FunctionType.get(types, [result_type]))
            f.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
            entry = f.add_entry_block()
            with ir.InsertionPoint(entry):
                func.ReturnOp([fn(*[V.wrap(a) for a in entry.arguments])])
        PassManager.parse("builtin.module(convert-scf-to-cf,convert-arith-to-llvm,"
                          "convert-cf-to-llvm,convert-func-to-llvm,"
                          "reconcile-unrealized-casts)").run(module.operation)
        engine = ExecutionEngine(module, opt_level=0)
    name = str(result_type)

    def call(*args):
        cargs = [CTYPES[t](a) for t, a in zip(arg_types, args)]
        out = CTYPES[name]()
        engine.invoke("f", *[ctypes.pointer(c) for c in cargs], ctypes.pointer(out))
        return int(out.value) if name != "f32" and name != "f64" else out.value

    call.engine = engine  # keep it alive with the callable
    return call, name
