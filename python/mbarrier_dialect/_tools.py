"""Console-script entry points that run the bundled native tools."""
import os
import sys

from . import mbarrier_opt_path

# What LLVM's command line takes for --version (MlirOptMain would print
# only LLVM's version and exit).
_VERSION_FLAGS = ("--version", "-version")


def mbarrier_opt() -> None:
    """``mbarrier-opt``: the bundled MlirOptMain; ``--version`` prints the
    project's, MLIR/LLVM's and ptxas's versions."""
    args = sys.argv[1:]
    if any(a in _VERSION_FLAGS for a in args):
        from .versions import version_report

        print(version_report("mbarrier-opt"))
        sys.exit(0)
    exe = mbarrier_opt_path()
    os.execv(exe, [exe, *args])
