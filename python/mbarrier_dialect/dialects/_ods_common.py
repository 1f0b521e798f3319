# The ODS-generated modules import `._ods_common` from their own package: hand
# them the installed `mlir` package's helpers (underscored ones included), so
# that there is one MLIR in the process.
import mlir.dialects._ods_common as _upstream

globals().update(
    {k: v for k, v in vars(_upstream).items() if not k.startswith("__")}
)
