// Where declare_mlir_dialect_python_bindings puts the generated op and enum
// modules (dialects/_mbarrier_ops_gen.py, dialects/_mbarrier_enum_gen.py) is
// the directory of this wrapper; the dialect itself lives in dialect/include.
include "mbarrier/Dialect/MBarrier/IR/MBarrierOps.td"
